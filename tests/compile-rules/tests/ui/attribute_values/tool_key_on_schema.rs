use serde::Deserialize;
use toolschema::Schema;

#[derive(Schema, Deserialize)]
#[tool(name = "address", version = 2)]
struct Address {
    street: String,
}

fn main() {}
