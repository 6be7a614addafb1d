//! Finding tools by a query instead of listing them all: a BM25 index
//! (the `bm25` crate, with its English tokenizer: stemming, stop words,
//! unicode normalization) over what a tool says of itself.
//!
//! Each tool is one document made of its fields, each repeated by its
//! weight ([`Weights`]): the words of its name (split at `.`, `-`, `_` and
//! case changes, so `billing.getInvoice` is `billing get invoice`), its
//! title, its description, and its arguments' names and descriptions.
//! Results are ordered by score, then by name, so the same query over the
//! same tools always gives the same list.
//!
//! ```
//! use toolschema_catalog::search::Index;
//! use toolschema_runtime::model::{Annotations, Node, Ref, Text, ToolDef};
//!
//! let tool = |name: &str, description: &'static str| ToolDef {
//!     name: Text::from(name.to_owned()),
//!     title: None,
//!     description: Ref::Static(description),
//!     version: 1,
//!     input: Ref::new(Node::Any),
//!     output: None,
//!     annotations: Annotations::NONE,
//!     icons: Ref::Static(&[]),
//!     internal: false,
//! };
//! let tools = [
//!     tool("weather.forecast", "The weather in a city for the next days."),
//!     tool("billing.refund", "Refunds part or all of a paid invoice."),
//! ];
//! let index = Index::build(&tools);
//! let hits = index.search("will it rain tomorrow in the city?", 5);
//! assert_eq!(hits[0].name, "weather.forecast");
//! assert!(index.search("refunded invoices", 5).iter().any(|hit| hit.name == "billing.refund"));
//! ```

use std::collections::HashMap;
use std::sync::Arc;

use bm25::{Embedder, EmbedderBuilder, Embedding, Language};

mod meaning;
#[cfg(feature = "semantic")]
#[cfg_attr(docsrs, doc(cfg(feature = "semantic")))]
pub mod semantic;

use meaning::cosine;
pub use meaning::{Embed, EmbedError, Embeddings, install_model};
use serde_json::Value;
use toolschema_runtime::model::ToolDef;
use toolschema_runtime::project::{Mode, Profile, project_tool_as};

/// How many times each field of a tool counts in its document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Weights {
    /// The words of the tool's name.
    pub name: usize,
    /// Its title.
    pub title: usize,
    /// Its description.
    pub description: usize,
    /// Its arguments' names and descriptions.
    pub arguments: usize,
}

impl Default for Weights {
    /// The weights the search mode uses, tuned on the MetaTool benchmark's
    /// development queries (benches/README.md, "Search").
    fn default() -> Weights {
        Weights {
            name: 3,
            title: 2,
            description: 1,
            arguments: 1,
        }
    }
}

/// One tool found: its name and how well it matches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit<'a> {
    /// The tool's name.
    pub name: &'a str,
    /// The BM25 score, or with meaning the blended score between 0 and 1
    /// (higher is better; comparable within one search).
    pub score: f32,
}

/// The share of the words' score in a ranking by words and meaning (the
/// rest is the meaning's): chosen on the MetaTool benchmark's development
/// queries (benches/README.md, "Search").
pub const WORDS_SHARE: f32 = 0.2;

/// The least cosine at which a tool that shares no word with a query
/// still matches it, ranking by meaning.
pub const LEAST_SIMILARITY: f32 = 0.1;

/// How the search mode ranks tools in a snapshot.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub enum SearchRanking {
    /// By words (BM25): the configuration names no model.
    #[default]
    Words,
    /// By words and meaning, with the model the configuration names.
    WordsAndMeaning(Arc<Embeddings>),
    /// By words, though the configuration names a model (`model`): it
    /// could not be loaded, or this build has no `semantic` feature;
    /// `reason` says which.
    WordsInstead {
        /// The model's directory, as configured.
        model: String,
        /// Why it is not used.
        reason: String,
    },
}

impl SearchRanking {
    /// The ranking a configuration naming `model` (`[catalog]
    /// search_model`) gets in this build: the model loaded (once per
    /// directory in the process), or words alone, said in the log, when
    /// it cannot be.
    pub fn for_model(model: Option<&str>) -> SearchRanking {
        let Some(model) = model else {
            return SearchRanking::Words;
        };
        let loaded = model_named(model);
        match loaded {
            Ok(embeddings) => SearchRanking::WordsAndMeaning(embeddings),
            Err(reason) => {
                tracing::warn!(
                    model,
                    %reason,
                    "search mode: ranking by words alone, not by the configured model"
                );
                SearchRanking::WordsInstead {
                    model: model.to_owned(),
                    reason,
                }
            }
        }
    }

