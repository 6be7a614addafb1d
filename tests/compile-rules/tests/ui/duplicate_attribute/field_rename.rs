use serde::Deserialize;
use toolschema::Tool;

/// Sends an email.
#[derive(Tool, Deserialize)]
struct SendEmail {
    #[tool(rename = "recipient", rename = "to_address")]
    to: String,
}

fn main() {}
