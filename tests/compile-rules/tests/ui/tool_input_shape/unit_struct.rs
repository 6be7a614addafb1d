use serde::Deserialize;
use toolschema::Tool;

/// Pings the server.
#[derive(Tool, Deserialize)]
struct Ping;

fn main() {
    let _ = toolschema::tool_json::<Ping>();
}
