//! The admin REST API over a real store: operators' keys, every action's
//! answer (200, 401, 404, 409, 422 with every problem located), a tool from
//! configuration drafted and published over HTTP, the stored configuration
//! read back as a file, and the audit trail naming the operator.

use std::net::SocketAddr;
use std::sync::Arc;

use serde_json::{Value, json};
use toolschema::catalog::{Config, Snapshot};
use toolschema::project::ProtocolRevision;
use toolschema_store::{Action, Records, Store};
use toolschema_test_support::postgres::Postgres;
use toolschema_test_support::{connect, exchange};

/// A store holding the demo catalog, its admin API on a free port, and an
/// operator's key.
fn start() -> (Store, SocketAddr, String, tokio::runtime::Runtime) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let (store, address, key) = runtime.block_on(async {
        let store = Store::new(&Postgres::shared().database()).expect("url");
        store.migrate().await.expect("migrates");
        let registry = toolschema_demo::registry();
        let records = Records::from_toml(toolschema_demo::CATALOG_TOML, "catalog.toml", &registry)
            .expect("demo");
        store
            .apply(
                "setup",
                Action::Replace {
                    records: Box::new(records),
                },
                &registry,
            )
            .await
            .expect("loads");
        let key = store.add_operator("alice").await.expect("operator");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let address = listener.local_addr().expect("address");
        tokio::spawn(toolschema_store::admin::serve(
            listener,
            store.clone(),
            Arc::new(registry),
            toolschema_serve::HttpTimeouts::default(),
            std::future::pending(),
        ));
        (store, address, key)
    });
    (store, address, key, runtime)
}

/// One request; the status and the body as JSON (or as a string).
fn call(
    address: SocketAddr,
    key: Option<&str>,
    method: &str,
    path: &str,
    body: &str,
) -> (u16, Value) {
    let bearer = key.map(|key| format!("Bearer {key}"));
    let mut headers = vec![("Content-Type", "application/json")];
    if let Some(bearer) = &bearer {
        headers.push(("Authorization", bearer));
    }
    let mut stream = connect(address);
    let (status, body) = exchange(&mut stream, method, path, &headers, body.as_bytes());
    let body = serde_json::from_slice(&body)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).into_owned()));
    (status, body)
}

/// Two fields of each object of a JSON list.
fn pairs(list: &Value, first: &str, second: &str) -> Vec<(String, String)> {
    list.as_array()
        .expect("a list")
        .iter()
        .map(|item| {
            let text = |key: &str| item[key].as_str().unwrap_or("").to_owned();
            (text(first), text(second))
        })
        .collect()
}

#[test]
fn only_operators_act_and_every_answer_says_what_happened() {
    let (store, address, key, runtime) = start();
    let key = Some(key.as_str());

    let (status, body) = call(
        address,
        None,
        "POST",
        "/v1/toolsets/acme-archive/activate",
        "",
    );
    assert_eq!(status, 401, "{body}");
    let (status, _) = call(
        address,
        Some("demo-acme-finance-key"),
        "POST",
        "/v1/toolsets/acme-archive/activate",
        "",
    );
    assert_eq!(status, 401, "an MCP client's key is no operator's key");

    let (status, body) = call(
        address,
        key,
        "POST",
        "/v1/toolsets/acme-archive/activate",
        "",
    );
    assert_eq!(
        (status, &body["summary"]),
        (200, &json!("activated")),
        "{body}"
    );
    assert_eq!(body["revision"], 2);
    let (status, body) = call(
        address,
        key,
        "POST",
        "/v1/toolsets/acme-archive/activate",
        "",
    );
    assert_eq!(
        (status, &body["error"]),
        (409, &json!("conflict")),
        "{body}"
    );
    let (status, body) = call(address, key, "POST", "/v1/toolsets/nowhere/activate", "");
    assert_eq!(
        (status, &body["error"]),
        (404, &json!("not_found")),
        "{body}"
    );

    let (status, body) = call(
        address,
        key,
        "PUT",
        "/v1/clients/acme-finance/toolsets/globex-support",
        "",
    );
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["problems"][0]["record"], "client \"acme-finance\"");
    assert_eq!(body["problems"][0]["field"], "toolsets[1]");

    let (status, body) = call(
        address,
        key,
        "POST",
        "/v1/clients/acme-analyst/rotate-key",
        "",
    );
    assert_eq!(status, 200, "{body}");
    let new_key = body["api_key"].as_str().expect("the new key").to_owned();

    let (status, body) = call(address, key, "GET", "/v1/audit?limit=10", "");
    assert_eq!(status, 200);
    let entries = pairs(&body["entries"], "actor", "action");
    assert_eq!(
        entries,
        [
            ("alice".to_owned(), "rotate_key".to_owned()),
            ("alice".into(), "activate".into()),
            ("setup".into(), "replace".into())
        ],
        "refused actions leave no entry"
    );
    assert!(
        !body.to_string().contains(&new_key),
        "the key is in no audit entry"
    );

    // The stored configuration, read back as a file, passes the file's checks.
    let (status, body) = call(address, key, "GET", "/v1/catalog", "");
    assert_eq!(status, 200);
    let text = body.as_str().expect("TOML");
    let config =
        Config::from_toml(text, "read back", &toolschema_demo::registry()).expect("checks");
    let snapshot = Snapshot::build(Arc::new(toolschema_demo::registry()), &config);
    assert_eq!(
        snapshot.client_by_key(&new_key).map(|v| v.id().to_owned()),
        Some("acme-analyst".into())
    );
    // A removed operator's key stops working at once.
    runtime
        .block_on(store.remove_operator("alice"))
        .expect("removes");
    let (status, _) = call(address, key, "GET", "/v1/revision", "");
    assert_eq!(status, 401);
    let again = runtime.block_on(store.remove_operator("alice"));
    assert_eq!(
        again.map_err(|e| e.to_string()),
        Err("there is no operator `alice`".to_owned())
    );
}

