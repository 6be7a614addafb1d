//! A soak run: normal MCP traffic and hostile requests mixed, against the
//! demo catalog served on loopback, for a bounded time (`SOAK_SECONDS`,
//! default 120; `SOAK_HOSTILE` hostile clients, default 2). Prints the normal requests' p50/p99 and errors, the hostile
//! requests' outcomes, and the process's resident memory at the start, its
//! peak and the end.
//!
//! cargo bench -p toolschema-bench-http --bench soak

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use toolschema::serve::Server;

const KEY: &str = "demo-acme-finance-key";

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
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

fn start() -> SocketAddr {
    let (ready, address) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
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

fn hostile(address: SocketAddr, stop: &AtomicBool, tally: &Tally) {
    let mut flood = String::from(r#"{"customer":"cust-42""#);
    for i in 0..70_000 {
        flood.push_str(&format!(r#","k{i:07}":0"#));
    }
    flood.push('}');
    let huge = vec![b' '; 2 << 20];
    let rest = "POST /v1/tools/billing.list-invoices/call HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-API-Key: demo-acme-finance-key\r\n";
    let mut turn = 0u64;
    while !stop.load(Ordering::Relaxed) {
        turn += 1;
        let Ok(mut stream) = TcpStream::connect(address) else {
            continue;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(20)));
        let (expected, outcome) = match turn % 6 {
            0 => (422, exchange(&mut stream, rest, flood.as_bytes())),
            1 => (413, exchange(&mut stream, rest, &huge)),
            2 => (401, exchange(&mut stream, &mcp_head("wrong-key"), br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)),
            3 => (200, exchange(&mut stream, &mcp_head(KEY), br#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#)),
            4 => (403, exchange(&mut stream, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:1@evil.example\r\n", b"{}")),
            _ => (200, exchange(&mut stream, &mcp_head(KEY), br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"billing.get-invoice","arguments":{"invoice_id":"nope","x":[[[[[[1]]]]]]}}}"#)),
        };
        tally.hostile.fetch_add(1, Ordering::Relaxed);
        // A 413 may close the connection before the body is read.
        let as_expected = match outcome {
            Ok((status, _)) => status == expected,
            Err(_) => expected == 413,
        };
        if !as_expected {
            tally.hostile_unexpected.fetch_add(1, Ordering::Relaxed);
        }
    }
}

fn main() {
    let seconds: u64 = std::env::var("SOAK_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(120);
    // SOAK_HOSTILE=0 gives the same run without the hostile clients.
    let hostile_clients: usize = std::env::var("SOAK_HOSTILE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    let address = start();
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
    let start_rss = rss_kib();
    let mut workers = Vec::new();
    for kind in 0..4 + hostile_clients {
        let (stop, tally) = (stop.clone(), tally.clone());
        workers.push(std::thread::spawn(move || {
            if kind < 4 {
                normal(address, &stop, &tally);
            } else {
                hostile(address, &stop, &tally);
            }
        }));
    }
    let began = Instant::now();
    let mut peak = start_rss;
    while began.elapsed() < Duration::from_secs(seconds) {
        std::thread::sleep(Duration::from_secs(1));
        peak = peak.max(rss_kib());
    }
    stop.store(true, Ordering::Relaxed);
    for worker in workers {
        let _ = worker.join();
    }
    std::thread::sleep(Duration::from_secs(2));
    let end_rss = rss_kib();
    let mut latencies = std::mem::take(&mut *tally.latencies.lock().expect("lock"));
    latencies.sort_unstable();
    let at = |q: f64| {
        latencies
            .get(((latencies.len() as f64 - 1.0) * q) as usize)
            .copied()
            .unwrap_or_default()
    };
    println!(
        "soak: {seconds} s, 4 normal clients (tools/list and tools/call, kept alive), {hostile_clients} hostile"
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
        "resident memory: start {} MiB, peak {} MiB, end {} MiB",
        start_rss / 1024,
        peak / 1024,
        end_rss / 1024
    );
}
