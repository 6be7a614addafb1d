//! The store against a real PostgreSQL: migrations, a configuration file
//! loaded into records and back, the publish workflow's actions, refusals
//! located at record and field with nothing written, and the audit trail.

use std::sync::Arc;

use serde_json::{Value, json};
use toolschema::catalog::{Catalog, Config, Snapshot};
use toolschema::project::ProtocolRevision;
use toolschema_store::{Action, Kind, Records, Store, StoreError};
use toolschema_test_support::postgres::Postgres;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// A migrated store holding the demo catalog.
async fn demo_store() -> Store {
    demo_store_at(&Postgres::shared().database()).await
}

/// A migrated store at `url` holding the demo catalog (the replica and
/// change-log tests also open the database themselves).
pub(crate) async fn demo_store_at(url: &str) -> Store {
    let store = Store::new(url).expect("url");
    store.migrate().await.expect("migrates");
    let registry = toolschema_demo::registry();
    let records =
        Records::from_toml(toolschema_demo::CATALOG_TOML, "catalog.toml", &registry).expect("demo");
    store
        .apply(
            "test",
            Action::Replace {
                records: Box::new(records),
            },
            &registry,
        )
        .await
        .expect("loads the demo catalog");
    store
}

/// Every client's tools/list of a configuration, by client.
fn lists(config: &Config) -> Vec<(String, String)> {
    let snapshot = Snapshot::build(Arc::new(toolschema_demo::registry()), config);
    let mut lists: Vec<(String, String)> = snapshot
        .clients()
        .map(|view| {
            (
                view.id().to_owned(),
                view.list_json(ProtocolRevision::LATEST).to_string(),
            )
        })
        .collect();
    lists.sort();
    lists
}

fn tool_names(list: &str) -> Vec<String> {
    let list: Value = serde_json::from_str(list).expect("json");
    list["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name").to_owned())
        .collect()
}

#[test]
fn migrations_create_the_schema_once() {
    runtime().block_on(async {
        let store = Store::new(&Postgres::shared().database()).expect("url");
        assert_eq!(store.migrate().await.expect("migrates"), 4);
        assert_eq!(store.migrate().await.expect("up to date"), 0);
        let empty = store
            .load(&toolschema_demo::registry())
            .await
            .expect_err("an empty store serves nothing");
        assert_eq!(
            empty.to_string(),
            "1 problem in the catalog configuration:\n  catalog: the catalog store holds no configuration yet: load one with `toolschema admin load <file>` (or the admin API's PUT /v1/catalog)"
        );
    });
}

#[test]
fn a_file_loaded_into_the_store_serves_the_same_lists() {
    runtime().block_on(async {
        let store = demo_store().await;
        let registry = toolschema_demo::registry();
        let loaded = store.load(&registry).await.expect("loads");
        assert_eq!(loaded.revision, 1);
        let file = Config::from_toml(toolschema_demo::CATALOG_TOML, "catalog.toml", &registry)
            .expect("demo");
        let from_file = lists(&file);
        assert_eq!(from_file.len(), 4);
        assert_eq!(lists(&loaded.config), from_file);
        // The records read back equal those written.
        let records = Records::from_toml(toolschema_demo::CATALOG_TOML, "catalog.toml", &registry)
            .expect("as set up");
        assert_eq!(loaded.records, records);
    });
}

