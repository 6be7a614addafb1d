use serde::Deserialize;
use toolschema::Tool;

/// Finds an invoice.
#[derive(Tool, Deserialize)]
#[tool(name = "find_invoice")]
struct FindInvoice {
    /// The invoice number.
    number: String,
    #[serde(skip)]
    #[tool(header = "Trace")]
    trace: String,
}

fn main() {}
