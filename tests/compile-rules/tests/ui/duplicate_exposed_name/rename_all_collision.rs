use serde::Deserialize;
use toolschema::Tool;

/// Finds a user.
#[derive(Tool, Deserialize)]
#[tool(rename_all = "camelCase")]
struct FindUser {
    user_id: u64,
    #[tool(rename = "userId")]
    other_id: u64,
}

fn main() {
    let _ = toolschema::tool_json::<FindUser>();
}
