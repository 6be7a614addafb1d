use serde::Deserialize;
use toolschema::Tool;

/// Stores a name.
#[derive(Tool, Deserialize)]
struct Store {
    #[tool(max_items = 3)]
    name: String,
}

fn main() {}
