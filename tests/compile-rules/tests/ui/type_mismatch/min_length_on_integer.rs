use serde::Deserialize;
use toolschema::Tool;

/// Stores a count.
#[derive(Tool, Deserialize)]
struct Store {
    #[tool(min_length = 1)]
    count: u32,
}

fn main() {}
