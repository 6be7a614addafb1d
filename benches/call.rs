//! The inbound path of one tool, on the same struct and payload:
//! (a) `serde_json::from_str::<T>`, the floor; (b) the usual stack: parse to
//! `Value`, validate with `jsonschema`, `serde_json::from_value::<T>`;
//! (c) toolschema's `parse_args`. The same for arguments already parsed
//! (served calls). And the error path: a payload with five violations, all
//! reported. Ratios are in `benches/README.md`.

#![allow(missing_docs, unreachable_pub, dead_code)]

use criterion::{Criterion, criterion_group, criterion_main};
use serde::Deserialize;
use std::hint::black_box;
use toolschema::{Schema, Tool};

/// One line of an invoice.
#[derive(Schema, Deserialize)]
pub struct Line {
    /// The product's stock-keeping unit.
    #[tool(min_length = 1, max_length = 32)]
    pub sku: String,
    /// How many.
    #[tool(minimum = 1, maximum = 1000)]
    pub quantity: u32,
    /// The price of one, in cents.
    pub unit_price_cents: u64,
    /// A note.
    pub note: Option<String>,
}

/// Where an invoice goes.
#[derive(Schema, Deserialize)]
pub struct Address {
    pub street: String,
    pub city: String,
    #[tool(pattern = "^[A-Z]{2}$")]
    pub country: String,
}

/// Creates an invoice.
#[derive(Tool, Deserialize)]
#[tool(name = "billing.create-invoice")]
pub struct CreateInvoice {
    /// The customer billed.
    #[tool(format = "email")]
    pub customer_email: String,
    /// The currency.
    #[tool(min_length = 3, max_length = 3)]
    pub currency: String,
    /// What is billed.
    #[tool(min_items = 1, max_items = 100)]
    pub lines: Vec<Line>,
    /// Where the invoice goes.
    pub billing_address: Address,
    /// Days until due.
    #[serde(default)]
    pub due_in_days: u16,
    /// Send it now.
    pub send: bool,
}

fn payload() -> String {
    let lines: Vec<serde_json::Value> = (0..8)
        .map(|i| {
            let mut line = serde_json::json!({
                "sku": format!("SKU-{i:04}"),
                "quantity": i + 1,
                "unit_price_cents": 1999 + i * 100,
            });
            if i % 2 == 1 {
                line["note"] = "gift wrapped".into();
            }
            line
        })
        .collect();
    serde_json::json!({
        "customer_email": "ada@example.com",
        "currency": "EUR",
        "lines": lines,
        "billing_address": {"street": "1 Main Street", "city": "Springfield", "country": "US"},
        "due_in_days": 30,
        "send": true
    })
    .to_string()
}

fn bad_payload() -> String {
    serde_json::json!({
        "customer_email": "not an email",
        "currency": "EURO",
        "lines": [{"sku": "", "quantity": 0, "unit_price_cents": 1}],
        "billing_address": {"street": "s", "city": "c", "country": "usa"},
        "send": true
    })
    .to_string()
}

fn usual_validator() -> jsonschema::Validator {
    let schema = toolschema::tool_json::<CreateInvoice>()["inputSchema"].clone();
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&schema)
        .expect("schema compiles")
}

