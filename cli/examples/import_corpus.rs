//! Imports every document of a corpus of public API descriptions and checks
//! each result as a governed catalog: the rates of the importer on inputs
//! nobody here wrote.
//!
//! ```text
//! cargo run --release -p toolschema-cli --example import_corpus -- openapi LIST [--min-documents P] [--min-operations P]
//! cargo run --release -p toolschema-cli --example import_corpus -- wsdl LIST [--min-operations P]
//! ```
//!
//! `LIST` holds one document path a line (`.ci/realworld` writes the lists
//! after fetching the pinned packages). Prints the table of documents and
//! operations, the skip reasons and check problems by kind with a first
//! example each, the slowest document and the peak memory; exits 1 when a
//! rate is under its `--min-*` target (percent).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use toolschema::call::Registry;
use toolschema::catalog::Config;
use toolschema::project::{Mode, project_tool};
use toolschema_import::{
    ImportOptions, Imported, import_openapi, import_wsdl_file, parse_document,
};

/// Where a relative document is served from when it says nowhere.
const PLACEHOLDER_BASE: &str = "https://api.example.invalid";

#[derive(Default)]
struct Tally {
    documents: usize,
    /// Documents with at least one operation.
    with_operations: usize,
    /// The importer refused the whole document for want of a base URL.
    refused_base_url: usize,
    /// The importer refused the whole document for another reason.
    refused: BTreeMap<String, (usize, String)>,
    /// The written catalog passes the checks (documents with operations).
    checks: usize,
    /// Whether the document being read has operations.
    has_operations: bool,
    operations: usize,
    written: usize,
    usable: usize,
    skipped: BTreeMap<String, (usize, String)>,
    dropped: BTreeMap<String, (usize, String)>,
    problems: BTreeMap<String, (usize, String)>,
    slowest: (Duration, String),
    /// The catalogs' TOML text, in all and the largest.
    catalog_bytes: usize,
    largest_catalog: (usize, String),
    /// Each usable tool's Full-mode definition (what `tools/list` shows
    /// of it), in bytes: in all, how many, and the largest.
    definition_bytes: usize,
    definitions: usize,
    largest_definition: (usize, String),
}

/// A reason with the names in it replaced, so that reasons group by kind.
fn kind(reason: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    for c in reason.chars() {
        if c == '`' {
            if !quoted {
                out.push_str("`…`");
            }
            quoted = !quoted;
        } else if !quoted {
            out.push(if c.is_ascii_digit() { '#' } else { c });
        }
    }
    out
}

fn count(map: &mut BTreeMap<String, (usize, String)>, reason: &str, example: String) {
    let entry = map.entry(kind(reason)).or_insert((0, example));
    entry.0 += 1;
}

/// The operations an OpenAPI document declares.
fn operations(document: &toolschema::render::Json) -> usize {
    let Some(paths) = document
        .as_object()
        .and_then(|d| d.get("paths"))
        .and_then(|p| p.as_object())
    else {
        return 0;
    };
    paths
        .iter()
        .map(|(_, item)| {
            let Some(item) = item.as_object() else {
                return 0;
            };
            [
                "get", "put", "post", "delete", "patch", "head", "options", "trace",
            ]
            .iter()
            .filter(|method| item.get(method).is_some())
            .count()
        })
        .sum()
}

