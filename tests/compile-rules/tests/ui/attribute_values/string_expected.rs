use serde::Deserialize;
use toolschema::Tool;

/// Sends an email.
#[derive(Tool, Deserialize)]
#[tool(name = mail_send, title = 7)]
struct SendEmail {
    to: String,
}

fn main() {}
