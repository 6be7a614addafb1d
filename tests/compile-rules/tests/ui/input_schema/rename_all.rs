use serde::Deserialize;
use toolschema::Tool;

/// Saves a contact.
#[derive(Tool, Deserialize)]
#[tool(input_schema = "schemas/contact.json", rename_all = "camelCase")]
struct SaveContact {
    name: String,
}

fn main() {}
