//! The example billing service: three tools over invoices.
//!
//! `cargo run --example billing` prints the tool catalog as JSON.

use serde::{Deserialize, Serialize};
use toolschema::json::{Json, Object};
use toolschema::render::render_tool;
use toolschema::{Schema, Tool};

/// An invoice as the billing service returns it.
#[derive(Schema, Serialize, Deserialize)]
pub struct Invoice {
    /// The invoice's ID.
    pub id: uuid::Uuid,
    /// The customer billed.
    pub customer: String,
    /// The day the invoice was issued.
    pub issued_on: chrono::NaiveDate,
    /// Where the invoice stands.
    pub status: InvoiceStatus,
    /// The total, as a decimal string.
    pub total: rust_decimal::Decimal,
    /// The line items, when asked for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<LineItem>,
}

/// Where an invoice stands.
#[derive(Schema, Serialize, Deserialize, Clone, Copy)]
#[serde(rename_all = "snake_case")]
pub enum InvoiceStatus {
    /// Not yet sent to the customer.
    Draft,
    /// Sent and waiting for payment.
    Open,
    /// Paid in full.
    Paid,
    /// Cancelled; nothing is owed.
    Void,
}

/// One line of an invoice.
#[derive(Schema, Serialize, Deserialize)]
pub struct LineItem {
    /// The product's stock-keeping unit.
    pub sku: String,
    /// How many were sold.
    #[tool(minimum = 1)]
    pub quantity: u32,
    /// The price of one, as a decimal string.
    pub unit_price: rust_decimal::Decimal,
}

/// Returns one invoice by its ID, optionally with line items.
#[derive(Tool, Deserialize)]
#[tool(name = "billing.get-invoice", output = Invoice, annotations(read_only, idempotent))]
pub struct GetInvoice {
    /// The invoice's ID.
    pub invoice_id: uuid::Uuid,
    /// Include line items in the answer.
    #[serde(default)]
    pub include_items: bool,
}

/// A page of invoices.
#[derive(Schema, Serialize, Deserialize)]
pub struct InvoicePage {
    /// The invoices on this page, newest first.
    pub invoices: Vec<Invoice>,
    /// Pass this as `cursor` to get the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// Lists a customer's invoices, newest first.
///
/// Results come in pages; pass the returned cursor to get the next one.
#[derive(Tool, Deserialize)]
#[tool(name = "billing.list-invoices", output = InvoicePage, annotations(read_only))]
pub struct ListInvoices {
    /// The customer whose invoices to list.
    #[tool(min_length = 1, max_length = 64)]
    pub customer: String,
    /// Only invoices in this state.
    pub status: Option<InvoiceStatus>,
    /// How many invoices per page.
    #[serde(default = "default_limit")]
    #[tool(default = 20, minimum = 1, maximum = 100)]
    pub limit: u8,
    /// The cursor from the previous page.
    pub cursor: Option<String>,
}

fn default_limit() -> u8 {
    20
}

/// Voids an open invoice, so that nothing is owed on it.
#[derive(Tool, Deserialize)]
#[tool(
    name = "billing.void-invoice",
    title = "Void an invoice",
    output = Invoice,
    annotations(destructive, idempotent)
)]
pub struct VoidInvoice {
    /// The invoice to void.
    #[tool(rename = "invoiceId")]
    pub invoice_id: uuid::Uuid,
    /// Why the invoice is voided; kept in the audit log.
    #[tool(max_length = 500)]
    pub reason: String,
}

fn main() {
    let tools = [GetInvoice::TOOL, ListInvoices::TOOL, VoidInvoice::TOOL]
        .into_iter()
        .map(render_tool)
        .collect();
    let mut catalog = Object::new();
    catalog.insert("tools", Json::Array(tools));
    println!("{}", Json::Object(catalog).to_pretty_string());
}
