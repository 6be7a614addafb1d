use serde::Deserialize;
use toolschema::Tool;

/// Adds two numbers.
#[derive(Tool, Deserialize)]
struct Add(i32, i32);

fn main() {
    let _ = toolschema::tool_json::<Add>();
}
