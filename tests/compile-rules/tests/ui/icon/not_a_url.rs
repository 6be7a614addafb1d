use serde::Deserialize;
use toolschema::Tool;

/// Lists invoices.
#[derive(Tool, Deserialize)]
#[tool(icon(src = "invoice.png"), icon(src = "ftp://acme.example/invoice.png"), icon(src = "data:text/plain;base64,aGk="))]
struct ListInvoices {
    customer: String,
}

fn main() {}
