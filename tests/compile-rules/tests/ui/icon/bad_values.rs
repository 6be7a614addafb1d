use serde::Deserialize;
use toolschema::Tool;

/// Lists invoices.
#[derive(Tool, Deserialize)]
#[tool(icon(src = "https://acme.example/invoice.png", mime_type = "png", sizes = ["48", "any", "16x16px"], theme = "drak"))]
struct ListInvoices {
    customer: String,
}

fn main() {}
