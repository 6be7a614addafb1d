//! The governed catalog: the selection rule, visibility, modes, ordering,
//! the meta-tool, configuration errors with locations, and the demo catalog.

use crate::support::{DEMO_TOOLS, tool_names};
use serde_json::{Value, json};
use std::sync::Arc;
use toolschema::call::CallError;
use toolschema::catalog::{Catalog, Config, Refusal, Snapshot, Status, hash_api_key};
use toolschema::project::ProtocolRevision;
use toolschema::project::{META_TOOL, Mode};
use toolschema_catalog::active_version;
use toolschema_demo::{CATALOG_TOML, registry};

use crate::calls::block_on;

const STATUSES: [Status; 4] = [
    Status::Draft,
    Status::Proposed,
    Status::Published,
    Status::Deprecated,
];

/// The rule, read straight from DESIGN §6, written apart from the library's.
fn expected(statuses: &[Status]) -> Option<u32> {
    let highest = statuses.len();
    match statuses[highest - 1] {
        Status::Deprecated => None,
        Status::Published => Some(highest as u32),
        _ => (1..=highest)
            .rev()
            .find(|&n| statuses[n - 1] == Status::Published)
            .map(|n| n as u32),
    }
}

#[test]
fn selection_rule_over_every_combination_of_up_to_four_versions() {
    let mut combinations = 0;
    for len in 1..=4u32 {
        for code in 0..4usize.pow(len) {
            let statuses: Vec<Status> = (0..len)
                .map(|i| STATUSES[(code / 4usize.pow(i)) % 4])
                .collect();
            let versions: Vec<(u32, Status)> = statuses
                .iter()
                .enumerate()
                .map(|(i, s)| (i as u32 + 1, *s))
                .collect();
            assert_eq!(
                active_version(&versions),
                expected(&statuses),
                "{statuses:?}"
            );
            // Order in configuration does not matter.
            let reversed: Vec<(u32, Status)> = versions.iter().rev().copied().collect();
            assert_eq!(
                active_version(&reversed),
                expected(&statuses),
                "{statuses:?} reversed"
            );
            combinations += 1;
        }
    }
    assert_eq!(combinations, 4 + 16 + 64 + 256);
    assert_eq!(active_version(&[]), None);
}

fn demo() -> Catalog {
    toolschema_demo::catalog()
}

