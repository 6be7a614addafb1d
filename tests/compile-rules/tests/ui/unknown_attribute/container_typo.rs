use serde::Deserialize;
use toolschema::Tool;

/// Sends an email.
#[derive(Tool, Deserialize)]
#[tool(nmae = "mail.send")]
struct SendEmail {
    to: String,
}

fn main() {
    let _ = toolschema::tool_json::<SendEmail>();
}
