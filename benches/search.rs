//! The search mode's ranking measured on a tool-selection benchmark:
//! recall at 1, 5 and 10 and the mean reciprocal rank over the whole
//! catalog and with the right tool among 30, 100 and 180 random others (the
//! published setting), and how long a query takes.
//!
//! `cargo bench --bench search` reads MetaTool's tools and development
//! queries from `benches/data/metatool/`; `TOOLSCHEMA_SEARCH_CATALOG` (a
//! JSON object, name -> description) and `TOOLSCHEMA_SEARCH_QUERIES` (CSV
//! with a header, `Query,Tool`) name other files, measured the same way.
//! `TOOLSCHEMA_SEARCH_WEIGHTS=name,title,description,arguments` tries other
//! field weights.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use toolschema::call::{CallError, Context, DynamicFuture, DynamicTool, Registry};
use toolschema::catalog::Catalog;
use toolschema::catalog::search::{Corpus, Index, Weights};
use toolschema::model::{Annotations, Node, Ref, Text, ToolDef};
use toolschema::project::ProtocolRevision;
use toolschema_catalog::cost::{Tokenizer, client_cost};

/// A file named by `variable`, else the MetaTool copy's `file`.
fn data(variable: &str, file: &str) -> PathBuf {
    std::env::var_os(variable).map_or_else(
        || {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("benches/data/metatool")
                .join(file)
        },
        PathBuf::from,
    )
}

/// A tool with only a name and a description, as the benchmark gives them.
fn tool(name: &str, description: &str) -> ToolDef {
    ToolDef {
        name: Text::from(name.to_owned()),
        title: None,
        description: Text::from(description.to_owned()),
        version: 1,
        input: Ref::new(Node::Any),
        output: None,
        annotations: Annotations::NONE,
        icons: Ref::Static(&[]),
        internal: false,
    }
}

fn weights() -> Weights {
    let Ok(given) = std::env::var("TOOLSCHEMA_SEARCH_WEIGHTS") else {
        return Weights::default();
    };
    let numbers: Vec<usize> = given
        .split(',')
        .map(|n| {
            n.trim()
                .parse()
                .expect("TOOLSCHEMA_SEARCH_WEIGHTS: four numbers")
        })
        .collect();
    let [name, title, description, arguments] = numbers[..] else {
        panic!("TOOLSCHEMA_SEARCH_WEIGHTS: name,title,description,arguments");
    };
    Weights {
        name,
        title,
        description,
        arguments,
    }
}

/// Where the right tool ranks for each query (1 is first), `None` when
/// it is not returned.
struct Ranks(Vec<Option<usize>>);

impl Ranks {
    fn recall(&self, k: usize) -> f64 {
        let found = self.0.iter().filter(|r| r.is_some_and(|r| r <= k)).count();
        100.0 * found as f64 / self.0.len() as f64
    }

    /// The mean reciprocal rank, counting only ranks up to `cut`.
    fn mrr(&self, cut: usize) -> f64 {
        let sum: f64 = self
            .0
            .iter()
            .filter_map(|r| r.filter(|r| *r <= cut).map(|r| 1.0 / r as f64))
            .sum();
        sum / self.0.len() as f64
    }

    fn row(&self, setting: &str) -> String {
        format!(
            "| {setting} | {:.1}% | {:.1}% | {:.1}% | {:.3} | {:.3} |",
            self.recall(1),
            self.recall(5),
            self.recall(10),
            self.mrr(5),
            self.mrr(usize::MAX)
        )
    }
}

fn rank_of(index: &Index, query: &str, right: &str) -> Option<usize> {
    index
        .search(query, usize::MAX)
        .iter()
        .position(|hit| hit.name == right)
        .map(|p| p + 1)
}

/// A small deterministic generator (splitmix64), so that every run draws
/// the same pools.
struct Draw(u64);

impl Draw {
    fn next(&mut self, below: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % below as u64) as usize
    }
}

/// The right tool and `size - 1` others drawn from the corpus.
fn pool(right: usize, size: usize, tools: usize, draw: &mut Draw) -> Vec<usize> {
    let mut members = vec![right];
    while members.len() < size.min(tools) {
        let other = draw.next(tools);
        if !members.contains(&other) {
            members.push(other);
        }
    }
    members
}

