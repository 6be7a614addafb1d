use serde::Deserialize;
use toolschema::Tool;

/// Finds a user.
#[derive(Tool, Deserialize)]
struct FindUser {
    user_id: u64,
    #[tool(rename = "user_id")]
    legacy_id: u64,
}

fn main() {
    let _ = toolschema::tool_json::<FindUser>();
}