#[test]
fn a_tool_from_configuration_is_drafted_checked_and_published_over_http() {
    let (store, address, key, runtime) = start();
    let key = Some(key.as_str());
    let (status, body) = call(
        address,
        key,
        "PUT",
        "/v1/records/downstream/weather",
        r#"{"base_url": "http://127.0.0.1:9", "timeout_ms": 2000}"#,
    );
    assert_eq!(status, 200, "{body}");

    // A definition with two mistakes: both reported, at the version.
    let broken = json!({"version": 1, "downstream": "weather", "definition": {
        "description": "The weather now.",
        "method": "FETCH",
        "path": "/now",
        "argument": [{"name": "city", "type": "text", "in": "query"}],
    }});
    let (status, body) = call(
        address,
        key,
        "POST",
        "/v1/mappings/weather.current/versions",
        &broken.to_string(),
    );
    assert_eq!(status, 422, "{body}");
    let problems = pairs(&body["problems"], "record", "field");
    assert_eq!(
        problems,
        [
            (
                "tool_version \"weather.current\" 1".to_owned(),
                "method".to_owned()
            ),
            (
                "tool_version \"weather.current\" 1".to_owned(),
                "argument[0].type".to_owned()
            ),
        ],
        "{body}"
    );

    let good = json!({"version": 1, "downstream": "weather", "definition": {
        "description": "The weather now.",
        "method": "GET",
        "path": "/now",
        "argument": [{"name": "city", "type": "string", "in": "query", "required": true}],
    }});
    let (status, body) = call(
        address,
        key,
        "POST",
        "/v1/mappings/weather.current/versions",
        &good.to_string(),
    );
    assert_eq!(
        (status, &body["summary"]),
        (200, &json!("added as a draft")),
        "{body}"
    );
    let (status, body) = call(
        address,
        key,
        "PUT",
        "/v1/records/toolset/acme-weather",
        r#"{"tenant": "acme", "tools": ["weather.current"]}"#,
    );
    assert_eq!(status, 200, "{body}");
    let (status, _) = call(
        address,
        key,
        "PUT",
        "/v1/clients/acme-analyst/toolsets/acme-weather",
        "",
    );
    assert_eq!(status, 200);
    let listed = |store: &Store| {
        let loaded = runtime
            .block_on(store.load(&toolschema_demo::registry()))
            .expect("loads");
        let snapshot = Snapshot::build(Arc::new(toolschema_demo::registry()), &loaded.config);
        let view = snapshot.client("acme-analyst").expect("client").clone();
        view.list_json(ProtocolRevision::LATEST)
            .contains("\"weather.current\"")
    };
    assert!(!listed(&store), "a draft is not served");
    let (status, body) = call(
        address,
        key,
        "POST",
        "/v1/mappings/weather.current/versions/1/publish",
        "",
    );
    assert_eq!(
        (status, &body["summary"]),
        (200, &json!("draft -> published")),
        "{body}"
    );
    assert!(listed(&store), "published, it is served");

    // A body that is no object, a kind that does not exist.
    let (status, _) = call(address, key, "PUT", "/v1/records/toolset/x", "[1]");
    assert_eq!(status, 400);
    let (status, body) = call(address, key, "PUT", "/v1/records/widget/x", "{}");
    assert_eq!(
        (status, &body["message"]),
        (
            404,
            &json!(
                "put: `widget` is not a record kind; use tenant, client, toolset, downstream or gateway_tool"
            )
        ),
        "{body}"
    );
    // A path's arguments are read as the action's, from the one list.
    let (status, body) = call(
        address,
        key,
        "POST",
        "/v1/mappings/billing.refund/versions/two/publish",
        "",
    );
    assert_eq!(
        (status, &body["message"]),
        (404, &json!("`two` is not a version number")),
        "{body}"
    );
    // A large file (past axum's 2 MB default) is taken whole.
    let large = format!(
        "{}\n{}",
        toolschema_demo::CATALOG_TOML,
        "# padding, as a large catalog's many records would be\n".repeat(60_000)
    );
    assert!(large.len() > 3 << 20);
    let (status, body) = call(address, key, "PUT", "/v1/catalog", &large);
    assert_eq!(status, 200, "{body}");
    // A file with a mistake is refused at its line.
    let (status, body) = call(address, key, "PUT", "/v1/catalog", "[[tenant]]\nid = 7\n");
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["problems"][0]["line"], 2, "{body}");
}

