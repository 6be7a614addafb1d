use serde::Deserialize;
use toolschema::Tool;

/// Runs a job.
#[derive(Tool, Deserialize)]
struct RunJob {
    #[tool(rename = "_schema_discovery")]
    hint: String,
}

fn main() {}
