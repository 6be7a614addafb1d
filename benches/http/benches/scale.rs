//! A catalog store at platform scale (a real PostgreSQL, started for the
//! run): 1,000 tenants of 100 tools from configuration each (100,000
//! tools), 10 client applications a tenant (10,000), three replicas in the
//! bench process with the binary's allocator. It prints the time to store
//! the catalog, each replica's cold load and snapshot build, the resident
//! memory the replicas add, and the time a publish (one tenant's toolset
//! switched off or on) takes to reach all three, and the time a new
//! version of one tool takes (drafted, then published), over
//! `SCALE_PUBLISHES` publishes each (default 20).
//!
//! `cargo bench -p toolschema-bench-http --bench scale`; `SCALE_TENANTS`,
//! `SCALE_TOOLS` (a tenant) and `SCALE_CLIENTS` (a tenant) change the size,
//! `--features system-allocator` runs it with the system's allocator.

#![allow(missing_docs)]

use std::fmt::Write as _;
use std::time::Instant;

use toolschema::call::Registry;
use toolschema::store::{Action, Records, Store};
use toolschema_bench_http::replicas::{
    ms, percentile, propagation, replica, resident_mib, tool_propagation, write_tool,
};
use toolschema_test_support::postgres::Postgres;

#[cfg(not(feature = "system-allocator"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// `tenants` tenants, each with `tools` tools from configuration in one
/// toolset and `clients` client applications shown it; one downstream.
fn generated(tenants: usize, tools: usize, clients: usize) -> String {
    let mut text =
        String::from("[[downstream]]\nid = \"api\"\nbase_url = \"https://api.example.com/v1\"\n");
    for t in 0..tenants {
        let names: Vec<String> = (0..tools).map(|i| format!("\"t{t}.item-{i}\"")).collect();
        let _ = write!(
            text,
            "\n[[tenant]]\nid = \"t{t}\"\n\n[[toolset]]\nid = \"t{t}-set\"\ntenant = \"t{t}\"\nmode = \"{}\"\ntools = [{}]\n",
            ["full", "data-structure-only", "lazy"][t % 3],
            names.join(", ")
        );
        for c in 0..clients {
            let _ = write!(
                text,
                "\n[[client]]\nid = \"t{t}-c{c}\"\ntenant = \"t{t}\"\ntoolsets = [\"t{t}-set\"]\n"
            );
        }
        for i in 0..tools {
            write_tool(
                &mut text,
                &format!("t{t}.item-{i}"),
                &format!(
                    "Returns item {i} of tenant {t}, with its owner and the date it was last changed."
                ),
                &format!("/t{t}"),
                false,
            );
        }
    }
    text
}

fn main() {
    let (tenants, tools, clients) = (
        env("SCALE_TENANTS", 1_000),
        env("SCALE_TOOLS", 100),
        env("SCALE_CLIENTS", 10),
    );
    let publishes = env("SCALE_PUBLISHES", 20);
    let postgres = Postgres::start();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let store = Store::new(&postgres.database()).expect("url");
        store.migrate().await.expect("migrates");
        let registry = Registry::new();
        let text = generated(tenants, tools, clients);
        println!(
            "{} tenants x {} tools = {} tools, {} clients; the configuration as a file: {:.1} MiB",
            tenants,
            tools,
            tenants * tools,
            tenants * clients,
            text.len() as f64 / (1 << 20) as f64
        );
        let start = Instant::now();
        let records = Records::from_toml(&text, "scale.toml", &registry).expect("checks");
        println!("  read and check the file: {}", ms(start.elapsed()));
        drop(text);
        let start = Instant::now();
        store
            .apply("bench", Action::Replace { records: Box::new(records) }, &registry)
            .await
            .expect("stores");
        println!("  store it (checked, one transaction): {}", ms(start.elapsed()));
        let before = resident_mib();
        let mut replicas = Vec::new();
        for n in 0..3 {
            let start = Instant::now();
            replicas.push(replica(&store, Registry::new).await);
            println!(
                "  replica {n}: cold load, check and build {}; resident {:.0} MiB",
                ms(start.elapsed()),
                resident_mib()
            );
        }
        println!(
            "  the three replicas added {:.0} MiB ({:.0} MiB a replica)",
            resident_mib() - before,
            (resident_mib() - before) / 3.0
        );
        let times = propagation(&store, &replicas, &registry, "t0-set", publishes).await;
        println!(
            "propagation: {publishes} publishes, commit to all 3 replicas serving: p50 {}, p99 {}, max {}",
            ms(percentile(&times, 0.5)),
            ms(percentile(&times, 0.99)),
            ms(percentile(&times, 1.0))
        );
        println!("  resident after: {:.0} MiB", resident_mib());
        let times =
            tool_propagation(&store, &replicas, &registry, "t0.item-0", "/t0", publishes).await;
        println!(
            "one tool's new version: {publishes} publishes, commit to all 3 replicas serving: p50 {}, p99 {}, max {}",
            ms(percentile(&times, 0.5)),
            ms(percentile(&times, 0.99)),
            ms(percentile(&times, 1.0))
        );
        println!("  resident after: {:.0} MiB", resident_mib());
    });
}
