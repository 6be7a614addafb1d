//! Replicas following a store, in process: whatever sequence of admin
//! actions (refused ones included; configured tools drafted, published and
//! withdrawn, their downstream moved), replica restarts and losses of the
//! change log happens, every replica ends up serving the same snapshot as a
//! fresh load of the store.

use std::sync::Arc;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use toolschema::catalog::{Catalog, Snapshot};
use toolschema::project::ProtocolRevision;
use toolschema_store::{Action, Follower, Kind, Store};

use crate::store::demo_store_at;
use toolschema_test_support::postgres::Postgres;

const TOOLSETS: [&str; 6] = [
    "acme-ledger",
    "acme-billing",
    "acme-assistant",
    "acme-archive",
    "acme-reports",
    "globex-support",
];
const CLIENTS: [&str; 4] = [
    "acme-finance",
    "acme-assistant",
    "acme-analyst",
    "globex-support",
];

#[derive(Debug, Clone)]
enum Step {
    Act(Action),
    /// A publish of (tool, version); when refused as breaking and `true`,
    /// sent again accepting the reports refused.
    Publish(String, u32, bool),
    /// Replica `n` stops and starts again from a fresh load.
    Restart(usize),
    /// The change log forgets every entry so far: a replica behind reads
    /// every record.
    Forget,
    /// Every replica's connection is cut: the notifications of the changes
    /// made before it is back are lost, and it must load in full.
    Disconnect,
}

/// The tools versions are drafted, proposed, published and deprecated of:
/// a derived tool and two tools from configuration.
const TOOLS: [&str; 3] = ["billing.refund", "ledger.entry", "ledger.search"];

/// A body of JSON fields.
fn body(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("an object"),
    }
}

/// A version of the configured tool `tool`: `GET /{tool}` with an `id`
/// argument, described by `words`.
fn definition(tool: &str, words: &str) -> Map<String, Value> {
    body(json!({
        "description": format!("{tool}: {words}."),
        "method": "GET",
        "path": format!("/{tool}"),
        "argument": [{"name": "id", "in": "query", "type": "string", "required": true}],
    }))
}

/// The ledger downstream at `base_url`.
fn downstream(base_url: &str) -> Action {
    Action::Put {
        kind: Kind::Downstream,
        id: "ledger".into(),
        body: body(json!({"base_url": base_url})),
    }
}

/// The demo catalog plus two tools from configuration, version 1
/// published and version 2 drafted, in the `acme-ledger` toolset that
/// `acme-finance` is given.
async fn with_ledger(store: &Store, registry: &toolschema::call::Registry) {
    let mut actions = vec![downstream("https://ledger.example.com")];
    for tool in &TOOLS[1..] {
        actions.push(Action::Draft {
            tool: (*tool).into(),
            version: 1,
            definition: Some(definition(tool, "first")),
            downstream: Some("ledger".into()),
        });
        actions.push(Action::Publish {
            tool: (*tool).into(),
            version: 1,
        });
        actions.push(Action::Draft {
            tool: (*tool).into(),
            version: 2,
            definition: Some(definition(tool, "second")),
            downstream: None,
        });
    }
    actions.push(Action::Put {
        kind: Kind::Toolset,
        id: "acme-ledger".into(),
        body: body(json!({"tenant": "acme", "mode": "data-structure-only", "tools": &TOOLS[1..]})),
    });
    actions.push(Action::Assign {
        client: "acme-finance".into(),
        toolset: "acme-ledger".into(),
    });
    for action in actions {
        store
            .apply("test", action, registry)
            .await
            .expect("applies");
    }
}

fn step() -> impl Strategy<Value = Step> {
    let toolset = (0..TOOLSETS.len()).prop_map(|i| TOOLSETS[i].to_owned());
    let client = (0..CLIENTS.len()).prop_map(|i| CLIENTS[i].to_owned());
    let tool = (0..TOOLS.len()).prop_map(|i| TOOLS[i].to_owned());
    let version = 1u32..=3;
    let words = prop_oneof![Just("again"), Just("once more"), Just("revised")];
    prop_oneof![
        toolset
            .clone()
            .prop_map(|toolset| Step::Act(Action::Activate { toolset })),
        toolset
            .clone()
            .prop_map(|toolset| Step::Act(Action::Deactivate { toolset })),
        (client.clone(), toolset.clone())
            .prop_map(|(client, toolset)| Step::Act(Action::Assign { client, toolset })),
        (client.clone(), toolset)
            .prop_map(|(client, toolset)| Step::Act(Action::Unassign { client, toolset })),
        (tool.clone(), version.clone(), words).prop_map(|(tool, version, words)| {
            let definition = (tool != TOOLS[0]).then(|| definition(&tool, words));
            Step::Act(Action::Draft {
                tool,
                version,
                definition,
                downstream: None,
            })
        }),
        (tool.clone(), version.clone())
            .prop_map(|(tool, version)| Step::Act(Action::Propose { tool, version })),
        // A publish that may break clients is refused unless accepted
        // (then the report refused is accepted).
        (tool.clone(), version.clone(), any::<bool>())
            .prop_map(|(tool, version, accept)| { Step::Publish(tool, version, accept) }),
        (tool, version).prop_map(|(tool, version)| Step::Act(Action::Deprecate { tool, version })),
        prop_oneof![
            Just("https://ledger.example.com"),
            Just("https://ledger.example.org")
        ]
        .prop_map(|url| Step::Act(downstream(url))),
        client.prop_map(|client| Step::Act(Action::RotateKey { client })),
        (0usize..3).prop_map(Step::Restart),
        Just(Step::Forget),
        Just(Step::Disconnect),
    ]
}