fn names(snapshot: &Snapshot, client: &str) -> Vec<String> {
    let list: Value = serde_json::from_str(
        &snapshot
            .discover(client, ProtocolRevision::LATEST)
            .expect("known client"),
    )
    .expect("JSON");
    assert!(list["tools"].is_array(), "{list}");
    tool_names(&list["tools"])
        .into_iter()
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_demo_catalog_governs_who_sees_what() {
    let snapshot = demo().snapshot();
    assert_eq!(
        names(&snapshot, "acme-finance"),
        [
            "billing.get-invoice",
            "billing.list-invoices",
            "billing.refund",
            "billing.void-invoice"
        ]
    );
    assert_eq!(
        names(&snapshot, "acme-assistant"),
        ["billing.get-invoice", "billing.list-invoices", META_TOOL]
    );
    assert_eq!(
        names(&snapshot, "globex-support"),
        [META_TOOL, "support.open-ticket", "support.search-tickets"]
    );
    let assistant = snapshot.client("acme-assistant").expect("client");
    assert_eq!(
        assistant.mode_of("billing.get-invoice"),
        Some(Mode::DataStructureOnly)
    );
    assert_eq!(assistant.mode_of("billing.list-invoices"), Some(Mode::Lazy));
    // A draft version 2 does not interrupt the published version 1.
    assert_eq!(
        snapshot
            .client("acme-finance")
            .and_then(|c| c.version_of("billing.refund")),
        Some(1)
    );
}

#[test]
fn clients_are_found_by_key() {
    let snapshot = demo().snapshot();
    assert_eq!(
        snapshot
            .client_by_key("demo-globex-support-key")
            .map(|c| c.id()),
        Some("globex-support")
    );
    assert!(snapshot.client_by_key("demo-acme-finance-key ").is_none());
    assert!(snapshot.client_by_key("").is_none());
}

/// Two tenants, a client each, the second given `second_key`.
fn two_clients(second_key: &str) -> Value {
    json!({
        "tenant": [{"id": "acme"}, {"id": "globex"}],
        "client": [
            {"id": "acme-app", "tenant": "acme", "api_keys": [hash_api_key("acme-key")]},
            {"id": "globex-app", "tenant": "globex",
             "api_keys": [hash_api_key(second_key), hash_api_key("globex-key")]},
        ],
    })
}

#[test]
fn a_problem_says_its_kind_and_where_it_is_as_values() {
    use toolschema::catalog::{ConfigLocation, ProblemKind, Section};
    let text = r#"
[[tenant]]
id = "acme"
[[tenant]]
id = "acme"
[[toolset]]
id = "billing"
tenant = "acme"
mode = "fast"
tools = ["billing.refund"]
[[client]]
id = "acme-app"
tenant = "acme"
toolsets = ["biling"]
[[mapping]]
tool = "billing.refund"
versions = [{ version = 1, status = "published" }, { version = 2, status = "live" }]
[server]
name = "not a reverse-DNS name"
description = "Tools"
version = "1.0.0"
"#;
    let errors = Config::from_toml(text, "catalog.toml", &registry()).expect_err("four problems");
    type Found<'a> = (
        ProblemKind,
        Option<Section>,
        Option<usize>,
        Option<usize>,
        &'a str,
    );
    let found: Vec<Found<'_>> = errors
        .iter()
        .map(|e| {
            let at: &ConfigLocation = e.location();
            (e.kind(), at.section(), at.entry(), at.version(), at.field())
        })
        .collect();
    assert_eq!(
        found,
        [
            (
                ProblemKind::Duplicate,
                Some(Section::Tenant),
                Some(1),
                None,
                "id"
            ),
            (
                ProblemKind::Rule,
                Some(Section::Toolset),
                Some(0),
                None,
                "mode"
            ),
            (
                ProblemKind::Reference,
                Some(Section::Client),
                Some(0),
                None,
                "toolsets[0]"
            ),
            (
                ProblemKind::Rule,
                Some(Section::Mapping),
                Some(0),
                Some(1),
                "status"
            ),
            (ProblemKind::Rule, Some(Section::Server), None, None, "name"),
        ],
        "{errors}"
    );
    // The key shown is the location as the file writes it.
    let keys: Vec<&str> = errors.iter().map(|e| e.key()).collect();
    assert_eq!(
        keys,
        [
            "tenant[1].id",
            "toolset[0].mode",
            "client[0].toolsets[0]",
            "mapping[0].versions[1].status",
            "server.name",
        ]
    );
    // Text that is not a configuration is the file's, unreadable.
    let errors =
        Config::from_toml("[[tenant]\nid = 1", "catalog.toml", &registry()).expect_err("not TOML");
    let first = errors.iter().next().expect("one problem");
    assert_eq!(first.kind(), ProblemKind::Unreadable);
    assert_eq!(first.location().section(), None);
    assert_eq!(first.key(), "(file)");
    // A value the file cannot hold is located by the file's own structure.
    let located = |text: &str| {
        let errors = Config::from_toml(text, "catalog.toml", &registry()).expect_err("unreadable");
        let first = errors.iter().next().expect("one problem").clone();
        assert_eq!(first.kind(), ProblemKind::Unreadable, "{first}");
        first.key().to_owned()
    };
    let base = "[[tenant]]\nid = \"acme\"\n[[client]]\nid = \"app\"\ntenant = \"acme\"\n";
    assert_eq!(
        located(&format!("{base}toolsets = \"billing\"\n")),
        "client[0].toolsets"
    );
    assert_eq!(
        located(&format!("{base}[server]\nname = \"io.example/tools\"\n")),
        "server"
    );
    let tool = "[[downstream]]\nid = \"crm\"\nbase_url = \"https://crm.example.com\"\n[[gateway_tool]]\nname = \"crm.lookup\"\ndownstream = \"crm\"\n[[gateway_tool.version]]\nversion = 1\nstatus = \"draft\"\ndescription = \"Looks up.\"\nmethod = \"GET\"\npath = \"/x\"\n[[gateway_tool.version]]\nversion = 2\nstatus = \"draft\"\ndescription = 5\n";
    assert_eq!(
        located(&format!("{base}{tool}")),
        "gateway_tool[0].version[1].description"
    );
    // A value of the wrong type in a document: unreadable, at its field.
    let document = json!({"tenant": [{"id": "acme"}], "client": [{"id": 7, "tenant": "acme"}]});
    let Value::Object(document) = document else {
        unreachable!("an object")
    };
    let errors = Config::from_json(document, "records", &registry()).expect_err("wrong type");
    let first = errors.iter().next().expect("one problem");
    assert_eq!(first.kind(), ProblemKind::Unreadable);
    assert_eq!(
        (
            first.location().section(),
            first.location().entry(),
            first.location().field()
        ),
        (Some(Section::Client), Some(0), "id")
    );
}

