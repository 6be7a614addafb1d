use serde::Deserialize;
use toolschema::Tool;

/// Sends an email.
#[derive(Tool, Deserialize)]
struct SendEmail {
    #[tool(colour = "blue")]
    to: String,
}

fn main() {}
