//! A replica catches up on a change by reading the change log's entries
//! since its own revision, not every record; when the log lacks one (it
//! keeps the last revisions only), it reads every record.

use std::sync::Arc;
use std::time::{Duration, Instant};

use toolschema::catalog::{Catalog, Snapshot};
use toolschema::project::ProtocolRevision;
use toolschema_store::{Action, Follower, FollowerHealth};

use crate::store::demo_store_at;
use toolschema_test_support::postgres::Postgres;

/// Every client's list, sorted.
fn served(snapshot: &Snapshot) -> Vec<String> {
    let mut lists: Vec<String> = snapshot
        .clients()
        .map(|view| {
            format!(
                "{}: {}",
                view.id(),
                view.list_json(ProtocolRevision::LATEST)
            )
        })
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

/// A connection of the test's own to the store's database (as an attacker
/// with access to it, or an operator's hand edit, would write).
async fn by_hand(url: &str) -> tokio_postgres::Client {
    let (db, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .expect("connects");
    tokio::spawn(connection);
    db
}

/// Writes `changes` as the change log's entry of the next revision, moves
/// the revision and announces it, without touching the tables.
async fn forge_change(db: &tokio_postgres::Client, changes: &str) -> i64 {
    let revision: i64 = db
        .query_one("SELECT revision + 1 FROM catalog_revision", &[])
        .await
        .expect("revision")
        .get(0);
    db.batch_execute(&format!(
        "INSERT INTO change (revision, changes) VALUES ({revision}, '{changes}'::jsonb); \
         UPDATE catalog_revision SET revision = {revision}; \
         NOTIFY toolschema_catalog, '{revision}';"
    ))
    .await
    .expect("forged");
    revision
}

#[test]
fn a_change_log_row_nested_too_deep_for_the_reader_makes_the_replica_read_every_record() {
    runtime().block_on(async {
        let Demo {
            url,
            store,
            registry,
            loaded,
            catalog,
        } = demo().await;
        let follower = store.follow(catalog.clone(), loaded.revision);
        at(&follower, loaded.revision).await;
        // 200 levels: deeper than serde_json reads (128); the replica's
        // follower panicked on it and stopped, still saying `connected`.
        let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        let db = by_hand(&url).await;
        let forged = forge_change(
            &db,
            &format!(r#"{{"records": {{"client": {{"acme-app": {{"deep": {deep}}}}}}}}}"#),
        )
        .await;
        let health = at(&follower, forged).await;
        assert_eq!(
            health.full_reads, 2,
            "the row unread, every record read: {health:?}"
        );
        // It goes on following: the next change comes from the log.
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
        let health = at(&follower, applied.revision).await;
        assert_eq!(
            (health.full_reads, health.change_reads),
            (2, 1),
            "{health:?}"
        );
        let fresh = store.load(&registry).await.expect("loads");
        let expected = served(&Snapshot::build(
            Arc::new(toolschema_demo::registry()),
            &fresh.config,
        ));
        assert_eq!(served(&catalog.snapshot()), expected);
    });
}

#[test]
fn a_change_log_row_the_tables_do_not_hold_is_not_served() {
    runtime().block_on(async {
        let Demo { url, store, registry, loaded, catalog } = demo().await;
        let follower = store.follow(catalog.clone(), loaded.revision);
        at(&follower, loaded.revision).await;
        // A well-formed entry naming a client with a known key, which the
        // tables do not hold.
        let hash = toolschema::catalog::hash_api_key("forged-key");
        let db = by_hand(&url).await;
        let forged = forge_change(
            &db,
            &format!(
                r#"{{"records": {{"client": {{"forged": {{"tenant": "acme", "api_keys": ["{hash}"], "toolsets": ["acme-billing"]}}}}}}}}"#
            ),
        )
        .await;
        let health = at(&follower, forged).await;
        assert_eq!(health.change_reads, 1, "{health:?}");
        let snapshot = catalog.snapshot();
        assert!(snapshot.clients().all(|view| view.id() != "forged"), "the forged client is served");
        let fresh = store.load(&registry).await.expect("loads");
        let expected = served(&Snapshot::build(Arc::new(toolschema_demo::registry()), &fresh.config));
        assert_eq!(served(&snapshot), expected, "what a fresh replica serves");
    });
}

#[test]
fn a_replica_whose_records_differ_from_the_tables_reads_them_all_at_its_next_check() {
    runtime().block_on(async {
        let Demo { url, store, registry, loaded, catalog } = demo().await;
        let store = store.with_check_interval(Duration::from_millis(100));
        // Handed its records (without their rows' hashes): its checks
        // read the rows' hashes, not every record (at 100,000 tools a
        // full read and a whole check are seconds of every replica's CPU).
        let follower = store.follow_from(catalog.clone(), loaded.revision, loaded.records);
        let start = Instant::now();
        while !follower.health().connected || start.elapsed() < Duration::from_millis(600) {
            assert!(start.elapsed() < Duration::from_secs(20), "{:?}", follower.health());
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let health = follower.health();
        assert_eq!((health.full_reads, health.diverged), (0, 0), "{health:?}");
        let before = served(&catalog.snapshot());

        // A row changed by hand: no change-log entry, no new revision.
        let db = by_hand(&url).await;
        db.batch_execute(
            "UPDATE client SET body = jsonb_set(body, '{toolsets}', '[]') WHERE id = 'acme-analyst'",
        )
        .await
        .expect("edited");
        let fresh = store.load(&registry).await.expect("loads");
        let expected = served(&Snapshot::build(Arc::new(toolschema_demo::registry()), &fresh.config));
        assert_ne!(expected, before, "the edit changes what a fresh replica serves");
        let start = Instant::now();
        while served(&catalog.snapshot()) != expected {
            assert!(start.elapsed() < Duration::from_secs(20), "{:?}", follower.health());
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        // Found at a check by its hashes: every record read once.
        let health = follower.health();
        assert_eq!((health.diverged, health.full_reads), (1, 1), "{health:?}");
        assert_eq!(health.revision, loaded.revision);
    });
}