#[test]
fn the_publish_workflow_moves_a_version_from_draft_to_served() {
    runtime().block_on(async {
        let store = demo_store().await;
        let registry = toolschema_demo::registry();
        // billing.refund: version 1 published, version 2 a draft (demo).
        let refund = |loaded: &toolschema_store::Loaded| {
            let lists = lists(&loaded.config);
            let finance = &lists.iter().find(|(id, _)| id == "acme-finance").expect("as set up").1;
            let list: Value = serde_json::from_str(finance).expect("as set up");
            list["tools"]
                .as_array()
                .expect("as set up")
                .iter()
                .find(|t| t["name"] == "billing.refund")
                .cloned()
        };
        let before = refund(&store.load(&registry).await.expect("as set up")).expect("v1 served");

        let proposed = store
            .apply("alice", Action::Propose { tool: "billing.refund".into(), version: 2 }, &registry)
            .await
            .expect("proposes");
        assert_eq!(proposed.revision, 2);
        assert_eq!(proposed.done.target, "tool_version \"billing.refund\" 2");
        assert_eq!(proposed.done.summary, "draft -> proposed");
        assert_eq!(refund(&store.load(&registry).await.expect("as set up")).as_ref(), Some(&before));

        // The proposal's report before it is published: version 2 adds a
        // required argument.
        let report = store
            .compatibility("billing.refund", 2, &registry)
            .await
            .expect("reads")
            .expect("version 1 is served");
        assert_eq!((report.from, report.to, report.breaks, report.accepted), (1, 2, true, false));
        let breaking = |report: &toolschema_store::Compatibility| -> Vec<(String, String)> {
            report
                .reports
                .iter()
                .flat_map(|seen| seen.report.changes())
                .filter(|change| change.level == toolschema::compat::Level::Breaking)
                .map(|change| (change.rule.to_owned(), change.pointer.clone()))
                .collect()
        };
        assert!(
            breaking(&report).contains(&("required-property-added".into(), "/inputSchema/required/reason".into())),
            "{report}"
        );

        // Publishing it is refused with the report, and nothing is written.
        let publish = || Action::Publish { tool: "billing.refund".into(), version: 2 };
        let refused = store.apply("bob", publish(), &registry).await.expect_err("it breaks");
        let StoreError::Breaking(refused_reports) = &refused else {
            panic!("refused for another reason: {refused}");
        };
        assert_eq!(refused_reports, std::slice::from_ref(&report));
        let message = refused.to_string();
        let digest = report.digest.clone();
        assert!(message.starts_with(&format!("`billing.refund` 1 -> 2: may break its clients [report {digest}]\n  breaking required-property-added at /inputSchema/required/reason")), "{message}");
        assert!(message.ends_with(&format!("accept this report by its digest (accept = {digest})")), "{message}");
        assert_eq!(store.revision().await.expect("reads"), 2);
        assert_eq!(refund(&store.load(&registry).await.expect("as set up")).as_ref(), Some(&before));

        // An acceptance of another report is no acceptance.
        let other = store
            .apply("bob", publish().accepting(["0123456789abcdef"]), &registry)
            .await
            .expect_err("another report accepted");
        assert!(matches!(other, StoreError::Breaking(_)), "{other}");

        // Accepted, it is published, and the acceptance is audited.
        let applied = store.apply("bob", publish().accepting([digest.clone()]), &registry).await.expect("publishes");
        let [accepted] = &applied.compatibility[..] else {
            panic!("one report: {:?}", applied.compatibility);
        };
        assert!(accepted.accepted && accepted.breaks);
        assert_eq!(breaking(accepted), breaking(&report));
        assert!(applied.done.summary.ends_with(&format!("`billing.refund` 1 -> 2 served, its breaking changes accepted (report {digest})")), "{}", applied.done.summary);
        let after = refund(&store.load(&registry).await.expect("as set up")).expect("v2 served");
        assert_ne!(after, before, "version 2 is served now");
        let audited = &store.audit(1).await.expect("audit")[0];
        assert_eq!((audited.actor.as_str(), audited.action.as_str()), ("bob", "publish"));
        assert_eq!(audited.detail["compatibility"][0]["accepted"], true);
        assert_eq!(audited.detail["compatibility"][0]["from"], 1);
        assert_eq!(audited.detail["compatibility"][0]["digest"], digest.as_str());
        assert!(
            audited.detail["compatibility"][0]["reports"][0]["changes"]
                .as_array()
                .is_some_and(|changes| changes.iter().any(|c| c["rule"] == "required-property-added")),
            "{}",
            audited.detail
        );
        // The version served has no report against itself.
        assert_eq!(store.compatibility("billing.refund", 2, &registry).await.expect("reads"), None);
        let unknown = store.compatibility("billing.refund", 7, &registry).await.expect_err("no 7");
        assert_eq!(unknown.to_string(), "`billing.refund` has no version 7; it has 1 (published), 2 (published)");

        // Deprecating the highest version hides the tool.
        store
            .apply("bob", Action::Deprecate { tool: "billing.refund".into(), version: 2 }, &registry)
            .await
            .expect("deprecates");
        assert_eq!(refund(&store.load(&registry).await.expect("as set up")), None);

        // A transition that is not allowed is refused, and says why.
        let error = store
            .apply("bob", Action::Propose { tool: "billing.refund".into(), version: 2 }, &registry)
            .await
            .expect_err("a deprecated version cannot be proposed");
        assert_eq!(
            error.to_string(),
            "tool_version \"billing.refund\" 2 is deprecated; only a version that is draft can become proposed"
        );
        let unknown = store
            .apply("bob", Action::Publish { tool: "billing.refund".into(), version: 9 }, &registry)
            .await
            .expect_err("no version 9");
        assert_eq!(
            unknown.to_string(),
            "tool_version \"billing.refund\" 9: there is no such version; `billing.refund` has 1 (published), 2 (deprecated)"
        );

        let audit = store.audit(10).await.expect("audit");
        let actions: Vec<(&str, &str, i64)> = audit
            .iter()
            .map(|e| (e.actor.as_str(), e.action.as_str(), e.revision))
            .collect();
        assert_eq!(
            actions,
            [("bob", "deprecate", 4), ("bob", "publish", 3), ("alice", "propose", 2), ("test", "replace", 1)]
        );
        assert_eq!(
            audit[0].detail["changes"],
            json!([{
                "record": "tool_version \"billing.refund\" 2",
                "before": {"status": "published", "definition": null},
                "after": {"status": "deprecated", "definition": null},
            }])
        );
        assert!(audit[0].at.ends_with('Z'), "{}", audit[0].at);
    });
}

