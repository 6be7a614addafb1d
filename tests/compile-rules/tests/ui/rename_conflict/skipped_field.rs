use serde::Deserialize;
use toolschema::Tool;

/// Lists users.
#[derive(Tool, Deserialize)]
struct ListUsers {
    team: String,
    #[serde(skip)]
    #[tool(rename = "cache")]
    cache: u32,
}

fn main() {}
