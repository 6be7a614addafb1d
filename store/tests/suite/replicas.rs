//! Replicas following a store, in process: whatever sequence of admin
//! actions (refused ones included), replica restarts and losses of the
//! change log happens, every replica ends up serving the same snapshot as a
//! fresh load of the store.

use std::sync::Arc;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use toolschema::catalog::{Catalog, Snapshot};
use toolschema::project::Revision;
use toolschema_store::{Action, Follower, Store};

use crate::store::demo_store_at;
use toolschema_test_support::postgres::Postgres;

const TOOLSETS: [&str; 5] = [
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
    /// Replica `n` stops and starts again from a fresh load.
    Restart(usize),
    /// The change log forgets every entry so far: a replica behind reads
    /// every record.
    Forget,
}

fn step() -> impl Strategy<Value = Step> {
    let toolset = (0..TOOLSETS.len()).prop_map(|i| TOOLSETS[i].to_owned());
    let client = (0..CLIENTS.len()).prop_map(|i| CLIENTS[i].to_owned());
    let version = 1u32..=3;
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
        version
            .clone()
            .prop_map(|version| Step::Act(Action::Propose {
                tool: "billing.refund".into(),
                version
            })),
        version
            .clone()
            .prop_map(|version| Step::Act(Action::Publish {
                tool: "billing.refund".into(),
                version
            })),
        version.prop_map(|version| Step::Act(Action::Deprecate {
            tool: "billing.refund".into(),
            version
        })),
        client.prop_map(|client| Step::Act(Action::RotateKey { client })),
        (0usize..3).prop_map(Step::Restart),
        Just(Step::Forget),
    ]
}

/// What a snapshot serves: each client's list, and which client each of
/// the configured keys opens.
fn served(snapshot: &Snapshot, keys: &[String]) -> Vec<String> {
    let mut served: Vec<String> = snapshot
        .clients()
        .map(|view| format!("{}: {}", view.id(), view.list_json(Revision::LATEST)))
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

async fn replica(store: &Store) -> Replica {
    let loaded = store
        .load(&toolschema_demo::registry())
        .await
        .expect("loads");
    let catalog = Arc::new(Catalog::from_config(
        toolschema_demo::registry(),
        &loaded.config,
    ));
    let follower = store.follow(catalog.clone(), loaded.revision);
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
            let (db, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                .await
                .expect("connects");
            tokio::spawn(connection);
            let registry = toolschema_demo::registry();
            let mut replicas = Vec::new();
            for _ in 0..3 {
                replicas.push(replica(&store).await);
            }
            let mut keys = vec!["demo-acme-finance-key".to_owned()];
            for step in steps {
                match step {
                    Step::Act(action) => {
                        // Refused actions write nothing; both kinds count.
                        if let Ok(applied) = store.apply("test", action, &registry).await
                            && let Some(key) = applied.done.api_key
                        {
                            keys.push(key);
                        }
                    }
                    Step::Restart(n) => replicas[n] = replica(&store).await,
                    Step::Forget => {
                        db.execute("DELETE FROM change", &[]).await.expect("forgets");
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