#[test]
fn a_draft_of_an_unmapped_tool_keeps_the_served_version_published() {
    runtime().block_on(async {
        let store = demo_store().await;
        let registry = toolschema_demo::registry();
        // Without its mapping, billing.refund is served at its highest
        // registered version (2).
        let mut records = store.load(&registry).await.expect("as set up").records;
        records
            .versions
            .retain(|(tool, _), _| tool != "billing.refund");
        let unmap = Action::Replace {
            records: Box::new(records),
        };
        // Its clients were served version 1: serving 2 instead (a new
        // required argument) is gated, and accepted by its report.
        let Err(StoreError::Breaking(reports)) = store.apply("ops", unmap.clone(), &registry).await
        else {
            panic!("serving version 2 instead of 1 is gated");
        };
        assert_eq!(
            (reports[0].tool.as_str(), reports[0].from, reports[0].to),
            ("billing.refund", 1, 2)
        );
        let digests = reports.into_iter().map(|report| report.digest);
        store
            .apply("ops", unmap.accepting(digests), &registry)
            .await
            .expect("no mapping");
        let before = lists(&store.load(&registry).await.expect("as set up").config);

        // A draft of a version that is not registered: refused by the
        // checks, located at the version, nothing written.
        let done = store
            .apply(
                "alice",
                Action::Draft {
                    tool: "billing.refund".into(),
                    version: 3,
                    definition: None,
                    downstream: None,
                },
                &registry,
            )
            .await;
        let Err(StoreError::Invalid(problems)) = done else {
            panic!("an unregistered version is refused: {done:?}");
        };
        assert_eq!(problems.0.len(), 1, "{problems}");
        assert_eq!(problems.0[0].record, "tool_version \"billing.refund\" 3");
        assert_eq!(problems.0[0].field, "version");
        assert_eq!(
            store.load(&registry).await.expect("as set up").revision,
            2,
            "nothing written"
        );

        // A draft of version 1 below the served 2: version 2, served until
        // now by the rule, is recorded as published, and stays served.
        let done = store
            .apply(
                "alice",
                Action::Draft {
                    tool: "billing.refund".into(),
                    version: 1,
                    definition: None,
                    downstream: None,
                },
                &registry,
            )
            .await
            .expect("drafts");
        assert_eq!(
            done.done.summary,
            "added as a draft; version 2, served until now without a mapping, recorded as published"
        );
        let loaded = store.load(&registry).await.expect("as set up");
        let statuses: Vec<(u32, &str)> = loaded
            .records
            .versions_of("billing.refund")
            .map(|(n, v)| (n, v.status.name()))
            .collect();
        assert_eq!(statuses, [(1, "draft"), (2, "published")]);
        assert_eq!(
            lists(&loaded.config),
            before,
            "the draft interrupts nothing"
        );
    });
}

