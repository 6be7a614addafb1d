use serde::Deserialize;
use toolschema::Tool;

/// Moves an invoice between regions.
#[derive(Tool, Deserialize)]
#[tool(name = "move_invoice")]
struct MoveInvoice {
    /// Where the invoice is.
    #[tool(header = "Region")]
    from: String,
    /// Where it goes.
    #[tool(header = "region")]
    to: String,
}

fn main() {}
