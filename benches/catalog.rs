//! The governed catalog at scale: building a snapshot of 100, 1,000 and
//! 10,000 tools across 100 clients, and serving one client's 1,000-tool
//! list, against `serde_json::to_string` of the same list and a memcpy of
//! its bytes; and checking and building gateway tools of 400 and 4,000
//! arguments (in one tool, and over 10 and 100 tools), to hold the checks
//! and the build linear in the configuration's size; and finding a
//! request's client by its API key among 100 and 10,000 clients'. Ratios are in
//! `benches/README.md`.

#![allow(missing_docs, unreachable_pub)]

use std::hint::black_box;
use std::sync::Arc;
use toolschema::project::ProtocolRevision;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use sha2::{Digest, Sha256};
use toolschema::Tool;
use toolschema::call::Registry;
use toolschema::catalog::{Config, Snapshot, hash_api_key};
use toolschema::model::{Ref, Text};
use toolschema::{ToolDef, tool_json};
use toolschema_demo::ListInvoices;

const TENANTS: usize = 10;
const CLIENTS: usize = 100;

/// `n` tools, one handler, spread over ten tenants' services.
fn registry(n: usize) -> Registry {
    let mut registry = Registry::new();
    for i in 0..n {
        let def = ToolDef {
            name: Text::from(format!("svc{}.tool-{i:05}", i % TENANTS)),
            ..ListInvoices::TOOL.clone()
        };
        // `TOOLSCHEMA_BENCH_SHARED=1`: descriptors built at run time, as
        // gateway tools are; else constant data, as derived tools are.
        let def = match std::env::var_os("TOOLSCHEMA_BENCH_SHARED") {
            Some(_) => Ref::new(def),
            None => {
                let name: &'static str = Box::leak(def.name.to_string().into_boxed_str());
                Ref::Static(Box::leak(Box::new(ToolDef {
                    name: Ref::Static(name),
                    ..def
                })))
            }
        };
        registry
            .register_descriptor::<ListInvoices>(def)
            .expect("unique names");
    }
    registry
}

/// Ten tenants, a toolset each (Full, every tenth tool Lazy), ten clients
/// each.
fn config_text(n: usize) -> String {
    let mut out = String::new();
    for t in 0..TENANTS {
        out.push_str(&format!("[[tenant]]\nid = \"t{t}\"\n\n"));
        let tools: Vec<String> = (t..n)
            .step_by(TENANTS)
            .map(|i| format!("\"svc{t}.tool-{i:05}\""))
            .collect();
        let lazy: Vec<String> = (t..n)
            .step_by(TENANTS * 10)
            .map(|i| format!("\"svc{t}.tool-{i:05}\" = \"lazy\""))
            .collect();
        out.push_str(&format!(
            "[[toolset]]\nid = \"s{t}\"\ntenant = \"t{t}\"\ntools = [{}]\nmodes = {{ {} }}\n\n",
            tools.join(", "),
            lazy.join(", ")
        ));
    }
    for c in 0..CLIENTS {
        out.push_str(&format!(
            "[[client]]\nid = \"c{c}\"\ntenant = \"t{}\"\ntoolsets = [\"s{}\"]\n\n",
            c % TENANTS,
            c % TENANTS
        ));
    }
    out
}

fn build(c: &mut Criterion) {
    let mut group = c.benchmark_group("snapshot_build");
    group.sample_size(10);
    for n in [100, 1_000, 10_000] {
        let registry = Arc::new(registry(n));
        let text = config_text(n);
        let config = Config::from_toml(&text, "bench.toml", &registry).expect("valid");
        group.bench_with_input(BenchmarkId::new("build", n), &n, |b, _| {
            b.iter(|| black_box(Snapshot::build(registry.clone(), &config)))
        });
        group.bench_with_input(BenchmarkId::new("parse_config", n), &n, |b, _| {
            b.iter(|| black_box(Config::from_toml(&text, "bench.toml", &registry).is_ok()))
        });
    }
    group.finish();
}

fn discover(c: &mut Criterion) {
    let registry = Arc::new(registry(10_000));
    let config = Config::from_toml(&config_text(10_000), "bench.toml", &registry).expect("valid");
    let snapshot = Snapshot::build(registry, &config);
    let list = snapshot
        .discover("c3", ProtocolRevision::LATEST)
        .expect("client");
    let tools = serde_json::from_str::<serde_json::Value>(&list).expect("JSON")["tools"]
        .as_array()
        .map_or(0, Vec::len);
    assert_eq!(tools, 1_000 + 1, "1,000 tools and the meta-tool");
    let value: serde_json::Value = serde_json::from_str(&list).expect("JSON");
    let _ = tool_json::<ListInvoices>();

    let mut group = c.benchmark_group("discover_1000_tools");
    group.bench_function("discover", |b| {
        b.iter(|| black_box(snapshot.discover(black_box("c3"), ProtocolRevision::LATEST)))
    });
    group.bench_function("discover_into_buffer", |b| {
        b.iter(|| {
            let list = snapshot
                .discover(black_box("c3"), ProtocolRevision::LATEST)
                .expect("client");
            let mut out = Vec::with_capacity(list.len());
            out.extend_from_slice(list.as_bytes());
            black_box(out)
        })
    });
    group.bench_function("memcpy", |b| {
        b.iter(|| {
            let mut out = Vec::with_capacity(list.len());
            out.extend_from_slice(black_box(list.as_bytes()));
            black_box(out)
        })
    });
    group.bench_function("serde_json_to_string", |b| {
        b.iter(|| black_box(serde_json::to_string(black_box(&value))))
    });
    group.finish();
}

