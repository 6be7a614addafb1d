//! The demo catalog of toolschema: billing tools for the tenant `acme`,
//! support tools for the tenant `globex`, with in-memory handlers, and the
//! configuration in `examples/catalog.toml` that governs them.

use serde::{Deserialize, Serialize};
use toolschema::call::{
    Content, Context, Elicitation, Handler, LogLevel, Registry, ToolError, ToolResult,
};
use toolschema::catalog::Catalog;
use toolschema::{Schema, Tool};

/// The demo configuration: two tenants, three clients, all three modes.
pub const CATALOG_TOML: &str = include_str!("../../catalog.toml");

/// An invoice as the billing service returns it.
#[derive(Schema, Serialize, Deserialize, Debug, Clone, PartialEq)]
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
#[derive(Schema, Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
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
#[derive(Schema, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct LineItem {
    /// The product's stock-keeping unit.
    pub sku: String,
    /// How many were sold.
    #[tool(minimum = 1)]
    pub quantity: u32,
    /// The price of one, as a decimal string.
    pub unit_price: rust_decimal::Decimal,
}

fn invoices() -> Vec<Invoice> {
    let day = |d| chrono::NaiveDate::from_ymd_opt(2026, 11, d).unwrap_or_default();
    vec![
        Invoice {
            id: uuid::Uuid::from_u128(0x0c1e_55aa_0000_4000_8000_0000_0000_0001),
            customer: "cust-42".into(),
            issued_on: day(2),
            status: InvoiceStatus::Paid,
            total: rust_decimal::Decimal::new(12_500, 2),
            items: vec![LineItem {
                sku: "BOOK-1".into(),
                quantity: 5,
                unit_price: rust_decimal::Decimal::new(2_500, 2),
            }],
        },
        Invoice {
            id: uuid::Uuid::from_u128(0x0c1e_55aa_0000_4000_8000_0000_0000_0002),
            customer: "cust-42".into(),
            issued_on: day(20),
            status: InvoiceStatus::Open,
            total: rust_decimal::Decimal::new(4_990, 2),
            items: vec![],
        },
    ]
}

/// Returns one invoice by its ID, optionally with line items.
#[derive(Tool, Deserialize, Debug)]
#[tool(name = "billing.get-invoice", output = Invoice, annotations(read_only, idempotent))]
pub struct GetInvoice {
    /// The invoice's ID.
    pub invoice_id: uuid::Uuid,
    /// Include line items in the answer.
    #[serde(default)]
    pub include_items: bool,
}

impl Handler for GetInvoice {
    async fn call(self, _ctx: Context) -> Result<Invoice, ToolError> {
        let mut invoice = invoices()
            .into_iter()
            .find(|i| i.id == self.invoice_id)
            .ok_or_else(|| ToolError::new(format!("No invoice has the ID {}.", self.invoice_id)))?;
        if !self.include_items {
            invoice.items.clear();
        }
        Ok(invoice)
    }
}

/// A page of invoices.
#[derive(Schema, Serialize, Deserialize, Debug)]
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
#[derive(Tool, Deserialize, Debug)]
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

impl Handler for ListInvoices {
    async fn call(self, _ctx: Context) -> Result<InvoicePage, ToolError> {
        let mut found: Vec<Invoice> = invoices()
            .into_iter()
            .filter(|i| i.customer == self.customer)
            .filter(|i| self.status.is_none_or(|s| s == i.status))
            .collect();
        found.sort_by_key(|i| core::cmp::Reverse(i.issued_on));
        found.truncate(usize::from(self.limit));
        Ok(InvoicePage {
            invoices: found,
            next_cursor: None,
        })
    }
}

/// Voids an open invoice, so that nothing is owed on it.
#[derive(Tool, Deserialize, Debug)]
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

impl Handler for VoidInvoice {
    async fn call(self, _ctx: Context) -> Result<Invoice, ToolError> {
        let mut invoice = invoices()
            .into_iter()
            .find(|i| i.id == self.invoice_id)
            .ok_or_else(|| ToolError::new(format!("No invoice has the ID {}.", self.invoice_id)))?;
        if invoice.status == InvoiceStatus::Paid {
            return Err(ToolError::new(
                "A paid invoice cannot be voided; issue a refund instead.",
            ));
        }
        invoice.status = InvoiceStatus::Void;
        Ok(invoice)
    }
}

/// A refund.
#[derive(Schema, Serialize, Deserialize, Debug)]
pub struct Refund {
    /// The refund's ID.
    pub refund_id: String,
    /// The amount refunded, as a decimal string.
    pub amount: rust_decimal::Decimal,
}

