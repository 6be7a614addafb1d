//! The serving library as a service uses it: the builder's checks, open
//! mode and its loopback rule, a governed catalog, the router merged into
//! an application of its own, and a graceful stop.

use std::sync::mpsc;

use serde_json::{Value, json};
use toolschema_demo::{CATALOG_TOML, GetInvoice, ListInvoices};
use toolschema_serve::{ServeError, Server};
use toolschema_test_support::{connect, exchange, post_mcp};

use crate::common;
use common::spawn;

fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn names(list: &Value) -> Vec<&str> {
    list["result"]["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .collect()
}

fn block_on<F: core::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(future)
}

#[test]
fn open_mode_serves_every_tool_without_a_key_and_says_who_it_is() {
    let server = Server::new("billing", "2.1.0")
        .title("Billing")
        .tool::<GetInvoice>()
        .tool::<ListInvoices>();
    let (address, _stop) = spawn(server);
    let (status, list) = post_mcp(address, &[], &request(1, "tools/list", json!({})));
    assert_eq!(status, 200);
    assert_eq!(
        names(&list),
        ["billing.get-invoice", "billing.list-invoices"]
    );
    let (_, info) = post_mcp(
        address,
        &[],
        &request(
            2,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        ),
    );
    assert_eq!(
        info["result"]["serverInfo"],
        json!({"name": "billing", "version": "2.1.0", "title": "Billing"})
    );
    let mut stream = connect(address);
    let (status, body) = exchange(&mut stream, "GET", "/v1/tools", &[], b"");
    assert_eq!(status, 200, "REST needs no key either");
    assert!(String::from_utf8_lossy(&body).contains("billing.get-invoice"));
}

