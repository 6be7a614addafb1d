//! The compatibility gate at the commit of every change: whatever the
//! route (publish, deprecate, a whole catalog replaced, a definition
//! changed in place), a tool's clients are never served something that may
//! break them unless the operator accepted that very report.

use proptest::prelude::*;
use serde_json::{Value, json};
use toolschema::catalog::versions::served_tool;
use toolschema::catalog::{Config, Status};
use toolschema::compat::compare_tool_objects;
use toolschema::project::{Mode, Profile, project_tool_as};
use toolschema_store::{Action, Body, Change, Kind, Store, StoreError};
use toolschema_test_support::postgres::Postgres;

use crate::store::demo_store_at;

const TOOL: &str = "gw.a";

/// The definitions a version of `gw.a` may have: `city` required (0); and
/// a required `reason` (1, breaks 0); and an optional `lang` (2); `city`
/// optional (3); and an optional `reason` (4, breaks none of 1's clients).
fn definition(which: usize) -> Body {
    let city = |required: bool| json!({"name": "city", "in": "query", "type": "string", "required": required});
    let arguments = match which {
        0 => vec![city(true)],
        1 => vec![
            city(true),
            json!({"name": "reason", "in": "query", "type": "string", "required": true}),
        ],
        2 => vec![
            city(true),
            json!({"name": "lang", "in": "query", "type": "string"}),
        ],
        4 => vec![
            city(true),
            json!({"name": "reason", "in": "query", "type": "string"}),
        ],
        _ => vec![city(false)],
    };
    let Value::Object(body) = json!({
        "description": "Reads A.", "method": "GET", "path": "/a", "argument": arguments,
    }) else {
        unreachable!("an object")
    };
    body
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// The demo store with `gw.a` version 1 (`city` required) published, and
/// version 2 (a required `reason` added) drafted.
async fn with_gw_a() -> (Store, String) {
    let url = Postgres::shared().database();
    let store = demo_store_at(&url).await;
    let registry = toolschema_demo::registry();
    let Value::Object(downstream) = json!({"base_url": "http://127.0.0.1:9"}) else {
        unreachable!("an object")
    };
    let actions = [
        Action::Put {
            kind: Kind::Downstream,
            id: "api".into(),
            body: downstream,
        },
        Action::Draft {
            tool: TOOL.into(),
            version: 1,
            definition: Some(definition(0)),
            downstream: Some("api".into()),
        },
        Action::Publish {
            tool: TOOL.into(),
            version: 1,
        },
        Action::Draft {
            tool: TOOL.into(),
            version: 2,
            definition: Some(definition(1)),
            downstream: None,
        },
    ];
    for action in actions {
        store
            .apply("setup", action, &registry)
            .await
            .expect("sets up");
    }
    (store, url)
}

/// What clients are served of `gw.a` now, as Full mode shows it.
async fn served(store: &Store) -> Option<Value> {
    let registry = toolschema_demo::registry();
    let loaded = store.load(&registry).await.expect("loads");
    shown(&loaded.config)
}

fn shown(config: &Config) -> Option<Value> {
    let registry = toolschema_demo::registry();
    let (_, def) = served_tool(Some(config), &registry, TOOL)?;
    Some(project_tool_as(&def, Mode::Full, Profile::Default).to_value())
}

/// The digests of a refusal by the gate.
fn refused(error: StoreError) -> Vec<String> {
    match error {
        StoreError::Breaking(reports) => reports.into_iter().map(|r| r.digest).collect(),
        other => panic!("refused for another reason: {other}"),
    }
}

/// The records with `gw.a`'s version `version` changed by `edit`, as a
/// whole catalog put back (`PUT /v1/catalog`, `toolschema admin load`).
async fn replaced(
    store: &Store,
    version: u32,
    edit: impl FnOnce(&mut toolschema_store::Version),
) -> Action {
    let (_, mut records) = store.read().await.expect("reads");
    if let Some(found) = records.versions.get_mut(&(TOOL.to_owned(), version)) {
        edit(found);
    }
    Action::Replace {
        records: Box::new(records),
    }
}

#[test]
fn a_deprecate_then_a_publish_is_gated_against_the_version_served_last() {
    runtime().block_on(async {
        let (store, _) = with_gw_a().await;
        let registry = toolschema_demo::registry();
        let v1 = served(&store).await.expect("version 1 served");

        // (N21 a) A draft above the version served cannot be deprecated: it
        // would withdraw the tool from every client.
        let error = store
            .apply(
                "alice",
                Action::Deprecate {
                    tool: TOOL.into(),
                    version: 2,
                },
                &registry,
            )
            .await
            .expect_err("would hide version 1");
        assert!(
            error
                .to_string()
                .contains("it would withdraw `gw.a` from every client"),
            "{error}"
        );
        assert_eq!(served(&store).await, Some(v1.clone()));

        // (N21 b) The version served deprecated: nothing is served, and a
        // publish of version 2 is compared with version 1 all the same.
        store
            .apply(
                "alice",
                Action::Deprecate {
                    tool: TOOL.into(),
                    version: 1,
                },
                &registry,
            )
            .await
            .expect("withdraws the tool");
        assert_eq!(served(&store).await, None);
        let publish = || Action::Publish {
            tool: TOOL.into(),
            version: 2,
        };
        let digests = refused(
            store
                .apply("bob", publish(), &registry)
                .await
                .expect_err("1 -> 2 breaks"),
        );
        assert_eq!(served(&store).await, None, "nothing written");

        // Another operator's report is no acceptance of this one: a
        // version 3 with its own breaking change, accepted with 1 -> 2's
        // digest, is refused.
        store
            .apply(
                "alice",
                Action::Draft {
                    tool: TOOL.into(),
                    version: 3,
                    definition: Some(definition(1)),
                    downstream: None,
                },
                &registry,
            )
            .await
            .expect("drafts");
        let error = store
            .apply(
                "alice",
                Action::Publish {
                    tool: TOOL.into(),
                    version: 3,
                }
                .accepting(digests.clone()),
                &registry,
            )
            .await
            .expect_err("1 -> 3 is another report");
        assert_ne!(refused(error), digests);

        // Accepted by its digest: published, and the audit keeps the report.
        let applied = store
            .apply("bob", publish().accepting(digests.clone()), &registry)
            .await
            .expect("publishes");
        assert_eq!(applied.compatibility.len(), 1);
        let report = &applied.compatibility[0];
        assert_eq!(
            (report.from, report.to, report.breaks, report.accepted),
            (1, 2, true, true)
        );
        let audit = &store.audit(1).await.expect("audit")[0];
        assert_eq!(
            audit.detail["compatibility"][0]["digest"],
            digests[0].as_str()
        );
        assert_eq!(audit.detail["compatibility"][0]["accepted"], true);
    });
}

#[test]
fn a_publish_racing_a_deprecate_is_refused_every_time() {
    runtime().block_on(async {
        let (store, url) = with_gw_a().await;
        // (N21 c) Two operators, two stores (nothing kept in common).
        let other = Store::new(&url).expect("url");
        let registry = toolschema_demo::registry();
        let publish = Action::Publish {
            tool: TOOL.into(),
            version: 2,
        };
        let deprecate = Action::Deprecate {
            tool: TOOL.into(),
            version: 1,
        };
        let mut answers = Vec::new();
        for round in 0..6 {
            if round == 3 {
                other
                    .apply("bob", deprecate.clone(), &registry)
                    .await
                    .expect("deprecates");
            }
            answers.push(
                store
                    .apply("alice", publish.clone(), &registry)
                    .await
                    .is_ok(),
            );
        }
        assert_eq!(answers, [false; 6]);
        assert_eq!(served(&store).await, None);
    });
}

#[test]
fn a_whole_catalog_put_back_is_gated_as_a_publish_is() {
    runtime().block_on(async {
        let (store, _) = with_gw_a().await;
        let registry = toolschema_demo::registry();
        let v1 = served(&store).await.expect("version 1 served");

        // (N22) A draft's status changed to published in the file.
        let publish_2 = replaced(&store, 2, |v| v.status = Status::Published).await;
        let error = store
            .apply("alice", publish_2, &registry)
            .await
            .expect_err("1 -> 2 breaks");
        assert!(
            error
                .to_string()
                .contains("required-property-added at /inputSchema/required/reason"),
            "{error}"
        );
        assert_eq!(served(&store).await, Some(v1.clone()));

        // (N22) A required argument added to the published version in place.
        let in_place = replaced(&store, 1, |v| v.definition = Some(definition(1))).await;
        let Err(StoreError::Breaking(reports)) =
            store.apply("alice", in_place.clone(), &registry).await
        else {
            panic!("an in-place breaking change is gated");
        };
        assert_eq!((reports[0].from, reports[0].to), (1, 1));
        assert_eq!(served(&store).await, Some(v1.clone()));
        // Accepted: applied and audited.
        let digests: Vec<String> = reports.iter().map(|r| r.digest.clone()).collect();
        let applied = store
            .apply(
                "alice",
                Change {
                    action: in_place,
                    accept: digests,
                },
                &registry,
            )
            .await
            .expect("accepted");
        assert!(applied.compatibility[0].accepted);
        assert_ne!(served(&store).await, Some(v1));
        let audit = &store.audit(1).await.expect("audit")[0];
        assert_eq!(
            (
                audit.action.as_str(),
                &audit.detail["compatibility"][0]["accepted"]
            ),
            ("replace", &json!(true))
        );

        // A compatible change in place needs no acceptance: `reason` made
        // optional (every value the last one took, it takes).
        let relaxed = replaced(&store, 1, |v| v.definition = Some(definition(4))).await;
        store
            .apply("alice", relaxed, &registry)
            .await
            .expect("compatible");

        // A definition changed in place while nothing is served is judged
        // when it is served again: against what was served last.
        store
            .apply(
                "alice",
                Action::Deprecate {
                    tool: TOOL.into(),
                    version: 1,
                },
                &registry,
            )
            .await
            .expect("withdraws");
        let edited = replaced(&store, 1, |v| v.definition = Some(definition(1))).await;
        store
            .apply("alice", edited, &registry)
            .await
            .expect("not served: nothing to break now");
        let error = store
            .apply(
                "alice",
                Action::Publish {
                    tool: TOOL.into(),
                    version: 1,
                },
                &registry,
            )
            .await
            .expect_err("served again, it would break the clients of what they were served");
        assert!(
            error
                .to_string()
                .contains("`gw.a` 1 (its definition changed)"),
            "{error}"
        );
    });
}

/// One step of the property test: who acts, what, and what it accepts.
#[derive(Debug, Clone)]
struct Step {
    operator: usize,
    act: Act,
    accept: Accept,
}

#[derive(Debug, Clone)]
enum Act {
    Draft(usize),
    Publish(u32),
    Deprecate(u32),
    Status(u32, Status),
    InPlace(u32, usize),
}

#[derive(Debug, Clone)]
enum Accept {
    Nothing,
    /// The digests of the last refusal (by either operator).
    LastRefused,
    Wrong,
}

fn step() -> impl Strategy<Value = Step> {
    let version = 1u32..5;
    let status = prop_oneof![
        Just(Status::Draft),
        Just(Status::Published),
        Just(Status::Deprecated)
    ];
    let act = prop_oneof![
        (0usize..4).prop_map(Act::Draft),
        version.clone().prop_map(Act::Publish),
        version.clone().prop_map(Act::Deprecate),
        (version.clone(), status).prop_map(|(v, s)| Act::Status(v, s)),
        (version, 0usize..4).prop_map(|(v, d)| Act::InPlace(v, d)),
    ];
    let accept = prop_oneof![
        Just(Accept::Nothing),
        Just(Accept::LastRefused),
        Just(Accept::Wrong)
    ];
    (0usize..2, act, accept).prop_map(|(operator, act, accept)| Step {
        operator,
        act,
        accept,
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// Random sequences of publishes, deprecations, drafts, whole catalogs
    /// put back and definitions changed in place, by two operators, never
    /// change what a client is served to something that breaks it
    /// (against what it was served last) without an acceptance of that
    /// very report.
    #[test]
    fn no_route_serves_a_breaking_change_without_its_acceptance(steps in proptest::collection::vec(step(), 1..12)) {
        runtime().block_on(async move {
            let (first, url) = with_gw_a().await;
            let operators = [first, Store::new(&url).expect("url")];
            let registry = toolschema_demo::registry();
            let mut last_served = served(&operators[0]).await.expect("version 1 served");
            let mut last_refused: Vec<String> = Vec::new();
            let mut drafted = 2;
            for step in steps {
                let store = &operators[step.operator];
                let action = match step.act {
                    Act::Draft(which) => {
                        drafted += 1;
                        Action::Draft { tool: TOOL.into(), version: drafted, definition: Some(definition(which)), downstream: None }
                    }
                    Act::Publish(version) => Action::Publish { tool: TOOL.into(), version },
                    Act::Deprecate(version) => Action::Deprecate { tool: TOOL.into(), version },
                    Act::Status(version, status) => replaced(store, version, |v| v.status = status).await,
                    Act::InPlace(version, which) => replaced(store, version, |v| v.definition = Some(definition(which))).await,
                };
                let accept = match step.accept {
                    Accept::Nothing => Vec::new(),
                    Accept::LastRefused => last_refused.clone(),
                    Accept::Wrong => vec!["0000000000000000".to_owned()],
                };
                let shown = format!("{:?} accepting {accept:?}", step.act);
                match store.apply("op", Change { action, accept: accept.clone() }, &registry).await {
                    Ok(applied) => {
                        let now = served(store).await;
                        if let Some(now) = now {
                            if compare_tool_objects(&last_served, &now).breaks() {
                                let accepted = applied.compatibility.iter().find(|r| r.tool == TOOL && r.breaks);
                                let accepted = accepted.unwrap_or_else(|| panic!("{shown}: a breaking change served without a report"));
                                assert!(accepted.accepted, "{shown}");
                                assert!(accept.contains(&accepted.digest), "{shown}: served without its acceptance");
                            }
                            last_served = now;
                        }
                    }
                    Err(StoreError::Breaking(reports)) => {
                        last_refused = reports.into_iter().map(|r| r.digest).collect();
                    }
                    Err(StoreError::Refused(_) | StoreError::Invalid(_)) => {}
                    Err(other) => panic!("{shown}: {other}"),
                }
            }
        });
    }
}
