use serde::Deserialize;
use toolschema::Tool;

/// Lists invoices.
#[derive(Tool, Deserialize)]
#[tool(icon(mime_type = "image/png"))]
struct ListInvoices {
    customer: String,
}

fn main() {}
