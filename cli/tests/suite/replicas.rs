//! Three `toolschema serve` replicas on loopback sharing one catalog store
//! (a real PostgreSQL): a version published through the admin API reaches
//! every replica and its listeners; a replica cut off from the database
//! keeps serving, misses a change, and converges once it is back; with the
//! database stopped, all of them keep serving and say so on `/health`.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolschema_test_support::exchange;
use toolschema_test_support::postgres::Postgres;

use crate::common;
use common::{Http, connect, read_events, run};

const ACME: (&str, &str) = ("Authorization", "Bearer demo-acme-finance-key");

/// Runs `toolschema admin … ` on `url`; its standard output.
fn admin(url: &str, args: &[&str]) -> String {
    let mut all = vec!["admin", "--demo", "--database-url", url, "--actor", "test"];
    all.extend_from_slice(args);
    let (ok, out, err) = run(&all);
    assert!(ok, "admin {args:?}: {err}");
    out
}

/// acme-finance's tools/list on a replica.
fn tools(port: u16) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}).to_string();
    let mut stream = connect(port);
    let (status, answer) = exchange(
        &mut stream,
        "POST",
        "/mcp",
        &[
            ACME,
            ("MCP-Protocol-Version", "2025-11-25"),
            ("Content-Type", "application/json"),
        ],
        body.as_bytes(),
    );
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&answer));
    let answer: Value = serde_json::from_slice(&answer).expect("json");
    answer["result"]["tools"].clone()
}

fn names(tools: &Value) -> Vec<&str> {
    tools
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect()
}

/// What a replica's `/health` says of its store.
fn store_health(port: u16) -> Value {
    let mut stream = connect(port);
    let (status, body) = exchange(&mut stream, "GET", "/health", &[], b"");
    assert_eq!(status, 200);
    let health: Value = serde_json::from_slice(&body).expect("json");
    health["checks"]["catalog_store"].clone()
}

/// Waits until `done` holds, for at most `limit`; how long it took.
fn wait(what: &str, limit: Duration, mut done: impl FnMut() -> bool) -> Duration {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < limit, "{what}: not within {limit:?}");
        std::thread::sleep(Duration::from_millis(25));
    }
    start.elapsed()
}

/// A `subscriptions/listen` stream of acme-finance (2026-07-28), its
/// acknowledgment read.
fn listen(port: u16) -> TcpStream {
    let listen = json!({
        "jsonrpc": "2.0", "id": "listen", "method": "subscriptions/listen",
        "params": {
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}},
            "notifications": {"toolsListChanged": true}
        }
    })
    .to_string();
    let mut stream = connect(port);
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer demo-acme-finance-key\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{listen}",
        listen.len()
    );
    stream.write_all(request.as_bytes()).expect("write");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    let ack = read_events(&mut stream, 1).remove(0);
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    stream
}

/// A TCP proxy in front of the database for one replica, which can cut that
/// replica off (its connections closed, new ones refused) while the
/// database serves everyone else.
struct Proxy {
    port: u16,
    cut: Arc<AtomicBool>,
    live: Arc<Mutex<Vec<TcpStream>>>,
}

impl Proxy {
    fn start(target: u16) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let cut = Arc::new(AtomicBool::new(false));
        let live = Arc::new(Mutex::new(Vec::new()));
        let (cut_flag, connections) = (cut.clone(), live.clone());
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                if cut_flag.load(Ordering::SeqCst) {
                    drop(client);
                    continue;
                }
                let Ok(server) = TcpStream::connect(("127.0.0.1", target)) else {
                    continue;
                };
                let mut streams = connections.lock().expect("lock");
                for stream in [&client, &server] {
                    streams.push(stream.try_clone().expect("clone"));
                }
                for (mut from, mut to) in [
                    (
                        client.try_clone().expect("clone"),
                        server.try_clone().expect("clone"),
                    ),
                    (server, client),
                ] {
                    std::thread::spawn(move || {
                        let mut buffer = [0u8; 16 * 1024];
                        while let Ok(n) = from.read(&mut buffer) {
                            if n == 0 || to.write_all(&buffer[..n]).is_err() {
                                break;
                            }
                        }
                        let _ = to.shutdown(Shutdown::Both);
                    });
                }
            }
        });
        Proxy { port, cut, live }
    }

    /// Closes the replica's connections and refuses new ones.
    fn cut(&self) {
        self.cut.store(true, Ordering::SeqCst);
        for stream in self.live.lock().expect("lock").drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }

    /// Lets the replica connect again.
    fn restore(&self) {
        self.cut.store(false, Ordering::SeqCst);
    }
}

