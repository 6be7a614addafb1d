//! The README's and the guides' command lines are the binary's: every
//! `toolschema …` line of their code blocks (and the README's `cargo run -p
//! toolschema-cli -- …`) parses, command, flags and values, as the binary
//! reads it (asked for `--help` at its end, so nothing runs).

#![allow(missing_docs)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = vec![root.join("README.md")];
    let mut guides: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    guides.sort();
    out.extend(guides);
    out
}

/// The command lines of code blocks, continuations (`\`) joined: every
/// line of shell blocks, and the `$ ` lines of others (a session shown with
/// its output).
fn code_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut block: Option<&str> = None;
    let mut pending = String::new();
    for line in text.lines() {
        if let Some(fence) = line.trim_start().strip_prefix("```") {
            block = match block {
                None => Some(fence.trim()),
                Some(_) => None,
            };
            continue;
        }
        let shell = match block {
            None => continue,
            Some("sh" | "bash" | "console" | "shell") => true,
            Some(_) => false,
        };
        if !shell && !line.starts_with("$ ") && pending.is_empty() {
            continue;
        }
        match line.strip_suffix('\\') {
            Some(head) => pending.push_str(head),
            None => {
                pending.push_str(line);
                out.push(std::mem::take(&mut pending));
            }
        }
    }
    out
}

/// Shell words, quotes removed, up to a comment or `&`.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut started = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                started = true;
            }
            (None, '#') if !started => break,
            (None, '&') => break,
            (None, c) if c.is_whitespace() => {
                if started {
                    out.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            (None, c) => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        out.push(word);
    }
    out
}

/// The binary's arguments in a line that runs it, if it does.
fn invocation(line: &str) -> Option<Vec<String>> {
    let line = line.trim_start().trim_start_matches("$ ");
    let mut words = words(line).into_iter().skip_while(|word| {
        // Environment assignments before the command.
        word.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty() && name.chars().all(|c| c.is_ascii_uppercase() || c == '_')
        })
    });
    match words.next()?.as_str() {
        "toolschema" => Some(words.collect()),
        "cargo" => {
            let rest: Vec<String> = words.collect();
            let at = rest.iter().position(|word| word == "--")?;
            rest.iter()
                .any(|word| word == "toolschema-cli")
                .then(|| rest[at + 1..].to_vec())
        }
        _ => None,
    }
}

#[test]
fn every_documented_command_line_parses() {
    let mut checked = Vec::new();
    for document in documents() {
        let text = std::fs::read_to_string(&document).expect("read");
        for line in code_lines(&text) {
            let Some(args) = invocation(&line) else {
                continue;
            };
            let output = Command::new(env!("CARGO_BIN_EXE_toolschema"))
                .args(&args)
                .arg("--help")
                .output()
                .expect("the binary runs");
            assert!(
                output.status.success(),
                "{}: `{line}` does not parse: {}",
                document.display(),
                String::from_utf8_lossy(&output.stderr)
            );
            checked.push(args.join(" "));
        }
    }
    // The README's main command, the store's workflow, the identity and
    // telemetry guides' servers, the --stats examples.
    assert!(checked.len() >= 8, "{checked:#?}");
    assert!(checked.iter().any(|args| args == "serve"), "{checked:#?}");
    assert!(
        checked.iter().any(|args| args.starts_with("admin migrate")),
        "{checked:#?}"
    );
}

#[test]
fn a_misspelt_flag_is_caught() {
    let output = Command::new(env!("CARGO_BIN_EXE_toolschema"))
        .args(["serve", "--bnd", "127.0.0.1:8080", "--help"])
        .output()
        .expect("the binary runs");
    assert!(!output.status.success(), "the check would pass anything");
    assert_eq!(
        invocation("OTEL_SERVICE_NAME=billing toolschema serve --stdio  # over stdio &"),
        Some(vec!["serve".to_owned(), "--stdio".to_owned()])
    );
}
