//! A catalog store at platform scale (a real PostgreSQL, started for the
//! run): 1,000 tenants of 100 tools from configuration each (100,000
//! tools), 10 client applications a tenant (10,000), three replicas in the
//! bench process with the binary's allocator. It prints the time to store
//! the catalog, each replica's cold load and snapshot build, the resident
//! memory the replicas add, and the time a publish (one tenant's toolset
//! switched off or on) takes to reach all three, and the time a new
//! version of one tool takes (drafted, then published), over
//! `SCALE_PUBLISHES` publishes each (default 200), and 100 tools changed in
//! one transaction, `SCALE_BATCHES` times (default 20: each is a whole
//! replacement on the admin's side, seconds at this size). Last, a fourth
//! replica, a process of its own, is served over HTTP and the tools/list
//! of a client of 100 tools is timed in `SCALE_ROUNDS` rounds (default 5)
//! of `SCALE_LISTS` requests (default 40,000) quiet (the replica idle),
//! then at least as many while another tenant's toolset is switched off
//! and on every 100 ms (`SCALE_PUBLISHES` times in all), then once with
//! the publishes back to back; and the same against a replica that does
//! not follow the store (what the admin and the database cost on the same
//! cores). Replica processes run without transparent huge pages, as the
//! binary does, unless `MIMALLOC_ALLOW_THP` is set.
//!
//! `cargo bench -p toolschema-bench-http --bench scale`; `SCALE_TENANTS`,
//! `SCALE_TOOLS` (a tenant) and `SCALE_CLIENTS` (a tenant) change the size,
//! `--features system-allocator` runs it with the system's allocator,
//! `SCALE_CHURN_ONLY=1` times tools/list under churn only,
//! `SCALE_COLD_ONLY=1` the cold loads only (`SCALE_COLD_LOADS` of them,
//! default 3, `SCALE_COLD_PAUSE` seconds apart, default 0).

#![allow(missing_docs)]

use std::fmt::Write as _;
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use toolschema::call::Registry;
use toolschema::catalog::{Catalog, Config, hash_api_key};
use toolschema::serve::Server;
use toolschema::store::{Action, Records, Store};
use toolschema_bench_http::loopback::{list_request, round_trip};
use toolschema_bench_http::replicas::{
    Commits, Replica, all_serving, ms, peak_resident_mib, percentile, process_resident_mib,
    propagation, publish_timed, replica_timed, resident_mib, switch, tool_propagation, write_tool,
};
use toolschema_test_support::postgres::Postgres;

#[cfg(not(feature = "system-allocator"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// A replica served over HTTP as `toolschema serve` serves one (a worker
/// thread a core), the configuration `config` of the store's `revision`,
/// following `store` unless `follow` is false, on a runtime of its own
/// thread: its address.
fn served(store: Store, (revision, config): (i64, Config), follow: bool) -> SocketAddr {
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        let runtime = toolschema_bench_http::runtime(cores);
        runtime.block_on(async move {
            let server = Server::new("scale", "1")
                .registry(Registry::new())
                .catalog_config(config);
            let http = server.bind_http("127.0.0.1:0").await.expect("binds");
            let _follower =
                follow.then(|| store.follow(http.service().catalog().clone(), revision));
            send.send(http.local_addr()).expect("send");
            http.run_until(std::future::pending())
                .await
                .expect("serves");
        });
    });
    receive.recv().expect("the server starts")
}

