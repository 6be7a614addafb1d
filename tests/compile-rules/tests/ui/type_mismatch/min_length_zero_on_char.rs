use serde::Deserialize;
use toolschema::Tool;

/// Files a document, under a letter if given.
#[derive(Tool, Deserialize)]
struct File {
    #[tool(min_length = 0)]
    letter: Option<char>,
}

fn main() {}
