use serde::Deserialize;
use toolschema::Tool;

/// Stores a byte.
#[derive(Tool, Deserialize)]
struct Store {
    #[tool(maximum = 300)]
    byte: u8,
}

fn main() {}