/// tools/list round trips to `address` on one connection, each timed,
/// after 200 to warm up, `count` of them or, with `until`, as many as
/// happen until it is set (counted in `done` meanwhile); every answer
/// lists `t0.item-0`. With `key` false as the keyless client (`t0-c0`),
/// else with the API key of `t0-c1`.
fn list_times(
    address: SocketAddr,
    count: usize,
    until: Option<(Arc<AtomicBool>, Arc<AtomicUsize>)>,
    key: bool,
) -> Vec<Duration> {
    let mut stream = TcpStream::connect(address).expect("connects");
    stream.set_nodelay(true).expect("nodelay");
    let request = list_request(key.then(|| api_key(0, 1)).as_deref());
    let mut buffer = Vec::new();
    round_trip(&mut stream, request.as_bytes(), &mut buffer);
    assert!(
        String::from_utf8_lossy(&buffer).contains("t0.item-0"),
        "the client's list: {}",
        String::from_utf8_lossy(&buffer)
    );
    for _ in 0..200 {
        round_trip(&mut stream, request.as_bytes(), &mut buffer);
    }
    let mut times = Vec::with_capacity(count);
    while match &until {
        Some((stop, _)) => !stop.load(Ordering::Relaxed),
        None => times.len() < count,
    } {
        let start = Instant::now();
        round_trip(&mut stream, request.as_bytes(), &mut buffer);
        times.push(start.elapsed());
        if let Some((_, done)) = &until {
            done.store(times.len(), Ordering::Relaxed);
        }
    }
    times
}

/// `d` in microseconds.
fn us(d: Duration) -> String {
    format!("{:.0} µs", d.as_secs_f64() * 1e6)
}

/// `requests` tools/list round trips to the replica process `pid` at
/// `address`, once it is idle: how long it took to be, and their times.
async fn quiet_times(pid: u32, address: SocketAddr, requests: usize) -> (Duration, Vec<Duration>) {
    let settling = settled(pid).await;
    let times = tokio::task::spawn_blocking(move || list_times(address, requests, None, false))
        .await
        .expect("lists");
    (settling, times)
}

/// tools/list of a client with an API key (one of every client's keys)
/// and of the keyless client, `requests` each in four turns, the replica
/// process `pid` at `address` idle: what finding the client by its key
/// costs a request.
async fn keyed_over_keyless(pid: u32, address: SocketAddr, requests: usize) {
    let (mut keyed, mut keyless) = (Vec::new(), Vec::new());
    for _ in 0..4 {
        settled(pid).await;
        for (key, times) in [(true, &mut keyed), (false, &mut keyless)] {
            let count = requests / 4;
            times.extend(
                tokio::task::spawn_blocking(move || list_times(address, count, None, key))
                    .await
                    .expect("lists"),
            );
        }
    }
    println!(
        "  with an API key (found among every client's) over keyless, quiet ({} requests each, in turns): p50 {} over {}, p99 {} over {}",
        keyed.len(),
        us(percentile(&keyed, 0.5)),
        us(percentile(&keyless, 0.5)),
        us(percentile(&keyed, 0.99)),
        us(percentile(&keyless, 0.99)),
    );
}

/// Another tenant's toolset (`t1-set`) switched off or on, as the
/// `published`th publish (counted).
async fn switch_once((store, registry): (&Store, &Registry), published: &mut usize) {
    store
        .apply("bench", switch("t1-set", *published), registry)
        .await
        .expect("applies");
    *published += 1;
}

/// One stretch of tools/list round trips to `address` while another
/// tenant's toolset is switched off and on, one publish every `pace` or,
/// without one, back to back, for at least `requests` requests and
/// `publishes` publishes (`published` counts them all): the requests'
/// times, the publishes made and how long it took.
async fn churn_window(
    (store, registry): (&Store, &Registry),
    address: SocketAddr,
    pace: Option<Duration>,
    (requests, publishes): (usize, usize),
    published: &mut usize,
) -> (Vec<Duration>, usize, Duration) {
    let (stop, done) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicUsize::new(0)),
    );
    let until = Some((stop.clone(), done.clone()));
    let churn = tokio::task::spawn_blocking(move || list_times(address, 0, until, false));
    let (start, first) = (Instant::now(), *published);
    while *published - first < publishes || done.load(Ordering::Relaxed) < requests {
        let next = Instant::now() + pace.unwrap_or_default();
        switch_once((store, registry), published).await;
        tokio::time::sleep_until(next.into()).await;
    }
    // The last publish's reloads finish before the requests stop.
    tokio::time::sleep(Duration::from_millis(200)).await;
    stop.store(true, Ordering::Relaxed);
    let took = start.elapsed();
    (churn.await.expect("lists"), *published - first, took)
}

