use serde::Deserialize;
use toolschema::Tool;

/// Greets someone.
#[derive(Tool, Deserialize)]
struct Greet {
    #[serde(rename = "first name")]
    first_name: String,
}

fn main() {}
