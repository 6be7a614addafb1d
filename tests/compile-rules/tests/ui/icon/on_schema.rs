use serde::Deserialize;
use toolschema::Schema;

#[derive(Schema, Deserialize)]
#[tool(icon(src = "https://acme.example/invoice.png"))]
struct Invoice {
    number: String,
}

fn main() {}