/// What a snapshot serves: each client's list, and which client each of
/// the configured keys opens.
fn served(snapshot: &Snapshot, keys: &[String]) -> Vec<String> {
    let mut served: Vec<String> = snapshot
        .clients()
        .map(|view| {
            format!(
                "{}: {}",
                view.id(),
                view.list_json(ProtocolRevision::LATEST)
            )
        })
        .collect();
    served.sort();
    for key in keys {
        served.push(format!(
            "{key} -> {:?}",
            snapshot.client_by_key(key).map(|view| view.id().to_owned())
        ));
    }
    served
}

struct Replica {
    catalog: Arc<Catalog>,
    follower: Follower,
}

/// A replica loaded now; replica `n` of an odd number is handed the
/// records it loaded (`Store::follow_from`), the others read them again
/// when they connect.
async fn replica(store: &Store, n: usize) -> Replica {
    let loaded = store
        .load(&toolschema_demo::registry())
        .await
        .expect("loads");
    let catalog = Arc::new(Catalog::from_config(
        toolschema_demo::registry(),
        &loaded.config,
    ));
    let follower = match n % 2 {
        1 => store.follow_from(catalog.clone(), loaded.revision, loaded.records),
        _ => store.follow(catalog.clone(), loaded.revision),
    };
    Replica { catalog, follower }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn every_replica_converges_on_a_fresh_load(steps in proptest::collection::vec(step(), 1..14)) {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let url = Postgres::shared().database();
            let store = demo_store_at(&url).await;
            let registry = toolschema_demo::registry();
            with_ledger(&store, &registry).await;
            let (db, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                .await
                .expect("connects");
            tokio::spawn(connection);
            let mut replicas = Vec::new();
            for n in 0..3 {
                replicas.push(replica(&store, n).await);
            }
            let mut keys = vec!["demo-acme-finance-key".to_owned()];
            let mut cut_last: Vec<i32> = Vec::new();
            for step in steps {
                match step {
                    Step::Publish(tool, version, accept) => {
                        let publish = || Action::Publish { tool: tool.clone(), version };
                        if let Err(toolschema_store::StoreError::Breaking(reports)) =
                            store.apply("test", publish(), &registry).await
                            && accept
                        {
                            let digests = reports.iter().map(|report| report.digest.clone());
                            let _ = store.apply("test", publish().accepting(digests), &registry).await;
                        }
                    }
                    Step::Act(action) => {
                        // Refused actions write nothing; both kinds count.
                        if let Ok(applied) = store.apply("test", action, &registry).await
                            && let Some(key) = applied.done.api_key
                        {
                            keys.push(key);
                        }
                    }
                    Step::Restart(n) => replicas[n] = replica(&store, n).await,
                    Step::Forget => {
                        db.execute("DELETE FROM change", &[]).await.expect("forgets");
                    }
                    Step::Disconnect => {
                        // Each replica connected again first (after a
                        // restart or the last cut): three connections,
                        // none of them one the last cut is still ending
                        // (a follower's health may not have heard of
                        // that cut yet). Then all three cut.
                        let start = Instant::now();
                        let pids = loop {
                            let listed: Vec<i32> = db
                                .query(
                                    "SELECT pid FROM pg_stat_activity \
                                     WHERE datname = current_database() AND application_name LIKE $1 || '%'",
                                    &[&toolschema_store::REPLICA_NAME],
                                )
                                .await
                                .expect("lists")
                                .iter()
                                .map(|row| row.get(0))
                                .collect();
                            if listed.len() == 3
                                && listed.iter().all(|pid| !cut_last.contains(pid))
                                && replicas.iter().all(|r| r.follower.health().connected)
                            {
                                break listed;
                            }
                            assert!(start.elapsed() < Duration::from_secs(20), "a replica never connected");
                            tokio::time::sleep(Duration::from_millis(10)).await;
                        };
                        let cut = db
                            .query("SELECT pg_terminate_backend(pid) FROM unnest($1::int4[]) AS pid", &[&pids])
                            .await
                            .expect("cuts");
                        assert_eq!(cut.len(), 3, "one connection a replica");
                        cut_last = pids;
                    }
                }
            }
            let revision = store.revision().await.expect("revision");
            let fresh = store.load(&registry).await.expect("loads");
            let expected = served(&Snapshot::build(Arc::new(registry), &fresh.config), &keys);
            let start = Instant::now();
            for replica in &replicas {
                while replica.follower.health().revision != revision {
                    assert!(
                        start.elapsed() < Duration::from_secs(20),
                        "a replica did not reach revision {revision}: {:?}",
                        replica.follower.health()
                    );
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                assert_eq!(served(&replica.catalog.snapshot(), &keys), expected);
            }
        });
    }
}
