use serde::Deserialize;
use toolschema::Tool;

/// Finds a schema.
#[derive(Tool, Deserialize)]
#[tool(name = "discover_tool_schema")]
struct Discover {
    name: String,
}

fn main() {}
