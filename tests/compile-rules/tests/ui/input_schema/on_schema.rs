use serde::Deserialize;
use toolschema::Schema;

#[derive(Schema, Deserialize)]
#[tool(input_schema = "schemas/contact.json")]
struct Contact {
    name: String,
}

fn main() {}
