use serde::Deserialize;
use toolschema::Tool;

/// Stores a code.
#[derive(Tool, Deserialize)]
struct Store {
    #[tool(min_length = 8, max_length = 4)]
    code: String,
}

fn main() {}
