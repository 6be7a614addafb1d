//! The inbound path of one tool, on the same struct and payload:
//! (a) `serde_json::from_str::<T>`, the floor; (b) the usual stack: parse to
//! `Value`, validate with `jsonschema`, `serde_json::from_value::<T>`;
//! (c) toolschema's `parse_args`. The same for arguments already parsed
//! (served calls). And the error path: a payload with five violations, all
//! reported. Ratios are in `benches/README.md`.

#![allow(missing_docs, unreachable_pub, dead_code)]

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

#[path = "fixtures/invoice.rs"]
mod invoice;

use invoice::{CreateInvoice, bad_payload, payload, usual_validator};

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
