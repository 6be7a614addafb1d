use serde::Deserialize;
use toolschema::Tool;

/// Sends an email.
#[derive(Tool, Deserialize)]
#[tool(name = "mail.send")]
#[tool(name = "mail.deliver")]
struct SendEmail {
    to: String,
}

fn main() {}
