//! The search mode's ranking measured on a tool-selection benchmark:
//! recall at 1, 5 and 10 and the mean reciprocal rank over the whole
//! catalog and with the right tool among 30, 100 and 180 random others (the
//! published setting), and how long a query takes.
//!
//! `cargo bench -p toolschema-catalog --bench search` (with `--features
//! tokens`, the search mode's cost in tokens too) reads MetaTool's tools
//! and development queries from the repository's `benches/data/metatool/`;
//! `TOOLSCHEMA_SEARCH_CATALOG` (a JSON object, name -> description) and
//! `TOOLSCHEMA_SEARCH_QUERIES` (CSV with a header, `Query,Tool`) name other
//! files, measured the same way.
//! `TOOLSCHEMA_SEARCH_WEIGHTS=name,title,description,arguments` tries other
//! field weights. With the `semantic` feature and `TOOLSCHEMA_SEARCH_MODEL`
//! naming a model directory, the same measurements ranking by words and
//! meaning (see `semantic::measure`); `TOOLSCHEMA_SEARCH_GAIN=10` fails the
//! run when Recall@5 gains fewer points than that over words alone in any
//! setting, and `TOOLSCHEMA_SEARCH_MEANING_ONLY=1` measures only that.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use toolschema_catalog::search::{Corpus, Index, Query, Weights};
use toolschema_runtime::model::{Annotations, Node, Ref, Text, ToolDef};

