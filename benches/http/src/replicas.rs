//! Replicas of a catalog store in the bench process, and the time a
//! publish takes to reach them all (the store and scale benches).

use std::sync::Arc;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use tokio_postgres::{AsyncMessage, NoTls};
use toolschema::call::Registry;
use toolschema::catalog::{Catalog, ChangeSet};
use toolschema::store::{Action, CHANNEL, Follower, Store};

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
    /// Each reload that changed some client's list, and the moment a
    /// thread waiting on the catalog's subscription heard of it (not when
    /// the bench got round to asking).
    swaps: Receiver<(Instant, ChangeSet)>,
}

/// A replica of `store`, loaded and following.
pub async fn replica(store: &Store, registry: impl Fn() -> Registry) -> Replica {
    replica_timed(store, registry).await.0
}

/// A replica of `store`, loaded and following, and how long its cold
/// load's steps took: reading every record, checking them, building the
/// catalog.
pub async fn replica_timed(
    store: &Store,
    registry: impl Fn() -> Registry,
) -> (Replica, [Duration; 3]) {
    let start = Instant::now();
    let (revision, records) = store.read().await.expect("reads");
    let read = start.elapsed();
    let start = Instant::now();
    let config = records.check(&registry()).expect("checks");
    let check = start.elapsed();
    let start = Instant::now();
    let catalog = Arc::new(Catalog::from_config(registry(), &config));
    let build = start.elapsed();
    drop(config);
    let changes = catalog.subscribe();
    let (stamp, swaps) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        while let Ok(change) = changes.recv() {
            if stamp.send((Instant::now(), change)).is_err() {
                break;
            }
        }
    });
    let replica = Replica {
        _follower: store.follow_from(catalog.clone(), revision, records),
        catalog,
        swaps,
    };
    (replica, [read, check, build])
}

impl Replica {
    /// How its follower has loaded so far: full reads, reads of the
    /// change log, changes applied as such (the rest checked whole).
    pub fn loads(&self) -> [u64; 3] {
        let health = self._follower.health();
        [health.full_reads, health.change_reads, health.patches]
    }

    /// The next reload's moment and changes, waiting at most two minutes.
    fn next_swap(&self) -> (Instant, ChangeSet) {
        tokio::task::block_in_place(|| self.swaps.recv_timeout(Duration::from_secs(120)))
            .expect("the replica reloads")
    }
}

/// The moment each revision of a store committed: a connection of the
/// bench's own listening on the store's channel, as replicas do, hears the
/// notification the commit sends.
pub struct Commits {
    heard: Receiver<(i64, Instant)>,
    _client: tokio_postgres::Client,
}

impl Commits {
    /// Listens to the store at `url` (on the current runtime).
    pub async fn listen(url: &str) -> Commits {
        let (client, mut connection) = tokio_postgres::connect(url, NoTls).await.expect("connects");
        let (send, heard) = std::sync::mpsc::channel();
        tokio::spawn(async move {
            while let Some(Ok(message)) =
                std::future::poll_fn(|cx| connection.poll_message(cx)).await
            {
                if let AsyncMessage::Notification(notification) = message {
                    let revision = notification.payload().parse().unwrap_or(-1);
                    if send.send((revision, Instant::now())).is_err() {
                        break;
                    }
                }
            }
        });
        client
            .batch_execute(&format!("LISTEN {CHANNEL}"))
            .await
            .expect("listens");
        Commits {
            heard,
            _client: client,
        }
    }

    /// When `revision` committed (its notification heard).
    pub fn of(&self, revision: i64) -> Instant {
        loop {
            let (heard, at) =
                tokio::task::block_in_place(|| self.heard.recv_timeout(Duration::from_secs(120)))
                    .expect("the commit is notified");
            if heard == revision {
                return at;
            }
        }
    }
}

/// Applies `action` and times it from its commit to the last of
/// `replicas` swapping in a snapshot in which some client's list changed.
pub async fn publish_timed(
    store: &Store,
    commits: &Commits,
    replicas: &[Replica],
    action: Action,
    registry: &Registry,
) -> Duration {
    let applied = store
        .apply("bench", action, registry)
        .await
        .expect("applies");
    let committed = commits.of(applied.revision);
    all_serving(replicas) - committed
}

/// The moment the last of `replicas` swapped in a snapshot in which some
/// client's list changed, waiting for each.
pub fn all_serving(replicas: &[Replica]) -> Instant {
    let mut last = None;
    for replica in replicas {
        let (at, changes) = replica.next_swap();
        assert!(!changes.is_empty(), "the change reaches a client's list");
        last = last.max(Some(at));
    }
    last.expect("some replica")
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
    commits: &Commits,
    replicas: &[Replica],
    registry: &Registry,
    toolset: &str,
    count: usize,
) -> Vec<Duration> {
    let mut times = Vec::with_capacity(count);
    for n in 0..count {
        let action = switch(toolset, n);
        times.push(publish_timed(store, commits, replicas, action, registry).await);
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
    commits: &Commits,
    replicas: &[Replica],
    registry: &Registry,
    (tool, path): (&str, &str),
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
            replica.next_swap();
        }
        // Each version changes only the description and path: nothing to
        // accept.
        let publish = Action::Publish {
            tool: tool.to_owned(),
            version,
        };
        times.push(publish_timed(store, commits, replicas, publish, registry).await);
    }
    times
}

/// This process's resident memory, in MiB (Linux).
pub fn resident_mib() -> f64 {
    status_mib("/proc/self/status", "VmRSS:")
}

/// The most resident memory of this process so far, in MiB (Linux).
pub fn peak_resident_mib() -> f64 {
    status_mib("/proc/self/status", "VmHWM:")
}

/// The resident memory of the process `pid`, in MiB (Linux).
pub fn process_resident_mib(pid: u32) -> f64 {
    status_mib(&format!("/proc/{pid}/status"), "VmRSS:")
}

/// The memory a `/proc/…/status` file states in its `field`, in MiB.
fn status_mib(status: &str, field: &str) -> f64 {
    std::fs::read_to_string(status)
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix(field))
                .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}
