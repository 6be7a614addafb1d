use serde::Deserialize;
use toolschema::{Schema, Tool};

#[derive(Schema, Deserialize)]
struct Paging {
    page: u32,
}

/// Lists users.
#[derive(Tool, Deserialize)]
struct ListUsers {
    #[serde(flatten)]
    #[tool(rename = "paging")]
    paging: Paging,
}

fn main() {}