#[test]
fn a_change_that_breaks_a_rule_is_refused_with_every_problem_located_and_nothing_written() {
    runtime().block_on(async {
        let store = demo_store().await;
        let registry = toolschema_demo::registry();
        // A globex toolset for an acme client: cross-tenant.
        let error = store
            .apply(
                "mallory",
                Action::Assign {
                    client: "acme-finance".into(),
                    toolset: "globex-support".into(),
                },
                &registry,
            )
            .await
            .expect_err("cross-tenant");
        let StoreError::Invalid(problems) = &error else {
            panic!("{error}");
        };
        assert_eq!(problems.0.len(), 1, "{error}");
        assert_eq!(problems.0[0].record, "client \"acme-finance\"");
        assert_eq!(problems.0[0].field, "toolsets[1]");
        assert!(problems.0[0].message.contains("globex"), "{error}");

        // A toolset naming an unknown tool and a bad mode: both reported.
        let mut body = serde_json::Map::new();
        body.insert("tenant".into(), json!("acme"));
        body.insert("mode".into(), json!("everything"));
        body.insert(
            "tools".into(),
            json!(["billing.get-invoice", "billing.get-invoce"]),
        );
        let error = store
            .apply(
                "mallory",
                Action::Put {
                    kind: Kind::Toolset,
                    id: "acme-new".into(),
                    body,
                },
                &registry,
            )
            .await
            .expect_err("two problems");
        let shown = error.to_string();
        assert!(
            shown.starts_with("2 problems in the catalog configuration:"),
            "{shown}"
        );
        assert!(
            shown.contains("\n  toolset \"acme-new\": mode: "),
            "{shown}"
        );
        assert!(
            shown.contains("\n  toolset \"acme-new\": tools[1]: ")
                && shown.contains("billing.get-invoice"),
            "{shown}"
        );

        // Another client given acme-finance's key: whom the key opens
        // would be ambiguous.
        let mut body = serde_json::Map::new();
        body.insert("tenant".into(), json!("acme"));
        let key = toolschema::catalog::hash_api_key("demo-acme-finance-key");
        body.insert("api_keys".into(), json!([key]));
        let error = store
            .apply(
                "mallory",
                Action::Put {
                    kind: Kind::Client,
                    id: "acme-copy".into(),
                    body,
                },
                &registry,
            )
            .await
            .expect_err("a key held twice");
        let StoreError::Invalid(problems) = &error else {
            panic!("{error}");
        };
        // Each holder is named at its key, the client written included
        // (it sorts first here, so the whole check meets it first).
        let located: Vec<(&str, &str)> = problems
            .0
            .iter()
            .map(|p| (p.record.as_str(), p.field.as_str()))
            .collect();
        assert_eq!(
            located,
            [
                ("client \"acme-copy\"", "api_keys[0]"),
                ("client \"acme-finance\"", "api_keys[0]"),
            ],
            "{error}"
        );
        assert!(
            problems.0[0]
                .message
                .contains("client `acme-finance` holds this key too"),
            "{error}"
        );

        // Nothing was written, nothing audited.
        let loaded = store.load(&registry).await.expect("as set up");
        assert_eq!(loaded.revision, 1);
        assert!(loaded.records.get(Kind::Toolset, "acme-new").is_none());
        assert!(loaded.records.get(Kind::Client, "acme-copy").is_none());
        assert_eq!(store.audit(10).await.expect("as set up").len(), 1);
    });
}

