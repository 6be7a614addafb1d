use serde::Deserialize;
use toolschema::Tool;

/// Saves a contact.
#[derive(Tool, Deserialize)]
#[tool(input_schema = "schemas/array.json")]
struct SaveContact {
    name: String,
}

fn main() {}