/// tools/list of a replica process served over HTTP, in `rounds` rounds of
/// `requests` quiet (the replica idle) then at least as many while another
/// tenant's toolset is switched off and on every 100 ms (a busy platform's
/// stream: 864,000 publishes a day; `publishes` in all), then once with
/// the publishes back to back. Quiet and churn alternate so that the
/// machine's drift (an idle replica's p99 moves by a fifth from one
/// stretch of requests to the next here) falls on both alike.
/// With `follow` false the replica does not follow the store: what the
/// publishes cost its clients then is the machine's share (the admin and
/// the database on the same cores), not the replica's.
async fn list_under_churn(
    (url, store): (&str, &Store),
    registry: &Registry,
    (requests, publishes, rounds): (usize, usize, usize),
    (follow, mut published): (bool, usize),
) -> usize {
    if !follow {
        println!("the same against a replica process that does not follow the store:");
    }
    // A replica is a process of its own, as deployed: this bench run again.
    let mut replica = replica_process()
        .env(SERVE, url)
        .env(FOLLOWS, if follow { "1" } else { "0" })
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("starts");
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(replica.stdout.take().expect("its output")),
        &mut line,
    )
    .expect("its address");
    let address: SocketAddr = line.trim().parse().expect("an address");
    let pid = replica.id();
    println!(
        "tools/list of a 100-tool client of a replica process over HTTP, {rounds} rounds of {requests} requests quiet then as many (at least) during publishes one every 100 ms:"
    );
    keyed_over_keyless(pid, address, requests).await;
    let (mut quiet, mut paced, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    let pace = Some(Duration::from_millis(100));
    for round in 1..=rounds {
        // Quiet means the replica idle: its start-up work (its clients'
        // lists prepared in the background, seconds at this size) or the
        // last publish's done. A request that finds the CPUs busy is
        // answered sooner than one that must wake an idle one (below), so
        // timing it during that work flatters quiet.
        let (settling, round_quiet) = quiet_times(pid, address, requests).await;
        let counts = (requests, publishes.div_ceil(rounds));
        let (round_paced, made, took) =
            churn_window((store, registry), address, pace, counts, &mut published).await;
        let (q99, c99) = (
            percentile(&round_quiet, 0.99),
            percentile(&round_paced, 0.99),
        );
        ratios.push(c99.as_secs_f64() / q99.as_secs_f64());
        println!(
            "  round {round}: quiet (idle {:.1} s after the last work, resident {:.0} MiB) p50 {}, p99 {}; {made} publishes ({:.1} s, {} requests) p50 {}, p99 {}: {:.2}x",
            settling.as_secs_f64(),
            process_resident_mib(pid),
            us(percentile(&round_quiet, 0.5)),
            us(q99),
            took.as_secs_f64(),
            round_paced.len(),
            us(percentile(&round_paced, 0.5)),
            us(c99),
            ratios[round - 1],
        );
        quiet.extend(round_quiet);
        paced.extend(round_paced);
    }
    let counts = (requests, publishes.div_ceil(rounds));
    let (back_to_back, made, took) =
        churn_window((store, registry), address, None, counts, &mut published).await;
    let q99 = percentile(&quiet, 0.99);
    ratios.sort_by(f64::total_cmp);
    println!(
        "  all rounds: quiet ({} requests) p50 {}, p99 {}; during publishes ({} requests) p50 {}, p99 {}: {:.2}x quiet at p99 (rounds {:.2}x to {:.2}x, median {:.2}x)",
        quiet.len(),
        us(percentile(&quiet, 0.5)),
        us(q99),
        paced.len(),
        us(percentile(&paced, 0.5)),
        us(percentile(&paced, 0.99)),
        percentile(&paced, 0.99).as_secs_f64() / q99.as_secs_f64(),
        ratios[0],
        ratios[ratios.len() - 1],
        ratios[ratios.len() / 2],
    );
    println!(
        "  {made} publishes back to back ({:.1} s, {} requests): p50 {}, p99 {} ({:.2}x quiet at p99); the replica's resident memory after: {:.0} MiB",
        took.as_secs_f64(),
        back_to_back.len(),
        us(percentile(&back_to_back, 0.5)),
        us(percentile(&back_to_back, 0.99)),
        percentile(&back_to_back, 0.99).as_secs_f64() / q99.as_secs_f64(),
        process_resident_mib(pid),
    );
    // The replica's own CPU per publish: `publishes` with no request
    // coming, every 50 ms, its threads' time on a CPU before and after.
    settled(pid).await;
    let count = publishes;
    let before = on_cpu_ns(pid);
    let mut next = Instant::now();
    for _ in 0..count {
        next += Duration::from_millis(50);
        switch_once((store, registry), &mut published).await;
        tokio::time::sleep_until(next.into()).await;
    }
    settled(pid).await;
    println!(
        "  the replica process's CPU per publish, {count} publishes with no request coming: {:.2} ms",
        (on_cpu_ns(pid) - before) as f64 / 1e6 / count as f64
    );
    // Its input closed, the replica process ends.
    drop(replica.stdin.take());
    replica.wait().expect("ends");
    published
}