/// Refunds part or all of a paid invoice.
#[derive(Tool, Deserialize, Debug)]
#[tool(name = "billing.refund", version = 1, output = Refund, annotations(destructive))]
pub struct RefundV1 {
    /// The paid invoice.
    pub invoice_id: uuid::Uuid,
    /// How much to refund, as a decimal string.
    pub amount: rust_decimal::Decimal,
}

impl Handler for RefundV1 {
    async fn call(self, _ctx: Context) -> Result<Refund, ToolError> {
        Ok(Refund {
            refund_id: format!("rf-{}", self.invoice_id.simple()),
            amount: self.amount,
        })
    }
}

/// Refunds part or all of a paid invoice, with a reason for the customer.
#[derive(Tool, Deserialize, Debug)]
#[tool(name = "billing.refund", version = 2, output = Refund, annotations(destructive))]
pub struct RefundV2 {
    /// The paid invoice.
    pub invoice_id: uuid::Uuid,
    /// How much to refund, as a decimal string.
    pub amount: rust_decimal::Decimal,
    /// Shown to the customer.
    #[tool(min_length = 1)]
    pub reason: String,
}

impl Handler for RefundV2 {
    async fn call(self, _ctx: Context) -> Result<Refund, ToolError> {
        Ok(Refund {
            refund_id: format!("rf2-{}", self.invoice_id.simple()),
            amount: self.amount,
        })
    }
}

/// Rebuilds the billing search index. Operators only.
#[derive(Tool, Deserialize, Debug)]
#[tool(name = "internal.reindex", internal)]
pub struct Reindex {
    /// Rebuild from scratch.
    #[serde(default)]
    pub full: bool,
}

impl Handler for Reindex {
    async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::json(
            &serde_json::json!({"reindexed": true, "full": self.full}),
        ))
    }
}

/// A 1×1 PNG: the demo's stand-in for a rendered chart.
const CHART_PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x08, 0xd7, 0x63, 0xf8, 0xcf, 0xc0, 0x00,
    0x00, 0x03, 0x01, 0x01, 0x00, 0x18, 0xdd, 0x8d, 0xb0, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

/// Draws a customer's statement as a chart, reporting progress while it
/// renders.
#[derive(Tool, Deserialize, Debug)]
#[tool(
    name = "billing.statement-chart",
    annotations(read_only),
    icon(file = "../icons/chart.svg", sizes = ["any"])
)]
pub struct StatementChart {
    /// The customer whose statement to draw.
    #[tool(min_length = 1, max_length = 64)]
    pub customer: String,
}

impl Handler for StatementChart {
    async fn call(self, ctx: Context) -> Result<ToolResult, ToolError> {
        let steps = ["reading invoices", "totalling", "drawing"];
        for (i, step) in steps.iter().enumerate() {
            ctx.progress_message(i as f64, Some(steps.len() as f64), step);
            ctx.log(LogLevel::Info, step);
        }
        ctx.progress(steps.len() as f64, Some(steps.len() as f64));
        let paid = invoices()
            .iter()
            .filter(|i| i.customer == self.customer)
            .count();
        Ok(ToolResult::text(format!(
            "Statement of {}: {paid} invoice(s).",
            self.customer
        ))
        .with(Content::image(CHART_PNG, "image/png")))
    }
}

/// What one customer owes.
#[derive(Schema, Serialize, Deserialize, Debug)]
pub struct Balance {
    /// The customer.
    pub customer: String,
    /// The total of the customer's open invoices.
    pub outstanding: rust_decimal::Decimal,
}

/// Lists what each customer owes on open invoices, largest balance first.
///
/// The result is a list (MCP 2026-07-28); clients of older revisions get it
/// as `{"result": [...]}`.
#[derive(Tool, Deserialize, Debug)]
#[tool(
    name = "billing.open-balances",
    output = Vec<Balance>,
    annotations(read_only, idempotent),
    icon(file = "../icons/balances.svg", sizes = ["any"], theme = "light")
)]
pub struct OpenBalances {
    /// At most this many customers; all of them if absent.
    #[tool(minimum = 1)]
    pub limit: Option<u32>,
}

impl Handler for OpenBalances {
    async fn call(self, _ctx: Context) -> Result<Vec<Balance>, ToolError> {
        let mut balances: Vec<Balance> = Vec::new();
        for invoice in invoices() {
            if !matches!(invoice.status, InvoiceStatus::Open) {
                continue;
            }
            match balances.iter_mut().find(|b| b.customer == invoice.customer) {
                Some(balance) => balance.outstanding += invoice.total,
                None => balances.push(Balance {
                    customer: invoice.customer,
                    outstanding: invoice.total,
                }),
            }
        }
        balances.sort_by_key(|b| std::cmp::Reverse(b.outstanding));
        balances.truncate(self.limit.map_or(usize::MAX, |n| n as usize));
        Ok(balances)
    }
}

