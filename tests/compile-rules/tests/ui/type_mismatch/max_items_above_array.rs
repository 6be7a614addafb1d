use serde::Deserialize;
use toolschema::Tool;

/// Draws a segment.
#[derive(Tool, Deserialize)]
struct Draw {
    #[tool(max_items = 5)]
    ends: [u8; 2],
}

fn main() {}
