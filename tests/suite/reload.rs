//! Live reload: atomic swaps that readers never see half-done, invalid files
//! that change nothing, and change notices only for the clients whose lists
//! changed.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;
use toolschema::project::ProtocolRevision;

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
        .map(|c| {
            snapshot
                .discover(c, ProtocolRevision::LATEST)
                .expect("demo client")
        })
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
    // A reload that changes no list is still told (it may have changed
    // keys), with no client in it.
    assert_eq!(notices.try_recv().ok(), Some(same));
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
    let watch = catalog.watch(&path, Duration::from_millis(10), Duration::ZERO);

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

/// Lists every demo client's tools until `done`, and returns every list
/// set seen that is neither `allowed[0]` nor `allowed[1]`.
fn watch_lists(
    catalog: Arc<Catalog>,
    done: Arc<AtomicBool>,
    allowed: [Vec<Arc<str>>; 2],
) -> std::thread::JoinHandle<(usize, usize)> {
    std::thread::spawn(move || {
        let (mut reads, mut strange) = (0, 0);
        while !done.load(Ordering::Acquire) {
            let snapshot = catalog.snapshot();
            let seen: Option<Vec<Arc<str>>> = CLIENTS
                .iter()
                .map(|c| snapshot.discover(c, ProtocolRevision::LATEST).ok())
                .collect();
            if !seen.is_some_and(|seen| allowed.contains(&seen)) {
                strange += 1;
            }
            reads += 1;
            std::thread::sleep(Duration::from_millis(1));
        }
        (reads, strange)
    })
}

fn temp_file(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("toolschema-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join("catalog.toml")
}

#[test]
fn a_file_written_slowly_is_loaded_only_whole() {
    use std::io::Write as _;
    let path = temp_file("slow-write");
    std::fs::write(&path, CATALOG_TOML).expect("write");
    let catalog = Arc::new(demo());
    let notices = catalog.subscribe();
    let before = lists(&catalog);
    let whole = assistant_in_full();
    // Cut before the last client: what a reader of the half-written file
    // would load is a valid configuration, one client short.
    let cut = whole.rfind("[[client]]").expect("clients");
    let partial = &whole[..cut];
    assert!(
        toolschema::catalog::Config::from_toml(partial, "p", &toolschema_demo::registry()).is_ok(),
        "the half-written file would load"
    );
    let after = {
        let probe = Arc::new(demo());
        probe.reload_toml(&whole, "whole").expect("valid");
        lists(&probe)
    };
    let watch = catalog.watch(&path, Duration::from_millis(10), Duration::from_millis(400));
    let done = Arc::new(AtomicBool::new(false));
    let reader = watch_lists(catalog.clone(), done.clone(), [before, after.clone()]);

    let mut file = std::fs::File::create(&path).expect("truncate");
    file.write_all(partial.as_bytes()).expect("first part");
    file.flush().expect("flush");
    std::thread::sleep(Duration::from_millis(150));
    file.write_all(&whole.as_bytes()[cut..]).expect("the rest");
    drop(file);

    let changes = notices
        .recv_timeout(Duration::from_secs(10))
        .expect("the whole file loads");
    assert_eq!(
        changes.clients.iter().collect::<Vec<_>>(),
        ["acme-assistant"]
    );
    assert!(
        notices.recv_timeout(Duration::from_millis(200)).is_err(),
        "one reload, of the whole file"
    );
    done.store(true, Ordering::Release);
    let (reads, strange) = reader.join().expect("reader");
    assert!(reads > 50, "{reads} reads");
    assert_eq!(strange, 0, "a reader saw a list of the half-written file");
    assert_eq!(lists(&catalog), after);
    drop(watch);
    let _ = std::fs::remove_dir_all(path.parent().expect("dir"));
}

#[test]
fn an_emptied_file_is_refused_and_the_last_good_one_keeps_serving() {
    let path = temp_file("truncate");
    std::fs::write(&path, CATALOG_TOML).expect("write");
    let catalog = Arc::new(demo());
    let notices = catalog.subscribe();
    let good = lists(&catalog);
    let watch = catalog.watch(&path, Duration::from_millis(10), Duration::from_millis(50));
    let done = Arc::new(AtomicBool::new(false));
    let reader = watch_lists(catalog.clone(), done.clone(), [good.clone(), good.clone()]);

    std::fs::File::create(&path).expect("truncate");
    assert!(
        notices.recv_timeout(Duration::from_millis(500)).is_err(),
        "an empty file changes nothing"
    );
    std::fs::remove_file(&path).expect("delete");
    assert!(notices.recv_timeout(Duration::from_millis(200)).is_err());
    done.store(true, Ordering::Release);
    let (_, strange) = reader.join().expect("reader");
    assert_eq!(strange, 0);
    assert_eq!(lists(&catalog), good);

    // Back, and changed: it loads.
    std::fs::write(&path, assistant_in_full()).expect("write");
    let changes = notices
        .recv_timeout(Duration::from_secs(10))
        .expect("reloaded");
    assert_eq!(
        changes.clients.iter().collect::<Vec<_>>(),
        ["acme-assistant"]
    );
    drop(watch);
    let _ = std::fs::remove_dir_all(path.parent().expect("dir"));
}

#[test]
fn an_empty_configuration_or_one_without_clients_is_refused() {
    let registry = toolschema_demo::registry();
    for (text, expected) in [
        ("", "the configuration is empty"),
        ("  \n\t\n", "the configuration is empty"),
        ("[[tenant]]\nid = \"acme\"\n", "names no client application"),
    ] {
        let errors = toolschema::catalog::Config::from_toml(text, "catalog.toml", &registry)
            .expect_err("refused");
        let message = errors.to_string();
        assert!(message.contains(expected), "{message}");
        assert!(message.contains("\n  catalog.toml:1:1: "), "{message}");
    }
}
