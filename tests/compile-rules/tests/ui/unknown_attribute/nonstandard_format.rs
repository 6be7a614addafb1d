use serde::Deserialize;
use toolschema::Tool;

/// Stores a count.
#[derive(Tool, Deserialize)]
struct Store {
    #[tool(format = "int64")]
    count: String,
}

fn main() {}
