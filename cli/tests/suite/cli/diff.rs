//! `diff`: what a new version of a tool, or a new configuration, does to
//! the clients of the one in force.

use serde_json::Value;

use crate::common::{root, run};

#[test]
fn two_versions_of_a_tool_are_reported_rule_by_rule() {
    // Without --from, the version served (1; 2 is a draft).
    let (ok, out, err) = run(&["diff", "--tool", "billing.refund", "--to", "2"]);
    assert!(ok, "{err}");
    assert_eq!(
        out.lines().next(),
        Some("billing.refund 1 -> 2: may break its clients"),
        "{out}"
    );
    assert!(
        out.contains("breaking required-property-added at /inputSchema/required/reason"),
        "{out}"
    );
    // As a CI gate.
    let (ok, _, err) = run(&[
        "diff",
        "--tool",
        "billing.refund",
        "--to",
        "2",
        "--fail-on-breaking",
    ]);
    assert!(!ok);
    assert!(err.contains("may break clients"), "{err}");

    let (ok, out, err) = run(&[
        "diff",
        "--tool",
        "billing.refund",
        "--from",
        "1",
        "--to",
        "2",
        "--json",
    ]);
    assert!(ok, "{err}");
    let report: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!((&report["from"], &report["to"]), (&1.into(), &2.into()));
    assert_eq!(report["breaks"], true);
    let full_default = report["reports"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["mode"] == "full" && r["profile"] == "default")
        .expect("Full in the default dialect is always compared");
    assert_eq!(
        full_default["changes"][0],
        serde_json::json!({
            "rule": "required-property-added",
            "level": "breaking",
            "pointer": "/inputSchema/required/reason",
            "new": "reason",
        })
    );

    // A version compared with itself: nothing, and the gate passes.
    let (ok, out, err) = run(&[
        "diff",
        "--tool",
        "billing.refund",
        "--from",
        "2",
        "--to",
        "2",
        "--fail-on-breaking",
    ]);
    assert!(ok, "{err}");
    assert!(
        out.contains("breaks none of its clients") && out.contains("no change"),
        "{out}"
    );
}

#[test]
fn an_unknown_tool_or_version_is_named() {
    let (ok, _, err) = run(&["diff", "--tool", "billing.nope", "--to", "1"]);
    assert!(!ok);
    assert!(
        err.contains("there is no tool named `billing.nope`"),
        "{err}"
    );
    let (ok, _, err) = run(&[
        "diff",
        "--tool",
        "billing.refund",
        "--from",
        "1",
        "--to",
        "7",
    ]);
    assert!(!ok);
    assert!(
        err.contains("`billing.refund` has no version 7 (its versions: 1, 2)"),
        "{err}"
    );
    let (ok, _, err) = run(&["diff"]);
    assert!(!ok);
    assert!(err.contains("--new"), "{err}");
}

/// The demo configuration with refund's version 2 published and the
/// assistant's main toolset taken from it.
fn next_demo_config() -> std::path::PathBuf {
    let text = std::fs::read_to_string(root().join("examples/catalog.toml")).expect("read");
    let next = text
        .replace(
            "{ version = 2, status = \"draft\" }",
            "{ version = 2, status = \"published\" }",
        )
        .replace(
            "toolsets = [\"acme-assistant\", \"acme-archive\"]",
            "toolsets = [\"acme-archive\"]",
        );
    assert_ne!(next, text);
    let path = std::env::temp_dir().join(format!("toolschema-diff-{}.toml", std::process::id()));
    std::fs::write(&path, next).expect("write");
    path
}

#[test]
fn a_new_configuration_is_compared_client_by_client() {
    let next = next_demo_config();
    let next = next.to_str().expect("a UTF-8 path");
    let (ok, out, err) = run(&["diff", "--new", next, "--json"]);
    assert!(ok, "{err}");
    let report: Value = serde_json::from_str(&out).expect("JSON");
    let seen: Vec<(String, Value, Value, String, bool)> = report["changes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            (
                format!(
                    "{} {}",
                    c["tool"].as_str().unwrap_or(""),
                    c["mode"].as_str().unwrap_or("")
                ),
                c["from"].clone(),
                c["to"].clone(),
                c["clients"].to_string(),
                c["report"]["breaks"] == true,
            )
        })
        .collect();
    let acme_assistant = "[\"acme-assistant\"]".to_owned();
    assert_eq!(
        seen,
        [
            (
                "billing.get-invoice data-structure-only".into(),
                1.into(),
                Value::Null,
                acme_assistant.clone(),
                true
            ),
            (
                "billing.list-invoices lazy".into(),
                1.into(),
                Value::Null,
                acme_assistant,
                true
            ),
            (
                "billing.refund full".into(),
                1.into(),
                2.into(),
                "[\"acme-finance\"]".into(),
                true
            ),
        ],
        "{out}"
    );
    let (ok, _, err) = run(&["diff", "--new", next, "--fail-on-breaking"]);
    assert!(!ok && err.contains("may break clients"), "{err}");

    // The way back: the assistant gets its tools again (nothing breaks
    // there), and refund loses the `reason` its clients now send.
    let (ok, out, err) = run(&[
        "diff",
        "--demo",
        "--old",
        next,
        "--new",
        "examples/catalog.toml",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("billing.get-invoice (none) -> 1"), "{out}");
    assert!(out.contains("info tool-added"), "{out}");
    assert!(
        out.contains("billing.refund 2 -> 1, full (default), for acme-finance:"),
        "{out}"
    );

    // The same configuration changes nothing.
    let (ok, out, err) = run(&[
        "diff",
        "--new",
        "examples/catalog.toml",
        "--fail-on-breaking",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("changes no tool for the clients of"), "{out}");
    let _ = std::fs::remove_file(next);
}