    /// The model it ranks by, if any.
    pub fn embeddings(&self) -> Option<&Arc<Embeddings>> {
        match self {
            SearchRanking::WordsAndMeaning(embeddings) => Some(embeddings),
            _ => None,
        }
    }

    /// What `/health` says of it: the ranking, the model, and why words
    /// alone when a model is named; `None` when no model is named.
    pub fn health(&self) -> Option<(bool, Value)> {
        match self {
            SearchRanking::Words => None,
            SearchRanking::WordsAndMeaning(embeddings) => Some((
                false,
                serde_json::json!({"ranking": "words and meaning", "model": embeddings.name()}),
            )),
            SearchRanking::WordsInstead { model, reason } => Some((
                true,
                serde_json::json!({"ranking": "words alone", "model": model, "reason": reason}),
            )),
        }
    }
}

/// The model a configuration names: one installed under that name, else
/// (with the `semantic` feature) the model in that directory.
fn model_named(name: &str) -> Result<Arc<Embeddings>, String> {
    if let Some(embeddings) = meaning::installed().get(name) {
        return Ok(embeddings.clone());
    }
    #[cfg(feature = "semantic")]
    {
        semantic::embeddings_at(std::path::Path::new(name)).map_err(|e| e.to_string())
    }
    #[cfg(not(feature = "semantic"))]
    Err("this build has no `semantic` feature (build with it to rank by meaning)".to_owned())
}

/// The vectors of a corpus's tools, and the model that made them.
struct Meaning {
    embeddings: Arc<Embeddings>,
    vectors: Vec<Arc<[f32]>>,
    words_share: f32,
}

/// Tools written as documents and embedded once: what every index of some
/// of them is built from. Term weights are fitted to the whole corpus
/// (its average document length); each [`Index`] counts how rare a word
/// is among its own tools.
pub struct Corpus {
    embedder: Embedder<u32>,
    names: Vec<String>,
    embedded: Vec<Embedding<u32>>,
    meaning: Option<Meaning>,
}

impl core::fmt::Debug for Corpus {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Corpus")
            .field("tools", &self.names.len())
            .field(
                "meaning",
                &self.meaning.as_ref().map(|m| m.embeddings.name()),
            )
            .finish_non_exhaustive()
    }
}

impl Corpus {
    /// The corpus of `tools`, each field counted by `weights`.
    pub fn new<'a>(tools: impl IntoIterator<Item = &'a ToolDef>, weights: Weights) -> Corpus {
        let (names, documents): (Vec<String>, Vec<String>) = tools
            .into_iter()
            .map(|def| (def.name.to_string(), document(def, weights)))
            .unzip();
        Corpus::from_documents(names, &documents)
    }

    /// The corpus of documents already written, one per name (what
    /// [`document`] writes for a tool).
    pub fn from_documents(names: Vec<String>, documents: &[String]) -> Corpus {
        let corpus: Vec<&str> = documents.iter().map(String::as_str).collect();
        let embedder: Embedder<u32> =
            EmbedderBuilder::with_fit_to_corpus(Language::English, &corpus).build();
        let embedded = corpus.iter().map(|text| embedder.embed(text)).collect();
        Corpus {
            embedder,
            names,
            embedded,
            meaning: None,
        }
    }

    /// The corpus of `tools` ranked by words and by meaning: each tool's
    /// text ([`meaning_text`]) embedded by `embeddings` (only the texts it
    /// has not met before), each query too at each search, the two scores
    /// blended ([`WORDS_SHARE`]).
    pub fn with_meaning<'a>(
        tools: impl IntoIterator<Item = &'a ToolDef>,
        weights: Weights,
        embeddings: &Arc<Embeddings>,
    ) -> Result<Corpus, EmbedError> {
        // Each tool read once for both of its texts.
        let (mut names, mut documents, mut texts) = (Vec::new(), Vec::new(), Vec::new());
        for def in tools {
            let fields = Fields::of(def);
            names.push(def.name.to_string());
            documents.push(fields.document(weights));
            texts.push(fields.meaning_text());
        }
        let vectors = embeddings.documents(&texts)?;
        let mut corpus = Corpus::from_documents(names, &documents);
        corpus.meaning = Some(Meaning {
            embeddings: embeddings.clone(),
            vectors,
            words_share: WORDS_SHARE,
        });
        Ok(corpus)
    }

    /// This corpus with another share of the words' score in its ranking
    /// by words and meaning (between 0 and 1; without meaning, nothing
    /// changes).
    pub fn with_words_share(mut self, share: f32) -> Corpus {
        if let Some(meaning) = &mut self.meaning {
            meaning.words_share = share.clamp(0.0, 1.0);
        }
        self
    }

    /// Whether it ranks by meaning too.
    pub fn ranks_by_meaning(&self) -> bool {
        self.meaning.is_some()
    }

    /// How many tools it holds.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether it holds no tool.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The names, in the order the tools were given.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// An index of the tools at `members` (positions in the order they
    /// were given; one out of range, or given twice, is left out).
    pub fn index(self: &Arc<Self>, members: impl IntoIterator<Item = usize>) -> Index {
        let mut postings: HashMap<u32, Vec<(u32, f32)>> = HashMap::new();
        let mut kept = Vec::new();
        let mut taken = vec![false; self.embedded.len()];
        for member in members {
            let (Some(embedded), Ok(id)) = (self.embedded.get(member), u32::try_from(member))
            else {
                continue;
            };
            if core::mem::replace(&mut taken[member], true) {
                continue;
            }
            kept.push(id);
            let mut seen: Vec<u32> = Vec::with_capacity(embedded.len());
            for token in embedded.iter() {
                // A token met twice in one document counts once, with its
                // first weight.
                if seen.contains(&token.index) {
                    continue;
                }
                seen.push(token.index);
                postings
                    .entry(token.index)
                    .or_default()
                    .push((id, token.value));
            }
        }
        Index {
            corpus: self.clone(),
            postings,
            members: kept,
        }
    }

    /// An index of every tool.
    pub fn index_all(self: &Arc<Self>) -> Index {
        self.index(0..self.len())
    }
}

