use serde::Deserialize;
use toolschema::Tool;

/// Stores tags.
#[derive(Tool, Deserialize)]
struct Store {
    #[tool(min_items = 3, max_items = 1)]
    tags: Vec<String>,
}

fn main() {}
