use serde::Deserialize;
use toolschema::Tool;

/// Sends an email.
#[derive(Tool, Deserialize)]
#[tool(version = 0)]
struct SendEmail {
    to: String,
}

fn main() {}
