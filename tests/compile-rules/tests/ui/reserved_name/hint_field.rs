use serde::Deserialize;
use toolschema::Tool;

/// Runs a job.
#[derive(Tool, Deserialize)]
struct RunJob {
    _schema_discovery: String,
}

fn main() {}