/// `tools` gateway tools of `arguments` arguments each, as an import
/// writes a wide body: groups of ten fields, each group an object of
/// scalars, a list of objects and a map passed whole with its schema.
fn gateway_text(tools: usize, arguments: usize) -> String {
    let mut out = String::from(
        "[[tenant]]\nid = \"t\"\n\n[[client]]\nid = \"c\"\ntenant = \"t\"\ntoolsets = [\"all\"]\n\n",
    );
    let names: Vec<String> = (0..tools).map(|t| format!("\"tool-{t}\"")).collect();
    out.push_str(&format!(
        "[[toolset]]\nid = \"all\"\ntenant = \"t\"\ntools = [{}]\n\n[[downstream]]\nid = \"api\"\nbase_url = \"https://api.example.com\"\n\n",
        names.join(", ")
    ));
    for t in 0..tools {
        out.push_str(&format!(
            "[[gateway_tool]]\nname = \"tool-{t}\"\ndownstream = \"api\"\n\n[[gateway_tool.version]]\nversion = 1\nstatus = \"published\"\ndescription = \"Creates a record.\"\nmethod = \"POST\"\npath = \"/records\"\n\n"
        ));
        for g in 0..arguments / 10 {
            let field = |name: &str, source: &str, kind: &str, extra: &str| {
                format!(
                    "[[gateway_tool.version.argument]]\nname = \"{name}\"\nsource = \"{source}\"\ntype = \"{kind}\"\n{extra}\n"
                )
            };
            out.push_str(&field(&format!("g{g}"), "", "object", "").replace("source = \"\"\n", ""));
            for f in 0..5 {
                out.push_str(&field(
                    &format!("g{g}.f{f}"),
                    &format!("group{g}.field{f}"),
                    "string",
                    "description = \"One of the group's fields.\"\nmax_length = 64\n",
                ));
            }
            out.push_str(&field(&format!("l{g}"), "", "array", "").replace("source = \"\"\n", ""));
            out.push_str(&field(
                &format!("l{g}[].code"),
                &format!("lines{g}[].code"),
                "string",
                "",
            ));
            out.push_str(&field(
                &format!("l{g}[].n"),
                &format!("lines{g}[].n"),
                "integer",
                "minimum = 0\n",
            ));
            out.push_str(&field(
                &format!("m{g}"),
                &format!("map{g}"),
                "object",
                "schema = '{\"type\": \"object\", \"additionalProperties\": {\"type\": \"integer\"}}'\n",
            ));
        }
    }
    out
}

fn gateway_check(c: &mut Criterion) {
    let mut group = c.benchmark_group("gateway_check");
    group.sample_size(10);
    let registry = Arc::new(Registry::new());
    for (tools, arguments) in [(1, 400), (1, 4_000), (10, 400), (100, 400)] {
        let text = gateway_text(tools, arguments);
        let config = Config::from_toml(&text, "bench.toml", &registry)
            .unwrap_or_else(|errors| panic!("{errors}"));
        let id = format!("{tools}x{arguments}");
        group.bench_with_input(BenchmarkId::new("check", &id), &id, |b, _| {
            b.iter(|| black_box(Config::from_toml(&text, "bench.toml", &registry).is_ok()))
        });
        group.bench_with_input(BenchmarkId::new("build", &id), &id, |b, _| {
            b.iter(|| black_box(Snapshot::build(registry.clone(), &config)))
        });
    }
    group.finish();
}

/// Finding the client of a request's API key among `n` clients with a
/// key each, against what it replaced: every configured hash compared in
/// constant time, one after the other.
fn key_lookup(c: &mut Criterion) {
    let mut group = c.benchmark_group("client_by_key");
    let registry = Arc::new(Registry::new());
    for n in [100, 10_000] {
        let mut text = String::from("[[tenant]]\nid = \"acme\"\n");
        for i in 0..n {
            text.push_str(&format!(
                "\n[[client]]\nid = \"app-{i}\"\ntenant = \"acme\"\napi_keys = [\"{}\"]\n",
                hash_api_key(&format!("key-{i}"))
            ));
        }
        let config = Config::from_toml(&text, "bench.toml", &registry).expect("valid");
        let snapshot = Snapshot::build(registry.clone(), &config);
        let key = format!("key-{}", n / 2);
        let found = snapshot
            .client_by_key(&key)
            .map(|view| view.id().to_owned());
        assert_eq!(found, Some(format!("app-{}", n / 2)));
        group.bench_with_input(BenchmarkId::new("indexed", n), &n, |b, _| {
            b.iter(|| black_box(snapshot.client_by_key(black_box(&key)).is_some()))
        });
        // The scan: SHA-256 of the key, then every hash compared without
        // a data-dependent branch, the match selected by mask.
        let hashes: Vec<([u8; 32], String)> = (0..n)
            .map(|i| {
                (
                    Sha256::digest(format!("key-{i}")).into(),
                    format!("app-{i}"),
                )
            })
            .collect();
        group.bench_with_input(BenchmarkId::new("constant_time_scan", n), &n, |b, _| {
            b.iter(|| {
                let digest: [u8; 32] = Sha256::digest(black_box(&key).as_bytes()).into();
                let mut found = usize::MAX;
                for (i, (hash, _)) in hashes.iter().enumerate() {
                    let difference = hash
                        .iter()
                        .zip(&digest)
                        .fold(0u8, |acc, (x, y)| acc | (x ^ y));
                    let mask =
                        ((u32::from(difference).wrapping_sub(1) >> 31) as usize).wrapping_neg();
                    found = (i & mask) | (found & !mask);
                }
                black_box(hashes.get(found).map(|(_, id)| id.len()))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, build, discover, gateway_check, key_lookup);
criterion_main!(benches);