fn inbound(c: &mut Criterion) {
    let text = payload();
    let validator = usual_validator();
    // Warm the compiled-validator cache, as a running server would have it.
    assert!(toolschema::parse_args::<CreateInvoice>(&text).is_ok());
    assert!(validator.is_valid(&serde_json::from_str(&text).expect("json")));

    let mut group = c.benchmark_group("parse_args");
    group.bench_function("a_serde_from_str", |b| {
        b.iter(|| black_box(serde_json::from_str::<CreateInvoice>(black_box(&text)).is_ok()))
    });
    group.bench_function("b_value_jsonschema_from_value", |b| {
        b.iter(|| {
            let value: serde_json::Value = serde_json::from_str(black_box(&text)).expect("json");
            assert!(validator.is_valid(&value));
            black_box(serde_json::from_value::<CreateInvoice>(value).is_ok())
        })
    });
    group.bench_function("c_toolschema_parse_args", |b| {
        b.iter(|| black_box(toolschema::parse_args::<CreateInvoice>(black_box(&text)).is_ok()))
    });
    group.finish();

    // Where the usual stack's time goes, to explain the ratios.
    let mut group = c.benchmark_group("parse_args_components");
    let parsed: serde_json::Value = serde_json::from_str(&text).expect("json");
    group.bench_function("parse_to_value", |b| {
        b.iter(|| black_box(serde_json::from_str::<serde_json::Value>(black_box(&text)).is_ok()))
    });
    group.bench_function("jsonschema_is_valid", |b| {
        b.iter(|| black_box(validator.is_valid(black_box(&parsed))))
    });
    group.bench_function("from_value", |b| {
        b.iter(|| {
            black_box(serde_json::from_value::<CreateInvoice>(black_box(parsed.clone())).is_ok())
        })
    });
    group.bench_function("clone_value", |b| {
        b.iter(|| black_box(black_box(&parsed).clone()))
    });
    let own = toolschema::validate::InputValidator::new(
        <CreateInvoice as toolschema::Tool>::TOOL,
        toolschema::validate::Limits::default(),
    );
    assert!(
        own.fast_path_accepts::<CreateInvoice>(&text),
        "the one pass vouches for the bench payload"
    );
    group.bench_function("one_pass_alone", |b| {
        b.iter(|| black_box(own.fast_path_accepts::<CreateInvoice>(black_box(&text))))
    });
    group.finish();

    // Arguments already parsed, as they arrive inside a JSON-RPC request:
    // what served calls go through. Each variant starts from its own copy.
    let mut group = c.benchmark_group("parsed_arguments");
    group.bench_function("a_serde_from_value", |b| {
        b.iter(|| {
            black_box(serde_json::from_value::<CreateInvoice>(black_box(parsed.clone())).is_ok())
        })
    });
    group.bench_function("b_full_path_check_value_from_value", |b| {
        b.iter(|| {
            let value = own.check_value(black_box(parsed.clone())).expect("valid");
            black_box(serde_json::from_value::<CreateInvoice>(value).is_ok())
        })
    });
    group.bench_function("c_toolschema_read", |b| {
        b.iter(|| black_box(own.read::<CreateInvoice>(black_box(parsed.clone())).is_ok()))
    });
    group.finish();

    // What the first call of a tool waits for unless the catalog prepared
    // its validators beforehand (`Catalog::prepare_in_background`).
    let mut group = c.benchmark_group("first_call");
    group.bench_function("compile_input_validator", |b| {
        b.iter(|| {
            black_box(toolschema::validate::InputValidator::new(
                <CreateInvoice as toolschema::Tool>::TOOL,
                toolschema::validate::Limits::default(),
            ))
        })
    });
    group.finish();

    let bad = bad_payload();
    let errors = toolschema::parse_args::<CreateInvoice>(&bad)
        .err()
        .map_or(0, |e| e.len());
    assert_eq!(errors, 5, "the error payload breaks five rules");
    let mut group = c.benchmark_group("parse_args_errors");
    group.bench_function("b_value_jsonschema_iter_errors", |b| {
        b.iter(|| {
            let value: serde_json::Value = serde_json::from_str(black_box(&bad)).expect("json");
            let errors: Vec<String> = validator
                .iter_errors(&value)
                .map(|e| e.to_string())
                .collect();
            black_box(errors.len())
        })
    });
    group.bench_function("c_toolschema_parse_args", |b| {
        b.iter(|| {
            black_box(
                toolschema::parse_args::<CreateInvoice>(black_box(&bad))
                    .err()
                    .map(|e| e.len()),
            )
        })
    });
    group.finish();
}

criterion_group!(benches, inbound);
criterion_main!(benches);
