use serde::Deserialize;
use toolschema::Tool;

/// Lists invoices.
#[derive(Tool, Deserialize)]
#[tool(icon(src = "https://acme.example/invoice.png", file = "icons/tool.bmp"))]
struct ListInvoices {
    customer: String,
}

fn main() {}