/// MetaTool's queries that need two tools (`multi_tool_queries.json`, or
/// the file `TOOLSCHEMA_SEARCH_MULTI` names: `[{"query", "tool": [a, b]}]`)
/// over the whole catalog: how often both are among the first 5 and 10,
/// and how often at least one is among the first 5.
fn two_tool_queries(whole: &Index) {
    let file = data("TOOLSCHEMA_SEARCH_MULTI", "multi_tool_queries.json");
    let Ok(text) = std::fs::read_to_string(&file) else {
        return;
    };
    let queries: Vec<serde_json::Value> = serde_json::from_str(&text).expect("a JSON list");
    let (mut both5, mut both10, mut one5, mut counted) = (0, 0, 0, 0);
    for entry in &queries {
        let (Some(query), Some(tools)) = (entry["query"].as_str(), entry["tool"].as_array()) else {
            continue;
        };
        let ranks: Vec<Option<usize>> = tools
            .iter()
            .filter_map(|tool| tool.as_str())
            .map(|tool| rank_of(whole, query, tool))
            .collect();
        let within = |k: usize| ranks.iter().filter(|r| r.is_some_and(|r| r <= k)).count();
        counted += 1;
        both5 += usize::from(within(5) == ranks.len());
        both10 += usize::from(within(10) == ranks.len());
        one5 += usize::from(within(5) > 0);
    }
    let share = |n: usize| 100.0 * n as f64 / counted.max(1) as f64;
    println!(
        "\ntwo-tool queries ({counted}, whole catalog): both within 5 {:.1}%, both within 10 {:.1}%, at least one within 5 {:.1}%",
        share(both5),
        share(both10),
        share(one5)
    );
}

/// Work for tools that are only searched here, never called.
struct NeverCalled;

impl DynamicTool for NeverCalled {
    fn call(&self, _: serde_json::Value, _: Context) -> DynamicFuture {
        Box::pin(async {
            Err(CallError::UnknownTool {
                name: "a benchmark tool".into(),
            })
        })
    }
}

/// What a client shown `tools` in search mode pays in tokens: its list
/// against the same tools in Full mode, and a search -> describe round
/// (the `search_tools` call and its answer, limit 8, brief; then
/// `discover_tool_schema`'s answer for the first found), averaged over
/// every eighth query.
fn search_mode_tokens(tools: &[ToolDef], queries: &[(String, usize)]) {
    let tokenizer = Tokenizer::new().expect("the encoding ships with the crate");
    let mut registry = Registry::new();
    let mut names = Vec::new();
    for def in tools {
        // A name MCP would refuse (`PDF&URLTool`) under one it takes.
        let name: String = def
            .name
            .chars()
            .map(|c| match c.is_ascii_alphanumeric() || "._-".contains(c) {
                true => c,
                false => '-',
            })
            .collect();
        let mut def = def.clone();
        def.name = Text::from(name.clone());
        registry
            .register_dynamic(Ref::new(def), Arc::new(NeverCalled))
            .expect("registers");
        names.push(format!("\"{name}\""));
    }
    let text = format!(
        "[[tenant]]\nid = \"t\"\n\n[[toolset]]\nid = \"s\"\ntenant = \"t\"\nmode = \"search\"\ntools = [{}]\n\n[[client]]\nid = \"c\"\ntenant = \"t\"\ntoolsets = [\"s\"]\n",
        names.join(", ")
    );
    let catalog = Catalog::from_toml(registry, &text, "search.toml").expect("checks");
    let snapshot = catalog.snapshot();
    let view = snapshot.client("c").expect("the client");
    let cost = client_cost(&snapshot, "c", ProtocolRevision::LATEST, &tokenizer).expect("a cost");
    let (mut rounds, mut searched, mut described) = (0, 0, 0);
    for (query, _) in queries.iter().step_by(8) {
        let arguments = serde_json::json!({ "query": query });
        let found = view
            .call_meta("search_tools", &arguments, ProtocolRevision::LATEST)
            .expect("listed")
            .expect("answered");
        searched += tokenizer.count(&arguments.to_string()) + tokenizer.count(&found.text);
        if let Some(first) = found.structured["tools"][0]["name"].as_str() {
            let asked = serde_json::json!({ "name": first });
            let answer = view
                .call_meta("discover_tool_schema", &asked, ProtocolRevision::LATEST)
                .expect("listed")
                .expect("answered");
            described += tokenizer.count(&answer.text);
        }
        rounds += 1;
    }
    println!(
        "\nsearch mode over {} tools: the list {} tokens, the same tools in Full mode {} ({:.2}%); a round ({rounds} queries): search_tools call and answer {:.0} tokens, discover_tool_schema answer {:.0}",
        tools.len(),
        cost.list.tokens,
        cost.full.tokens,
        100.0 * cost.list.tokens as f64 / cost.full.tokens as f64,
        searched as f64 / rounds as f64,
        described as f64 / rounds as f64
    );
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at.min(sorted.len() - 1)]
}

