use serde::Deserialize;
use toolschema::Tool;

/// Sends an email.
#[derive(Tool, Deserialize)]
struct SendEmail {
    #[tool(format = "emial")]
    to: String,
}

fn main() {}
