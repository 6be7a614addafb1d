use serde::Deserialize;
use toolschema::Tool;

/// Lists users.
#[derive(Tool, Deserialize)]
struct ListUsers {
    #[serde(rename(serialize = "teamName", deserialize = "team"))]
    team: String,
}

fn main() {}
