//! Replicas of a catalog store in the bench process, and the time a
//! publish takes to reach them all (the store and scale benches).

use std::sync::Arc;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use toolschema::call::Registry;
use toolschema::catalog::{Catalog, ChangeSet};
use toolschema::store::{Action, Follower, Store};

/// Appends a tool from configuration named `name`, calling `GET
/// {path}/items/{id}` with an `id` argument in the path (and, with
/// `expand`, a boolean in the query), and a string result `owner`.
pub fn write_tool(text: &mut String, name: &str, description: &str, path: &str, expand: bool) {
    use std::fmt::Write as _;
    let _ = write!(
        text,
        "\n[[gateway_tool]]\nname = \"{name}\"\ndownstream = \"api\"\n\n[[gateway_tool.version]]\nversion = 1\nstatus = \"published\"\ndescription = \"{description}\"\nmethod = \"GET\"\npath = \"{path}/items/{{id}}\"\n\n[[gateway_tool.version.argument]]\nname = \"id\"\nin = \"path\"\ntype = \"string\"\nrequired = true\ndescription = \"The item's id.\"\n"
    );
    if expand {
        text.push_str("\n[[gateway_tool.version.argument]]\nname = \"expand\"\nin = \"query\"\ntype = \"boolean\"\ndescription = \"Include the item's owner.\"\n");
    }
    text.push_str("\n[[gateway_tool.version.result]]\nname = \"owner\"\ntype = \"string\"\n");
}

/// The median of `samples`.
pub fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// `d` in milliseconds, one decimal.
pub fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// The `p` quantile of `times` (unsorted).
pub fn percentile(times: &[Duration], p: f64) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort();
    sorted[((sorted.len() as f64 * p) as usize).min(sorted.len() - 1)]
}

/// A replica: a catalog loaded from the store, following it, and a
/// subscription to its reloads.
pub struct Replica {
    /// What it serves.
    pub catalog: Arc<Catalog>,
    _follower: Follower,
    changes: Receiver<ChangeSet>,
}

/// A replica of `store`, loaded and following.
pub async fn replica(store: &Store, registry: impl Fn() -> Registry) -> Replica {
    let loaded = store.load(&registry()).await.expect("loads");
    let catalog = Arc::new(Catalog::from_config(registry(), &loaded.config));
    let changes = catalog.subscribe();
    Replica {
        _follower: store.follow(catalog.clone(), loaded.revision),
        catalog,
        changes,
    }
}

/// The `n`th of a series of publishes that switch `toolset` off (even `n`)
/// and on again (odd `n`).
pub fn switch(toolset: &str, n: usize) -> Action {
    let toolset = toolset.to_owned();
    match n % 2 {
        0 => Action::Deactivate { toolset },
        _ => Action::Activate { toolset },
    }
}

/// Publishes `count` changes (`toolset` switched off and on), each timed
/// from its commit to the last of `replicas` swapping the new snapshot in.
pub async fn propagation(
    store: &Store,
    replicas: &[Replica],
    registry: &Registry,
    toolset: &str,
    count: usize,
) -> Vec<Duration> {
    let mut times = Vec::with_capacity(count);
    for n in 0..count {
        let action = switch(toolset, n);
        store
            .apply("bench", action, registry)
            .await
            .expect("applies");
        times.push(all_serving(replicas).await);
    }
    times
}

/// Publishes `count` new versions of the configured tool `tool` (each
/// drafted, which reaches the replicas first, then published), each
/// publish timed from its commit to the last of `replicas` swapping the
/// new snapshot in. Version `n` describes itself with `description(n)`
/// and reads `path`.
pub async fn tool_propagation(
    store: &Store,
    replicas: &[Replica],
    registry: &Registry,
    tool: &str,
    path: &str,
    count: usize,
) -> Vec<Duration> {
    let mut times = Vec::with_capacity(count);
    for n in 0..count {
        let version = u32::try_from(n).expect("few publishes") + 2;
        let serde_json::Value::Object(definition) = serde_json::json!({
            "description": format!("Returns an item, as version {version} reads it."),
            "method": "GET",
            "path": format!("{path}/items/{{id}}"),
            "argument": [{"name": "id", "in": "path", "type": "string", "required": true}],
            "result": [{"name": "owner", "type": "string"}],
        }) else {
            unreachable!("an object")
        };
        let draft = Action::Draft {
            tool: tool.to_owned(),
            version,
            definition: Some(definition),
            downstream: None,
        };
        store.apply("bench", draft, registry).await.expect("drafts");
        for replica in replicas {
            replica
                .changes
                .recv_timeout(Duration::from_secs(120))
                .expect("the replica reloads the draft");
        }
        let publish = Action::Publish {
            tool: tool.to_owned(),
            version,
            accept_breaking: true,
        };
        store
            .apply("bench", publish, registry)
            .await
            .expect("publishes");
        times.push(all_serving(replicas).await);
    }
    times
}

/// The time from now (a commit) until each of `replicas` has swapped in a
/// snapshot in which some client's list changed.
pub async fn all_serving(replicas: &[Replica]) -> Duration {
    let committed = Instant::now();
    let mut last = committed;
    for replica in replicas {
        let changes = replica
            .changes
            .recv_timeout(Duration::from_secs(120))
            .expect("the replica reloads");
        assert!(!changes.is_empty(), "the change reaches a client's list");
        last = last.max(Instant::now());
    }
    last - committed
}

/// This process's resident memory, in MiB (Linux).
pub fn resident_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("VmRSS:"))
                .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}