#[test]
fn open_mode_refuses_a_network_address_unless_allowed() {
    let refused = block_on(
        Server::new("billing", "1")
            .tool::<GetInvoice>()
            .bind_http("0.0.0.0:0"),
    );
    match refused {
        Err(ServeError::OpenModeNotLoopback { address }) => {
            assert!(address.ip().is_unspecified());
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    let message = ServeError::OpenModeNotLoopback {
        address: "0.0.0.0:8080".parse().expect("address"),
    }
    .to_string();
    assert!(message.contains("allow_open_network()"), "{message}");

    let allowed = block_on(
        Server::new("billing", "1")
            .tool::<GetInvoice>()
            .allow_open_network()
            .bind_http("0.0.0.0:0"),
    )
    .expect("the opt-in allows it");
    assert!(allowed.local_addr().ip().is_unspecified());

    // A governed server may listen anywhere: every request needs a key.
    let governed = block_on(
        Server::new("billing", "1")
            .registry(toolschema_demo::registry())
            .catalog_toml(CATALOG_TOML, "catalog.toml")
            .bind_http("0.0.0.0:0"),
    );
    assert!(governed.is_ok());
}

#[test]
fn a_governed_server_authenticates_each_request() {
    let server = Server::new("demo", "1")
        .registry(toolschema_demo::registry())
        .catalog_toml(CATALOG_TOML, "catalog.toml");
    let (address, _stop) = spawn(server);
    let list = request(1, "tools/list", json!({}));
    let (status, _) = post_mcp(address, &[], &list);
    assert_eq!(status, 401);
    let (status, reply) = post_mcp(address, &[("X-API-Key", "demo-globex-support-key")], &list);
    assert_eq!(status, 200);
    assert!(names(&reply).iter().all(|n| !n.starts_with("billing.")));
}

#[test]
fn a_keyless_client_is_served_without_a_key_and_a_wrong_key_is_still_refused() {
    let public = CATALOG_TOML.replacen(
        "[catalog]\n",
        "[catalog]\nkeyless_client = \"globex-support\"\n",
        1,
    );
    let server = Server::new("demo", "1")
        .registry(toolschema_demo::registry())
        .catalog_toml(public, "public.toml");
    let (address, _stop) = spawn(server);
    let list = request(1, "tools/list", json!({}));
    let (status, reply) = post_mcp(address, &[], &list);
    assert_eq!(status, 200, "{reply:#}");
    let keyless = names(&reply);
    assert!(keyless.contains(&"support.open-ticket"), "{keyless:?}");
    assert!(keyless.iter().all(|n| !n.starts_with("billing.")));
    let (status, _) = post_mcp(address, &[("X-API-Key", "not-a-key")], &list);
    assert_eq!(status, 401, "a wrong key is not the same as no key");
    let (status, reply) = post_mcp(address, &[("X-API-Key", "demo-acme-finance-key")], &list);
    assert_eq!(status, 200);
    assert!(names(&reply).contains(&"billing.refund"));
}

#[test]
fn the_builder_reports_every_problem_before_serving() {
    let twice = Server::new("x", "1")
        .tool::<GetInvoice>()
        .tool::<GetInvoice>()
        .build();
    match twice {
        Err(ServeError::Tools(errors)) => {
            assert_eq!(errors.len(), 1);
            assert!(errors[0].to_string().contains("registered twice"));
        }
        other => panic!("expected the duplicate, got {other:?}"),
    }

    let bad = Server::new("x", "1")
        .tool::<GetInvoice>()
        .catalog_toml(
            "[[toolset]]\nid = \"s\"\ntenant = \"nobody\"\ntools = [\"billing.get-invoise\"]\n",
            "inline.toml",
        )
        .build();
    match bad {
        Err(ServeError::Config(errors)) => {
            let text = errors.to_string();
            assert_eq!(errors.len(), 3, "{text}");
            assert!(text.contains("names no client application"), "{text}");
            assert!(text.contains("inline.toml:3:"), "{text}");
            assert!(
                text.contains("did you mean `billing.get-invoice`"),
                "{text}"
            );
        }
        other => panic!("expected configuration errors, got {other:?}"),
    }

    let missing = Server::new("x", "1")
        .catalog_file("/nonexistent/catalog.toml")
        .build();
    assert!(
        matches!(&missing, Err(ServeError::Read { path, .. }) if path.ends_with("catalog.toml")),
        "{missing:?}"
    );
    assert!(missing.err().is_some_and(|e| {
        e.to_string()
            .starts_with("cannot read /nonexistent/catalog.toml")
    }));

    let no_client = block_on(
        Server::new("x", "1")
            .registry(toolschema_demo::registry())
            .catalog_toml(CATALOG_TOML, "catalog.toml")
            .serve_stdio(),
    );
    assert!(matches!(no_client, Err(ServeError::NoStdioClient)));
    let unknown = block_on(
        Server::new("x", "1")
            .registry(toolschema_demo::registry())
            .catalog_toml(CATALOG_TOML, "catalog.toml")
            .stdio_client("nobody")
            .serve_stdio(),
    );
    assert!(matches!(unknown, Err(ServeError::UnknownClient { id }) if id == "nobody"));
}

#[test]
fn the_router_merges_into_an_application() {
    let tools = Server::new("billing", "1")
        .tool::<ListInvoices>()
        .router()
        .expect("builds");
    let app = axum::Router::new()
        .route("/health", axum::routing::get(|| async { "ok" }))
        .merge(tools);
    let (ready, address) = mpsc::channel();
    std::thread::spawn(move || {
        block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind");
            ready
                .send(listener.local_addr().expect("addr"))
                .expect("send");
            axum::serve(listener, app).await.expect("serve");
        });
    });
    let address = address.recv().expect("started");
    let mut stream = connect(address);
    let (status, body) = exchange(&mut stream, "GET", "/health", &[], b"");
    assert_eq!((status, body.as_slice()), (200, &b"ok"[..]));
    let (status, list) = post_mcp(address, &[], &request(1, "tools/list", json!({})));
    assert_eq!(status, 200);
    assert_eq!(names(&list), ["billing.list-invoices"]);
}

#[test]
fn stopping_ends_the_server() {
    let (address, stop) = spawn(Server::new("x", "1").tool::<GetInvoice>());
    let (status, _) = post_mcp(address, &[], &request(1, "ping", json!({})));
    assert_eq!(status, 200);
    stop.send(()).expect("stop");
    // The listener closes once the server has stopped.
    let closed = (0..100).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::net::TcpStream::connect(address).is_err()
    });
    assert!(closed, "the server stopped listening");
}

