use serde::Deserialize;
use toolschema::Tool;

/// Stores a value.
#[derive(Tool, Deserialize)]
struct Store {
    value: String,
    #[tool(skip)]
    trace: String,
}

fn main() {}
