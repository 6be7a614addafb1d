use serde::Deserialize;
use toolschema::Schema;

#[derive(Schema, Deserialize)]
#[serde(deny_unknown_fields)]
#[tool(allow_unknown_fields)]
struct Address {
    street: String,
}

fn main() {}
