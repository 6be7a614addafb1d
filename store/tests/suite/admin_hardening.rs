//! The admin API under the second adversarial round: a request is
//! authenticated from its headers before its body is read or the database
//! touched, wrong keys are answered alike and then rate-limited, the
//! listener has the MCP listener's timeouts, bodies are bounded per route,
//! and text the database cannot keep is the operator's mistake, not a 503.

use std::io::{Read as _, Write as _};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use toolschema_serve::HttpTimeouts;
use toolschema_store::{Action, Records, Store};
use toolschema_test_support::postgres::Postgres;
use toolschema_test_support::{self as support, connect, exchange};

/// The admin API over `store` on a free port, served as the binary serves
/// it, with `timeouts`.
pub(crate) fn serve(store: Store, timeouts: HttpTimeouts) -> (SocketAddr, tokio::runtime::Runtime) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let address = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let address = listener.local_addr().expect("address");
        let registry = Arc::new(toolschema_demo::registry());
        tokio::spawn(toolschema_store::admin::serve(
            listener,
            store,
            registry,
            timeouts,
            std::future::pending(),
        ));
        address
    });
    (address, runtime)
}

/// A store nobody listens for: any request that reaches the database
/// fails with 503.
fn unreachable_store() -> Store {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("address")
        .port();
    Store::new(&format!("postgresql://toolschema@127.0.0.1:{port}/catalog")).expect("url")
}

/// Sends a request's head announcing `length` body bytes and only `sent`
/// of them, then reads what the server answers before that body is done.
fn answer_before_the_body(
    address: SocketAddr,
    method: &str,
    path: &str,
    key: Option<&str>,
    length: usize,
    sent: usize,
) -> (u16, String) {
    let bearer = key.map(|key| format!("Bearer {key}"));
    let mut headers = vec![("Content-Type", "application/toml")];
    if let Some(bearer) = &bearer {
        headers.push(("Authorization", bearer));
    }
    // A configuration file that would hold thousands of problems.
    let line = "[[toolset]]\nid = \"x\"\ntenant = \"nowhere\"\ntools = [\"billing.refnd\"]\n";
    let body = line.repeat(sent / line.len() + 1);
    let mut stream = connect(address);
    support::answer_before_the_body(
        &mut stream,
        method,
        path,
        &headers,
        length,
        &body.as_bytes()[..sent],
    )
}

fn request(
    address: SocketAddr,
    method: &str,
    path: &str,
    key: Option<&str>,
    body: &str,
) -> (u16, Value) {
    let bearer = key.map(|key| format!("Bearer {key}"));
    let mut headers = vec![("Content-Type", "application/json")];
    if let Some(bearer) = &bearer {
        headers.push(("Authorization", bearer));
    }
    let mut stream = connect(address);
    let (status, body) = exchange(&mut stream, method, path, &headers, body.as_bytes());
    (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

const WELL_SHAPED: &str = "tso_00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

#[test]
fn a_request_without_a_valid_key_reads_no_body_and_touches_no_database() {
    let (address, _runtime) = serve(unreachable_store(), HttpTimeouts::default());
    // 47 MB announced, 64 KB sent: refused at once, the body unread, the
    // database not asked (it is unreachable: asking it would be 503).
    for (method, path) in [("PUT", "/v1/catalog"), ("POST", "/v1/import")] {
        for key in [None, Some("demo-acme-finance-key")] {
            let (status, answer) =
                answer_before_the_body(address, method, path, key, 47 << 20, 64 << 10);
            assert_eq!(status, 401, "{method} {path} {key:?}: {answer}");
            assert!(
                answer.contains("www-authenticate: Bearer realm=\"toolschema-admin\""),
                "{answer}"
            );
            let body = answer.split_once("\r\n\r\n").map_or("", |(_, body)| body);
            assert!(body.len() < 300, "{body}");
            for detail in ["did you mean", "problem", "billing", "nowhere"] {
                assert!(
                    !body.contains(detail),
                    "`{detail}` told to a stranger: {body}"
                );
            }
        }
    }
    // A key shaped like an operator's is looked up: the database is
    // unreachable, so 503 says it was asked, and only then.
    let (status, body) = request(address, "GET", "/v1/revision", Some(WELL_SHAPED), "");
    assert_eq!(status, 503, "{body}");
}

#[test]
fn a_peer_that_keeps_sending_wrong_keys_is_held_back_unless_its_key_proves_valid() {
    let (address, _runtime) = serve(unreachable_store(), HttpTimeouts::default());
    // Ten wrong keys are answered 401, all alike.
    let mut answers = Vec::new();
    for attempt in 0..10 {
        let key = format!("wrong-{attempt}");
        answers.push(request(
            address,
            "POST",
            "/v1/toolsets/x/activate",
            Some(&key),
            "",
        ));
    }
    assert!(
        answers.iter().all(|(status, _)| *status == 401),
        "{answers:?}"
    );
    assert!(
        answers.windows(2).all(|pair| pair[0].1 == pair[1].1),
        "{answers:?}"
    );
    // Then a key not proven valid is held back: this well-shaped one is
    // looked up (a valid key is never refused for the address's failures),
    // the store cannot say, and the answer is 429, not 503.
    let mut stream = connect(address);
    let (status, _) = exchange(
        &mut stream,
        "GET",
        "/v1/revision",
        &[("Authorization", &format!("Bearer {WELL_SHAPED}"))],
        b"",
    );
    assert_eq!(status, 429);
    let raw = {
        let mut stream = connect(address);
        stream
            .write_all(b"GET /v1/revision HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            .expect("write");
        let mut raw = String::new();
        let _ = stream.read_to_string(&mut raw);
        raw
    };
    assert!(raw.starts_with("HTTP/1.1 429"), "{raw}");
    let retry: u64 = raw
        .lines()
        .find_map(|line| line.strip_prefix("retry-after: "))
        .and_then(|value| value.trim().parse().ok())
        .expect("Retry-After");
    assert!((1..=3).contains(&retry), "{retry}");
}

/// A store holding the demo catalog, and an operator's key.
pub(crate) fn demo_store() -> (Store, String) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let store = Store::new(&Postgres::shared().database()).expect("url");
        store.migrate().await.expect("migrates");
        let registry = toolschema_demo::registry();
        let records = Records::from_toml(toolschema_demo::CATALOG_TOML, "catalog.toml", &registry)
            .expect("demo");
        let replace = Action::Replace {
            records: Box::new(records),
        };
        store
            .apply("setup", replace, &registry)
            .await
            .expect("loads");
        let key = store.add_operator("alice").await.expect("operator");
        (store, key)
    })
}

