use serde::Deserialize;
use toolschema::Tool;

/// Saves a contact.
#[derive(Tool, Deserialize)]
#[tool(input_schema = "schemas/draft07.json")]
struct SaveContact {
    name: String,
}

fn main() {}