/// A definition of `weather.current` with its `city` argument and `more`.
fn weather(more: Value) -> Value {
    let mut arguments =
        vec![json!({"name": "city", "type": "string", "in": "query", "required": true})];
    arguments.extend(more.as_array().cloned().unwrap_or_default());
    json!({"description": "The weather now.", "method": "GET", "path": "/now", "argument": arguments})
}

#[test]
fn a_version_that_breaks_clients_is_published_only_when_accepted() {
    let (store, address, key, runtime) = start();
    let key = Some(key.as_str());
    let registry = toolschema_demo::registry();
    runtime.block_on(async {
        let downstream = Action::Put {
            kind: toolschema_store::Kind::Downstream,
            id: "weather".into(),
            body: json!({"base_url": "http://127.0.0.1:9"})
                .as_object()
                .cloned()
                .expect("object"),
        };
        store
            .apply("setup", downstream, &registry)
            .await
            .expect("downstream");
        let first = Action::Draft {
            tool: "weather.current".into(),
            version: 1,
            definition: weather(json!([])).as_object().cloned(),
            downstream: Some("weather".into()),
        };
        store
            .apply("setup", first, &registry)
            .await
            .expect("drafted");
        // The first version served breaks no one: nothing was served.
        let publish = Action::Publish {
            tool: "weather.current".into(),
            version: 1,
        };
        let applied = store
            .apply("setup", publish, &registry)
            .await
            .expect("published");
        assert_eq!(applied.compatibility, []);
    });
    let versions = "/v1/mappings/weather.current/versions";

    // A draft answers with what publishing it would change: a new required
    // argument breaks the clients of version 1.
    let units = json!([{"name": "units", "type": "string", "in": "query", "required": true}]);
    let draft = json!({"version": 2, "definition": weather(units)});
    let (status, body) = call(address, key, "POST", versions, &draft.to_string());
    assert_eq!(status, 200, "{body}");
    let report = &body["compatibility"][0];
    assert_eq!(
        (&report["from"], &report["to"], &report["breaks"]),
        (&json!(1), &json!(2), &json!(true)),
        "{body}"
    );
    let (status, again) = call(
        address,
        key,
        "GET",
        &format!("{versions}/2/compatibility"),
        "",
    );
    assert_eq!(
        (status, &again),
        (200, report),
        "the same report, read again"
    );

    // Publishing it is refused with the report unless accepted.
    let publish = format!("{versions}/2/publish");
    let (status, body) = call(address, key, "POST", &publish, "");
    assert_eq!(
        (status, &body["error"]),
        (409, &json!("breaking")),
        "{body}"
    );
    assert_eq!(&body["compatibility"][0], report);
    assert!(
        body["message"]
            .as_str()
            .is_some_and(|m| m.contains("required-property-added at /inputSchema/required/units")),
        "{body}"
    );
    for (path, wrong) in [
        (&publish, r#"{"accept_breaking": "yes"}"#),
        (
            &format!("{versions}/2/propose"),
            r#"{"accept_breaking": true}"#,
        ),
    ] {
        let (status, body) = call(address, key, "POST", path, wrong);
        assert_eq!(status, 400, "{path} {wrong}: {body}");
    }
    // `accept_breaking` accepted whatever came: refused, saying why.
    let (status, body) = call(
        address,
        key,
        "POST",
        &publish,
        r#"{"accept_breaking": true}"#,
    );
    assert_eq!(status, 400, "{body}");
    assert!(
        body["message"]
            .as_str()
            .is_some_and(|m| m.contains("names the report it accepts")),
        "{body}"
    );
    let digest = report["digest"].as_str().expect("a digest");
    // Another report's digest, in the body or the query, is no acceptance.
    for (path, body) in [
        (
            publish.clone(),
            json!({"accept": "0000000000000000"}).to_string(),
        ),
        (format!("{publish}?accept=0000000000000000"), String::new()),
    ] {
        let (status, answer) = call(address, key, "POST", &path, &body);
        assert_eq!(
            (status, &answer["error"]),
            (409, &json!("breaking")),
            "{path}: {answer}"
        );
    }
    // This report's digest, in the query (any route takes it there; a
    // publish also in its body).
    let (status, body) = call(
        address,
        key,
        "POST",
        &format!("{publish}?accept={digest}"),
        "",
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["compatibility"][0]["accepted"], true, "{body}");

    // A version that only adds an optional argument needs no acceptance.
    let optional = json!([{"name": "units", "type": "string", "in": "query", "required": true}, {"name": "lang", "type": "string", "in": "query"}]);
    let draft = json!({"version": 3, "definition": weather(optional)});
    let (status, body) = call(address, key, "POST", versions, &draft.to_string());
    assert_eq!(
        (status, &body["compatibility"][0]["breaks"]),
        (200, &json!(false)),
        "{body}"
    );
    let (status, body) = call(address, key, "POST", &format!("{versions}/3/publish"), "");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["compatibility"][0]["accepted"], false, "{body}");

    let (status, body) = call(address, key, "GET", "/v1/audit?limit=3", "");
    assert_eq!(status, 200);
    let accepted: Vec<(&Value, &Value)> = body["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| (&e["action"], &e["detail"]["compatibility"][0]["accepted"]))
        .collect();
    assert_eq!(
        accepted,
        [
            (&json!("publish"), &json!(false)),
            (&json!("draft"), &json!(false)),
            (&json!("publish"), &json!(true))
        ],
        "{body}"
    );
}

/// Behind a TLS-terminating proxy every operator comes from one address:
/// someone else's wrong keys must not get a valid key refused.
#[test]
fn a_valid_key_is_served_whatever_wrong_keys_came_from_its_address() {
    let (_store, address, key, _runtime) = start();
    let wrong = format!("tso_{}", "0".repeat(64));
    for attempt in 0..10 {
        let sent = match attempt % 2 {
            0 => wrong.as_str(),
            _ => "not-even-shaped",
        };
        let (status, body) = call(address, Some(sent), "GET", "/v1/revision", "");
        assert_eq!(status, 401, "{body}");
    }
    // The address is out of tries: a wrong key is held back, a valid one
    // is served, one after the other.
    for _ in 0..3 {
        let (status, body) = call(address, Some(&key), "GET", "/v1/revision", "");
        assert_eq!((status, &body["revision"]), (200, &json!(1)), "{body}");
        let (status, body) = call(address, Some(&wrong), "GET", "/v1/revision", "");
        assert_eq!(
            (status, &body["error"]),
            (429, &json!("too_many_failures")),
            "{body}"
        );
        let (status, _) = call(address, None, "GET", "/v1/revision", "");
        assert_eq!(status, 429);
    }
    // And acts.
    let (status, body) = call(
        address,
        Some(&key),
        "POST",
        "/v1/toolsets/globex-support/deactivate",
        "",
    );
    assert_eq!(status, 200, "{body}");
}

#[test]
fn a_rotated_operator_key_replaces_the_old_one_at_once() {
    let (store, address, key, runtime) = start();
    let new_key = runtime
        .block_on(store.rotate_operator("alice"))
        .expect("rotated");
    assert_ne!(new_key, key);
    let (status, _) = call(address, Some(&key), "GET", "/v1/revision", "");
    assert_eq!(status, 401, "the old key no longer works");
    let (status, _) = call(
        address,
        Some(&new_key),
        "POST",
        "/v1/toolsets/globex-support/deactivate",
        "",
    );
    assert_eq!(status, 200);
    let audit = runtime.block_on(store.audit(1)).expect("audit");
    assert_eq!(audit[0].actor, "alice", "the same operator");
}