/// This bench run again as a replica process, as the binary runs: without
/// transparent huge pages (`toolschema serve` turns them off for itself;
/// here the allocator is told not to ask for them) unless
/// `MIMALLOC_ALLOW_THP` says otherwise.
fn replica_process() -> std::process::Command {
    let mut command = std::process::Command::new(std::env::current_exe().expect("this bench"));
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        command.env("MIMALLOC_ALLOW_THP", "0");
    }
    command
}

/// `count` publishes of `tools` changes in one transaction (the
/// descriptions of the first `tools` tools of tenant `tenant` rewritten,
/// the catalog replaced whole by the admin), each timed from its commit to
/// all of `replicas` serving it.
async fn batch_propagation(
    store: &Store,
    commits: &Commits,
    replicas: &[Replica],
    registry: &Registry,
    (tenant, tools): (usize, usize),
    count: usize,
) -> Vec<Duration> {
    let mut times = Vec::with_capacity(count);
    for n in 0..count {
        let mut records = store.load(registry).await.expect("loads").records;
        for i in 0..tools {
            let version = records
                .versions
                .get_mut(&(format!("t{tenant}.item-{i}"), 1))
                .and_then(|version| version.definition.as_mut())
                .expect("a configured tool");
            version.insert(
                "description".into(),
                format!("Returns item {i} of tenant {tenant}, as batch {n} describes it.").into(),
            );
        }
        let replace = Action::Replace {
            records: Box::new(records),
        };
        times.push(publish_timed(store, commits, replicas, replace, registry).await);
    }
    times
}

/// `tenants` tenants, each with `tools` tools from configuration in one
/// toolset and `clients` client applications shown it; one downstream.
fn generated(tenants: usize, tools: usize, clients: usize) -> String {
    // The first tenant's first client is served without a key: the one
    // whose tools/list is timed over HTTP.
    let mut text = String::from(
        "[catalog]\nkeyless_client = \"t0-c0\"\n\n[[downstream]]\nid = \"api\"\nbase_url = \"https://api.example.com/v1\"\n",
    );
    for t in 0..tenants {
        let names: Vec<String> = (0..tools).map(|i| format!("\"t{t}.item-{i}\"")).collect();
        let _ = write!(
            text,
            "\n[[tenant]]\nid = \"t{t}\"\n\n[[toolset]]\nid = \"t{t}-set\"\ntenant = \"t{t}\"\nmode = \"{}\"\ntools = [{}]\n",
            ["full", "data-structure-only", "lazy"][t % 3],
            names.join(", ")
        );
        for c in 0..clients {
            let _ = write!(
                text,
                "\n[[client]]\nid = \"t{t}-c{c}\"\ntenant = \"t{t}\"\ntoolsets = [\"t{t}-set\"]\napi_keys = [\"{}\"]\n",
                hash_api_key(&api_key(t, c))
            );
        }
        for i in 0..tools {
            write_tool(
                &mut text,
                &format!("t{t}.item-{i}"),
                &format!(
                    "Returns item {i} of tenant {t}, with its owner and the date it was last changed."
                ),
                &format!("/t{t}"),
                false,
            );
        }
    }
    text
}

