use serde::Deserialize;
use toolschema::Tool;

/// Lists names.
#[derive(Tool, Deserialize)]
#[tool(output = Vec<String>)]
struct ListNames {
    prefix: String,
}

fn main() {}
