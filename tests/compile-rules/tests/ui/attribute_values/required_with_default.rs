use serde::Deserialize;
use toolschema::Tool;

/// Lists users.
#[derive(Tool, Deserialize)]
struct ListUsers {
    #[serde(default)]
    #[tool(required)]
    team: Option<String>,
}

fn main() {}