#[test]
fn replicas_follow_the_store_through_a_publish_a_disconnection_and_an_outage() {
    let postgres = Postgres::start();
    let url = postgres.database();
    admin(&url, &["migrate"]);
    admin(&url, &["load", "examples/catalog.toml"]);
    let operator = admin(&url, &["add-operator", "ops"]).trim().to_owned();
    let proxy = Proxy::start(postgres.port());
    let proxied = url.replace(
        &format!(":{}/", postgres.port()),
        &format!(":{}/", proxy.port),
    );

    let replicas = [
        Http::start_with(&[
            "--demo",
            "--database-url",
            &url,
            "--admin-bind",
            "127.0.0.1:0",
        ]),
        Http::start_with(&["--demo", "--database-url", &url]),
        Http::start_with(&["--demo", "--database-url", &proxied]),
    ];
    let ports: Vec<u16> = replicas.iter().map(|r| r.port).collect();
    let before = tools(ports[0]);
    assert!(names(&before).contains(&"billing.refund"));
    for port in &ports {
        assert_eq!(tools(*port), before);
        // Each replica serves from its first load, which did not keep the
        // records while the catalog was built; its follower then reads
        // them again (one whole read), finds the revision it serves, and
        // builds nothing.
        wait(
            "a replica follows the store",
            Duration::from_secs(10),
            || {
                store_health(*port)
                    == json!({"connected": true, "revision": 1, "full_reads": 1, "change_reads": 0, "patches": 0})
            },
        );
    }

    // Publish billing.refund 2 through the admin API of the first replica
    // (its new required argument accepted): every replica serves it, and
    // tells its listener.
    let mut streams: Vec<TcpStream> = ports.iter().map(|port| listen(*port)).collect();
    let admin_port = replicas[0].admin.expect("the admin API");
    let mut stream = connect(admin_port);
    let bearer = format!("Bearer {operator}");
    let (status, body) = exchange(
        &mut stream,
        "POST",
        "/v1/mappings/billing.refund/versions/2/publish",
        &[("Authorization", &bearer)],
        b"",
    );
    assert_eq!(status, 409, "{}", String::from_utf8_lossy(&body));
    let refused: Value = serde_json::from_slice(&body).expect("json");
    let digest = refused["compatibility"][0]["digest"]
        .as_str()
        .expect("a digest");
    let mut stream = connect(admin_port);
    let (status, body) = exchange(
        &mut stream,
        "POST",
        "/v1/mappings/billing.refund/versions/2/publish",
        &[("Authorization", &bearer)],
        serde_json::json!({"accept": digest}).to_string().as_bytes(),
    );
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let answer: Value = serde_json::from_slice(&body).expect("json");
    assert_eq!(answer["revision"], 2);
    assert_eq!(
        answer["summary"],
        format!(
            "draft -> published; `billing.refund` 1 -> 2 served, its breaking changes accepted (report {digest})"
        )
    );
    for stream in &mut streams {
        let events = read_events(stream, 1);
        assert_eq!(
            events[0]["method"], "notifications/tools/list_changed",
            "{events:?}"
        );
    }
    let published = tools(ports[0]);
    assert_ne!(published, before, "version 2 of billing.refund is served");
    for port in &ports {
        assert_eq!(tools(*port), published);
        wait("the revision on /health", Duration::from_secs(5), || {
            store_health(*port)["revision"] == 2
        });
        // Caught up from the change log's one entry, not a whole read,
        // and applied as a change (the mapping checked, the clients
        // showing billing.refund built again).
        let health = store_health(*port);
        assert_eq!(
            (
                &health["full_reads"],
                &health["change_reads"],
                &health["patches"]
            ),
            (&json!(1), &json!(1), &json!(1)),
            "{health}"
        );
    }

    // The third replica is cut off from the database: it keeps serving,
    // and misses a change made meanwhile.
    proxy.cut();
    wait("the cut replica notices", Duration::from_secs(20), || {
        store_health(ports[2])["connected"] == false
    });
    admin(&url, &["deprecate", "billing.refund", "2"]);
    for port in &ports[..2] {
        wait(
            "a connected replica serves the change",
            Duration::from_secs(10),
            || !names(&tools(*port)).contains(&"billing.refund"),
        );
    }
    assert_eq!(
        tools(ports[2]),
        published,
        "the cut replica serves the last good list"
    );
    let away = store_health(ports[2]);
    assert_eq!(away["revision"], 2);
    assert!(away["disconnected_since"].is_u64(), "{away}");
    // Back: it loads in full (the notification is not replayed) and
    // converges.
    proxy.restore();
    wait("the cut replica converges", Duration::from_secs(20), || {
        tools(ports[2]) == tools(ports[0])
    });
    wait(
        "the cut replica is connected",
        Duration::from_secs(5),
        || {
            let health = store_health(ports[2]);
            health["connected"] == true && health["revision"] == 3
        },
    );
    // A whole read when it came back, besides the one after it started.
    let back = store_health(ports[2]);
    assert!(back["full_reads"].as_u64() >= Some(2), "{back}");
    assert!(back.get("disconnected_since").is_none(), "{back}");

    // The database stops: every replica keeps serving, and says so.
    let serving = tools(ports[0]);
    postgres.stop();
    for port in &ports {
        wait(
            "a replica notices the outage",
            Duration::from_secs(20),
            || store_health(*port)["connected"] == false,
        );
        assert_eq!(tools(*port), serving);
    }
    let mut stream = connect(admin_port);
    let (status, body) = exchange(
        &mut stream,
        "POST",
        "/v1/toolsets/acme-archive/activate",
        &[("Authorization", &bearer)],
        b"",
    );
    assert_eq!(status, 503, "{}", String::from_utf8_lossy(&body));
    postgres.restart();
    for port in &ports {
        wait("a replica reconnects", Duration::from_secs(20), || {
            let health = store_health(*port);
            health["connected"] == true && health["revision"] == 3
        });
        assert_eq!(tools(*port), serving);
    }
}
