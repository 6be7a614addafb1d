use serde::Deserialize;
use toolschema::Tool;

/// Lists invoices.
#[derive(Tool, Deserialize)]
#[tool(icon(url = "https://acme.example/invoice.png"))]
struct ListInvoices {
    customer: String,
}

fn main() {}
