use serde::Deserialize;
use toolschema::Tool;

/// Finds a user.
#[derive(Tool, Deserialize)]
#[tool(rename_all = "camelcase")]
struct FindUser {
    user_id: u64,
}

fn main() {}
