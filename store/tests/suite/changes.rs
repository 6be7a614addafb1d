//! A replica catches up on a change by reading the change log's entries
//! since its own revision, not every record; when the log lacks one (it
//! keeps the last revisions only), it reads every record.

use std::sync::Arc;
use std::time::{Duration, Instant};

use toolschema::catalog::{Catalog, Snapshot};
use toolschema::project::Revision;
use toolschema_store::{Action, Follower, FollowerHealth};

use crate::store::demo_store_at;
use toolschema_test_support::postgres::Postgres;

/// Every client's list, sorted.
fn served(snapshot: &Snapshot) -> Vec<String> {
    let mut lists: Vec<String> = snapshot
        .clients()
        .map(|view| format!("{}: {}", view.id(), view.list_json(Revision::LATEST)))
        .collect();
    lists.sort();
    lists
}

/// The follower's health once it serves `revision`.
async fn at(follower: &Follower, revision: i64) -> FollowerHealth {
    let start = Instant::now();
    loop {
        let health = follower.health();
        if health.revision == revision && health.connected {
            return health;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the replica did not reach revision {revision}: {health:?}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// A demo store in a new database, loaded, and a catalog built from it.
struct Demo {
    url: String,
    store: toolschema_store::Store,
    registry: toolschema::call::Registry,
    loaded: toolschema_store::Loaded,
    catalog: Arc<Catalog>,
}

async fn demo() -> Demo {
    let url = Postgres::shared().database();
    let store = demo_store_at(&url).await;
    let registry = toolschema_demo::registry();
    let loaded = store.load(&registry).await.expect("loads");
    let catalog = Arc::new(Catalog::from_config(
        toolschema_demo::registry(),
        &loaded.config,
    ));
    Demo {
        url,
        store,
        registry,
        loaded,
        catalog,
    }
}

#[test]
fn a_replica_handed_the_records_it_loaded_reads_none_again() {
    runtime().block_on(async {
        let Demo {
            store,
            registry,
            loaded,
            catalog,
            ..
        } = demo().await;
        // A change lands between the load and the follower's connection:
        // caught up from the log, from the records handed over.
        let applied = store
            .apply(
                "ops",
                Action::Deactivate {
                    toolset: "globex-support".into(),
                },
                &registry,
            )
            .await
            .expect("applies");
        let follower = store.follow_from(catalog.clone(), loaded.revision, loaded.records);
        let health = at(&follower, applied.revision).await;
        assert_eq!(
            (health.full_reads, health.change_reads),
            (0, 1),
            "{health:?}"
        );
        let applied = store
            .apply(
                "ops",
                Action::Activate {
                    toolset: "globex-support".into(),
                },
                &registry,
            )
            .await
            .expect("applies");
        let health = at(&follower, applied.revision).await;
        assert_eq!(
            (health.full_reads, health.change_reads),
            (0, 2),
            "{health:?}"
        );
        // Both applied as changes: the toolset checked on its own, the
        // clients naming it built again.
        assert_eq!(health.patches, 2, "{health:?}");
        let fresh = store.load(&registry).await.expect("loads");
        let expected = served(&Snapshot::build(
            Arc::new(toolschema_demo::registry()),
            &fresh.config,
        ));
        assert_eq!(served(&catalog.snapshot()), expected);
    });
}

#[test]
fn a_replica_applies_the_change_log_and_reads_everything_after_a_gap() {
    runtime().block_on(async {
        let Demo { url, store, registry, loaded, catalog } = demo().await;
        let follower = store.follow(catalog.clone(), loaded.revision);
        let started = at(&follower, loaded.revision).await;
        assert_eq!((started.full_reads, started.change_reads), (1, 0));

        // Three changes: each read from the log.
        for action in [
            Action::Deactivate { toolset: "globex-support".into() },
            Action::Activate { toolset: "globex-support".into() },
            Action::Unassign { client: "acme-analyst".into(), toolset: "acme-reports".into() },
        ] {
            let applied = store.apply("ops", action, &registry).await.expect("applies");
            at(&follower, applied.revision).await;
        }
        let health = follower.health();
        assert_eq!(health.full_reads, 1, "{health:?}");
        assert!(health.change_reads >= 1, "{health:?}");
        let fresh = store.load(&registry).await.expect("loads");
        let expected = served(&Snapshot::build(Arc::new(toolschema_demo::registry()), &fresh.config));
        assert_eq!(served(&catalog.snapshot()), expected);

        // The log loses the next revision's entry (as when a replica is
        // further behind than the log keeps): that change is read in full.
        let (db, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .expect("connects");
        tokio::spawn(connection);
        db.batch_execute(
            "CREATE FUNCTION forget_change() RETURNS trigger LANGUAGE plpgsql AS \
             $$ BEGIN DELETE FROM change WHERE revision = NEW.revision; RETURN NULL; END $$; \
             CREATE TRIGGER forget AFTER INSERT ON change FOR EACH ROW EXECUTE FUNCTION forget_change();",
        )
        .await
        .expect("a trigger that forgets");
        let applied = store
            .apply("ops", Action::Assign { client: "acme-analyst".into(), toolset: "acme-reports".into() }, &registry)
            .await
            .expect("applies");
        let health = at(&follower, applied.revision).await;
        assert_eq!(health.full_reads, 2, "{health:?}");
        db.batch_execute("DROP TRIGGER forget ON change")
            .await
            .expect("remembers again");
        let applied = store
            .apply("ops", Action::RotateKey { client: "acme-analyst".into() }, &registry)
            .await
            .expect("applies");
        let health = at(&follower, applied.revision).await;
        assert_eq!(health.full_reads, 2, "read from the log again: {health:?}");
        let fresh = store.load(&registry).await.expect("loads");
        let expected = served(&Snapshot::build(Arc::new(toolschema_demo::registry()), &fresh.config));
        assert_eq!(served(&catalog.snapshot()), expected);
    });
}
