//! A soak run: normal MCP traffic and hostile requests mixed, against the
//! demo catalog served on loopback, for a bounded time. Prints the normal
//! requests' p50/p99 and errors, the hostile requests' outcomes, and the
//! server's resident memory at the start, its peak and the end.
//!
//! - `SOAK_SECONDS` (default 120): how long;
//! - `SOAK_HOSTILE` (default 2): hostile clients, each cycling through the
//!   attacks of both adversarial rounds (floods of unknown keys, oversized
//!   bodies, wrong keys, malformed ids and hosts, JSON arrays as requests,
//!   routing headers twice, megabytes of arguments, huge tool names) on
//!   fresh connections;
//! - `SOAK_SLOW` (default 0): connections that send half a request's
//!   headers and wait for the header timeout, again and again;
//! - `SOAK_SERVER_BIN`: a `toolschema` binary to serve the demo catalog in
//!   a process of its own (else the server runs in this process). With it
//!   and `taskset` on the machine, the server runs on CPU 0 and this
//!   process (the load generator) on CPU 1: pinned apart, so that what the
//!   hostile clients cost the normal ones is the server's doing, not the
//!   load generator's.
//!
//! cargo build --release -p toolschema-cli
//! SOAK_SERVER_BIN=target/release/toolschema SOAK_HOSTILE=8 SOAK_SLOW=56 \
//!   cargo bench -p toolschema-bench-http --bench soak

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use toolschema::serve::Server;

const KEY: &str = "demo-acme-finance-key";

/// The resident memory of process `pid` (`self` for this one), in KiB.
fn rss_kib(pid: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("VmRSS:"))
                .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// One request on a kept-alive connection: the status and the body.
fn exchange(stream: &mut TcpStream, head: &str, body: &[u8]) -> std::io::Result<(u16, Vec<u8>)> {
    // One write: a head and a body in two small writes would wait on
    // delayed acknowledgments (Nagle), 40 ms each.
    let mut request = format!("{head}Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    request.extend_from_slice(body);
    stream.write_all(&request)?;
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte)?;
        head.push(byte[0]);
    }
    let text = String::from_utf8_lossy(&head);
    let status = text.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    let length = text
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().parse().unwrap_or(0))
        })
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body)?;
    Ok((status, body))
}

fn mcp_head(key: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\nX-API-Key: {key}\r\n"
    )
}

/// The server: in this process, or a child process pinned to CPU 0.
struct Served {
    address: SocketAddr,
    child: Option<Child>,
}

