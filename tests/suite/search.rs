//! The search mode: tools not listed but found by `search_tools`, described
//! by `discover_tool_schema` (one name or several) and called by name; each
//! client searches only what it may see, the same query always gives the
//! same answer, and an index is shared where views are equal.

use std::sync::Arc;

use serde_json::{Value, json};
use toolschema::call::CallError;
use toolschema::catalog::search::name_words;
use toolschema::catalog::{Catalog, MetaRefusal, Snapshot};
use toolschema::project::{META_TOOL, Mode, ProtocolRevision, SEARCH_TOOL};
use toolschema_demo::{CATALOG_TOML, registry};
use toolschema_test_support::in_search_mode;

use crate::calls::block_on;

fn catalog(text: &str) -> Catalog {
    Catalog::from_toml(registry(), text, "search.toml").expect("checks")
}

/// The demo with every toolset in search mode.
fn all_searched() -> Catalog {
    catalog(&in_search_mode(CATALOG_TOML, None))
}

/// `search_tools` as `client` calls it: the structured answer.
fn search(snapshot: &Snapshot, client: &str, arguments: Value) -> Value {
    let view = snapshot.client(client).expect("a client");
    view.call_meta(SEARCH_TOOL, &arguments, ProtocolRevision::LATEST)
        .expect("the list carries search_tools")
        .expect("answered")
        .structured
}