fn main() {
    let catalog_file = data("TOOLSCHEMA_SEARCH_CATALOG", "plugin_des.json");
    let queries_file = data("TOOLSCHEMA_SEARCH_QUERIES", "queries.csv");
    let text = std::fs::read_to_string(&catalog_file).expect("the catalog file");
    let catalog: BTreeMap<String, String> =
        serde_json::from_str(&text).expect("name -> description");
    let tools: Vec<ToolDef> = catalog
        .iter()
        .map(|(name, about)| tool(name, about))
        .collect();
    let position: BTreeMap<&str, usize> = catalog
        .keys()
        .enumerate()
        .map(|(i, name)| (name.as_str(), i))
        .collect();
    let mut reader = csv::Reader::from_path(&queries_file).expect("the query file");
    let queries: Vec<(String, usize)> = reader
        .records()
        .map(|record| record.expect("a CSV record"))
        .filter_map(|record| {
            let right = *position.get(record.get(1)?.trim())?;
            Some((record.get(0)?.to_owned(), right))
        })
        .collect();
    let weights = weights();
    println!(
        "{} tools ({}), {} queries ({}); weights {weights:?}",
        tools.len(),
        catalog_file.display(),
        queries.len(),
        queries_file.display()
    );

    let started = Instant::now();
    let corpus = Arc::new(Corpus::new(&tools, weights));
    let whole = corpus.index_all();
    println!("index built in {:.1?}", started.elapsed());

    println!("\n| setting | Recall@1 | Recall@5 | Recall@10 | MRR@5 | MRR |");
    println!("| --- | --- | --- | --- | --- | --- |");
    let mut latencies = Vec::with_capacity(queries.len());
    let ranks = Ranks(
        queries
            .iter()
            .map(|(query, right)| {
                let started = Instant::now();
                let rank = rank_of(&whole, query, &corpus.names()[*right]);
                latencies.push(started.elapsed());
                rank
            })
            .collect(),
    );
    println!(
        "{}",
        ranks.row(&format!("whole catalog ({} tools)", tools.len()))
    );
    for size in [30, 100, 180] {
        let mut draw = Draw(size as u64);
        let ranks = Ranks(
            queries
                .iter()
                .map(|(query, right)| {
                    let index = corpus.index(pool(*right, size, tools.len(), &mut draw));
                    rank_of(&index, query, &corpus.names()[*right])
                })
                .collect(),
        );
        println!("{}", ranks.row(&format!("pool of {size}")));
    }
    two_tool_queries(&whole);
    search_mode_tokens(&tools, &queries);
    latencies.sort_unstable();
    println!(
        "\nquery over {} tools: p50 {:.1?}, p99 {:.1?}",
        tools.len(),
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99)
    );

    // The same tools fifty times over, under other names: how long a
    // query takes in a catalog of about 10,000.
    let many: Vec<ToolDef> = (0..50)
        .flat_map(|copy| {
            catalog
                .iter()
                .map(move |(name, about)| tool(&format!("{name}.{copy}"), about))
        })
        .collect();
    let started = Instant::now();
    let large = Arc::new(Corpus::new(&many, weights)).index_all();
    println!(
        "\nindex of {} tools built in {:.1?}",
        many.len(),
        started.elapsed()
    );
    let mut latencies: Vec<Duration> = queries
        .iter()
        .step_by(8)
        .map(|(query, _)| {
            let started = Instant::now();
            std::hint::black_box(large.search(query, 8));
            started.elapsed()
        })
        .collect();
    latencies.sort_unstable();
    println!(
        "query over {} tools (limit 8): p50 {:.1?}, p99 {:.1?}",
        many.len(),
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99)
    );
}
