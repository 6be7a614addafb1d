//! Obtaining and rendering a tool's schema: toolschema against schemars, on
//! the same structs. Results and ratios are in `benches/README.md`.

#![allow(missing_docs, unreachable_pub, dead_code)]

use criterion::{Criterion, criterion_group, criterion_main};
use serde::{Deserialize, Serialize};
use std::hint::black_box;

/// Where an invoice stands.
#[derive(toolschema::Schema, schemars::JsonSchema, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Not yet sent.
    Draft,
    /// Waiting for payment.
    Open,
    /// Paid in full.
    Paid,
}

/// One line of an invoice.
#[derive(toolschema::Schema, schemars::JsonSchema, Serialize, Deserialize)]
pub struct LineItem {
    /// The product's stock-keeping unit.
    pub sku: String,
    /// How many were sold.
    pub quantity: u32,
    /// The price of one, in cents.
    pub unit_price_cents: u64,
}

/// An invoice.
#[derive(toolschema::Schema, schemars::JsonSchema, Serialize, Deserialize)]
pub struct Invoice {
    /// The invoice's ID.
    pub id: String,
    /// The customer billed.
    pub customer: String,
    /// Where the invoice stands.
    pub status: Status,
    /// The line items.
    pub items: Vec<LineItem>,
    /// A note for the customer.
    pub note: Option<String>,
}

/// Lists a customer's invoices, newest first.
#[derive(toolschema::Tool, schemars::JsonSchema, Deserialize)]
#[tool(name = "billing.list-invoices", output = Invoice)]
pub struct ListInvoices {
    /// The customer whose invoices to list.
    pub customer: String,
    /// Only invoices in this state.
    pub status: Option<Status>,
    /// How many invoices per page.
    #[serde(default)]
    pub limit: u8,
    /// The cursor from the previous page.
    pub cursor: Option<String>,
    /// Line items to look for.
    pub skus: Vec<String>,
}

fn access(c: &mut Criterion) {
    let mut group = c.benchmark_group("schema_access");
    group.bench_function("toolschema", |b| {
        b.iter(|| {
            let tool = black_box(<ListInvoices as toolschema::Tool>::TOOL);
            let input: &toolschema::model::Node = &tool.input;
            let output = tool.output.as_deref();
            black_box((input, output))
        })
    });
    group.bench_function("schemars", |b| {
        b.iter(|| {
            let input = schemars::schema_for!(ListInvoices);
            let output = schemars::schema_for!(Invoice);
            black_box((input, output))
        })
    });
    group.finish();
}

fn render(c: &mut Criterion) {
    let mut group = c.benchmark_group("render_json_string");
    group.bench_function("toolschema", |b| {
        b.iter(|| {
            let tool = <ListInvoices as toolschema::Tool>::TOOL;
            black_box(toolschema::render::render_tool(black_box(tool)).to_compact_string())
        })
    });
    group.bench_function("schemars", |b| {
        b.iter(|| {
            let input = schemars::schema_for!(ListInvoices);
            let output = schemars::schema_for!(Invoice);
            let tool = serde_json::json!({
                "name": "billing.list-invoices",
                "description": "Lists a customer's invoices, newest first.",
                "inputSchema": input,
                "outputSchema": output,
            });
            black_box(serde_json::to_string(&tool).unwrap_or_default())
        })
    });
    group.finish();
}

criterion_group!(benches, access, render);
criterion_main!(benches);