/// An index of some tools of a [`Corpus`], searched by a query.
///
/// Scores are BM25 as the `bm25` crate's `Scorer` computes them (each
/// query word's inverse document frequency among the index's tools times
/// its weight in the tool), kept as postings per word, so that a query
/// visits only the tools that share a word with it, and only the best
/// `limit` of them are sorted.
pub struct Index {
    corpus: Arc<Corpus>,
    /// Each word's tools (positions in the corpus) and its weight in each.
    postings: HashMap<u32, Vec<(u32, f32)>>,
    /// The tools it holds (positions in the corpus).
    members: Vec<u32>,
}

impl core::fmt::Debug for Index {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Index")
            .field("corpus", &self.corpus)
            .field("tools", &self.members.len())
            .finish_non_exhaustive()
    }
}

/// A query as an index searches it: its text and, ranking by meaning,
/// its vector (made once, however many indexes of one corpus it
/// searches).
#[derive(Debug, Clone)]
pub struct Query<'q> {
    text: &'q str,
    vector: Option<Vec<f32>>,
}

impl<'q> Query<'q> {
    /// The query's text.
    pub fn text(&self) -> &'q str {
        self.text
    }

    /// Whether it is searched by meaning too (the corpus ranks by meaning
    /// and the model embedded the query).
    pub fn has_meaning(&self) -> bool {
        self.vector.is_some()
    }
}

