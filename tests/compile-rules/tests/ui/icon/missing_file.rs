use serde::Deserialize;
use toolschema::Tool;

/// Lists invoices.
#[derive(Tool, Deserialize)]
#[tool(icon(file = "icons/nowhere.png"))]
struct ListInvoices {
    customer: String,
}

fn main() {}
