//! The README's and the guides' command lines are the binary's: every
//! `toolschema …` line of their code blocks (and the README's `cargo run -p
//! toolschema-cli -- …`) parses, command, flags and values, as the binary
//! reads it (asked for `--help` at its end, so nothing runs).

use std::process::Command;

use toolschema_test_support::documents::{code_lines, documents, invocation};

#[test]
fn every_documented_command_line_parses() {
    let mut checked = Vec::new();
    for document in documents() {
        let text = std::fs::read_to_string(&document).expect("read");
        for line in code_lines(&text) {
            let Some(args) = invocation(&line, "toolschema", "toolschema-cli") else {
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
        invocation(
            "OTEL_SERVICE_NAME=billing toolschema serve --stdio  # over stdio &",
            "toolschema",
            "toolschema-cli"
        ),
        Some(vec!["serve".to_owned(), "--stdio".to_owned()])
    );
}
