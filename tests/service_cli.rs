//! A service's own command line (`Server::main`, feature `cli`), run as its
//! user runs it: the `stateful` example's binary checks, lists, costs and
//! exports its own tools, and keeps its committed `server.json` true.

#![allow(missing_docs)]

use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;
use toolschema::export::NAMESPACE;
use toolschema_test_support::{example, spec_json};

/// The `stateful` example, built by `cargo test` beside the test binaries,
/// run from the workspace root.
fn stateful(args: &[&str]) -> Output {
    example("stateful")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("TOOLSCHEMA_BLESS")
        .output()
        .expect("the stateful example runs")
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).expect("UTF-8")
}

const COMMITTED: &str = "examples/warehouse.server.json";

#[test]
fn check_and_list_speak_of_the_services_own_tools() {
    let checked = stdout(&stateful(&["check"]));
    assert_eq!(
        checked.trim(),
        "dev.toolschema.examples/warehouse: ok (2 tools, no configuration: open mode)"
    );
    let list: Value = serde_json::from_str(&stdout(&stateful(&["list"]))).expect("JSON");
    let names: Vec<&str> = list["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert_eq!(names, ["stock.add", "stock.level"]);
    let stats = stdout(&stateful(&["list", "--stats"]));
    assert!(stats.contains("tokens counted with o200k_base"), "{stats}");
    let list_line = stats
        .lines()
        .find(|line| line.starts_with("the list"))
        .unwrap_or_else(|| panic!("{stats}"));
    let counts: Vec<u64> = list_line
        .split_whitespace()
        .filter_map(|word| word.parse().ok())
        .collect();
    assert_eq!(counts.len(), 3, "{list_line}");
    assert_eq!(counts[0], 2, "two tools: {list_line}");
    assert!(counts[2] > 50, "tokens counted: {list_line}");
    // A configuration file given on the command line is checked against the
    // service's tools, each problem located.
    let dir = std::env::temp_dir().join(format!("toolschema-service-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let config = dir.join("catalog.toml");
    std::fs::write(
        &config,
        "[[tenant]]\nid = \"acme\"\n[[toolset]]\nid = \"stock\"\ntenant = \"acme\"\nmode = \"full\"\ntools = [\"stock.levle\"]\n",
    )
    .expect("write");
    let refused = stateful(&["check", config.to_str().expect("UTF-8")]);
    assert!(!refused.status.success());
    let error = String::from_utf8_lossy(&refused.stderr);
    assert!(error.contains("did you mean `stock.level`"), "{error}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn export_writes_a_valid_server_json_and_checks_the_committed_one() {
    let text = stdout(&stateful(&["export"]));
    let document: Value = serde_json::from_str(&text).expect("JSON");
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft7)
        .should_validate_formats(true)
        .build(&spec_json("registry/2025-12-11/server.schema.json"))
        .expect("the registry schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&document)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(document["name"], "dev.toolschema.examples/warehouse");
    assert_eq!(
        document["_meta"][NAMESPACE]["tools"][0]["name"],
        "stock.add"
    );

    // The committed file is the export, and `--check` says so.
    let fresh = stdout(&stateful(&["export", "--check", COMMITTED]));
    assert_eq!(fresh.trim(), format!("{COMMITTED} is up to date"));
    let committed =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(COMMITTED))
            .expect("committed");
    assert_eq!(committed.trim_end(), text.trim_end());

    // A stale copy fails with the difference and is left as it was.
    let stale = std::env::temp_dir().join(format!("toolschema-stale-{}.json", std::process::id()));
    let edited = committed.replace("\"version\": \"1.0.0\"", "\"version\": \"0.9.0\"");
    assert_ne!(edited, committed);
    std::fs::write(&stale, &edited).expect("write");
    let refused = stateful(&["export", "--check", stale.to_str().expect("UTF-8")]);
    assert!(!refused.status.success());
    let error = String::from_utf8_lossy(&refused.stderr);
    assert!(error.contains("is stale"), "{error}");
    assert!(error.contains("-") && error.contains("0.9.0"), "{error}");
    assert_eq!(std::fs::read_to_string(&stale).expect("read"), edited);
    let _ = std::fs::remove_file(&stale);
}

/// The README's `cargo run --example stateful -- …` lines are this binary's
/// command line: each parses (asked for `--help` at its end).
#[test]
fn the_documented_command_lines_parse() {
    use toolschema_test_support::documents::{code_lines, documents, invocation};

    let mut checked = 0;
    for document in documents() {
        let text = std::fs::read_to_string(&document).expect("read");
        for line in code_lines(&text) {
            let Some(mut args) = invocation(&line, "stateful", "stateful") else {
                continue;
            };
            args.push("--help".to_owned());
            let words: Vec<&str> = args.iter().map(String::as_str).collect();
            let output = stateful(&words);
            assert!(
                output.status.success(),
                "{}: `{line}` does not parse: {}",
                document.display(),
                String::from_utf8_lossy(&output.stderr)
            );
            checked += 1;
        }
    }
    assert!(checked >= 5, "{checked} command lines checked");
}
