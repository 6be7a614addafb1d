use serde::Deserialize;
use toolschema::Tool;

/// Sends an email.
#[derive(Tool, Deserialize)]
struct SendEmail {
    #[tool(renam = "recipient")]
    to: String,
}

fn main() {
    let _ = toolschema::tool_json::<SendEmail>();
}
