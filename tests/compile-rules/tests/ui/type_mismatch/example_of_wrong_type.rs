use serde::Deserialize;
use toolschema::Tool;

/// Stores a count.
#[derive(Tool, Deserialize)]
struct Store {
    #[tool(examples = ["ten"])]
    count: u32,
}

fn main() {}
