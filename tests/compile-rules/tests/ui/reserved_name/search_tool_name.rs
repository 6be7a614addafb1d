use serde::Deserialize;
use toolschema::Tool;

/// Finds tools.
#[derive(Tool, Deserialize)]
#[tool(name = "search_tools")]
struct Search {
    query: String,
}

fn main() {}
