use serde::Deserialize;
use toolschema::Tool;

/// Deletes a file.
#[derive(Tool, Deserialize)]
#[tool(annotations(destructve))]
struct DeleteFile {
    path: String,
}

fn main() {}