#[test]
fn the_admin_listener_times_out_slow_clients_as_the_mcp_listener_does() {
    let (store, key) = demo_store();
    let quick = Duration::from_millis(300);
    let (address, _runtime) = serve(
        store,
        HttpTimeouts {
            headers: quick,
            body: quick,
            idle: quick,
        },
    );
    // Headers that stop halfway: 408.
    let mut stream = connect(address);
    stream
        .write_all(b"PUT /v1/catalog HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .expect("write");
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    // An operator's body that dawdles: 408, the connection closed.
    let mut stream = connect(address);
    stream
        .write_all(
            format!("PUT /v1/records/tenant/slow HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {key}\r\nContent-Length: 100\r\n\r\n{{").as_bytes(),
        )
        .expect("write");
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("connection: close"), "{answer}");
    // A kept-alive connection left idle is closed.
    let mut stream = connect(address);
    let (status, _) = exchange(
        &mut stream,
        "GET",
        "/v1/revision",
        &[("Authorization", &format!("Bearer {key}"))],
        b"",
    );
    assert_eq!(status, 200);
    let mut rest = Vec::new();
    assert_eq!(stream.read_to_end(&mut rest).expect("closed"), 0);
}

#[test]
fn bodies_are_bounded_per_route_and_a_nul_is_the_operators_mistake() {
    let (store, key) = demo_store();
    let (address, _runtime) = serve(store, HttpTimeouts::default());
    let key = Some(key.as_str());
    // A record is at most 8 MiB: 9 MiB announced is refused before the
    // body is read, and the connection closes.
    let (status, answer) = answer_before_the_body(
        address,
        "PUT",
        "/v1/records/tenant/big",
        key,
        9 << 20,
        64 << 10,
    );
    assert_eq!(status, 413, "{answer}");
    assert!(answer.contains("connection: close"), "{answer}");
    assert!(answer.contains("\"too_large\""), "{answer}");
    // A NUL in an identifier or a value: 422 at the record, nothing of
    // PostgreSQL's.
    let (status, body) = request(address, "PUT", "/v1/records/tenant/a%00b", key, "{}");
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["problems"][0]["record"], "tenant \"a\\u0000b\"");
    let message = body["message"].as_str().expect("message");
    assert!(message.contains("NUL character (U+0000)"), "{message}");
    let (status, body) = request(
        address,
        "PUT",
        "/v1/settings/server",
        key,
        r#"{"name": "billing", "version": "1", "description": "nul \u0000 here"}"#,
    );
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["problems"][0]["record"], "setting \"server\"");
    // The store is as it was: revision 1, the loaded demo.
    let (status, body) = request(address, "GET", "/v1/revision", key, "");
    assert_eq!(
        (status, &body["revision"]),
        (200, &Value::from(1)),
        "{body}"
    );
}
