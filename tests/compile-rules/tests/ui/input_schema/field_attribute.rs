use serde::Deserialize;
use toolschema::Tool;

/// Saves a contact.
#[derive(Tool, Deserialize)]
#[tool(input_schema = "schemas/contact.json")]
struct SaveContact {
    #[tool(rename = "fullName", max_length = 80)]
    name: String,
}

fn main() {}