#[test]
fn a_files_record_ids_follow_the_one_grammar_the_store_holds() {
    let text = r#"
[[tenant]]
id = "acme"
[[toolset]]
id = "acme billing"
tenant = "acme"
tools = []
[[client]]
id = "../globex"
tenant = "acme"
"#;
    let errors = Config::from_toml(text, "catalog.toml", &registry()).expect_err("two ids");
    let refused: Vec<(&str, &str)> = errors
        .iter()
        .filter(|e| e.message() == toolschema_config::RECORD_ID_RULE)
        .map(|e| (e.key(), e.message()))
        .collect();
    assert_eq!(
        refused.iter().map(|(key, _)| *key).collect::<Vec<_>>(),
        ["toolset[0].id", "client[0].id"],
        "{errors}"
    );
    for id in ["acme billing", "../globex", ".hidden", ""] {
        assert!(!toolschema_config::is_record_id(id), "{id}");
    }
}

#[test]
fn an_api_key_is_one_clients_and_finds_it_among_many() {
    let document = |value: Value| match value {
        Value::Object(map) => map,
        _ => unreachable!("an object"),
    };
    // Whom the key opens would depend on the order clients are read in:
    // refused, at both holders' keys, each naming the other.
    let errors = Config::from_json(document(two_clients("acme-key")), "records", &registry())
        .expect_err("a key held twice");
    let keys: Vec<&str> = errors.iter().map(|e| e.key()).collect();
    assert_eq!(
        keys,
        ["client[0].api_keys[0]", "client[1].api_keys[0]"],
        "{errors}"
    );
    let messages: Vec<&str> = errors.iter().map(|e| e.message()).collect();
    assert!(
        messages[0].starts_with("client `globex-app` holds this key too"),
        "{errors}"
    );
    assert!(
        messages[1].starts_with("client `acme-app` holds this key already"),
        "{errors}"
    );
    // The same as a change to a configuration in force: not patched.
    let config = Config::from_json(document(two_clients("other-key")), "records", &registry())
        .expect("each its own key");
    let written = clients_written(&[two_clients("acme-key")["client"][1].clone()]);
    assert!(config.apply(&written, &registry()).is_none());
    // Two clients written in one change, with the same key: refused.
    let both = clients_written(&[
        json!({"id": "acme-app", "tenant": "acme", "api_keys": [hash_api_key("shared-key")]}),
        json!({"id": "globex-app", "tenant": "globex", "api_keys": [hash_api_key("shared-key")]}),
    ]);
    assert!(config.apply(&both, &registry()).is_none());
    // A key moved from one client to another in one change is one holder.
    let moved = clients_written(&[
        json!({"id": "acme-app", "tenant": "acme", "api_keys": [hash_api_key("new-acme-key")]}),
        two_clients("acme-key")["client"][1].clone(),
    ]);
    let (after, touched) = config.apply(&moved, &registry()).expect("a key handed on");
    assert_eq!(touched.clients.len(), 2);
    let snapshot = Snapshot::build(Arc::new(registry()), &after);
    let holder = |key: &str| snapshot.client_by_key(key).map(|view| view.id().to_owned());
    assert_eq!(holder("acme-key").as_deref(), Some("globex-app"));
    assert_eq!(holder("new-acme-key").as_deref(), Some("acme-app"));
    assert_eq!(holder("other-key"), None, "the key the change replaced");
    // Found among 10,000 clients' keys, each its own client's.
    let many: Vec<Value> = (0..10_000)
        .map(|i| {
            json!({"id": format!("app-{i}"), "tenant": "acme",
                        "api_keys": [hash_api_key(&format!("key-{i}"))]})
        })
        .collect();
    let config = Config::from_json(
        document(json!({"tenant": [{"id": "acme"}], "client": many})),
        "records",
        &registry(),
    )
    .expect("10,000 clients");
    let snapshot = Snapshot::build(Arc::new(registry()), &config);
    for i in [0, 4_321, 9_999] {
        let found = snapshot.client_by_key(&format!("key-{i}"));
        assert_eq!(
            found.map(|view| view.id()),
            Some(format!("app-{i}").as_str())
        );
    }
    assert!(snapshot.client_by_key("key-10000").is_none());
}