/// What closing a billing period asks the user.
#[derive(Schema, Serialize, Deserialize, Debug)]
pub struct CloseConfirmation {
    /// Close the period: its invoices can no longer change.
    pub confirm: bool,
}

/// Closes a billing period, after the user confirms.
#[derive(Tool, Deserialize, Debug)]
#[tool(name = "billing.close-period", annotations(destructive, idempotent))]
pub struct ClosePeriod {
    /// The period, as `YYYY-MM`.
    #[tool(pattern = "^[0-9]{4}-[0-9]{2}$")]
    pub period: String,
}

impl Handler for ClosePeriod {
    async fn call(self, ctx: Context) -> Result<ToolResult, ToolError> {
        let question = format!(
            "Close the billing period {}? Its invoices can no longer change.",
            self.period
        );
        let confirmed = matches!(
            ctx.elicit::<CloseConfirmation>("confirm", &question)
                .await?,
            Elicitation::Accept(CloseConfirmation { confirm: true })
        );
        Ok(ToolResult::text(match confirmed {
            true => format!("Period {} closed.", self.period),
            false => format!("Period {} left open.", self.period),
        }))
    }
}

/// A support ticket.
#[derive(Schema, Serialize, Deserialize, Debug)]
pub struct Ticket {
    /// The ticket's number.
    pub number: u64,
    /// Its subject.
    pub subject: String,
    /// How urgent it is.
    pub priority: Priority,
}

/// How urgent a ticket is.
#[derive(Schema, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    /// Within a week.
    Low,
    /// Within a day.
    Normal,
    /// Within the hour.
    Urgent,
}

/// Opens a support ticket for a customer.
#[derive(Tool, Deserialize, Debug)]
#[tool(name = "support.open-ticket", output = Ticket)]
pub struct OpenTicket {
    /// A one-line summary.
    #[tool(min_length = 3, max_length = 120)]
    pub subject: String,
    /// What happened, in detail.
    pub body: String,
    /// How urgent it is.
    pub priority: Priority,
    /// Where to send updates.
    #[tool(format = "email")]
    pub contact_email: Option<String>,
}

impl Handler for OpenTicket {
    async fn call(self, _ctx: Context) -> Result<Ticket, ToolError> {
        Ok(Ticket {
            number: 1001,
            subject: self.subject,
            priority: self.priority,
        })
    }
}

/// Matching tickets.
#[derive(Schema, Serialize, Deserialize, Debug)]
pub struct TicketList {
    /// The tickets found.
    pub tickets: Vec<Ticket>,
}

/// Searches support tickets by words in their subject.
#[derive(Tool, Deserialize, Debug)]
#[tool(name = "support.search-tickets", output = TicketList, annotations(read_only))]
pub struct SearchTickets {
    /// Words to look for.
    #[tool(min_length = 1)]
    pub query: String,
    /// Only tickets this urgent.
    pub priority: Option<Priority>,
}

impl Handler for SearchTickets {
    async fn call(self, _ctx: Context) -> Result<TicketList, ToolError> {
        let ticket = Ticket {
            number: 1000,
            subject: format!("Re: {}", self.query),
            priority: self.priority.unwrap_or(Priority::Normal),
        };
        Ok(TicketList {
            tickets: vec![ticket],
        })
    }
}

/// The demo catalog: every demo tool ([`registry`]) governed by
/// [`CATALOG_TOML`] (named `examples/catalog.toml` in messages).
pub fn catalog() -> Catalog {
    Catalog::from_toml(registry(), CATALOG_TOML, "examples/catalog.toml")
        .expect("the demo configuration is valid; the suite holds it so")
}

/// Every demo tool, registered.
pub fn registry() -> Registry {
    let mut registry = Registry::new();
    registry
        .register::<GetInvoice>()
        .and_then(|r| r.register::<ListInvoices>())
        .and_then(|r| r.register::<VoidInvoice>())
        .and_then(|r| r.register::<RefundV1>())
        .and_then(|r| r.register::<RefundV2>())
        .and_then(|r| r.register::<Reindex>())
        .and_then(|r| r.register::<OpenTicket>())
        .and_then(|r| r.register::<SearchTickets>())
        .and_then(|r| r.register::<StatementChart>())
        .and_then(|r| r.register::<ClosePeriod>())
        .and_then(|r| r.register::<OpenBalances>())
        .expect("every demo tool has its own name and version");
    registry
}
