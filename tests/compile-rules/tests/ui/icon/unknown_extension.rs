use serde::Deserialize;
use toolschema::Tool;

/// Lists invoices.
#[derive(Tool, Deserialize)]
#[tool(icon(file = "icons/tool.bmp"))]
struct ListInvoices {
    customer: String,
}

fn main() {}