#[test]
fn an_invisible_tool_is_refused_exactly_as_an_unknown_one() {
    let snapshot = demo().snapshot();
    let invisible = snapshot
        .discover_schema(
            "globex-support",
            "billing.get-invoice",
            ProtocolRevision::LATEST,
        )
        .expect_err("hidden");
    let unknown = snapshot
        .discover_schema(
            "globex-support",
            "billing.get-invoicez",
            ProtocolRevision::LATEST,
        )
        .expect_err("unknown");
    assert!(
        matches!(invisible, Refusal::UnknownTool { .. })
            && matches!(unknown, Refusal::UnknownTool { .. })
    );
    assert_eq!(
        invisible.to_string().replace("billing.get-invoice", "X"),
        unknown.to_string().replace("billing.get-invoicez", "X")
    );
    let args = json!({"invoice_id": "0c1e55aa-0000-4000-8000-000000000001"});
    let hidden_call =
        block_on(snapshot.call("globex-support", "billing.get-invoice", args.clone()))
            .expect_err("hidden");
    let internal_call = block_on(snapshot.call("acme-finance", "internal.reindex", json!({})))
        .expect_err("internal");
    for error in [&hidden_call, &internal_call] {
        assert!(matches!(error, CallError::UnknownTool { .. }), "{error:?}");
    }
    assert_eq!(
        hidden_call.to_string(),
        "there is no tool named `billing.get-invoice`"
    );
    let visible =
        block_on(snapshot.call("acme-finance", "billing.get-invoice", args)).expect("visible");
    assert_eq!(
        visible.structured().expect("structured")["customer"],
        "cust-42"
    );
}

