//! What the HTTP benchmark compares ours with: the official Rust MCP SDK
//! (`rmcp`), through one adapter module built only with the `rmcp` feature.

#![forbid(unsafe_code)]

pub mod loopback;

/// A multi-threaded tokio runtime of `workers` worker threads, timers and
/// I/O enabled: what each bench runs on (the machine has two cores).
pub fn runtime(workers: usize) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .expect("runtime")
}

pub mod replicas;
#[cfg(feature = "rmcp")]
pub mod sdk;

/// Latency comparisons over loopback: two ways of doing the same call,
/// timed in interleaved rounds so that the machine's noise falls on both
/// alike.
pub mod timing {
    use std::future::Future;
    use std::time::{Duration, Instant};

    /// The `p` quantile of `sorted` durations.
    pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
        let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
        sorted[at]
    }

    /// Times `calls` of each of `ours` and `baseline` (each a label and a
    /// call) in `rounds` interleaved rounds (as many as `calls`: one call
    /// of each in turn), after a warm-up of 1,000 each, and prints p50 and
    /// p99 of both and the difference.
    pub async fn compare<A, AF, B, BF>(
        what: &str,
        calls: usize,
        rounds: usize,
        ours: (&str, A),
        baseline: (&str, B),
    ) where
        A: Fn() -> AF,
        AF: Future<Output = ()>,
        B: Fn() -> BF,
        BF: Future<Output = ()>,
    {
        let ((ours_label, ours), (base_label, base)) = (ours, baseline);
        for _ in 0..1_000 {
            ours().await;
            base().await;
        }
        let rounds = rounds.clamp(1, calls.max(1));
        let per_round = calls / rounds;
        let (mut timed, mut plain) = (Vec::with_capacity(calls), Vec::with_capacity(calls));
        for _ in 0..rounds {
            for _ in 0..per_round {
                let start = Instant::now();
                ours().await;
                timed.push(start.elapsed());
            }
            for _ in 0..per_round {
                let start = Instant::now();
                base().await;
                plain.push(start.elapsed());
            }
        }
        timed.sort_unstable();
        plain.sort_unstable();
        let (o50, o99) = (percentile(&timed, 0.50), percentile(&timed, 0.99));
        let (b50, b99) = (percentile(&plain, 0.50), percentile(&plain, 0.99));
        println!("{what}: {} calls each, over loopback", timed.len());
        println!("  {base_label}: p50 {b50:?}, p99 {b99:?}");
        println!("  {ours_label}: p50 {o50:?}, p99 {o99:?}");
        println!(
            "  overhead: p50 {:?} ({:.2}x), p99 {:?}",
            o50.saturating_sub(b50),
            o50.as_secs_f64() / b50.as_secs_f64(),
            o99.saturating_sub(b99)
        );
    }
}

/// Calls over MCP, as the HTTP benchmarks make them.
pub mod mcp {
    use std::future::Future;
    use std::pin::Pin;

    use serde_json::Value;

    /// A call of `billing.get-invoice` for the demo's paid invoice: `body`
    /// (the JSON-RPC request) posted to `url` with `authorization`, each
    /// time the returned function is called; it checks the invoice came
    /// back (one boxed future per call, alike for every variant compared).
    pub fn paid_invoice(
        http: &reqwest::Client,
        url: &str,
        authorization: &str,
        body: &str,
    ) -> impl Fn() -> Pin<Box<dyn Future<Output = ()> + Send>> {
        let (http, url, authorization, body) = (
            http.clone(),
            url.to_owned(),
            authorization.to_owned(),
            body.to_owned(),
        );
        move || {
            let (http, url, authorization, body) = (
                http.clone(),
                url.clone(),
                authorization.clone(),
                body.clone(),
            );
            Box::pin(async move {
                let reply = http
                    .post(&url)
                    .header("content-type", "application/json")
                    .header("accept", "application/json, text/event-stream")
                    .header("mcp-protocol-version", "2025-11-25")
                    .header("authorization", authorization)
                    .body(body)
                    .send()
                    .await
                    .expect("answer")
                    .bytes()
                    .await
                    .expect("body");
                let reply: Value = serde_json::from_slice(&reply).expect("json");
                assert_eq!(
                    reply["result"]["structuredContent"]["status"], "paid",
                    "{reply}"
                );
            })
        }
    }
}
