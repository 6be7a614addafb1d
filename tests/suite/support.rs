//! Small helpers the suite's modules share.

use serde_json::Value;

pub use toolschema_test_support::violations;

/// The `name` of each tool in a JSON array of tools (`null` gives none).
pub fn tool_names(tools: &Value) -> Vec<&str> {
    tools
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tool| tool["name"].as_str())
        .collect()
}

/// The demo catalog's tools, in list order.
pub const DEMO_TOOLS: [&str; 6] = [
    "billing.get-invoice",
    "billing.list-invoices",
    "billing.refund",
    "billing.void-invoice",
    "support.open-ticket",
    "support.search-tickets",
];