impl Served {
    fn pid(&self) -> String {
        self.child
            .as_ref()
            .map_or_else(|| "self".to_owned(), |child| child.id().to_string())
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Whether `taskset` is on the machine.
fn can_pin() -> bool {
    Command::new("taskset")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// The demo catalog served by `binary` in a process of its own, on CPU 0
/// when it can be pinned.
fn start_child(binary: &str, pinned: bool) -> Served {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let bind = format!("127.0.0.1:{port}");
    let mut command = match pinned {
        true => {
            let mut command = Command::new("taskset");
            command.args(["-c", "0", binary]);
            command
        }
        false => Command::new(binary),
    };
    let child = command
        .args(["serve", "--bind", &bind])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let address: SocketAddr = bind.parse().expect("an address");
    let waited = Instant::now();
    while TcpStream::connect(address).is_err() {
        assert!(
            waited.elapsed() < Duration::from_secs(30),
            "the server never listened"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // `taskset` execs the binary: the child's pid is the server's.
    Served {
        address,
        child: Some(child),
    }
}

fn start() -> SocketAddr {
    let (ready, address) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = toolschema_bench_http::runtime(2);
        runtime.block_on(async move {
            let server = Server::new("billing", "1")
                .registry(toolschema_demo::registry())
                .catalog_toml(toolschema_demo::CATALOG_TOML, "catalog.toml");
            let http = server.bind_http("127.0.0.1:0").await.expect("binds");
            ready.send(http.local_addr()).expect("send");
            http.run_until(std::future::pending())
                .await
                .expect("serves");
        });
    });
    address.recv().expect("started")
}

#[derive(Default)]
struct Tally {
    latencies: Mutex<Vec<Duration>>,
    normal_errors: AtomicU64,
    hostile: AtomicU64,
    hostile_unexpected: AtomicU64,
}

fn normal(address: SocketAddr, stop: &AtomicBool, tally: &Tally) {
    let list = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let call = br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"billing.list-invoices","arguments":{"customer":"cust-42","limit":5}}}"#;
    let head = mcp_head(KEY);
    let mut stream = TcpStream::connect(address).expect("connects");
    let mut mine = Vec::new();
    let mut turn = 0u64;
    while !stop.load(Ordering::Relaxed) {
        turn += 1;
        let body: &[u8] = if turn.is_multiple_of(2) { list } else { call };
        let started = Instant::now();
        match exchange(&mut stream, &head, body) {
            Ok((200, reply)) if !reply.windows(14).any(|w| w == b"\"isError\":true") => {
                mine.push(started.elapsed());
            }
            _ => {
                tally.normal_errors.fetch_add(1, Ordering::Relaxed);
                stream = TcpStream::connect(address).expect("reconnects");
            }
        }
    }
    tally.latencies.lock().expect("lock").extend(mine);
}

/// The attacks, each with the status it must get (`None`: the connection
/// may be closed before an answer, as for a body larger than accepted).
struct Attack {
    head: String,
    body: Vec<u8>,
    expected: u16,
    may_close: bool,
}

fn attacks() -> Vec<Attack> {
    let mut flood = String::from(r#"{"customer":"cust-42""#);
    for i in 0..70_000 {
        flood.push_str(&format!(r#","k{i:07}":0"#));
    }
    flood.push('}');
    let rest = "POST /v1/tools/billing.list-invoices/call HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-API-Key: demo-acme-finance-key\r\n".to_owned();
    let call = |arguments: String| {
        format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"billing.list-invoices","arguments":{arguments}}}}}"#
        )
    };
    let stateless = |name: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nX-API-Key: {KEY}\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: {name}\r\nMcp-Name: billing.refund\r\n"
        )
    };
    let attack = |head: String, body: Vec<u8>, expected: u16| Attack {
        head,
        body,
        expected,
        may_close: false,
    };
    vec![
        attack(rest.clone(), flood.into_bytes(), 422),
        Attack {
            may_close: true,
            ..attack(rest.clone(), vec![b' '; 2 << 20], 413)
        },
        attack(mcp_head("wrong-key"), br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.to_vec(), 401),
        attack(mcp_head(KEY), br#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#.to_vec(), 200),
        attack("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:1@evil.example\r\n".to_owned(), b"{}".to_vec(), 403),
        attack("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:99999\r\n".to_owned(), b"{}".to_vec(), 403),
        attack(mcp_head(KEY), br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"billing.get-invoice","arguments":{"invoice_id":"nope","x":[[[[[[1]]]]]]}}}"#.to_vec(), 200),
        attack(mcp_head(KEY), br#"["2.0",3,"tools/call",{"name":"billing.list-invoices","arguments":{"customer":"cust-42"}}]"#.to_vec(), 200),
        attack(stateless("billing.list-invoices"), call(r#"{"customer":"cust-42"}"#.to_owned()).into_bytes(), 400),
        // A megabyte of arguments: read off the async workers.
        attack(mcp_head(KEY), call(format!(r#"{{"customer":"{}"}}"#, "c".repeat(1_000_000))).into_bytes(), 200),
        attack(
            mcp_head(KEY),
            format!(r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"{}","arguments":{{}}}}}}"#, "x".repeat(1_000_000)).into_bytes(),
            200,
        ),
    ]
}

fn hostile(address: SocketAddr, stop: &AtomicBool, tally: &Tally) {
    let attacks = attacks();
    let mut turn = 0usize;
    while !stop.load(Ordering::Relaxed) {
        let attack = &attacks[turn % attacks.len()];
        turn += 1;
        let Ok(mut stream) = TcpStream::connect(address) else {
            continue;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(20)));
        let outcome = exchange(&mut stream, &attack.head, &attack.body);
        tally.hostile.fetch_add(1, Ordering::Relaxed);
        let as_expected = match outcome {
            Ok((status, _)) => status == attack.expected,
            Err(_) => attack.may_close,
        };
        if !as_expected {
            tally.hostile_unexpected.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Half a request's headers, then nothing until the server's header
/// timeout answers 408 (or closes), again and again.
fn slow(address: SocketAddr, stop: &AtomicBool, tally: &Tally) {
    while !stop.load(Ordering::Relaxed) {
        let Ok(mut stream) = TcpStream::connect(address) else {
            continue;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
        if stream
            .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ")
            .is_err()
        {
            continue;
        }
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        tally.hostile.fetch_add(1, Ordering::Relaxed);
        if !answer.starts_with(b"HTTP/1.1 408") {
            tally.hostile_unexpected.fetch_add(1, Ordering::Relaxed);
        }
    }
}

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let seconds = setting("SOAK_SECONDS", 120);
    // SOAK_HOSTILE=0 gives the same run without the hostile clients.
    let hostile_clients = setting("SOAK_HOSTILE", 2) as usize;
    let slow_clients = setting("SOAK_SLOW", 0) as usize;
    // The load generator pins itself to CPU 1 (by running again under
    // `taskset`) when the server runs in a process of its own on CPU 0.
    let binary = std::env::var("SOAK_SERVER_BIN").ok();
    let pinned = binary.is_some() && can_pin();
    if pinned && std::env::var_os("SOAK_PINNED").is_none() {
        let exe = std::env::current_exe().expect("this program");
        let status = Command::new("taskset")
            .args(["-c", "1"])
            .arg(exe)
            .args(std::env::args_os().skip(1))
            .env("SOAK_PINNED", "1")
            .status()
            .expect("runs pinned");
        std::process::exit(status.code().unwrap_or(1));
    }
    let served = match &binary {
        Some(binary) => start_child(binary, pinned),
        None => Served {
            address: start(),
            child: None,
        },
    };
    let address = served.address;
    let stop = Arc::new(AtomicBool::new(false));
    let tally = Arc::new(Tally::default());
    // Warm up: validators compiled, pages touched.
    {
        let mut stream = TcpStream::connect(address).expect("connects");
        for _ in 0..100 {
            let _ = exchange(
                &mut stream,
                &mcp_head(KEY),
                br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            );
        }
    }
    let pid = served.pid();
    let start_rss = rss_kib(&pid);
    let mut workers = Vec::new();
    for kind in 0..4 + hostile_clients + slow_clients {
        let (stop, tally) = (stop.clone(), tally.clone());
        workers.push(std::thread::spawn(move || {
            if kind < 4 {
                normal(address, &stop, &tally);
            } else if kind < 4 + hostile_clients {
                hostile(address, &stop, &tally);
            } else {
                slow(address, &stop, &tally);
            }
        }));
    }
    let began = Instant::now();
    let mut peak = start_rss;
    while began.elapsed() < Duration::from_secs(seconds) {
        std::thread::sleep(Duration::from_secs(1));
        peak = peak.max(rss_kib(&pid));
    }
    stop.store(true, Ordering::Relaxed);
    for worker in workers {
        let _ = worker.join();
    }
    std::thread::sleep(Duration::from_secs(2));
    let end_rss = rss_kib(&pid);
    let mut latencies = std::mem::take(&mut *tally.latencies.lock().expect("lock"));
    latencies.sort_unstable();
    let at = |q: f64| {
        latencies
            .get(((latencies.len() as f64 - 1.0) * q) as usize)
            .copied()
            .unwrap_or_default()
    };
    let placement = match (&binary, pinned) {
        (Some(_), true) => "server in its own process on CPU 0, load generator on CPU 1",
        (Some(_), false) => "server in its own process, not pinned",
        (None, _) => "server in this process",
    };
    println!(
        "soak: {seconds} s, {placement}; 4 normal clients (tools/list and tools/call, kept alive), {hostile_clients} hostile, {slow_clients} slow"
    );
    println!(
        "normal requests: {}, errors: {}",
        latencies.len(),
        tally.normal_errors.load(Ordering::Relaxed)
    );
    println!("normal latency: p50 {:?}, p99 {:?}", at(0.50), at(0.99));
    println!(
        "hostile requests: {}, outcome other than the documented one: {}",
        tally.hostile.load(Ordering::Relaxed),
        tally.hostile_unexpected.load(Ordering::Relaxed)
    );
    println!(
        "server's resident memory: start {} MiB, peak {} MiB, end {} MiB",
        start_rss / 1024,
        peak / 1024,
        end_rss / 1024
    );
    drop(served);
}
