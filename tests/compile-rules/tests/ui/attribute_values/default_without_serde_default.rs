use serde::Deserialize;
use toolschema::Tool;

/// Lists users.
#[derive(Tool, Deserialize)]
struct ListUsers {
    #[tool(default = 20)]
    limit: u32,
}

fn main() {}
