use serde::Deserialize;
use toolschema::Tool;

/// Tags an invoice.
#[derive(Tool, Deserialize)]
#[tool(name = "tag_invoice")]
struct TagInvoice {
    /// The tags to add.
    #[tool(header = "Tags")]
    tags: Vec<String>,
}

fn main() {}
