use serde::Deserialize;
use toolschema::Tool;

struct Report {
    lines: Vec<String>,
}

/// Builds a report.
#[derive(Tool, Deserialize)]
#[tool(output = Report)]
struct BuildReport {
    title: String,
}

fn main() {}