fn check(tally: &mut Tally, imported: Imported, name: &str) {
    tally.written += imported.tools.len();
    for skipped in &imported.skipped {
        count(
            &mut tally.skipped,
            &skipped.reason,
            format!("{name}: {}: {}", skipped.operation, skipped.reason),
        );
    }
    for dropped in &imported.dropped {
        count(
            &mut tally.dropped,
            &dropped.reason,
            format!("{name}: {}: {}", dropped.operation, dropped.reason),
        );
    }
    tally.catalog_bytes += imported.toml.len();
    if imported.toml.len() > tally.largest_catalog.0 {
        tally.largest_catalog = (imported.toml.len(), name.to_owned());
    }
    // One copy of the text while it is checked.
    let mut text =
        String::from("[[tenant]]\nid = \"t\"\n\n[[client]]\nid = \"c\"\ntenant = \"t\"\n\n");
    text.push_str(&imported.toml);
    let tools = imported.tools.len();
    drop(imported);
    match Config::from_toml(&text, name, &Registry::new()) {
        Ok(config) => {
            tally.checks += usize::from(tally.has_operations);
            tally.usable += tools;
            for tool in config.configured_tools() {
                for version in tool.versions() {
                    let bytes = project_tool(version.def(), Mode::Full)
                        .to_compact_string()
                        .len();
                    tally.definition_bytes += bytes;
                    tally.definitions += 1;
                    if bytes > tally.largest_definition.0 {
                        tally.largest_definition = (bytes, format!("{name}: {}", tool.name()));
                    }
                }
            }
        }
        Err(errors) => {
            for error in errors.iter() {
                count(
                    &mut tally.problems,
                    error.message(),
                    format!(
                        "{name}:{}: {}: {}",
                        error.line(),
                        error.key(),
                        error.message()
                    ),
                );
            }
        }
    }
}

fn openapi(tally: &mut Tally, path: &Path) {
    let name = path.display().to_string();
    let Ok(text) = std::fs::read_to_string(path) else {
        count(&mut tally.refused, "unreadable file", name);
        return;
    };
    let document = match parse_document(&text) {
        Ok(document) => document,
        Err(error) => {
            count(&mut tally.refused, &error.to_string(), name);
            return;
        }
    };
    let operations = operations(&document);
    tally.operations += operations;
    tally.has_operations = operations > 0;
    if operations > 0 {
        tally.with_operations += 1;
    }
    let options = ImportOptions {
        downstream: "api".to_owned(),
        ..ImportOptions::default()
    };
    let imported = match import_openapi(&document, &options) {
        Err(error) if error.to_string().contains("--base-url") => {
            tally.refused_base_url += 1;
            // What it would give with a base URL, for the operation counts.
            let options = ImportOptions {
                base_url: Some(PLACEHOLDER_BASE.to_owned()),
                ..options
            };
            import_openapi(&document, &options)
        }
        imported => imported,
    };
    // The document is not held while the result is checked, as
    // `toolschema import` does not hold it.
    drop((text, document));
    match imported {
        Ok(imported) => check(tally, imported, &name),
        Err(error) => count(&mut tally.refused, &error.to_string(), name),
    }
}