#[test]
fn toolsets_are_switched_and_assigned_and_keys_rotated() {
    runtime().block_on(async {
        let store = demo_store().await;
        let registry = toolschema_demo::registry();
        let names = |config: &Config, client: &str| {
            let lists = lists(config);
            tool_names(
                &lists
                    .iter()
                    .find(|(id, _)| id == client)
                    .expect("as set up")
                    .1,
            )
        };
        let before = names(
            &store.load(&registry).await.expect("as set up").config,
            "acme-assistant",
        );
        assert!(!before.contains(&"billing.void-invoice".to_owned()));
        store
            .apply(
                "ops",
                Action::Activate {
                    toolset: "acme-archive".into(),
                },
                &registry,
            )
            .await
            .expect("activates");
        let after = names(
            &store.load(&registry).await.expect("as set up").config,
            "acme-assistant",
        );
        assert!(
            after.contains(&"billing.void-invoice".to_owned()),
            "{after:?}"
        );
        let again = store
            .apply(
                "ops",
                Action::Activate {
                    toolset: "acme-archive".into(),
                },
                &registry,
            )
            .await
            .expect_err("already active");
        assert_eq!(
            again.to_string(),
            "toolset \"acme-archive\" is already active"
        );

        store
            .apply(
                "ops",
                Action::Assign {
                    client: "acme-analyst".into(),
                    toolset: "acme-billing".into(),
                },
                &registry,
            )
            .await
            .expect("assigns");
        let analyst = names(
            &store.load(&registry).await.expect("as set up").config,
            "acme-analyst",
        );
        assert!(
            analyst.contains(&"billing.refund".to_owned()),
            "{analyst:?}"
        );
        store
            .apply(
                "ops",
                Action::Unassign {
                    client: "acme-analyst".into(),
                    toolset: "acme-billing".into(),
                },
                &registry,
            )
            .await
            .expect("unassigns");
        let analyst = names(
            &store.load(&registry).await.expect("as set up").config,
            "acme-analyst",
        );
        assert!(
            !analyst.contains(&"billing.refund".to_owned()),
            "{analyst:?}"
        );

        let rotated = store
            .apply(
                "ops",
                Action::RotateKey {
                    client: "acme-finance".into(),
                },
                &registry,
            )
            .await
            .expect("rotates");
        let key = rotated.done.api_key.clone().expect("a new key");
        assert!(key.starts_with("tsk_") && key.len() == 68, "{key}");
        let snapshot = Snapshot::build(
            Arc::new(toolschema_demo::registry()),
            &store.load(&registry).await.expect("as set up").config,
        );
        assert_eq!(
            snapshot.client_by_key(&key).map(|v| v.id().to_owned()),
            Some("acme-finance".into())
        );
        assert!(
            snapshot.client_by_key("demo-acme-finance-key").is_none(),
            "the old key is refused"
        );
        // The key itself is in no record and no audit entry.
        let audit =
            serde_json::to_string(&store.audit(20).await.expect("as set up")).expect("as set up");
        assert!(!audit.contains(&key));
        assert!(audit.contains(&toolschema::catalog::hash_api_key(&key)));
    });
}

#[test]
fn a_live_catalog_reloads_from_the_store() {
    runtime().block_on(async {
        let store = demo_store().await;
        let registry = toolschema_demo::registry();
        let loaded = store.load(&registry).await.expect("as set up");
        let catalog = Catalog::from_config(toolschema_demo::registry(), &loaded.config);
        store
            .apply(
                "ops",
                Action::Deactivate {
                    toolset: "globex-support".into(),
                },
                &registry,
            )
            .await
            .expect("as set up");
        let changes = catalog.reload(&store.load(&registry).await.expect("as set up").config);
        assert_eq!(
            changes.clients.iter().collect::<Vec<_>>(),
            ["globex-support"]
        );
    });
}

#[test]
fn a_large_change_is_audited_by_record_names() {
    runtime().block_on(async {
        let store = demo_store().await;
        let registry = toolschema_demo::registry();
        let mut records = store.load(&registry).await.expect("loads").records;
        for n in 0..150 {
            records
                .records
                .entry(Kind::Tenant)
                .or_default()
                .insert(format!("tenant-{n:03}"), serde_json::Map::new());
        }
        store
            .apply(
                "ops",
                Action::Replace {
                    records: Box::new(records),
                },
                &registry,
            )
            .await
            .expect("150 tenants more");
        let audit = store.audit(1).await.expect("audit");
        let changes = audit[0].detail["changes"].as_array().expect("changes");
        assert_eq!(changes.len(), 150);
        assert_eq!(
            changes[0],
            json!({"record": "tenant \"tenant-000\"", "change": "created"})
        );
        // A small change keeps the records whole.
        store
            .apply(
                "ops",
                Action::Deactivate {
                    toolset: "acme-billing".into(),
                },
                &registry,
            )
            .await
            .expect("deactivates");
        let audit = store.audit(1).await.expect("audit");
        assert_eq!(audit[0].detail["changes"][0]["after"]["active"], false);
        assert_eq!(audit[0].detail["changes"][0]["before"]["tenant"], "acme");
    });
}