/// A file named by `variable`, else the MetaTool copy's `file`.
fn data(variable: &str, file: &str) -> PathBuf {
    std::env::var_os(variable).map_or_else(
        || {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../benches/data/metatool")
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
    rank_in(index, &index.query(query), right)
}

/// Where `right` ranks for a query already made (embedded once for every
/// index it searches).
fn rank_in(index: &Index, query: &Query<'_>, right: &str) -> Option<usize> {
    index
        .top_of(query, usize::MAX)
        .1
        .iter()
        .position(|hit| hit.name == right)
        .map(|p| p + 1)
}

/// Recall and MRR of `corpus` over the whole catalog and each pool size,
/// one row each.
fn rows(corpus: &Arc<Corpus>, queries: &[(Query<'_>, usize)], label: &str) -> Vec<f64> {
    let mut recalls = Vec::new();
    let whole = corpus.index_all();
    let ranks = Ranks(
        queries
            .iter()
            .map(|(query, right)| rank_in(&whole, query, &corpus.names()[*right]))
            .collect(),
    );
    println!(
        "{}",
        ranks.row(&format!("{label}whole catalog ({} tools)", corpus.len()))
    );
    recalls.push(ranks.recall(5));
    for size in [30, 100, 180] {
        let mut draw = Draw(size as u64);
        let ranks = Ranks(
            queries
                .iter()
                .map(|(query, right)| {
                    let index = corpus.index(pool(*right, size, corpus.len(), &mut draw));
                    rank_in(&index, query, &corpus.names()[*right])
                })
                .collect(),
        );
        println!("{}", ranks.row(&format!("{label}pool of {size}")));
        recalls.push(ranks.recall(5));
    }
    recalls
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

#[cfg(any(feature = "tokens", feature = "semantic"))]
mod catalogs {
    //! Catalogs of the benchmark's tools, searched as clients search them.

    use super::*;
    pub(super) use toolschema_catalog::Catalog;
    use toolschema_runtime::call::{CallError, Context, DynamicFuture, DynamicTool, Registry};
    pub(super) use toolschema_runtime::project::ProtocolRevision;

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

    /// `tools` under names MCP takes (`PDF&URLTool` is `PDF-URLTool`).
    pub(super) fn served(tools: &[ToolDef]) -> Vec<ToolDef> {
        tools
            .iter()
            .map(|def| {
                let name: String = def
                    .name
                    .chars()
                    .map(|c| match c.is_ascii_alphanumeric() || "._-".contains(c) {
                        true => c,
                        false => '-',
                    })
                    .collect();
                let mut def = def.clone();
                def.name = Text::from(name);
                def
            })
            .collect()
    }

    /// A catalog whose one client `c` sees `tools` (under the names MCP
    /// takes) in search mode, ranked with the model `search_model` names.
    pub(super) fn searched_catalog(tools: &[ToolDef], search_model: Option<&str>) -> Catalog {
        let mut registry = Registry::new();
        let mut names = Vec::new();
        for def in served(tools) {
            names.push(format!("\"{}\"", def.name));
            registry
                .register_dynamic(Ref::new(def), Arc::new(NeverCalled))
                .expect("registers");
        }
        let model = search_model.map_or_else(String::new, |model| {
            format!(
                "[catalog]\nsearch_model = {}\n\n",
                serde_json::Value::from(model)
            )
        });
        let text = format!(
            "{model}[[tenant]]\nid = \"t\"\n\n[[toolset]]\nid = \"s\"\ntenant = \"t\"\nmode = \"search\"\ntools = [{}]\n\n[[client]]\nid = \"c\"\ntenant = \"t\"\ntoolsets = [\"s\"]\n",
            names.join(", ")
        );
        Catalog::from_toml(registry, &text, "search.toml").expect("checks")
    }
}

/// What a client shown `tools` in search mode pays in tokens (with the
/// `tokens` feature): its list
/// against the same tools in Full mode, and a search -> describe round
/// (the `search_tools` call and its answer, limit 8, brief; then
/// `discover_tool_schema`'s answer for the first found), averaged over
/// every eighth query.
#[cfg(feature = "tokens")]
fn search_mode_tokens(tools: &[ToolDef], queries: &[(String, usize)]) {
    use catalogs::{ProtocolRevision, searched_catalog};
    use toolschema_catalog::cost::{Tokenizer, client_cost};
    let tokenizer = Tokenizer::new().expect("the encoding ships with the crate");
    let catalog = searched_catalog(tools, None);
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

/// The benchmark's tools fifty times over, under other names: a catalog
/// of about 10,000.
fn copies(catalog: &BTreeMap<String, String>) -> Vec<ToolDef> {
    (0..50)
        .flat_map(|copy| {
            catalog
                .iter()
                .map(move |(name, about)| tool(&format!("{name}.{copy}"), about))
        })
        .collect()
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

    if std::env::var_os("TOOLSCHEMA_SEARCH_MEANING_ONLY").is_some() {
        #[cfg(feature = "semantic")]
        semantic::measure(&tools, &queries, &catalog);
        return;
    }
    let started = Instant::now();
    let corpus = Arc::new(Corpus::new(&tools, weights));
    let whole = corpus.index_all();
    println!("index built in {:.1?}", started.elapsed());

    println!("\n| setting | Recall@1 | Recall@5 | Recall@10 | MRR@5 | MRR |");
    println!("| --- | --- | --- | --- | --- | --- |");
    let made: Vec<(Query<'_>, usize)> = queries
        .iter()
        .map(|(query, right)| (whole.query(query), *right))
        .collect();
    rows(&corpus, &made, "");
    let mut latencies: Vec<Duration> = queries
        .iter()
        .map(|(query, _)| {
            let started = Instant::now();
            std::hint::black_box(whole.top(query, 8));
            started.elapsed()
        })
        .collect();
    two_tool_queries(&whole);
    #[cfg(feature = "semantic")]
    semantic::measure(&tools, &queries, &catalog);
    #[cfg(feature = "tokens")]
    search_mode_tokens(&tools, &queries);
    latencies.sort_unstable();
    println!(
        "\nquery over {} tools (limit 8): p50 {:.1?}, p99 {:.1?}",
        tools.len(),
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99)
    );

    // The same tools fifty times over, under other names: how long a
    // query takes in a catalog of about 10,000.
    let many = copies(&catalog);
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

/// The same measurements ranking by words and meaning, with the model in
/// the directory `TOOLSCHEMA_SEARCH_MODEL` names (a sentence-transformers
/// model's `config.json`, `tokenizer.json` and `model.safetensors`):
/// `TOOLSCHEMA_SEARCH_EVERY=N` takes every Nth query only (each query is
/// embedded once, about 11 ms), `TOOLSCHEMA_SEARCH_WORDS_SHARE=0.2,0.3`
/// tries other blends, `TOOLSCHEMA_SEARCH_LARGE=0` leaves out the catalog
/// of 9,950 tools (embedding it takes minutes), `TOOLSCHEMA_SEARCH_GAIN`
/// sets the floor of the gain.
#[cfg(feature = "semantic")]
mod semantic {
    use super::*;
    use catalogs::{ProtocolRevision, searched_catalog, served};
    use toolschema_catalog::search::semantic::embeddings_at;

    fn setting(variable: &str) -> Option<String> {
        std::env::var(variable)
            .ok()
            .filter(|value| !value.is_empty())
    }

    /// `search_tools` as a client calls it, over a catalog naming the
    /// model: the very tools, in the very order, the index gives (every
    /// sixteenth query).
    fn served_as_searched(
        tools: &[ToolDef],
        sampled: &[&(String, usize)],
        directory: &str,
        embeddings: &Arc<toolschema_catalog::search::Embeddings>,
    ) {
        let catalog = searched_catalog(tools, Some(directory));
        let snapshot = catalog.snapshot();
        assert!(
            matches!(
                snapshot.search_ranking(),
                toolschema_catalog::search::SearchRanking::WordsAndMeaning(_)
            ),
            "{:?}",
            snapshot.search_ranking()
        );
        let view = snapshot.client("c").expect("the client");
        let served = served(tools);
        let index = Arc::new(
            Corpus::with_meaning(&served, Weights::default(), embeddings).expect("embedded"),
        )
        .index_all();
        let mut compared = 0;
        for (query, _) in sampled.iter().step_by(16) {
            let arguments = serde_json::json!({ "query": query, "limit": 5 });
            let found = view
                .call_meta("search_tools", &arguments, ProtocolRevision::LATEST)
                .expect("listed")
                .expect("answered");
            let names: Vec<&str> = found.structured["tools"]
                .as_array()
                .expect("tools")
                .iter()
                .filter_map(|tool| tool["name"].as_str())
                .collect();
            let expected: Vec<&str> = index.top(query, 5).1.iter().map(|hit| hit.name).collect();
            assert_eq!(names, expected, "{query}");
            compared += 1;
        }
        println!(
            "search_tools through the catalog, ranked by the model: the index's answer to {compared} queries, tool for tool"
        );
    }

    pub(super) fn measure(
        tools: &[ToolDef],
        queries: &[(String, usize)],
        catalog: &BTreeMap<String, String>,
    ) {
        let Some(directory) = setting("TOOLSCHEMA_SEARCH_MODEL") else {
            println!(
                "\nranking by meaning: not measured (TOOLSCHEMA_SEARCH_MODEL names no model directory)"
            );
            return;
        };
        let every: usize = setting("TOOLSCHEMA_SEARCH_EVERY")
            .map_or(1, |n| n.parse().expect("TOOLSCHEMA_SEARCH_EVERY: a number"));
        let started = Instant::now();
        let embeddings = embeddings_at(std::path::Path::new(&directory)).expect("the model loads");
        println!(
            "\nranking by meaning: model {directory} loaded in {:.1?}",
            started.elapsed()
        );
        let weights = weights();
        let started = Instant::now();
        let corpus =
            Arc::new(Corpus::with_meaning(tools, weights, &embeddings).expect("tools embedded"));
        let took = started.elapsed();
        println!(
            "{} tools embedded in {took:.1?} ({:.1} s per 1,000 tools)",
            tools.len(),
            took.as_secs_f64() * 1000.0 / tools.len() as f64
        );
        let whole = corpus.index_all();
        let sampled: Vec<&(String, usize)> = queries.iter().step_by(every.max(1)).collect();
        let started = Instant::now();
        let made: Vec<(Query<'_>, usize)> = sampled
            .iter()
            .map(|(query, right)| (whole.query(query), *right))
            .collect();
        println!(
            "{} queries (every {every}) embedded in {:.1?}",
            made.len(),
            started.elapsed()
        );
        println!("\n| setting | Recall@1 | Recall@5 | Recall@10 | MRR@5 | MRR |");
        println!("| --- | --- | --- | --- | --- | --- |");
        let by_words = rows(
            &Arc::new(Corpus::new(tools, weights)),
            &made,
            "words alone, ",
        );
        let shares = setting("TOOLSCHEMA_SEARCH_WORDS_SHARE")
            .unwrap_or_else(|| toolschema_catalog::search::WORDS_SHARE.to_string());
        let mut least_gain = f64::INFINITY;
        for share in shares.split(',') {
            let share: f32 = share.trim().parse().expect("a share between 0 and 1");
            let blended = Arc::new(
                Corpus::with_meaning(tools, weights, &embeddings)
                    .expect("tools embedded")
                    .with_words_share(share),
            );
            let recalls = rows(&blended, &made, &format!("words {share} + meaning, "));
            let gain = recalls
                .iter()
                .zip(&by_words)
                .map(|(with, without)| with - without)
                .fold(f64::INFINITY, f64::min);
            least_gain = least_gain.min(gain);
            println!(
                "(least Recall@5 gain over words alone, whole catalog and pools: {gain:+.1} points)"
            );
        }
        served_as_searched(tools, &sampled, &directory, &embeddings);
        if let Some(floor) = setting("TOOLSCHEMA_SEARCH_GAIN") {
            let floor: f64 = floor.parse().expect("TOOLSCHEMA_SEARCH_GAIN: points");
            assert!(
                least_gain >= floor,
                "ranking by meaning gains {least_gain:.1} points of Recall@5 somewhere, under the floor of {floor}"
            );
        }
        let latency = |index: &Index, every: usize| {
            let mut latencies: Vec<Duration> = sampled
                .iter()
                .step_by(every)
                .map(|(query, _)| {
                    let started = Instant::now();
                    std::hint::black_box(index.top(query, 8));
                    started.elapsed()
                })
                .collect();
            latencies.sort_unstable();
            (percentile(&latencies, 0.5), percentile(&latencies, 0.99))
        };
        let (p50, p99) = latency(&whole, 4);
        println!(
            "\nquery by words and meaning over {} tools (limit 8, the query embedded): p50 {p50:.1?}, p99 {p99:.1?}",
            tools.len()
        );
        if setting("TOOLSCHEMA_SEARCH_LARGE").as_deref() == Some("0") {
            return;
        }
        let many = copies(catalog);
        let before = embeddings.embedded();
        let started = Instant::now();
        let large = Arc::new(Corpus::with_meaning(&many, weights, &embeddings).expect("embedded"));
        let took = started.elapsed();
        println!(
            "{} tools embedded in {took:.1?} ({} new texts, {:.1} s per 1,000); their vectors {:.1} MiB",
            many.len(),
            embeddings.embedded() - before,
            took.as_secs_f64() * 1000.0 / many.len() as f64,
            (many.len() * 384 * 4) as f64 / (1024.0 * 1024.0)
        );
        let large = large.index_all();
        let (p50, p99) = latency(&large, 8);
        println!(
            "query by words and meaning over {} tools (limit 8): p50 {p50:.1?}, p99 {p99:.1?}",
            many.len()
        );
    }
}
