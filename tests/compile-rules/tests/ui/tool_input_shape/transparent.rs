use serde::Deserialize;
use toolschema::Tool;

/// Looks up a word.
#[derive(Tool, Deserialize)]
#[serde(transparent)]
struct Lookup {
    word: String,
}

fn main() {
    let _ = toolschema::tool_json::<Lookup>();
}
