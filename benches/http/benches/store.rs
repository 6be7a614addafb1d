//! The catalog store (a real PostgreSQL, started for the run):
//!
//! - propagation: from an admin action's commit to every one of three
//!   replicas serving the new list (their catalogs swapped, subscribers
//!   told), over `STORE_PUBLISHES` publishes (default 300) on the demo
//!   catalog, and 20 on a catalog of 10,000 tools;
//! - building a snapshot from the store for 10,000 tools, part by part
//!   (reading the records, checking them, building the snapshot), against
//!   building it from the same configuration as a file, and against the
//!   former way of checking records (rendered as a TOML file, parsed and
//!   checked).
//!
//! `cargo bench -p toolschema-bench-http --bench store` (`STORE_PARSE=1`
//! also times parsing the 10,000 tools' TOML alone). It runs with the
//! `toolschema` binary's allocator (mimalloc), as replicas are deployed;
//! `--features system-allocator` measures the same with the system's.

#![allow(missing_docs)]

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Instant;

use toolschema::call::Registry;
use toolschema::catalog::{Config, Snapshot};
use toolschema::store::{Action, Records, Store};
use toolschema_bench_http::replicas::{
    Commits, median, ms, percentile, propagation, replica, write_tool,
};
use toolschema_test_support::postgres::Postgres;

#[cfg(not(feature = "system-allocator"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A catalog of `tools` tools from configuration: ten toolsets, ten
/// clients, one downstream.
fn generated(tools: usize) -> String {
    let mut text = String::from(
        "[[tenant]]\nid = \"t\"\n\n[[downstream]]\nid = \"api\"\nbase_url = \"https://api.example.com/v1\"\n",
    );
    let per_set = tools.div_ceil(10);
    for set in 0..10 {
        let names: Vec<String> = (set * per_set..((set + 1) * per_set).min(tools))
            .map(|i| format!("\"svc{}.item-{i}\"", i % 97))
            .collect();
        let _ = write!(
            text,
            "\n[[toolset]]\nid = \"set{set}\"\ntenant = \"t\"\nmode = \"{}\"\ntools = [{}]\n\n[[client]]\nid = \"client{set}\"\ntenant = \"t\"\ntoolsets = [\"set{set}\"]\n",
            ["full", "data-structure-only", "lazy"][set % 3],
            names.join(", ")
        );
    }
    for i in 0..tools {
        let svc = i % 97;
        write_tool(
            &mut text,
            &format!("svc{svc}.item-{i}"),
            &format!(
                "Returns item {i} of service {svc}, with its owner and the date it was last changed."
            ),
            &format!("/svc{svc}"),
            true,
        );
    }
    text
}

fn main() {
    let publishes: usize = std::env::var("STORE_PUBLISHES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(300);
    println!(
        "allocator: {}",
        match cfg!(feature = "system-allocator") {
            true => "the system's",
            false => "mimalloc (the binary's)",
        }
    );
    let postgres = Postgres::start();
    let runtime = toolschema_bench_http::runtime(2);
    runtime.block_on(async {
        // Propagation on the demo catalog.
        let url = postgres.database();
        let store = Store::new(&url).expect("url");
        store.migrate().await.expect("migrates");
        let commits = Commits::listen(&url).await;
        let registry = toolschema_demo::registry();
        let records = Records::from_toml(toolschema_demo::CATALOG_TOML, "demo", &registry)
            .expect("demo");
        store
            .apply("bench", Action::Replace { records: Box::new(records) }, &registry)
            .await
            .expect("loads");
        let mut replicas = Vec::new();
        for _ in 0..3 {
            replicas.push(replica(&store, toolschema_demo::registry).await);
        }
        let times = propagation(&store, &commits, &replicas, &registry, "globex-support", publishes).await;
        println!(
            "propagation, demo catalog: {publishes} publishes, commit to all 3 replicas serving: p50 {}, p99 {}, max {}",
            ms(percentile(&times, 0.5)),
            ms(percentile(&times, 0.99)),
            ms(percentile(&times, 1.0))
        );
        drop(replicas);

        // 10,000 tools: the file, the store, part by part.
        let text = generated(10_000);
        let registry = Registry::new();
        let mut file_check = Vec::new();
        let mut file_build = Vec::new();
        for _ in 0..5 {
            let start = Instant::now();
            let config = Config::from_toml(&text, "generated.toml", &registry).expect("checks");
            file_check.push(start.elapsed());
            let start = Instant::now();
            let snapshot = Snapshot::build(Arc::new(Registry::new()), &config);
            file_build.push(start.elapsed());
            assert_eq!(snapshot.clients().count(), 10);
        }
        if std::env::var("STORE_PARSE").is_ok() {
            let start = Instant::now();
            let table: toml::Table = toml::from_str(&text).expect("parses");
            println!("  (toml parse alone: {}, {} keys)", ms(start.elapsed()), table.len());
        }
        let url = postgres.database();
        let big = Store::new(&url).expect("url");
        big.migrate().await.expect("migrates");
        let commits = Commits::listen(&url).await;
        let records = Records::from_toml(&text, "generated.toml", &registry).expect("checks");
        let start = Instant::now();
        big.apply("bench", Action::Replace { records: Box::new(records) }, &registry)
            .await
            .expect("stores");
        let stored = start.elapsed();
        let (mut reads, mut checks, mut builds, mut loads) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut rendered_checks = Vec::new();
        for _ in 0..5 {
            let start = Instant::now();
            let (_, records) = big.read().await.expect("reads");
            reads.push(start.elapsed());
            let start = Instant::now();
            let config = records.check(&registry).expect("checks");
            checks.push(start.elapsed());
            let start = Instant::now();
            let text = records.render().expect("renders");
            Config::from_toml(&text, "rendered.toml", &registry).expect("checks");
            rendered_checks.push(start.elapsed());
            let start = Instant::now();
            let snapshot = Snapshot::build(Arc::new(Registry::new()), &config);
            builds.push(start.elapsed());
            assert_eq!(snapshot.clients().count(), 10);
            let start = Instant::now();
            big.load(&registry).await.expect("loads");
            loads.push(start.elapsed());
        }
        println!("10,000 tools from configuration (median of 5):");
        println!("  file: read and check {}, build the snapshot {}", ms(median(file_check)), ms(median(file_build)));
        println!(
            "  store: read the records {}, check them {} (rendered as a file, parsed and checked: {}), build the snapshot {} (Store::load, read + check: {})",
            ms(median(reads)),
            ms(median(checks)),
            ms(median(rendered_checks)),
            ms(median(builds)),
            ms(median(loads))
        );
        println!("  storing the whole catalog (one transaction, checked first): {}", ms(stored));

        let mut replicas = Vec::new();
        for _ in 0..3 {
            replicas.push(replica(&big, Registry::new).await);
        }
        let times = propagation(&big, &commits, &replicas, &registry, "set0", 20).await;
        println!(
            "propagation, 10,000 tools: 20 publishes, commit to all 3 replicas serving: p50 {}, p99 {}",
            ms(percentile(&times, 0.5)),
            ms(percentile(&times, 0.99))
        );
    });
}