#[test]
fn an_admin_starts_from_its_last_action_only_while_no_other_wrote_since() {
    runtime().block_on(async {
        let url = Postgres::shared().database();
        let first = demo_store_at(&url).await;
        // Another admin of the same store: its own kept records.
        let second = Store::new(&url).expect("url");
        let registry = toolschema_demo::registry();
        let set = |toolset: &str, on: bool| match on {
            true => Action::Activate {
                toolset: toolset.into(),
            },
            false => Action::Deactivate {
                toolset: toolset.into(),
            },
        };
        let apply = |store: &Store, action: Action| {
            let (store, registry) = (store.clone(), &registry);
            async move { store.apply("ops", action, registry).await }
        };
        apply(&first, set("globex-support", false)).await.expect("applies");
        // The second admin switches another toolset off: the first, were it
        // to start from what it kept, would find it on and switch it off
        // again.
        apply(&second, set("acme-reports", false)).await.expect("applies");
        let again = apply(&first, set("acme-reports", false)).await;
        assert!(
            matches!(&again, Err(StoreError::Refused(refused)) if refused.to_string().contains("already inactive")),
            "{again:?}"
        );
        // A refused action leaves the kept records as they were.
        let refused = apply(
            &first,
            Action::Assign {
                client: "acme-analyst".into(),
                toolset: "globex-support".into(),
            },
        )
        .await;
        assert!(matches!(refused, Err(StoreError::Invalid(_))), "{refused:?}");
        apply(&first, set("globex-support", true)).await.expect("applies");
        apply(&first, set("acme-billing", false)).await.expect("applies");
        let loaded = first.load(&registry).await.expect("loads");
        let active = |id: &str| loaded.config.toolset(id).expect(id).is_active();
        assert!(active("globex-support"));
        assert!(!active("acme-reports") && !active("acme-billing"));
        let analyst = loaded.config.client("acme-analyst").expect("a client");
        assert!(analyst.toolsets().all(|id| id != "globex-support"));
        // Every replica's view of it agrees with a whole check of it.
        let whole = loaded.records.check(&registry).expect("checks");
        assert_eq!(format!("{:?}", loaded.config), format!("{whole:?}"));
    });
}

#[test]
fn a_record_id_that_would_steer_a_path_is_refused_on_every_route_that_creates_one() {
    runtime().block_on(async {
        let store = demo_store().await;
        let registry = toolschema_demo::registry();
        let revision = store.revision().await.expect("reads");
        let toolset = |id: &str| Action::Put {
            kind: Kind::Toolset,
            id: id.to_owned(),
            body: json!({"tenant": "acme", "tools": []})
                .as_object()
                .cloned()
                .expect("object"),
        };
        // A record put (the admin API, the console, the CLI).
        for id in [
            "../toolsets/globex-support",
            "..",
            "a/b",
            "a b",
            "x?y",
            "%2e%2e",
        ] {
            let error = store
                .apply("alice", toolset(id), &registry)
                .await
                .expect_err(id);
            let StoreError::Invalid(problems) = &error else {
                panic!("{id}: refused for another reason: {error}");
            };
            assert_eq!(problems.0[0].field, "id", "{id}: {error}");
            assert!(
                problems.0[0].message.contains("not starting with `.`"),
                "{error}"
            );
        }
        // A whole catalog loaded, and an import.
        let (_, mut records) = store.read().await.expect("reads");
        records.records.entry(Kind::Client).or_default().insert(
            "../clients/acme-finance".into(),
            json!({"tenant": "acme"})
                .as_object()
                .cloned()
                .expect("object"),
        );
        let error = store
            .apply(
                "alice",
                Action::Replace {
                    records: Box::new(records.clone()),
                },
                &registry,
            )
            .await
            .expect_err("a bad id in a file");
        assert!(
            error
                .to_string()
                .contains("client \"../clients/acme-finance\""),
            "{error}"
        );
        let mut imported = Records::default();
        imported
            .records
            .entry(Kind::Downstream)
            .or_default()
            .insert(
                "../downstreams/x".into(),
                json!({"base_url": "https://api.example.com"})
                    .as_object()
                    .cloned()
                    .expect("object"),
            );
        let error = store
            .apply(
                "alice",
                Action::Import {
                    records: Box::new(imported),
                },
                &registry,
            )
            .await
            .expect_err("a bad id imported");
        assert!(
            error
                .to_string()
                .contains("downstream \"../downstreams/x\""),
            "{error}"
        );
        assert_eq!(
            store.revision().await.expect("reads"),
            revision,
            "nothing written"
        );
        // Ids of the grammar are taken.
        store
            .apply("alice", toolset("acme-extra_1.v2"), &registry)
            .await
            .expect("a good id");
    });
}
