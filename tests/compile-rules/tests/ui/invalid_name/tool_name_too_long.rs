use serde::Deserialize;
use toolschema::Tool;

/// Does something.
#[derive(Tool, Deserialize)]
#[tool(name = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")]
struct Long {
    x: u8,
}

fn main() {}
