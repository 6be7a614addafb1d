//! Each corpus type's rendered schema is committed under `tests/snapshots/`
//! and compared byte for byte. Run with `TOOLSCHEMA_BLESS=1` to rewrite the
//! files after a reviewed change.

use std::path::PathBuf;

use crate::corpus::{self, Entry};

fn snapshot_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots")
}

pub fn check(entries: Vec<Entry>) {
    let bless = std::env::var_os("TOOLSCHEMA_BLESS").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for entry in entries {
        let path = snapshot_dir().join(format!("{}.json", entry.name));
        let rendered = entry.json.to_pretty_string() + "\n";
        if bless {
            std::fs::write(&path, &rendered).expect("write snapshot");
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(committed) if committed == rendered => {}
            Ok(committed) => stale.push(format!(
                "{}: differs\n--- committed\n{committed}\n+++ rendered\n{rendered}",
                path.display()
            )),
            Err(_) => stale.push(format!("{}: missing", path.display())),
        }
    }
    assert!(
        stale.is_empty(),
        "{} snapshot(s) differ; review, then rerun with TOOLSCHEMA_BLESS=1:\n{}",
        stale.len(),
        stale.join("\n")
    );
}

#[test]
fn schema_snapshots_match() {
    check(corpus::schemas());
}

#[test]
fn tool_snapshots_match() {
    check(corpus::tools());
}

#[test]
fn corpus_is_large_enough() {
    assert!(corpus::schemas().len() + corpus::tools().len() >= 25);
}