/// The API key of client `c` of tenant `t` (each client has one).
fn api_key(t: usize, c: usize) -> String {
    format!("key-of-t{t}-c{c}")
}

/// The environment variable that makes this bench a replica process's
/// cold load of the store at its URL, and nothing else.
const COLD_LOAD: &str = "SCALE_COLD_LOAD_URL";

/// This process's CPU time in user and system mode (all its threads, those
/// ended too), in seconds, and its minor page faults so far (Linux).
fn process_usage() -> [f64; 3] {
    let stat = stat_numbers("/proc/self/stat");
    [stat[11] / 100.0, stat[12] / 100.0, stat[7]]
}

/// How long the threads of process `pid` have run, in nanoseconds (the
/// first field of each thread's `schedstat`).
fn on_cpu_ns(pid: u32) -> u64 {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).expect("its threads");
    tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("schedstat")).ok())
        .filter_map(|stat| stat.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

/// The CPU time (user and system), in seconds, a `/proc/…/stat` file
/// states: a thread's or a process's.
fn cpu_seconds(stat: &str) -> f64 {
    let stat = stat_numbers(stat);
    (stat[11] + stat[12]) / 100.0
}

/// The fields of a `/proc/…/stat` file after the command's closing
/// parenthesis (the state first, then minor faults as the 8th, utime and
/// stime as the 12th and 13th, in clock ticks of 100 a second), as numbers
/// (0 where not one, and for a file that cannot be read).
fn stat_numbers(stat: &str) -> Vec<f64> {
    let stat = std::fs::read_to_string(stat).unwrap_or_default();
    let mut fields: Vec<f64> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0.0))
        .collect();
    fields.resize(fields.len().max(13), 0.0);
    fields
}

/// Waits until the process `pid` has used no CPU for 300 ms (its start-up
/// work done: after a load, a replica prepares its clients' lists in the
/// background), at most two minutes: how long that took.
async fn settled(pid: u32) -> Duration {
    let (start, stat) = (Instant::now(), format!("/proc/{pid}/stat"));
    let mut used = cpu_seconds(&stat);
    while start.elapsed() < Duration::from_secs(120) {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let now = cpu_seconds(&stat);
        if now == used {
            break;
        }
        used = now;
    }
    start.elapsed()
}

/// The environment variable that makes this bench a replica process
/// serving the store at its URL over HTTP.
const SERVE: &str = "SCALE_SERVE_URL";

/// With `0`, the replica process does not follow the store.
const FOLLOWS: &str = "SCALE_SERVE_FOLLOWS";

/// A replica process: loads the store at `url`, serves it over HTTP as
/// `toolschema serve` does (following it unless `SCALE_SERVE_FOLLOWS` is
/// `0`), prints its address, and serves until its standard input closes.
fn serve_replica(url: &str) {
    let store = Store::new(url).expect("url");
    let loaded = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(store.load_config(&Registry::new()))
        .expect("loads");
    let follow = std::env::var(FOLLOWS).map_or(true, |follows| follows != "0");
    let address = served(store, loaded, follow);
    println!("{address}");
    let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut Vec::new());
}

