use serde::Deserialize;
use toolschema::Tool;

/// Stores tags.
#[derive(Tool, Deserialize)]
struct Store {
    #[serde(flatten)]
    tags: Vec<String>,
}

fn main() {}