impl Index {
    /// An index of `tools`, with the default [`Weights`].
    pub fn build<'a>(tools: impl IntoIterator<Item = &'a ToolDef>) -> Index {
        Arc::new(Corpus::new(tools, Weights::default())).index_all()
    }

    /// An index of `tools` with the default [`Weights`], ranked by words
    /// and by meaning when `embeddings` is given and embeds them (else, said
    /// in the log, by words alone).
    pub fn build_ranked<'a>(
        tools: impl IntoIterator<Item = &'a ToolDef>,
        embeddings: Option<&Arc<Embeddings>>,
    ) -> Index {
        let tools: Vec<&ToolDef> = tools.into_iter().collect();
        let corpus = match embeddings {
            None => Corpus::new(tools, Weights::default()),
            Some(embeddings) => {
                match Corpus::with_meaning(tools.iter().copied(), Weights::default(), embeddings) {
                    Ok(corpus) => corpus,
                    Err(error) => {
                        tracing::warn!(
                            model = embeddings.name(),
                            %error,
                            "search mode: the tools could not be embedded; ranking by words alone"
                        );
                        Corpus::new(tools, Weights::default())
                    }
                }
            }
        };
        Arc::new(corpus).index_all()
    }

    /// How many tools it holds.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether it holds no tool.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Whether it ranks by meaning too.
    pub fn ranks_by_meaning(&self) -> bool {
        self.corpus.ranks_by_meaning()
    }

    /// Whether it ranks as `embeddings` would have it: by words alone
    /// without, by words and that very model with.
    pub fn ranks_with(&self, embeddings: Option<&Arc<Embeddings>>) -> bool {
        let used = self.corpus.meaning.as_ref().map(|m| &m.embeddings);
        match (used, embeddings) {
            (None, None) => true,
            (Some(used), Some(wanted)) => Arc::ptr_eq(used, wanted),
            _ => false,
        }
    }

    /// `text` as this index searches it: embedded when the index ranks by
    /// meaning (a query the model cannot embed is searched by words alone,
    /// said in the log).
    pub fn query<'q>(&self, text: &'q str) -> Query<'q> {
        let vector = self.corpus.meaning.as_ref().and_then(|meaning| {
            match meaning.embeddings.query(text) {
                Ok(vector) => Some(vector),
                Err(error) => {
                    tracing::warn!(
                        model = meaning.embeddings.name(),
                        %error,
                        "search mode: the query could not be embedded; ranking it by words alone"
                    );
                    None
                }
            }
        });
        Query { text, vector }
    }

    /// The `limit` tools that match `query` best, best first (equal
    /// scores by name); tools that share no word with the query are not
    /// returned.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit<'_>> {
        self.top(query, limit).1
    }

    /// Every tool that matches `query`, best first (equal scores by name).
    pub fn matches(&self, query: &str) -> Vec<Hit<'_>> {
        self.top(query, usize::MAX).1
    }

    /// How many tools match `query`, and the best `limit` of them, best
    /// first (equal scores by name).
    ///
    /// By words, a tool matches when it shares a word with the query. By
    /// words and meaning, also when its cosine to the query is at least
    /// [`LEAST_SIMILARITY`]; each score is then the words' score over the
    /// best one's, and the cosine placed between the least and the
    /// greatest of the index's, blended ([`WORDS_SHARE`]).
    pub fn top(&self, query: &str, limit: usize) -> (usize, Vec<Hit<'_>>) {
        self.top_of(&self.query(query), limit)
    }

    /// [`top`](Self::top) of a query made by [`query`](Self::query) (of
    /// this index or another of the same corpus).
    pub fn top_of(&self, query: &Query<'_>, limit: usize) -> (usize, Vec<Hit<'_>>) {
        let (scores, touched) = self.words(query.text);
        let hits: Vec<Hit<'_>> = match (&self.corpus.meaning, &query.vector) {
            (Some(meaning), Some(vector)) => self.blend(meaning, vector, &scores, &touched),
            _ => touched
                .into_iter()
                .filter_map(|document| {
                    Some(Hit {
                        name: self.corpus.names.get(document as usize)?,
                        score: scores[document as usize],
                    })
                })
                .collect(),
        };
        best(hits, limit)
    }

    /// Each tool's score by words and meaning, for those that match.
    fn blend(
        &self,
        meaning: &Meaning,
        query: &[f32],
        words: &[f32],
        touched: &[u32],
    ) -> Vec<Hit<'_>> {
        let best_words = touched
            .iter()
            .map(|&document| words[document as usize])
            .fold(0f32, f32::max);
        let similar: Vec<f32> = self
            .members
            .iter()
            .map(|&member| cosine(query, &meaning.vectors[member as usize]))
            .collect();
        let least = similar.iter().copied().fold(f32::INFINITY, f32::min);
        let greatest = similar.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let spread = greatest - least;
        let share = meaning.words_share;
        self.members
            .iter()
            .zip(similar)
            .filter_map(|(&member, similarity)| {
                let by_words = words[member as usize];
                if by_words <= 0.0 && similarity < LEAST_SIMILARITY {
                    return None;
                }
                let by_words = if best_words > 0.0 {
                    by_words / best_words
                } else {
                    0.0
                };
                let by_meaning = if spread > 0.0 {
                    (similarity - least) / spread
                } else {
                    1.0
                };
                Some(Hit {
                    name: self.corpus.names.get(member as usize)?,
                    score: share * by_words + (1.0 - share) * by_meaning,
                })
            })
            .collect()
    }

    /// Each tool's BM25 score (by position in the corpus), and the tools
    /// that share a word with `query`.
    fn words(&self, query: &str) -> (Vec<f32>, Vec<u32>) {
        let embedded = self.corpus.embedder.embed(query);
        let mut scores = vec![0f32; self.corpus.len()];
        let mut touched: Vec<u32> = Vec::new();
        let documents = self.members.len() as f32;
        // Word by word, in the query's order, as the crate's scorer adds
        // them up: the same sums, to the bit.
        for token in embedded.indices() {
            let Some(postings) = self.postings.get(token) else {
                continue;
            };
            let frequency = postings.len() as f32;
            let idf = (1f32 + (documents - frequency + 0.5) / (frequency + 0.5)).ln();
            for &(document, weight) in postings {
                let Some(score) = scores.get_mut(document as usize) else {
                    continue;
                };
                if *score == 0.0 {
                    touched.push(document);
                }
                *score += idf * weight;
            }
        }
        (scores, touched)
    }
}

