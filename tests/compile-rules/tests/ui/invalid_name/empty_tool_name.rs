use serde::Deserialize;
use toolschema::Tool;

/// Does something.
#[derive(Tool, Deserialize)]
#[tool(name = "")]
struct Empty {
    x: u8,
}

fn main() {}
