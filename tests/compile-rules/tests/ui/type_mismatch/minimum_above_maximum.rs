use serde::Deserialize;
use toolschema::Tool;

/// Stores a count.
#[derive(Tool, Deserialize)]
struct Store {
    #[tool(minimum = 10, maximum = 5)]
    count: u32,
}

fn main() {}
