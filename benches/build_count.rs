//! Instructions of a snapshot build, counted with callgrind (timings of
//! the catalog bench move by a tenth between runs on the project machine):
//! `build_count N B` builds, N times, the snapshot of B generated tools
//! (the demo `billing.list-invoices` schema under B names, constant data as
//! derived tools are) for 100 clients of ten tenants. One build is the
//! difference between two values of N (see benches/README.md).
#![allow(missing_docs)]
use std::sync::Arc;
use toolschema::call::Registry;
use toolschema::catalog::{Config, Snapshot};
use toolschema::{Tool, ToolDef};
use toolschema_demo::ListInvoices;

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(n), Some(b)) = (args.next(), args.next()) else {
        // `cargo bench` runs every bench target without arguments.
        return;
    };
    let (n, b): (usize, usize) = (n.parse().unwrap_or(1), b.parse().unwrap_or(100));
    let mut registry = Registry::new();
    let mut names = Vec::new();
    for i in 0..b {
        let name: &'static str = Box::leak(format!("svc{}.tool-{i:05}", i % 10).into_boxed_str());
        let def: &'static ToolDef = Box::leak(Box::new(ToolDef {
            name: name.into(),
            ..ListInvoices::TOOL.clone()
        }));
        registry
            .register_descriptor::<ListInvoices>(def)
            .expect("unique");
        names.push(name);
    }
    let mut text = String::new();
    for t in 0..10 {
        text.push_str(&format!("[[tenant]]\nid = \"t{t}\"\n\n"));
        let tools: Vec<String> = names
            .iter()
            .enumerate()
            .filter(|(i, _)| i % 10 == t)
            .map(|(_, n)| format!("\"{n}\""))
            .collect();
        text.push_str(&format!(
            "[[toolset]]\nid = \"s{t}\"\ntenant = \"t{t}\"\ntools = [{}]\n\n",
            tools.join(", ")
        ));
        for c in 0..10 {
            text.push_str(&format!(
                "[[client]]\nid = \"c{t}-{c}\"\ntenant = \"t{t}\"\ntoolsets = [\"s{t}\"]\n\n"
            ));
        }
    }
    let config = Config::from_toml(&text, "bench.toml", &registry).expect("valid");
    let registry = Arc::new(registry);
    let mut total = 0;
    for _ in 0..n {
        let snapshot = Snapshot::build(registry.clone(), &config);
        total += snapshot.clients().count();
    }
    assert_eq!(total, n * 100);
}