/// How many hits there are, and the best `limit` of them, best first
/// (equal scores by name).
fn best(mut hits: Vec<Hit<'_>>, limit: usize) -> (usize, Vec<Hit<'_>>) {
    let total = hits.len();
    let order =
        |a: &Hit<'_>, b: &Hit<'_>| b.score.total_cmp(&a.score).then_with(|| a.name.cmp(b.name));
    if limit < hits.len() {
        if limit == 0 {
            return (total, Vec::new());
        }
        hits.select_nth_unstable_by(limit - 1, order);
        hits.truncate(limit);
    }
    hits.sort_by(order);
    (total, hits)
}

/// What a tool says of itself, as search reads it: each field once.
struct Fields<'a> {
    name: String,
    title: Option<&'a str>,
    description: &'a str,
    /// Its arguments' names (as words) and descriptions.
    arguments: String,
}

impl<'a> Fields<'a> {
    fn of(def: &'a ToolDef) -> Fields<'a> {
        let tool = project_tool_as(def, Mode::Full, Profile::Default).to_value();
        let mut arguments = String::new();
        if let Some(input) = tool.get("inputSchema") {
            argument_words(input, &mut arguments, 0);
        }
        Fields {
            name: name_words(&def.name),
            title: def.title.as_deref(),
            description: &def.description,
            arguments,
        }
    }

    /// The BM25 document: each field repeated by its weight.
    fn document(&self, weights: Weights) -> String {
        let mut text = String::new();
        let mut add = |field: &str, times: usize| {
            for _ in 0..times {
                text.push_str(field);
                text.push_str(" .\n");
            }
        };
        add(&self.name, weights.name);
        if let Some(title) = self.title {
            add(title, weights.title);
        }
        add(self.description, weights.description);
        add(&self.arguments, weights.arguments);
        text
    }

    /// The text embedded: a line a field.
    fn meaning_text(&self) -> String {
        let mut text = self.name.clone();
        for field in self.title.into_iter().chain([self.description]) {
            text.push('\n');
            text.push_str(field);
        }
        if !self.arguments.trim().is_empty() {
            text.push('\n');
            text.push_str(self.arguments.trim_end());
        }
        text
    }
}

/// The text a tool is embedded as, ranking by meaning: the words of its
/// name, its title, its description and its arguments' names and
/// descriptions, a line each.
pub fn meaning_text(def: &ToolDef) -> String {
    Fields::of(def).meaning_text()
}

/// The document a tool is indexed as: each field repeated by its weight.
pub fn document(def: &ToolDef, weights: Weights) -> String {
    Fields::of(def).document(weights)
}

/// The words of a name: split at `.`, `-`, `_`, `/`, spaces and where
/// lower case turns to upper case (`getInvoiceByID` is `get Invoice By ID`).
///
/// ```
/// use toolschema_catalog::search::name_words;
/// assert_eq!(name_words("billing.getInvoice_v2"), "billing get Invoice v2");
/// assert_eq!(name_words("ResearchHelper"), "Research Helper");
/// ```
pub fn name_words(name: &str) -> String {
    let mut words = String::with_capacity(name.len() + 8);
    let mut previous: Option<char> = None;
    for c in name.chars() {
        if matches!(c, '.' | '-' | '_' | '/' | ' ') {
            if !words.ends_with(' ') && !words.is_empty() {
                words.push(' ');
            }
            previous = None;
            continue;
        }
        if c.is_uppercase() && previous.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit()) {
            words.push(' ');
        }
        words.push(c);
        previous = Some(c);
    }
    words.trim_end().to_owned()
}

