use serde::Deserialize;
use toolschema::Schema;

#[derive(Schema, Deserialize)]
struct Address {
    #[tool(header = "Street")]
    street: String,
}

fn main() {}
