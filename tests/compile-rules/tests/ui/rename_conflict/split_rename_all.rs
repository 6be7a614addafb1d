use serde::Deserialize;
use toolschema::Tool;

/// Lists users.
#[derive(Tool, Deserialize)]
#[serde(rename_all(serialize = "camelCase", deserialize = "snake_case"))]
struct ListUsers {
    team_name: String,
}

fn main() {}