#[test]
fn the_health_endpoint_answers_any_host_and_reports_each_checked_part() {
    let (ready, address) = mpsc::channel();
    let (stop, stopped) = mpsc::channel::<()>();
    let degraded = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = degraded.clone();
    std::thread::spawn(move || {
        block_on(async move {
            let http = Server::new("billing", "1")
                .registry(toolschema_demo::registry())
                .catalog_toml(CATALOG_TOML, "catalog.toml")
                .bind_http("127.0.0.1:0")
                .await
                .expect("binds");
            http.service().add_health_check("store", move || {
                let degraded = flag.load(std::sync::atomic::Ordering::SeqCst);
                toolschema_serve::Health {
                    degraded,
                    detail: json!({"connected": !degraded}),
                }
            });
            ready.send(http.local_addr()).expect("send");
            let until = async move {
                let _ = tokio::task::spawn_blocking(move || stopped.recv()).await;
            };
            http.run_until(until).await.expect("serves");
        });
    });
    let address = address.recv().expect("started");
    let health = |host: &str| {
        let mut stream = connect(address);
        let (status, body) = exchange(&mut stream, "GET", "/health", &[("host", host)], b"");
        (
            status,
            serde_json::from_slice::<Value>(&body).expect("json"),
        )
    };
    // A load balancer probes with the address it knows, not a loopback name.
    let (status, body) = health("10.1.2.3:8080");
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({"status": "ok", "checks": {"store": {"connected": true}}})
    );
    degraded.store(true, std::sync::atomic::Ordering::SeqCst);
    let (status, body) = health("10.1.2.3:8080");
    assert_eq!(status, 200, "a degraded server still serves");
    assert_eq!(
        body,
        json!({"status": "degraded", "checks": {"store": {"connected": false}}})
    );
    // The MCP endpoint keeps its Host guard.
    let mut stream = connect(address);
    let (status, _) = exchange(
        &mut stream,
        "POST",
        "/mcp",
        &[("host", "10.1.2.3:8080")],
        b"{}",
    );
    assert_eq!(status, 403);
    stop.send(()).expect("stop");
}

/// A model of meaning for tests: "cash" and the words of billing mean the
/// same, any other word its own thing.
struct Cash;

impl toolschema_catalog::search::Embed for Cash {
    fn embed(
        &self,
        texts: &[&str],
    ) -> Result<Vec<Vec<f32>>, toolschema_catalog::search::EmbedError> {
        Ok(texts
            .iter()
            .map(|text| {
                let mut vector = [0.05f32; 8];
                for word in text.split(|c: char| !c.is_alphanumeric()) {
                    let slot = match word.to_lowercase().as_str() {
                        "" => continue,
                        "cash" | "refund" | "refunds" | "invoice" | "paid" => 0,
                        other => 1 + other.len() % 7,
                    };
                    vector[slot] += 1.0;
                }
                let length = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
                vector.iter().map(|x| x / length).collect()
            })
            .collect())
    }
}

#[test]
fn a_search_by_meaning_answers_over_mcp_and_health_says_how_search_ranks() {
    toolschema_catalog::search::install_model("serve-cash", Cash);
    let configured = |model: &str| {
        toolschema_test_support::in_search_mode(CATALOG_TOML, None).replace(
            "[catalog]\n",
            &format!("[catalog]\nsearch_model = \"{model}\"\n"),
        )
    };
    block_on(async {
        let service = Server::new("billing", "1")
            .registry(toolschema_demo::registry())
            .catalog_toml(configured("serve-cash"), "catalog.toml")
            .build()
            .expect("builds");
        assert_eq!(
            service.health(),
            json!({"status": "ok", "checks": {"search": {"ranking": "words and meaning", "model": "serve-cash"}}})
        );
        let client = toolschema_testing::TestClient::as_client(service, "acme-finance")
            .await
            .expect("connects");
        // No demo tool says "cash": found by meaning alone (run off the
        // async workers, on a current-thread runtime too).
        let called = client
            .call("search_tools", json!({"query": "cash", "limit": 2}))
            .await
            .expect("answered");
        assert!(!called.is_error(), "{:?}", called.result());
        let found = called.structured().expect("structured");
        let names: Vec<&str> = found["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|tool| tool["name"].as_str())
            .collect();
        assert!(
            names.contains(&"billing.refund") || names.contains(&"billing.get-invoice"),
            "{found}"
        );

        // A model this server cannot load: it serves, by words, and says so.
        let service = Server::new("billing", "1")
            .registry(toolschema_demo::registry())
            .catalog_toml(configured("/no/such/model"), "catalog.toml")
            .build()
            .expect("builds");
        let health = service.health();
        assert_eq!(health["status"], "degraded", "{health}");
        assert_eq!(health["checks"]["search"]["ranking"], "words alone");
        assert_eq!(health["checks"]["search"]["model"], "/no/such/model");
        assert!(
            health["checks"]["search"]["reason"]
                .as_str()
                .is_some_and(|reason| !reason.is_empty()),
            "{health}"
        );
        let client = toolschema_testing::TestClient::as_client(service, "acme-finance")
            .await
            .expect("connects");
        let called = client
            .call("search_tools", json!({"query": "refund a paid invoice"}))
            .await
            .expect("answered");
        assert!(!called.is_error(), "{:?}", called.result());
    });
}
