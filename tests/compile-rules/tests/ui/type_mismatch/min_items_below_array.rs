use serde::Deserialize;
use toolschema::Tool;

/// Sets a colour.
#[derive(Tool, Deserialize)]
struct Paint {
    #[tool(min_items = 2)]
    rgba: [u8; 4],
}

fn main() {}
