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

/// A doc comment known only after expansion (`include_str!`) is normalized
/// exactly as the same text written as `///` lines: paragraphs joined,
/// lists, tables, quotes and code kept.
#[test]
fn included_docs_read_as_written_ones() {
    use crate::corpus::{RichIncluded, RichWritten};
    use toolschema::Schema;
    use toolschema::model::Node;
    let description = |node: &'static Node| match node {
        Node::Object(object) => object.info.description.clone().expect("a description"),
        _ => panic!("a struct"),
    };
    let included = description(RichIncluded::SCHEMA);
    assert_eq!(included, description(RichWritten::SCHEMA));
    assert_eq!(
        included,
        "# Exports invoices\n\
         \n\
         Writes every invoice of a period to a file, one line per invoice, and returns where the file is.\n\
         \n\
         - `csv`: comma-separated values, with a header line\n\
         - `json`: one object per line\n\
         1. pick a period\n\
         2) pick a format\n\
         \n\
         | format | header |\n\
         | --- | --- |\n\
         | csv | yes |\n\
         \n\
         > Large periods take\n\
         > a while.\n\
         \n\
         ```text\n\
         2026-01-01,INV-1,  125.00\n\
         \x20 indented inside the fence\n\
         ```\n\
         \n\
         \x20   an indented block\n\
         \x20     keeps its indent\n\
         \n\
         The end, with a wrapped line."
    );
}
