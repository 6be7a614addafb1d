use serde::Deserialize;
use toolschema::Tool;

/// Files a document under a letter.
#[derive(Tool, Deserialize)]
struct File {
    #[tool(max_length = 3)]
    letter: char,
}

fn main() {}
