use serde::Deserialize;
use toolschema::Tool;

/// Greets someone.
#[derive(Tool, Deserialize)]
struct Greet {
    #[tool(rename = "name/first")]
    first_name: String,
}

fn main() {}
