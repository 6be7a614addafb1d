//! The binary's commands on a catalog store (a real PostgreSQL): the
//! publish workflow from the command line, `check` and `export` reading the
//! store, `import` writing drafts to it, and the errors an operator meets
//! first.

use toolschema_test_support::postgres::Postgres;

use crate::common;
use common::run;

fn admin(url: &str, args: &[&str]) -> (bool, String, String) {
    let mut all = vec!["admin", "--demo", "--database-url", url, "--actor", "ops"];
    all.extend_from_slice(args);
    run(&all)
}

fn ok(url: &str, args: &[&str]) -> String {
    let (ok, out, err) = admin(url, args);
    assert!(ok, "admin {args:?}: {err}");
    out
}

#[test]
fn the_publish_workflow_runs_from_the_command_line() {
    let url = Postgres::shared().database();
    // Before migrating, every command says what to do.
    let (done, _, err) = run(&["check", "--database-url", &url]);
    assert!(!done);
    assert!(err.contains("run `toolschema admin migrate`"), "{err}");
    // The store is named as the URL gives it (a password would be left out).
    assert_eq!(
        ok(&url, &["migrate"]).trim_end(),
        format!("{url}: 4 migrations applied")
    );
    let (done, _, err) = run(&["serve", "--database-url", &url, "--bind", "127.0.0.1:0"]);
    assert!(!done);
    assert!(err.contains("toolschema admin load <file>"), "{err}");

    assert_eq!(
        ok(&url, &["load", "examples/catalog.toml"]).trim_end(),
        "revision 1: catalog: the whole configuration replaced"
    );
    // The demo configuration names the demo's tools, which the binary
    // serves and checks against only when asked for: the operator is told.
    let (done, _, err) = run(&["check", "--database-url", &url]);
    assert!(!done);
    assert!(
        err.contains("unknown tool `billing.get-invoice`")
            && err.contains("names the demo's tools, which this binary serves only with --demo"),
        "{err}"
    );
    let (done, out, _) = run(&["check", "--demo", "--database-url", &url]);
    assert!(done);
    assert!(
        out.ends_with(": ok (2 tenants, 5 toolsets, 4 client applications, 0 gateway tools)\n"),
        "{out}"
    );
    // The store serves what the file does.
    let (_, from_store, _) = run(&["export", "--demo", "--database-url", &url]);
    let (_, from_file, _) = run(&["export", "--demo", "--config", "examples/catalog.toml"]);
    assert_eq!(from_store, from_file);
    let (done, _, err) = run(&["export", "--config", "examples/catalog.toml"]);
    assert!(!done);
    assert!(
        err.contains("examples/catalog.toml names the demo's tools, which this binary serves only with --demo"),
        "{err}"
    );

    assert_eq!(
        ok(&url, &["propose", "billing.refund", "2"]).trim_end(),
        "revision 2: tool_version \"billing.refund\" 2: draft -> proposed"
    );
    let (done, _, err) = admin(&url, &["assign", "acme-finance", "globex-support"]);
    assert!(!done);
    assert!(
        err.contains("client \"acme-finance\": toolsets[1]: toolset `globex-support` belongs to tenant `globex`"),
        "{err}"
    );
    let (done, key, err) = admin(&url, &["rotate-key", "globex-support"]);
    assert!(done, "{err}");
    assert!(
        err.starts_with(
            "revision 3: client \"globex-support\": a new API key; 1 key no longer accepted"
        ),
        "{err}"
    );
    assert!(key.trim().starts_with("tsk_"));

    // The store's versions compared, then a breaking publish refused with
    // its report unless accepted.
    let (done, out, err) = run(&[
        "diff",
        "--demo",
        "--database-url",
        &url,
        "--tool",
        "billing.refund",
        "--to",
        "2",
    ]);
    assert!(done, "{err}");
    assert!(
        out.starts_with("billing.refund 1 -> 2: may break its clients"),
        "{out}"
    );
    let (done, _, err) = admin(&url, &["publish", "billing.refund", "2"]);
    assert!(!done);
    assert!(
        err.contains("`billing.refund` 1 -> 2: may break its clients [report "),
        "{err}"
    );
    assert!(
        err.contains("]\n  breaking required-property-added at /inputSchema/required/reason"),
        "{err}"
    );
    assert!(err.contains("nothing was changed"), "{err}");
    let digest = err
        .split("(accept = ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .expect("the refusal names the report's digest")
        .to_owned();
    let published = ok(
        &url,
        &["publish", "billing.refund", "2", "--accept", &digest],
    );
    assert!(
        published.starts_with(&format!("revision 4: tool_version \"billing.refund\" 2: proposed -> published; `billing.refund` 1 -> 2 served, its breaking changes accepted (report {digest})\n`billing.refund` 1 -> 2: may break its clients (accepted) [report {digest}]")),
        "{published}"
    );

    let audit = ok(&url, &["audit"]);
    let actions: Vec<String> = audit
        .lines()
        .map(|line| {
            line.split_whitespace()
                .skip(1)
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    assert_eq!(
        actions,
        [
            "r1 ops replace",
            "r2 ops propose",
            "r3 ops rotate_key",
            "r4 ops publish"
        ],
        "{audit}"
    );

    // `admin show` prints a file that passes `check` on its own.
    let shown = ok(&url, &["show"]);
    assert!(shown.starts_with("# postgresql://"), "{shown}");
    let file = std::env::temp_dir().join(format!("toolschema-shown-{}.toml", std::process::id()));
    std::fs::write(&file, &shown).expect("write");
    let (done, out, err) = run(&["check", "--demo", file.to_str().expect("utf-8")]);
    assert!(done, "{err}");
    assert!(out.contains(": ok (2 tenants"), "{out}");
    let _ = std::fs::remove_file(&file);
}

#[test]
fn every_action_of_the_list_is_a_subcommand_and_runs() {
    use toolschema_store::ActionKind;
    // The subcommands are made from the store's one list of actions.
    let (done, help, err) = run(&["admin", "--help"]);
    assert!(done, "{err}");
    for kind in ActionKind::ALL {
        let name = kind.name().replace('_', "-");
        assert!(
            help.lines()
                .any(|line| line.trim_start().starts_with(&format!("{name} "))),
            "`admin {name}` is missing:\n{help}"
        );
    }
    let url = Postgres::shared().database();
    ok(&url, &["migrate"]);
    ok(&url, &["replace", "examples/catalog.toml"]);
    // The record actions, which only the admin API had.
    let body = std::env::temp_dir().join(format!("toolschema-body-{}.json", std::process::id()));
    std::fs::write(&body, "{}").expect("write");
    let body = body.to_str().expect("utf-8");
    assert!(
        ok(&url, &["put", "tenant", "initech", "--body", body])
            .starts_with("revision 2: tenant \"initech\""),
    );
    assert!(
        ok(&url, &["delete", "tenant", "initech"])
            .starts_with("revision 3: tenant \"initech\": removed")
    );
    // A kind that does not exist is named, with those that do.
    let (done, _, err) = admin(&url, &["put", "widget", "x", "--body", body]);
    assert!(!done);
    assert!(
        err.contains("put: `widget` is not a record kind; use tenant, client, toolset, downstream or gateway_tool"),
        "{err}"
    );
    // A record's fields are required: the parser says so before the store is asked.
    let (done, _, err) = admin(&url, &["put", "tenant", "initech"]);
    assert!(!done);
    assert!(err.contains("--body <FILE>"), "{err}");
    let _ = std::fs::remove_file(body);
}

#[test]
fn import_writes_drafts_to_the_store() {
    let url = Postgres::shared().database();
    ok(&url, &["migrate"]);
    ok(&url, &["load", "examples/catalog.toml"]);
    let (done, out, err) = run(&[
        "import",
        "openapi",
        "examples/rest-gateway/petstore.json",
        "--downstream",
        "petstore",
        "--base-url",
        "http://127.0.0.1:4010",
        "--prefix",
        "petstore.",
        "--operations",
        "getPetById,findPetsByStatus",
        "--demo",
        "--database-url",
        &url,
    ]);
    assert!(done, "{err}");
    assert_eq!(
        out.trim_end(),
        "revision 2: imported as drafts: downstream \"petstore-api-key\", downstream \"petstore-petstore-auth\", gateway_tool \"petstore.find-pets-by-status\", gateway_tool \"petstore.get-pet-by-id\""
    );
    let shown = ok(&url, &["show"]);
    assert!(
        shown.contains("name = \"petstore.get-pet-by-id\""),
        "{shown}"
    );
    // Imported twice: refused, nothing replaced.
    let (done, _, err) = run(&[
        "import",
        "openapi",
        "examples/rest-gateway/petstore.json",
        "--downstream",
        "petstore",
        "--operations",
        "getPetById",
        "--demo",
        "--database-url",
        &url,
    ]);
    assert!(!done);
    assert!(
        err.contains("downstream \"petstore-api-key\" exists already"),
        "{err}"
    );
    // Publish one, as an operator would after review.
    assert_eq!(
        ok(&url, &["publish", "petstore.get-pet-by-id", "1"]).trim_end(),
        "revision 3: tool_version \"petstore.get-pet-by-id\" 1: draft -> published"
    );
}
