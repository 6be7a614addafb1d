use serde::Deserialize;
use toolschema::Tool;

/// Finds an invoice.
#[derive(Tool, Deserialize)]
#[tool(name = "find_invoice")]
struct FindInvoice {
    /// The invoice number.
    #[tool(header = "Invoice Number")]
    number: String,
}

fn main() {}