/// A replica's cold load in this (fresh) process, as `toolschema serve`
/// starts: reads every record of the store at `url`, checks them (moved
/// into the check, not kept: the follower reads them again once serving)
/// and builds the catalog, and prints each step's time and the resident
/// memory.
fn cold_load(url: &str) {
    let runtime = toolschema_bench_http::runtime(2);
    runtime.block_on(async {
        let store = Store::new(url).expect("url");
        let at_start = resident_mib();
        let start = Instant::now();
        let (revision, records) = store.read().await.expect("reads");
        let (read, with_records) = (start.elapsed(), resident_mib());
        let before = process_usage();
        let config = records.into_config(&Registry::new()).expect("checks");
        let (check, with_config) = (start.elapsed() - read, resident_mib());
        let after = process_usage();
        let [user, system, faults] = [0, 1, 2].map(|i| after[i] - before[i]);
        let catalog = Arc::new(Catalog::from_config(Registry::new(), &config));
        drop(config);
        let build = start.elapsed() - read - check;
        let _follower = store.follow(catalog.clone(), revision);
        println!(
            "  a replica process: cold load, check and build {} (read {}, check {}: {:.0} ms user and {:.0} ms system CPU on all threads, {:.0} page faults, build {}); resident {:.0} MiB (at most {:.0}): {:.0} at start, {:.0} the records read, {:.0} their checked configuration, {:.0} the catalog built",
            ms(start.elapsed()),
            ms(read),
            ms(check),
            user * 1e3,
            system * 1e3,
            faults,
            ms(build),
            resident_mib(),
            peak_resident_mib(),
            at_start,
            with_records - at_start,
            with_config - with_records,
            resident_mib() - with_config,
        );
    });
}

