use serde::Deserialize;
use toolschema::Tool;

/// Picks a color.
#[derive(Tool, Deserialize)]
enum Pick {
    Red,
    Green,
}

fn main() {
    let _ = toolschema::tool_json::<Pick>();
}