fn names(found: &Value) -> Vec<String> {
    found["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|tool| tool["name"].as_str().expect("a name").to_owned())
        .collect()
}

/// Every query the suite tries: each demo tool's description, and its
/// name as words, whoever sees it.
fn queries() -> Vec<String> {
    let registry = registry();
    registry
        .tools()
        .flat_map(|def| [def.description.to_string(), name_words(&def.name)])
        .collect()
}

#[test]
fn a_toolset_or_a_single_tool_in_search_mode_is_found_not_listed_and_still_called() {
    // globex's toolset in search mode; in acme's billing toolset, only the
    // refund.
    let text = CATALOG_TOML
        .replace(
            "mode = \"lazy\"\ntools = [\"support.open-ticket\"",
            "mode = \"search\"\ntools = [\"support.open-ticket\"",
        )
        .replace(
            "tools = [\"billing.get-invoice\", \"billing.list-invoices\", \"billing.void-invoice\", \"billing.refund\"]",
            "tools = [\"billing.get-invoice\", \"billing.list-invoices\", \"billing.void-invoice\", \"billing.refund\"]\nmodes = { \"billing.refund\" = \"search\" }",
        );
    let snapshot = catalog(&text).snapshot();

    let finance = snapshot.client("acme-finance").expect("client");
    assert_eq!(
        finance.names(),
        [
            "billing.get-invoice",
            "billing.list-invoices",
            "billing.void-invoice",
            META_TOOL,
            SEARCH_TOOL
        ],
        "the refund is not listed; both meta-tools are"
    );
    assert_eq!(finance.mode_of("billing.refund"), Some(Mode::Search));
    let list: Value =
        serde_json::from_str(finance.list_json(ProtocolRevision::LATEST)).expect("JSON");
    assert!(!list.to_string().contains("billing.refund"));
    // Only the tools in search mode are searched: the listed ones are in
    // the list already.
    let found = search(
        &snapshot,
        "acme-finance",
        json!({"query": "refund a paid invoice"}),
    );
    assert_eq!(names(&found), ["billing.refund"]);
    assert_eq!(
        (found["total"].clone(), found["returned"].clone()),
        (json!(1), json!(1))
    );
    let hit = &found["tools"][0];
    assert!(
        hit["score"].as_f64().is_some_and(|score| score > 0.0),
        "{hit}"
    );
    assert!(
        hit["description"]
            .as_str()
            .is_some_and(|d| d.contains("efund")),
        "{hit}"
    );

    // Called by name, validated against its own schema.
    let refused = block_on(snapshot.call("acme-finance", "billing.refund", json!({"amount": "x"})));
    assert!(
        matches!(refused, Err(CallError::InvalidArguments(_))),
        "{refused:?}"
    );
    // ... and only by a client that sees it.
    let hidden = block_on(snapshot.call("globex-support", "billing.refund", json!({})));
    assert!(
        matches!(hidden, Err(CallError::UnknownTool { .. })),
        "{hidden:?}"
    );

    let support = snapshot.client("globex-support").expect("client");
    assert_eq!(support.names(), [META_TOOL, SEARCH_TOOL]);
    let found = search(
        &snapshot,
        "globex-support",
        json!({"query": "open a new support ticket"}),
    );
    assert_eq!(names(&found)[0], "support.open-ticket");

    // A client without tools in search mode has no `search_tools`.
    let analyst = snapshot.client("acme-analyst").expect("client");
    assert!(!analyst.has_search_tool());
    assert!(
        analyst
            .call_meta(
                SEARCH_TOOL,
                &json!({"query": "x"}),
                ProtocolRevision::LATEST
            )
            .is_none()
    );
}

#[test]
fn discovery_takes_several_names_where_tools_are_searched_and_refuses_what_is_hidden() {
    let snapshot = all_searched().snapshot();
    let view = snapshot.client("acme-finance").expect("client");
    let describe =
        |arguments: Value| view.call_meta(META_TOOL, &arguments, ProtocolRevision::LATEST);
    let answer = describe(json!({"names": ["billing.refund", "billing.get-invoice"]}))
        .expect("listed")
        .expect("answered");
    let tools = answer.structured["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), 2);
    for (tool, name) in tools.iter().zip(["billing.refund", "billing.get-invoice"]) {
        let full: Value = serde_json::from_str(
            &Snapshot::discover_in(view, name, ProtocolRevision::LATEST).expect("seen"),
        )
        .expect("JSON");
        assert_eq!(tool, &full, "each the Full descriptor, in the order asked");
    }
    let one = describe(json!({"name": "billing.refund"}))
        .expect("listed")
        .expect("answered");
    assert_eq!(one.structured, tools[0]);
    // A tool of another tenant is unknown, exactly as a missing one.
    for name in ["support.open-ticket", "no.such-tool"] {
        let refused = describe(json!({"names": ["billing.refund", name]})).expect("listed");
        assert_eq!(
            refused,
            Err(MetaRefusal::UnknownTool {
                name: name.to_owned()
            })
        );
    }
    for (arguments, path, rule) in [
        (json!({}), "/name", "required"),
        (json!({"names": []}), "/names", "minItems"),
        (json!({"names": ["a", "a"]}), "/names", "uniqueItems"),
        (json!({"names": "billing.refund"}), "/names", "type"),
        (json!({"name": "x", "names": ["y"]}), "/names", "not"),
        (
            json!({"name": "x", "other": 1}),
            "/other",
            "additionalProperties",
        ),
    ] {
        let Some(Err(MetaRefusal::InvalidArguments(violations))) = describe(arguments.clone())
        else {
            panic!("{arguments} refused as invalid");
        };
        assert_eq!(
            (violations[0].path.as_str(), violations[0].rule),
            (path, rule),
            "{arguments}"
        );
    }
    // Where nothing is searched, the meta-tool takes one name, as it
    // advertises.
    let demo = toolschema_demo::catalog().snapshot();
    let assistant = demo.client("acme-assistant").expect("client");
    let refused = assistant
        .call_meta(
            META_TOOL,
            &json!({"names": ["billing.get-invoice"]}),
            ProtocolRevision::LATEST,
        )
        .expect("listed");
    assert!(
        matches!(&refused, Err(MetaRefusal::InvalidArguments(v)) if v[0].rule == "additionalProperties"),
        "{refused:?}"
    );
}

/// Every client searching every query finds only tools it sees, and
/// something.
fn each_client_finds_only_its_own(snapshot: &Snapshot, queries: &[String]) {
    let mut hits = 0;
    for view in snapshot.clients() {
        let own: Vec<&str> = view.tools().map(|(def, _)| &*def.name).collect();
        for query in queries {
            let found = search(snapshot, view.id(), json!({"query": query, "limit": 32}));
            for name in names(&found) {
                assert!(
                    own.contains(&name.as_str()),
                    "{} found {name}, which it does not see, for {query:?}",
                    view.id()
                );
                hits += 1;
            }
            assert!(found["total"].as_u64() <= Some(own.len() as u64));
        }
    }
    assert!(hits > 100, "the queries find something: {hits}");
}

#[test]
fn a_client_finds_only_the_tools_it_may_see() {
    let snapshot = all_searched().snapshot();
    each_client_finds_only_its_own(&snapshot, &queries());
    // globex's support agent asked for billing finds no billing tool.
    let found = search(
        &snapshot,
        "globex-support",
        json!({"query": "void a paid invoice"}),
    );
    assert!(
        names(&found)
            .iter()
            .all(|name| name.starts_with("support.")),
        "{found}"
    );
}

#[test]
fn a_token_searches_only_the_toolsets_its_scopes_unlock() {
    toolschema::catalog::search::install_model("concepts-scopes", Concepts);
    for catalog_section in ["", "[catalog]\nsearch_model = \"concepts-scopes\"\n"] {
        a_token_searches_only_what_its_scopes_unlock(catalog_section);
    }
}

fn a_token_searches_only_what_its_scopes_unlock(catalog_section: &str) {
    let text = catalog_section.to_owned()
        + r#"
[authorization]
issuer = "https://issuer.example"
resource = "http://localhost/mcp"
tenant_claim = "tenant"
algorithms = ["ES256"]

[[tenant]]
id = "acme"

[[client]]
id = "finance"
tenant = "acme"
oauth_client_ids = ["finance-app"]
toolsets = ["reading", "invoices"]

[[toolset]]
id = "reading"
tenant = "acme"
mode = "search"
tools = ["billing.list-invoices"]

[[toolset]]
id = "invoices"
tenant = "acme"
mode = "search"
tools = ["billing.get-invoice", "billing.void-invoice"]
scopes = ["invoices:write"]
"#;
    let snapshot = catalog(&text).snapshot();
    let view = snapshot.client("finance").expect("client");
    assert_eq!(view.searches_by_meaning(), !catalog_section.is_empty());
    let query = json!({"query": "invoice", "limit": 32});
    let all = view
        .call_meta(SEARCH_TOOL, &query, ProtocolRevision::LATEST)
        .expect("listed")
        .expect("answered");
    assert_eq!(all.structured["total"], 3);
    let narrowed = snapshot.view_for_scopes(view, &[]);
    let some = narrowed
        .call_meta(SEARCH_TOOL, &query, ProtocolRevision::LATEST)
        .expect("listed")
        .expect("answered");
    assert_eq!(names(&some.structured), ["billing.list-invoices"]);
    assert_eq!(narrowed.searches_by_meaning(), !catalog_section.is_empty());
}

#[test]
fn the_same_query_gives_the_same_answer_ordered_by_score_then_name() {
    let first = all_searched().snapshot();
    let second = all_searched().snapshot();
    for view in first.clients() {
        for query in queries() {
            let arguments = json!({"query": query, "limit": 32, "detail": "schema"});
            let answer = search(&first, view.id(), arguments.clone());
            assert_eq!(answer, search(&second, view.id(), arguments), "{query}");
            let tools = answer["tools"].as_array().expect("tools");
            for pair in tools.windows(2) {
                let key = |tool: &Value| {
                    (
                        -tool["score"].as_f64().unwrap_or(0.0),
                        tool["name"].to_string(),
                    )
                };
                assert!(key(&pair[0]) <= key(&pair[1]), "{query}: {pair:?}");
            }
        }
    }
}

#[test]
fn an_index_is_kept_when_a_change_leaves_its_view_alone() {
    let catalog = all_searched();
    let before = catalog.snapshot();
    let query = json!({"query": "support ticket", "limit": 32});
    let answer = search(&before, "globex-support", query.clone());
    // acme's reports toolset changes; globex's view does not.
    let text = in_search_mode(CATALOG_TOML, None).replace(
        "tools = [\"billing.statement-chart\", \"billing.close-period\", \"billing.open-balances\"]",
        "tools = [\"billing.statement-chart\", \"billing.open-balances\"]",
    );
    let config =
        toolschema::catalog::Config::from_toml(&text, "search.toml", &registry()).expect("checks");
    catalog.reload(&config);
    let after = catalog.snapshot();
    // The list and the index live together: one `Arc` kept is both kept.
    let list = |snapshot: &Snapshot| {
        snapshot
            .client("globex-support")
            .map(|v| v.list_json(ProtocolRevision::LATEST).clone())
    };
    assert!(Arc::ptr_eq(
        &list(&before).expect("list"),
        &list(&after).expect("list")
    ));
    assert_eq!(search(&after, "globex-support", query), answer);
    let analyst = search(
        &after,
        "acme-analyst",
        json!({"query": "close the period", "limit": 32}),
    );
    assert!(
        !names(&analyst).contains(&"billing.close-period".to_owned()),
        "{analyst}"
    );
}

#[test]
fn search_mode_is_a_mode_of_the_configuration_and_its_name_is_reserved() {
    let text = CATALOG_TOML.replace("mode = \"lazy\"", "mode = \"searching\"");
    let problems = Catalog::from_toml(registry(), &text, "search.toml")
        .expect_err("an unknown mode")
        .to_string();
    assert!(
        problems
            .contains("unknown mode `searching`; use full, data-structure-only, lazy or search"),
        "{problems}"
    );
    let text = CATALOG_TOML.replace(
        "tools = [\"support.open-ticket\"",
        "tools = [\"search_tools\", \"support.open-ticket\"",
    );
    let problems = Catalog::from_toml(registry(), &text, "search.toml")
        .expect_err("a reserved name")
        .to_string();
    assert!(
        problems.contains("`search_tools` is reserved: the catalog adds it where it is needed"),
        "{problems}"
    );
}

#[test]
fn a_whole_limit_written_with_a_fraction_is_taken_and_a_fraction_is_refused() {
    let snapshot = all_searched().snapshot();
    let view = snapshot.client("acme-finance").expect("client");
    let call = |limit: Value| {
        view.call_meta(
            SEARCH_TOOL,
            &json!({"query": "invoice", "limit": limit}),
            ProtocolRevision::LATEST,
        )
        .expect("the list carries search_tools")
    };
    // `8.0` is an integer by JSON Schema's rule, as in every other
    // integer slot.
    let whole = call(json!(1.0)).expect("1.0 is an integer");
    assert_eq!(whole.structured["returned"], 1, "{}", whole.structured);
    assert_eq!(whole, call(json!(1)).expect("1 is an integer"));
    for (limit, rule) in [
        (json!(8.5), "type"),
        (json!("8"), "type"),
        (json!(0.0), "minimum"),
        (json!(-1), "minimum"),
        (json!(33.0), "maximum"),
        (json!(1e300), "maximum"),
    ] {
        match call(limit.clone()) {
            Err(MetaRefusal::InvalidArguments(violations)) => {
                let found: Vec<(&str, &str)> = violations
                    .iter()
                    .map(|v| (v.path.as_str(), v.rule))
                    .collect();
                assert_eq!(found, [("/limit", rule)], "{limit}");
            }
            other => panic!("{limit}: {other:?}"),
        }
    }
}

#[test]
fn a_meta_tool_call_is_read_once_from_the_text_every_transport_holds() {
    use serde_json::value::RawValue;
    use toolschema::call::CallArguments;
    let snapshot = all_searched().snapshot();
    let view = snapshot.client("acme-finance").expect("client");
    let text =
        |json: &str| CallArguments::Text(RawValue::from_string(json.to_owned()).expect("JSON"));
    let from_text = view
        .call_meta_arguments(
            SEARCH_TOOL,
            text(r#"{"query": "refund an invoice"}"#),
            ProtocolRevision::LATEST,
        )
        .expect("the list carries search_tools")
        .expect("answered");
    let from_tree = view
        .call_meta(
            SEARCH_TOOL,
            &json!({"query": "refund an invoice"}),
            ProtocolRevision::LATEST,
        )
        .expect("listed")
        .expect("answered");
    assert_eq!(from_text.structured, from_tree.structured);
    // JSON text that no tree holds is a malformed request, not a broken rule.
    let refused = view
        .call_meta_arguments(
            META_TOOL,
            text(r#"{"name": 1e400}"#),
            ProtocolRevision::LATEST,
        )
        .expect("listed");
    match refused {
        Err(MetaRefusal::Unreadable { reason }) => {
            assert!(reason.contains("number out of range"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    // An ordinary tool's name is not a meta-tool's: no answer here.
    assert!(
        view.call_meta_arguments("billing.refund", text("{}"), ProtocolRevision::LATEST)
            .is_none()
    );
}

/// A model of meaning small enough to reason about: words of one concept
/// (money, help, figures) share a direction, any other word gets one of
/// its own (by its letters); a text is the sum of its words', unit length.
struct Concepts;

impl toolschema::catalog::search::Embed for Concepts {
    fn embed(
        &self,
        texts: &[&str],
    ) -> Result<Vec<Vec<f32>>, toolschema::catalog::search::EmbedError> {
        const CONCEPTS: [&[&str]; 3] = [
            &[
                "cash", "money", "refund", "refunds", "invoice", "invoices", "paid",
            ],
            &["help", "ticket", "tickets", "support", "problem"],
            &["figures", "chart", "statement", "balances", "period"],
        ];
        Ok(texts
            .iter()
            .map(|text| {
                let mut vector = [0.01f32; 32];
                for word in text.split(|c: char| !c.is_alphanumeric()) {
                    let word = word.to_lowercase();
                    if word.is_empty() {
                        continue;
                    }
                    let slot = match CONCEPTS.iter().position(|words| words.contains(&&*word)) {
                        Some(concept) => concept,
                        None => 3 + word.bytes().map(usize::from).sum::<usize>() % 29,
                    };
                    vector[slot] += 1.0;
                }
                let length = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
                vector.iter().map(|x| x / length).collect()
            })
            .collect())
    }
}

/// The demo in search mode, ranked with the concepts model installed as
/// `model`.
fn ranked_by_meaning(model: &str) -> (Catalog, Arc<toolschema::catalog::search::Embeddings>) {
    let embeddings = toolschema::catalog::search::install_model(model, Concepts);
    let text = in_search_mode(CATALOG_TOML, None).replace(
        "[catalog]\n",
        &format!("[catalog]\nsearch_model = \"{model}\"\n"),
    );
    (catalog(&text), embeddings)
}

#[test]
fn ranked_by_meaning_a_tool_is_found_without_a_shared_word_and_only_where_it_may_be_seen() {
    let (catalog, _) = ranked_by_meaning("concepts-seen");
    let snapshot = catalog.snapshot();
    assert!(matches!(
        snapshot.search_ranking(),
        toolschema::catalog::search::SearchRanking::WordsAndMeaning(_)
    ));
    // "cash" is no word of any demo tool: words alone find nothing.
    let by_words = all_searched().snapshot();
    let query = json!({"query": "cash", "limit": 3});
    assert_eq!(search(&by_words, "acme-finance", query.clone())["total"], 0);
    let found = search(&snapshot, "acme-finance", query);
    assert!(
        names(&found)
            .iter()
            .any(|name| name == "billing.refund" || name == "billing.get-invoice"),
        "{found}"
    );
    // Every client, every query (each tool's description and name,
    // whoever sees it, internal and inactive ones too): only its own
    // tools, though by meaning every tool is near some query.
    let mut queries = queries();
    queries.push("cash money help figures".to_owned());
    each_client_finds_only_its_own(&snapshot, &queries);
    // Nor described: another tenant's tool, an inactive toolset's, an
    // internal one are unknown to the client, exactly as a missing one.
    for (client, hidden) in [
        ("acme-finance", "support.open-ticket"),
        ("acme-assistant", "billing.void-invoice"),
        ("acme-finance", "no.such-tool"),
    ] {
        let view = snapshot.client(client).expect("client");
        let refused = view
            .call_meta(
                META_TOOL,
                &json!({"names": [hidden]}),
                ProtocolRevision::LATEST,
            )
            .expect("listed");
        assert_eq!(
            refused,
            Err(MetaRefusal::UnknownTool {
                name: hidden.to_owned()
            }),
            "{client}: {hidden}"
        );
    }
    let internal: Vec<String> = registry()
        .tools()
        .filter(|def| def.internal || def.name.starts_with("internal."))
        .map(|def| def.name.to_string())
        .collect();
    assert!(!internal.is_empty(), "the demo has internal tools");
    for view in snapshot.clients() {
        for name in &internal {
            assert!(
                !view.tools().any(|(def, _)| &*def.name == name),
                "{} sees {name}",
                view.id()
            );
        }
    }
    // The inactive archive's tool is never found by acme's assistant.
    let found = search(
        &snapshot,
        "acme-assistant",
        json!({"query": "void a paid invoice", "limit": 32}),
    );
    assert!(
        !names(&found).contains(&"billing.void-invoice".to_owned()),
        "{found}"
    );
}

#[test]
fn ranked_by_meaning_a_change_to_one_tool_embeds_that_tool_alone() {
    let (catalog, embeddings) = ranked_by_meaning("concepts-changes");
    let first = embeddings.embedded();
    let searched = catalog
        .snapshot()
        .clients()
        .flat_map(|view| view.tools().map(|(def, _)| def.name.to_string()))
        .collect::<std::collections::BTreeSet<_>>();
    assert_eq!(first, searched.len() as u64, "each tool once: {searched:?}");
    // The refund's version 2 published: one tool changes.
    let text = in_search_mode(CATALOG_TOML, None)
        .replace(
            "[catalog]\n",
            "[catalog]\nsearch_model = \"concepts-changes\"\n",
        )
        .replace(
            "{ version = 2, status = \"draft\" }",
            "{ version = 2, status = \"published\" }",
        );
    let config =
        toolschema::catalog::Config::from_toml(&text, "search.toml", &registry()).expect("checks");
    catalog.reload(&config);
    assert_eq!(embeddings.embedded(), first + 1);
    // The same configuration again: nothing embedded.
    catalog.reload(&config);
    assert_eq!(embeddings.embedded(), first + 1);
}

#[test]
fn a_model_that_cannot_be_loaded_leaves_search_to_words_and_says_why() {
    let text = in_search_mode(CATALOG_TOML, None).replace(
        "[catalog]\n",
        "[catalog]\nsearch_model = \"/no/such/model\"\n",
    );
    let snapshot = catalog(&text).snapshot();
    let toolschema::catalog::search::SearchRanking::WordsInstead { model, reason } =
        snapshot.search_ranking()
    else {
        panic!("{:?}", snapshot.search_ranking());
    };
    assert_eq!(model, "/no/such/model");
    assert!(
        reason.contains("/no/such/model") || reason.contains("`semantic` feature"),
        "{reason}"
    );
    let (degraded, health) = snapshot.search_ranking().health().expect("said");
    assert!(degraded);
    assert_eq!(health["ranking"], "words alone", "{health}");
    // Searches answer as by words alone, to the byte.
    let by_words = all_searched().snapshot();
    for query in queries() {
        let arguments = json!({"query": query, "limit": 32});
        assert_eq!(
            search(&snapshot, "acme-finance", arguments.clone()),
            search(&by_words, "acme-finance", arguments),
            "{query}"
        );
    }
}

#[test]
fn an_empty_search_model_is_refused_and_named() {
    let text = in_search_mode(CATALOG_TOML, None)
        .replace("[catalog]\n", "[catalog]\nsearch_model = \" \"\n");
    let refused = Catalog::from_toml(registry(), &text, "search.toml")
        .expect_err("an empty path")
        .to_string();
    assert!(
        refused.contains("search_model") && refused.contains("an empty path"),
        "{refused}"
    );
    let checked = Catalog::from_toml(
        registry(),
        &text.replace("search_model = \" \"", "search_model = \"models/minilm\""),
        "search.toml",
    )
    .expect("a named directory checks, found or not");
    let config = checked.snapshot();
    assert_eq!(
        config.config().and_then(|c| c.search_model()),
        Some("models/minilm")
    );
}