fn main() {
    if let Ok(url) = std::env::var(COLD_LOAD) {
        return cold_load(&url);
    }
    if let Ok(url) = std::env::var(SERVE) {
        return serve_replica(&url);
    }
    let (tenants, tools, clients) = (
        env("SCALE_TENANTS", 1_000),
        env("SCALE_TOOLS", 100),
        env("SCALE_CLIENTS", 10),
    );
    let (publishes, batches) = (env("SCALE_PUBLISHES", 200), env("SCALE_BATCHES", 20));
    let postgres = Postgres::start();
    let runtime = toolschema_bench_http::runtime(2);
    runtime.block_on(async {
        let url = postgres.database();
        let store = Store::new(&url).expect("url");
        store.migrate().await.expect("migrates");
        let commits = Commits::listen(&url).await;
        let registry = Registry::new();
        let text = generated(tenants, tools, clients);
        println!(
            "{} tenants x {} tools = {} tools, {} clients; the configuration as a file: {:.1} MiB",
            tenants,
            tools,
            tenants * tools,
            tenants * clients,
            text.len() as f64 / (1 << 20) as f64
        );
        let start = Instant::now();
        let records = Records::from_toml(&text, "scale.toml", &registry).expect("checks");
        println!("  read and check the file: {}", ms(start.elapsed()));
        drop(text);
        let start = Instant::now();
        store
            .apply("bench", Action::Replace { records: Box::new(records) }, &registry)
            .await
            .expect("stores");
        println!("  store it (checked, one transaction): {}", ms(start.elapsed()));
        // The database settled after the bulk write (as a store in use
        // is), so that its background work does not land in a replica's
        // cold load.
        let (db, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .expect("connects");
        tokio::spawn(connection);
        for statement in ["VACUUM ANALYZE", "CHECKPOINT"] {
            db.batch_execute(statement).await.expect("settles");
        }
        // SCALE_CHURN_ONLY: straight to tools/list under churn.
        if std::env::var_os("SCALE_CHURN_ONLY").is_none() {
        // Each replica is a process of its own in a deployment: three cold
        // loads (SCALE_COLD_LOADS), each in a fresh process (this bench,
        // run again); SCALE_COLD_ONLY: those and nothing else.
        // SCALE_COLD_PAUSE: seconds between them (the memory one process
        // frees is the next one's at once; a while later, a VM's guest
        // may have handed it back to the host).
        let pause = Duration::from_secs(env("SCALE_COLD_PAUSE", 0) as u64);
        for n in 0..env("SCALE_COLD_LOADS", 3) {
            if n > 0 {
                tokio::time::sleep(pause).await;
            }
            let status = replica_process()
                .env(COLD_LOAD, &url)
                .status()
                .expect("runs");
            assert!(status.success(), "a cold load");
        }
        if std::env::var_os("SCALE_COLD_ONLY").is_some() {
            return;
        }
        let before = resident_mib();
        let mut replicas = Vec::new();
        for n in 0..3 {
            let start = Instant::now();
            let (replica, [read, check, build]) = replica_timed(&store, Registry::new).await;
            replicas.push(replica);
            println!(
                "  replica {n}: cold load, check and build {} (read {}, check {}, build {}); resident {:.0} MiB",
                ms(start.elapsed()),
                ms(read),
                ms(check),
                ms(build),
                resident_mib()
            );
        }
        println!(
            "  the three replicas added {:.0} MiB ({:.0} MiB a replica)",
            resident_mib() - before,
            (resident_mib() - before) / 3.0
        );
        let times = propagation(&store, &commits, &replicas, &registry, "t0-set", publishes).await;
        println!(
            "propagation: {publishes} publishes, commit to all 3 replicas serving: p50 {}, p99 {}, max {}",
            ms(percentile(&times, 0.5)),
            ms(percentile(&times, 0.99)),
            ms(percentile(&times, 1.0))
        );
        println!("  resident after: {:.0} MiB", resident_mib());
        if publishes % 2 == 1 {
            // The toolset back on (untimed): its first client's list is
            // timed over HTTP below.
            let toolset = "t0-set".to_owned();
            store
                .apply("bench", Action::Activate { toolset }, &registry)
                .await
                .expect("applies");
            all_serving(&replicas);
        }
        // A tenant whose toolset the publishes above leave alone.
        let tenant = 2.min(tenants - 1);
        let (tool, path) = (format!("t{tenant}.item-0"), format!("/t{tenant}"));
        let times = tool_propagation(&store, &commits, &replicas, &registry, (&tool, &path), publishes).await;
        println!(
            "one tool's new version: {publishes} publishes, commit to all 3 replicas serving: p50 {}, p99 {}, max {}",
            ms(percentile(&times, 0.5)),
            ms(percentile(&times, 0.99)),
            ms(percentile(&times, 1.0))
        );
        println!("  resident after: {:.0} MiB", resident_mib());
        let batch = (5.min(tenants - 1), 100.min(tools));
        let loads_before: Vec<[u64; 3]> = replicas.iter().map(Replica::loads).collect();
        let times = batch_propagation(&store, &commits, &replicas, &registry, batch, batches).await;
        println!(
            "{} tools changed in one transaction: {batches} publishes, commit to all 3 replicas serving: p50 {}, p99 {}, max {}",
            batch.1,
            ms(percentile(&times, 0.5)),
            ms(percentile(&times, 0.99)),
            ms(percentile(&times, 1.0))
        );
        let shown: Vec<String> = times.iter().map(|t| ms(*t)).collect();
        println!("  each, in order: {}", shown.join(", "));
        // A follower counts a change applied after the swap the bench waits
        // for: its count settles a moment later.
        tokio::time::sleep(Duration::from_millis(200)).await;
        for (i, (replica, before)) in replicas.iter().zip(loads_before).enumerate() {
            let [full, logged, applied] = replica.loads();
            println!(
                "  replica {i}: {} full reads, {} from the change log, {} applied as changes",
                full - before[0],
                logged - before[1],
                applied - before[2]
            );
        }
        println!("  resident after: {:.0} MiB", resident_mib());
        // A replica is a machine's or a container's: the three above stop
        // before the fourth's clients are timed.
        drop(replicas);
        }
        let counts = (env("SCALE_LISTS", 40_000), publishes, env("SCALE_ROUNDS", 5).max(1));
        let published = list_under_churn((&url, &store), &registry, counts, (true, 0)).await;
        list_under_churn((&url, &store), &registry, counts, (false, published)).await;
    });
}