/// The names (as words) and descriptions of the properties of `schema`,
/// nested ones included, appended to `out`.
fn argument_words(schema: &Value, out: &mut String, depth: usize) {
    // Deep enough for any argument a person reads; a recursive schema
    // stops here.
    if depth > 4 {
        return;
    }
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            out.push_str(&name_words(name));
            out.push(' ');
            if let Some(description) = property.get("description").and_then(Value::as_str) {
                out.push_str(description);
                out.push(' ');
            }
            argument_words(property, out, depth + 1);
        }
    }
    for nested in ["items", "additionalProperties"] {
        if let Some(inner) = schema.get(nested).filter(|inner| inner.is_object()) {
            argument_words(inner, out, depth + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolschema_runtime::model::{Annotations, Node, Ref, Text};

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

    #[test]
    fn equal_scores_are_ordered_by_name_and_a_limit_is_kept() {
        let tools: Vec<ToolDef> = ["c.report", "a.report", "b.report"]
            .iter()
            .map(|name| tool(name, "Reports the quarterly figures."))
            .collect();
        let index = Index::build(&tools);
        let names = |hits: Vec<Hit<'_>>| hits.iter().map(|h| h.name.to_owned()).collect::<Vec<_>>();
        assert_eq!(
            names(index.search("quarterly figures", 10)),
            ["a.report", "b.report", "c.report"]
        );
        assert_eq!(
            names(index.search("quarterly figures", 2)),
            ["a.report", "b.report"]
        );
        assert!(
            index.search("weather", 10).is_empty(),
            "no shared word, no hit"
        );
    }

    #[test]
    fn an_index_holds_only_its_members() {
        let tools = [
            tool("mail.send", "Sends an email."),
            tool("mail.read", "Reads an email."),
        ];
        let corpus = Arc::new(Corpus::new(&tools, Weights::default()));
        let only_read = corpus.index([1, 7]);
        let hits = only_read.search("send an email", 10);
        assert_eq!(
            hits.iter().map(|h| h.name).collect::<Vec<_>>(),
            ["mail.read"]
        );
    }

    #[test]
    fn scores_are_those_of_the_crates_own_scorer_to_the_bit() {
        let words = [
            "invoice", "refund", "ticket", "weather", "city", "email", "send", "read", "paid",
            "open", "close", "period", "report", "chart", "customer", "balance",
        ];
        // Documents of 3 to 17 words drawn in a fixed pattern, some words
        // repeated: 60 of them, and a corpus larger than the index.
        let tools: Vec<ToolDef> = (0..80)
            .map(|i| {
                let text: Vec<&str> = (0..3 + i % 15)
                    .map(|j| words[(i * 7 + j * j * 3) % words.len()])
                    .collect();
                tool(&format!("tool.n{i}"), &text.join(" "))
            })
            .collect();
        let corpus = Arc::new(Corpus::new(&tools, Weights::default()));
        let members: Vec<usize> = (0..80).filter(|i| i % 4 != 0).collect();
        let index = corpus.index(members.iter().copied());
        let mut scorer = bm25::Scorer::<u32, u32>::new();
        for &member in &members {
            scorer.upsert(&(member as u32), corpus.embedded[member].clone());
        }
        let mut compared = 0;
        for query in [
            "refund a paid invoice",
            "open ticket",
            "weather in the city",
            "chart chart report",
            "nothing here",
        ] {
            let embedded = corpus.embedder.embed(query);
            let mut expected: Vec<(String, u32)> = scorer
                .matches(&embedded)
                .into_iter()
                .map(|scored| {
                    (
                        corpus.names[scored.id as usize].clone(),
                        scored.score.to_bits(),
                    )
                })
                .collect();
            expected.sort();
            let mut got: Vec<(String, u32)> = index
                .matches(query)
                .into_iter()
                .map(|hit| (hit.name.to_owned(), hit.score.to_bits()))
                .collect();
            got.sort();
            assert_eq!(got, expected, "{query}");
            compared += got.len();
            let (total, best) = index.top(query, 3);
            assert_eq!(total, got.len());
            assert_eq!(best, index.matches(query)[..total.min(3)]);
        }
        assert!(compared > 100, "{compared}");
    }

    #[test]
    fn argument_names_and_descriptions_are_searched() {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {"zipCode": {"type": "string", "description": "Where the parcel goes."}}
        });
        let mut words = String::new();
        argument_words(&schema, &mut words, 0);
        assert_eq!(words, "zip Code Where the parcel goes. ");
    }
}