fn wsdl(tally: &mut Tally, path: &Path) {
    let name = path.display().to_string();
    let options = ImportOptions {
        downstream: "api".to_owned(),
        base_url: None,
        ..ImportOptions::default()
    };
    let imported = import_wsdl_file(path, &options).or_else(|error| {
        if error.to_string().contains("--base-url") {
            tally.refused_base_url += 1;
            import_wsdl_file(
                path,
                &ImportOptions {
                    base_url: Some(PLACEHOLDER_BASE.to_owned()),
                    ..options.clone()
                },
            )
        } else {
            Err(error)
        }
    });
    match imported {
        Ok(imported) => {
            let operations = imported.tools.len() + imported.skipped.len();
            tally.operations += operations;
            tally.has_operations = operations > 0;
            if operations > 0 {
                tally.with_operations += 1;
            }
            check(tally, imported, &name);
        }
        Err(error) => count(&mut tally.refused, &error.to_string(), name),
    }
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        100.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

fn peak_memory_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn print_kinds(title: &str, map: &BTreeMap<String, (usize, String)>) {
    if map.is_empty() {
        return;
    }
    println!("\n{title}:");
    let mut rows: Vec<_> = map.iter().collect();
    rows.sort_by_key(|row| std::cmp::Reverse(row.1.0));
    for (kind, (n, example)) in rows.iter().take(25) {
        let example: String = example.chars().take(220).collect();
        println!("  {n:>6}  {kind}\n          e.g. {example}");
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(format), Some(list)) = (args.first(), args.get(1)) else {
        eprintln!(
            "usage: import_corpus openapi|wsdl LIST [--min-documents P] [--min-operations P]"
        );
        std::process::exit(2);
    };
    let target = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse::<f64>().ok())
    };
    let paths = std::fs::read_to_string(list).expect("the list is readable");
    let mut tally = Tally::default();
    let started = Instant::now();
    for line in paths.lines().filter(|l| !l.trim().is_empty()) {
        let path = Path::new(line.trim());
        let one = Instant::now();
        tally.documents += 1;
        match format.as_str() {
            "wsdl" => wsdl(&mut tally, path),
            _ => openapi(&mut tally, path),
        }
        let took = one.elapsed();
        if took > tally.slowest.0 {
            tally.slowest = (took, path.display().to_string());
        }
    }
    let documents_ok = tally.checks;
    println!("| | count | share |\n|---|---|---|");
    println!("| documents | {} | |", tally.documents);
    println!(
        "| with at least one operation | {} | |",
        tally.with_operations
    );
    println!(
        "| refused for want of a base URL (imported again with one) | {} | {:.1}% |",
        tally.refused_base_url,
        percent(tally.refused_base_url, tally.documents)
    );
    println!(
        "| refused as a whole for another reason | {} | {:.1}% |",
        tally.refused.values().map(|(n, _)| n).sum::<usize>(),
        percent(
            tally.refused.values().map(|(n, _)| n).sum::<usize>(),
            tally.documents
        )
    );
    let document_rate = percent(documents_ok, tally.with_operations);
    println!(
        "| the imported catalog passes the checks | {documents_ok} | {document_rate:.1}% of those with operations |"
    );
    println!(
        "| operations written as tools | {} of {} | {:.1}% |",
        tally.written,
        tally.operations,
        percent(tally.written, tally.operations)
    );
    let operation_rate = percent(tally.usable, tally.operations);
    println!(
        "| operations usable (in a catalog that checks) | {} | {operation_rate:.1}% |",
        tally.usable
    );
    println!(
        "\n{:.1} s in all; slowest document {:.2} s ({}); peak memory {} MiB",
        started.elapsed().as_secs_f64(),
        tally.slowest.0.as_secs_f64(),
        tally.slowest.1,
        peak_memory_mib().map_or("?".to_owned(), |m| format!("{m:.0}"))
    );
    println!(
        "catalogs {:.1} MiB in all, the largest {:.1} MiB ({}); tool definitions (Full) {:.0} bytes on average (about {:.0} tokens), the largest {} bytes ({})",
        tally.catalog_bytes as f64 / 1048576.0,
        tally.largest_catalog.0 as f64 / 1048576.0,
        tally.largest_catalog.1,
        tally.definition_bytes as f64 / tally.definitions.max(1) as f64,
        tally.definition_bytes as f64 / tally.definitions.max(1) as f64 / 4.0,
        tally.largest_definition.0,
        tally.largest_definition.1,
    );
    print_kinds("documents refused", &tally.refused);
    print_kinds("check problems, by kind", &tally.problems);
    print_kinds("operations skipped, by reason", &tally.skipped);
    print_kinds(
        "parts of written operations left out, by reason",
        &tally.dropped,
    );
    let mut short = false;
    if let Some(min) = target("--min-documents")
        && document_rate < min
    {
        eprintln!("documents that check: {document_rate:.1}% < {min}%");
        short = true;
    }
    if let Some(min) = target("--min-operations")
        && operation_rate < min
    {
        eprintln!("operations usable: {operation_rate:.1}% < {min}%");
        short = true;
    }
    if short {
        std::process::exit(1);
    }
}
