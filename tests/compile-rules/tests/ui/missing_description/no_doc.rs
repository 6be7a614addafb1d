use serde::Deserialize;
use toolschema::Tool;

#[derive(Tool, Deserialize)]
struct Undocumented {
    x: u8,
}

fn main() {
    let _ = toolschema::tool_json::<Undocumented>();
}
