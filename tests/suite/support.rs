//! Small helpers the suite's modules share.

use serde_json::Value;

/// The `name` of each tool in a JSON array of tools (`null` gives none).
pub fn tool_names(tools: &Value) -> Vec<&str> {
    tools
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tool| tool["name"].as_str())
        .collect()
}