#[test]
fn discover_schema_returns_the_full_descriptor_in_the_clients_profile() {
    let snapshot = demo().snapshot();
    let full: Value = serde_json::from_str(
        &snapshot
            .discover_schema(
                "acme-assistant",
                "billing.list-invoices",
                ProtocolRevision::LATEST,
            )
            .expect("visible"),
    )
    .expect("JSON");
    // Full: descriptions are back; openai-strict: every property required.
    let description = full["inputSchema"]["properties"]["customer"]["description"]
        .as_str()
        .unwrap_or("");
    assert!(
        description.starts_with("The customer whose invoices to list."),
        "{description}"
    );
    assert_eq!(
        full["inputSchema"]["required"].as_array().map(Vec::len),
        Some(4)
    );
    let listed: Value = serde_json::from_str(
        &snapshot
            .discover("acme-assistant", ProtocolRevision::LATEST)
            .expect("known"),
    )
    .expect("JSON");
    let lazy = listed["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == "billing.list-invoices"))
        .expect("listed");
    assert!(lazy.get("outputSchema").is_none());
}

#[test]
fn without_configuration_everyone_sees_every_tool_in_full() {
    let catalog = Catalog::open(registry());
    let snapshot = catalog.snapshot();
    let all = names(&snapshot, "anyone");
    assert_eq!(all, DEMO_TOOLS);
    assert_eq!(names(&snapshot, "someone-else"), all);
    // The highest registered version, and never the internal tool.
    assert_eq!(
        snapshot
            .client("x")
            .and_then(|c| c.version_of("billing.refund")),
        Some(2)
    );
    assert!(
        snapshot
            .client("x")
            .is_some_and(|c| c.mode_of("internal.reindex").is_none())
    );
}

#[test]
fn a_keyless_client_serves_requests_without_a_key() {
    // Without configuration, everyone is the open client; with one, nobody
    // is, unless `keyless_client` names a client.
    let open = Catalog::open(registry()).snapshot();
    assert_eq!(open.keyless_client().map(|c| c.id()), Some("*"));
    assert!(demo().snapshot().keyless_client().is_none());

    let public = CATALOG_TOML.replacen(
        "[catalog]\n",
        "[catalog]\nkeyless_client = \"globex-support\"\n",
        1,
    );
    let catalog = Catalog::from_toml(registry(), &public, "public.toml").expect("valid");
    let snapshot = catalog.snapshot();
    let keyless = snapshot.keyless_client().expect("configured");
    assert_eq!(keyless.id(), "globex-support");
    assert_eq!(keyless.tenant(), "globex");
    // A key still selects its own client.
    assert_eq!(
        snapshot
            .client_by_key("demo-acme-finance-key")
            .map(|c| c.id()),
        Some("acme-finance")
    );

    let typo = CATALOG_TOML.replacen(
        "[catalog]\n",
        "[catalog]\nkeyless_client = \"globex-suport\"\n",
        1,
    );
    let errors = Catalog::from_toml(registry(), &typo, "typo.toml").expect_err("unknown client");
    let text = errors.to_string();
    assert!(
        text.contains(
            "typo.toml:9:18: catalog.keyless_client: unknown client `globex-suport` (did you mean `globex-support`?)"
        ),
        "{text}"
    );
}

#[test]
fn every_problem_of_a_bad_file_is_reported_with_its_location() {
    let text = r#"[catalog]
internal_prefixes = ["internal."]

[[tenant]]
id = "acme"

[[tenant]]
id = "acme"

[[tenant]]
id = "globex"

[[toolset]]
id = "billing"
tenant = "acme"
mode = "ful"
tools = ["billing.get-invoce", "discover_tool_schema", "internal.reindex", "billing.list-invoices"]
modes = { "billing.void-invoice" = "lazy" }

[[toolset]]
id = "support"
tenant = "globex"
tools = ["support.open-ticket"]

[[client]]
id = "acme-web"
tenant = "acme"
api_keys = ["plain-text-key"]
toolsets = ["support", "billng"]
profile = "claude"

[[client]]
id = "acme-web"
tenant = "acmee"

[[mapping]]
tool = "billing.refund"
versions = [{ version = 3, status = "published" }, { version = 1, status = "live" }]
"#;
    let errors = Config::from_toml(text, "bad.toml", &registry()).expect_err("bad file");
    let found: Vec<(usize, usize, &str)> = errors
        .iter()
        .map(|e| (e.line(), e.column(), e.key()))
        .collect();
    let expected = [
        (8, 6, "tenant[1].id"),
        (16, 8, "toolset[0].mode"),
        (17, 10, "toolset[0].tools[0]"),
        (17, 32, "toolset[0].tools[1]"),
        (17, 56, "toolset[0].tools[2]"),
        (18, 36, "toolset[0].modes.billing.void-invoice"),
        (28, 13, "client[0].api_keys[0]"),
        (29, 13, "client[0].toolsets[0]"),
        (29, 24, "client[0].toolsets[1]"),
        (30, 11, "client[0].profile"),
        (33, 6, "client[1].id"),
        (38, 25, "mapping[0].versions[0].version"),
        (38, 76, "mapping[0].versions[1].status"),
    ];
    assert_eq!(found, expected, "{errors}");
    let text = errors.to_string();
    for needle in [
        "13 problems",
        "bad.toml:17:10: toolset[0].tools[0]: unknown tool `billing.get-invoce` (did you mean `billing.get-invoice`?)",
        "`discover_tool_schema` is reserved",
        "`internal.reindex` is internal",
        "unknown mode `ful`",
        "toolset `support` belongs to tenant `globex`",
        "unknown toolset `billng` (did you mean `billing`?)",
        "no registered type provides `billing.refund` version 3 (registered: 1, 2)",
        "unknown status `live`",
        "duplicate client id `acme-web`",
        "never the key itself",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
    // The second client is a duplicate: its unknown tenant is not checked.
    assert!(!text.contains("acmee"));
}

#[test]
fn syntax_and_shape_errors_point_into_the_file() {
    let errors = Config::from_toml(
        "[[tenant]]\nid = \"a\"\ncolour = 1\n",
        "x.toml",
        &registry(),
    )
    .expect_err("unknown key");
    let first = errors.iter().next().expect("one error");
    assert_eq!((first.line(), first.file()), (3, "x.toml"));
    assert!(first.message().contains("colour"), "{first}");
    let errors = Config::from_toml("[[tenant]\n", "y.toml", &registry()).expect_err("syntax");
    assert_eq!(errors.iter().next().map(|e| e.line()), Some(1));
}

#[test]
fn configured_key_hashes_match_the_helper() {
    assert!(CATALOG_TOML.contains(&hash_api_key("demo-acme-finance-key")));
}

#[test]
fn preparing_compiles_the_validators_of_what_is_served_and_nothing_else() {
    let catalog = demo();
    let snapshot = catalog.snapshot();
    let registry = catalog.registry();
    assert!(
        !registry.is_prepared("billing.refund", 1),
        "lazy until asked"
    );
    let served: std::collections::BTreeSet<(&str, u32)> = snapshot
        .clients()
        .flat_map(|view| view.tools().map(|(def, _)| (&*def.name, def.version)))
        .collect();
    assert_eq!(snapshot.prepare(), served.len());
    for (name, version) in &served {
        assert!(registry.is_prepared(name, *version), "{name} v{version}");
    }
    // A draft version is served to nobody, and is not compiled.
    assert!(served.contains(&("billing.refund", 1)));
    assert!(!registry.is_prepared("billing.refund", 2));
    assert!(!registry.prepare("no.such-tool", 1));
}

#[test]
fn preparing_for_some_clients_compiles_what_they_are_served_only() {
    let catalog = demo();
    let snapshot = catalog.snapshot();
    let registry = catalog.registry();
    let view = snapshot.client("globex-support").expect("a demo client");
    let theirs: Vec<(String, u32)> = view
        .tools()
        .map(|(def, _)| (def.name.to_string(), def.version))
        .collect();
    assert!(!theirs.is_empty());
    assert_eq!(
        snapshot.prepare_for(["globex-support", "no-such-client"]),
        theirs.len()
    );
    for (name, version) in &theirs {
        assert!(registry.is_prepared(name, *version), "{name} v{version}");
    }
    // Another client's tools are left for their first call.
    let others: Vec<(String, u32)> = snapshot
        .clients()
        .flat_map(|view| {
            view.tools()
                .map(|(def, _)| (def.name.to_string(), def.version))
        })
        .filter(|tool| !theirs.contains(tool))
        .collect();
    assert!(!others.is_empty());
    assert!(
        others
            .iter()
            .all(|(name, version)| !registry.is_prepared(name, *version))
    );
}

#[test]
fn preparing_in_the_background_follows_reloads() {
    let catalog = Arc::new(demo());
    catalog.prepare_in_background();
    let registry = catalog.registry().clone();
    let wait_for = |name: &str, version: u32| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !registry.is_prepared(name, version) {
            assert!(
                std::time::Instant::now() < deadline,
                "{name} v{version} was never prepared"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    };
    wait_for("support.open-ticket", 1);
    wait_for("billing.refund", 1);
    assert!(!registry.is_prepared("billing.refund", 2));
    // Publishing version 2 serves it, and the thread compiles it.
    let published = CATALOG_TOML.replace(
        r#"{ version = 2, status = "draft" }"#,
        r#"{ version = 2, status = "published" }"#,
    );
    assert_ne!(published, CATALOG_TOML);
    catalog
        .reload_toml(&published, "published.toml")
        .expect("valid");
    wait_for("billing.refund", 2);
}

/// Says who called it.
#[derive(toolschema::Tool, serde::Deserialize)]
#[tool(name = "who.am-i")]
struct WhoAmI {}

impl toolschema::Handler for WhoAmI {
    async fn call(
        self,
        ctx: toolschema::Context,
    ) -> Result<toolschema::ToolResult, toolschema::ToolError> {
        Ok(toolschema::ToolResult::text(format!(
            "{} / {}",
            ctx.tenant().unwrap_or("-"),
            ctx.client().unwrap_or("-")
        )))
    }
}

#[test]
fn a_handler_knows_the_calling_tenant_and_client() {
    let said = |result: toolschema::ToolResult| match result.content() {
        [toolschema::Content::Text(text)] => text.clone(),
        other => panic!("one text block, not {other:?}"),
    };
    let mut registry = toolschema::Registry::new();
    registry.register::<WhoAmI>().expect("registers");
    let config = "[[tenant]]\nid = \"acme\"\n\n[[toolset]]\nid = \"s\"\ntenant = \"acme\"\ntools = [\"who.am-i\"]\n\n[[client]]\nid = \"acme-bot\"\ntenant = \"acme\"\ntoolsets = [\"s\"]\n";
    let governed = Catalog::from_toml(registry, config, "who.toml").expect("valid");
    let result =
        block_on(governed.snapshot().call("acme-bot", "who.am-i", json!({}))).expect("runs");
    assert_eq!(said(result), "acme / acme-bot");

    let mut registry = toolschema::Registry::new();
    registry.register::<WhoAmI>().expect("registers");
    let open = Catalog::open(registry);
    let result = block_on(open.snapshot().call("*", "who.am-i", json!({}))).expect("runs");
    assert_eq!(said(result), "- / -", "open mode knows no tenant");
}

#[test]
fn authorization_mistakes_are_reported_with_their_locations() {
    let text = r#"[authorization]
issuer = "http://idp.example.com"
resource = "https://mcp.example.com/mcp#x"
algorithms = ["RS256", "HS256", "none"]
leeway_seconds = 900
scopes_supported = ["billing read"]

[[tenant]]
id = "acme"

[[toolset]]
id = "billing"
tenant = "acme"
tools = ["billing.get-invoice"]
scopes = ["invoices:read", "bad scope"]

[[client]]
id = "one"
tenant = "acme"
oauth_client_ids = ["app"]
toolsets = ["billing"]

[[client]]
id = "two"
tenant = "acme"
oauth_client_ids = ["app"]
"#;
    let errors = Config::from_toml(text, "auth.toml", &registry()).expect_err("bad section");
    let keys: Vec<&str> = errors.iter().map(|e| e.key()).collect();
    assert_eq!(
        keys,
        [
            "authorization.issuer",
            "authorization.resource",
            "authorization.algorithms[1]",
            "authorization.algorithms[2]",
            "authorization.leeway_seconds",
            "authorization.scopes_supported[0]",
            "toolset[0].scopes[1]",
            "client[1].oauth_client_ids[0]",
        ],
        "{errors}"
    );
    let text = errors.to_string();
    for needle in [
        "`http://idp.example.com` is not a URL a resource server can rely on",
        "`HS256` is refused: an HMAC key is a shared secret",
        "`none` is refused: an unsigned token proves nothing",
        "the leeway must be 0 to 300 seconds",
        "`bad scope` is not a scope",
        "`app` already names client `one`",
    ] {
        assert!(text.contains(needle), "{needle}\n{text}");
    }

    // Scopes and token client ids without an `[authorization]` section.
    let text = r#"[[tenant]]
id = "acme"

[[toolset]]
id = "billing"
tenant = "acme"
tools = ["billing.get-invoice"]
scopes = ["invoices:read"]

[[client]]
id = "one"
tenant = "acme"
oauth_client_ids = ["app"]
"#;
    let errors = Config::from_toml(text, "plain.toml", &registry()).expect_err("no section");
    let keys: Vec<&str> = errors.iter().map(|e| e.key()).collect();
    assert_eq!(
        keys,
        ["toolset[0].scopes[0]", "client[0].oauth_client_ids[0]"]
    );
    assert!(
        errors
            .to_string()
            .contains("configure the `[authorization]` section")
    );

    // A good section: the defaults, and the scopes toolsets require
    // advertised.
    let text = r#"[authorization]
issuer = "https://idp.example.com"
resource = "https://mcp.example.com/mcp"

[[tenant]]
id = "acme"

[[toolset]]
id = "billing"
tenant = "acme"
tools = ["billing.get-invoice"]
scopes = ["invoices:read", "invoices:read"]

[[client]]
id = "one"
tenant = "acme"
oauth_client_ids = ["app", "app-2"]
toolsets = ["billing"]
"#;
    let config = Config::from_toml(text, "good.toml", &registry()).expect("valid");
    let authorization = config.authorization().expect("the section");
    assert_eq!(authorization.issuer(), "https://idp.example.com");
    assert_eq!(
        authorization.client_claims().collect::<Vec<_>>(),
        ["client_id", "azp"]
    );
    assert_eq!(authorization.leeway().as_secs(), 60);
    assert!(
        authorization
            .algorithms()
            .all(|a| a != "none" && !a.starts_with("HS"))
    );
    assert_eq!(authorization.scopes_supported(), ["invoices:read"]);
    assert_eq!(
        config.toolset("billing").expect("toolset").scopes(),
        ["invoices:read"]
    );
    assert_eq!(
        config
            .client("one")
            .expect("client")
            .oauth_client_ids()
            .collect::<Vec<_>>(),
        ["app", "app-2"]
    );
}

#[test]
fn introspection_needs_both_its_client_id_and_the_name_of_its_secret() {
    let with = |lines: &str| {
        format!(
            "[authorization]\nissuer = \"https://idp.example.com\"\nresource = \"https://mcp.example.com/mcp\"\n{lines}\n[[tenant]]\nid = \"acme\"\n\n[[client]]\nid = \"one\"\ntenant = \"acme\"\n"
        )
    };
    let keys = |text: String| -> Vec<String> {
        match Config::from_toml(&text, "auth.toml", &registry()) {
            Ok(_) => Vec::new(),
            Err(errors) => errors.iter().map(|e| e.key().to_owned()).collect(),
        }
    };
    assert_eq!(
        keys(with("introspection_client_id = \"mcp\"")),
        ["authorization.introspection_client_id"]
    );
    assert_eq!(
        keys(with(
            "introspection_endpoint = \"https://idp.example.com/introspect\""
        )),
        ["authorization.introspection_endpoint"]
    );
    assert_eq!(
        keys(with(
            "introspection_client_id = \"mcp\"\nintrospection_secret_env = \"s3cr3t value\""
        )),
        ["authorization.introspection_secret_env"]
    );
    let config = Config::from_toml(
        &with("introspection_client_id = \"mcp\"\nintrospection_secret_env = \"MCP_SECRET\""),
        "auth.toml",
        &registry(),
    )
    .expect("valid");
    let introspection = config
        .authorization()
        .and_then(|a| a.introspection())
        .expect("introspection");
    assert_eq!(introspection.client_id(), "mcp");
    assert_eq!(introspection.secret_env(), "MCP_SECRET");
    assert_eq!(introspection.endpoint(), None);
}

/// A change writing `clients` (entries of the file's shape), as the
/// catalog store says it.
fn clients_written(clients: &[Value]) -> toolschema_config::Delta {
    let mut delta = toolschema_config::Delta::default();
    let written = delta
        .records
        .entry(toolschema_config::Section::Client)
        .or_default();
    for client in clients {
        let mut body = client.as_object().cloned().unwrap_or_default();
        let id = body
            .remove("id")
            .and_then(|id| id.as_str().map(str::to_owned));
        written.insert(id.unwrap_or_default(), Some(body));
    }
    delta
}
