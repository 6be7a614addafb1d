//! Live reload: atomic swaps that readers never see half-done, invalid files
//! that change nothing, and change notices only for the clients whose lists
//! changed.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;
use toolschema::project::Revision;

use toolschema::catalog::Catalog;
use toolschema_demo::CATALOG_TOML;

const CLIENTS: [&str; 3] = ["acme-finance", "acme-assistant", "globex-support"];

/// The demo catalog with the assistant's toolset shown in Full mode: only
/// `acme-assistant`'s list differs.
fn assistant_in_full() -> String {
    CATALOG_TOML.replace(
        "mode = \"data-structure-only\"\ntools = [\"billing.get-invoice\", \"billing.list-invoices\"]\nmodes = { \"billing.list-invoices\" = \"lazy\" }",
        "mode = \"full\"\ntools = [\"billing.get-invoice\", \"billing.list-invoices\"]",
    )
}

fn lists(catalog: &Catalog) -> Vec<Arc<str>> {
    let snapshot = catalog.snapshot();
    CLIENTS
        .iter()
        .map(|c| snapshot.discover(c, Revision::LATEST).expect("demo client"))
        .collect()
}

fn demo() -> Catalog {
    toolschema_demo::catalog()
}

#[test]
fn readers_only_ever_see_complete_snapshots() {
    let catalog = Arc::new(demo());
    let before = lists(&catalog);
    catalog
        .reload_toml(&assistant_in_full(), "catalog.toml")
        .expect("valid");
    let after = lists(&catalog);
    assert_ne!(before, after);
    let done = Arc::new(AtomicBool::new(false));
    let reads = Arc::new(AtomicUsize::new(0));
    let readers: Vec<_> = (0..3)
        .map(|_| {
            let (catalog, done, reads) = (catalog.clone(), done.clone(), reads.clone());
            let (before, after) = (before.clone(), after.clone());
            std::thread::spawn(move || {
                while !done.load(Ordering::Acquire) {
                    let seen = lists(&catalog);
                    assert!(seen == before || seen == after, "a mixed snapshot");
                    reads.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    let texts = [CATALOG_TOML.to_owned(), assistant_in_full()];
    for i in 0..100 {
        let changes = catalog
            .reload_toml(&texts[i % 2], "catalog.toml")
            .expect("valid");
        assert_eq!(
            changes.clients.iter().collect::<Vec<_>>(),
            ["acme-assistant"]
        );
    }
    done.store(true, Ordering::Release);
    for reader in readers {
        reader.join().expect("a reader failed");
    }
    assert!(reads.load(Ordering::Relaxed) > 0);
    assert_eq!(lists(&catalog), after);
}

#[test]
fn an_invalid_reload_leaves_every_list_byte_identical() {
    let catalog = demo();
    let notices = catalog.subscribe();
    let before = lists(&catalog);
    let broken = CATALOG_TOML.replace("\"billing.refund\"]", "\"billing.refnd\"]");
    let errors = catalog
        .reload_toml(&broken, "catalog.toml")
        .expect_err("unknown tool");
    assert!(errors.to_string().contains("billing.refnd"), "{errors}");
    let errors = catalog
        .reload_toml("[[tenant]", "catalog.toml")
        .expect_err("syntax");
    assert_eq!(errors.len(), 1);
    assert_eq!(lists(&catalog), before);
    assert!(notices.try_recv().is_err(), "no notice for a refused file");
}

#[test]
fn only_changed_clients_are_notified() {
    let catalog = demo();
    let notices = catalog.subscribe();
    let changes = catalog
        .reload_toml(&assistant_in_full(), "catalog.toml")
        .expect("valid");
    assert_eq!(
        changes.clients.iter().collect::<Vec<_>>(),
        ["acme-assistant"]
    );
    assert_eq!(notices.try_recv().ok(), Some(changes));
    let same = catalog
        .reload_toml(&assistant_in_full(), "catalog.toml")
        .expect("valid");
    assert!(same.is_empty());
    assert!(
        notices.try_recv().is_err(),
        "an unchanged reload sends nothing"
    );
    let without_globex = CATALOG_TOML.replace("toolsets = [\"globex-support\"]", "toolsets = []");
    let changes = catalog
        .reload_toml(&without_globex, "catalog.toml")
        .expect("valid");
    assert_eq!(
        changes.clients.iter().collect::<Vec<_>>(),
        ["acme-assistant", "globex-support"]
    );
}

#[test]
fn a_watched_file_reloads_and_a_bad_one_is_refused() {
    let dir = std::env::temp_dir().join(format!("toolschema-watch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("catalog.toml");
    std::fs::write(&path, CATALOG_TOML).expect("write");
    let catalog = Arc::new(demo());
    let notices = catalog.subscribe();
    let watch = catalog.watch(&path, Duration::from_millis(10));

    std::fs::write(&path, assistant_in_full()).expect("write");
    let changes = notices
        .recv_timeout(Duration::from_secs(10))
        .expect("a change notice");
    assert_eq!(
        changes.clients.iter().collect::<Vec<_>>(),
        ["acme-assistant"]
    );
    let good = lists(&catalog);

    std::fs::write(&path, "this is not toml = = =").expect("write");
    assert!(notices.recv_timeout(Duration::from_millis(300)).is_err());
    assert_eq!(lists(&catalog), good);

    drop(watch);
    std::fs::write(&path, CATALOG_TOML).expect("write");
    assert!(
        notices.recv_timeout(Duration::from_millis(100)).is_err(),
        "the watch stopped"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
