//! What a client's tool list costs the model's context (DESIGN §10,
//! feature `tokens`): its bytes and its tokens, per mode the client's
//! toolsets use, against the same tools all in Full mode.
//!
//! Tokens are counted with a real tokenizer, offline: OpenAI's
//! `o200k_base` encoding (the GPT-4o, GPT-4.1 and o-series models), which
//! tiktoken-rs ships inside the crate. Other families tokenize JSON
//! differently, by some percent either way; the savings, a ratio of two
//! counts with one tokenizer, carry over better than the counts.

mod tables;
pub use tables::{client_table, clients_table, log_lists};

use core::fmt;

use tiktoken_rs::CoreBPE;

use super::Snapshot;
use toolschema_runtime::project::{
    META_TOOL, Mode, ProtocolRevision, SEARCH_TOOL, project_tool_as,
};

/// The encoding tokens are counted in, as printed with the counts.
pub const ENCODING: &str = "o200k_base (OpenAI GPT-4o, GPT-4.1, o-series)";

/// A tokenizer of the [`ENCODING`].
pub struct Tokenizer(CoreBPE);

impl fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Tokenizer(o200k_base)")
    }
}

/// The tokenizer's encoding could not be loaded (its data ships with the
/// crate, so this means a broken build).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenizerError(String);

impl fmt::Display for TokenizerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the o200k_base encoding cannot be loaded: {}", self.0)
    }
}

impl std::error::Error for TokenizerError {}

impl Tokenizer {
    /// Loads the encoding (about a tenth of a second; load it once).
    pub fn new() -> Result<Tokenizer, TokenizerError> {
        tiktoken_rs::o200k_base()
            .map(Tokenizer)
            .map_err(|error| TokenizerError(error.to_string()))
    }

    /// The number of tokens of `text`, as a model of the family reads it
    /// (special tokens read as text).
    ///
    /// ```
    /// use toolschema_catalog::cost::Tokenizer;
    ///
    /// let tokenizer = Tokenizer::new().unwrap();
    /// assert_eq!(tokenizer.count("hello world"), 2);
    /// ```
    pub fn count(&self, text: &str) -> usize {
        self.0.encode_ordinary(text).len()
    }
}

/// The size of a list or of part of one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cost {
    /// The tools counted.
    pub tools: usize,
    /// Their JSON, in bytes.
    pub bytes: usize,
    /// Their JSON, in tokens.
    pub tokens: usize,
}

impl Cost {
    fn add(&mut self, tokenizer: &Tokenizer, json: &str) {
        self.tools += 1;
        self.bytes += json.len();
        self.tokens += tokenizer.count(json);
    }
}

/// How a client's tools are shown: a mode, or the meta-tool a reduced
/// mode brings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// Tools in this mode.
    Mode(Mode),
    /// `discover_tool_schema`.
    MetaTool,
    /// `search_tools`.
    SearchTool,
}

impl Shown {
    /// Full first, then the reduced modes, the meta-tool last.
    fn rank(self) -> u8 {
        match self {
            Shown::Mode(Mode::Full) => 0,
            Shown::Mode(Mode::DataStructureOnly) => 1,
            Shown::Mode(Mode::Lazy) => 2,
            // Never listed: it costs nothing in a list.
            Shown::Mode(Mode::Search) => 3,
            Shown::MetaTool => 4,
            Shown::SearchTool => 5,
        }
    }
}

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shown::Mode(mode) => f.write_str(mode.name()),
            Shown::MetaTool => f.write_str(META_TOOL),
            Shown::SearchTool => f.write_str(SEARCH_TOOL),
        }
    }
}

/// What one client's `tools/list` costs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientCost {
    /// The client application.
    pub client: String,
    /// Each way its tools are shown, with what those entries cost.
    pub parts: Vec<(Shown, Cost)>,
    /// The whole list as sent (`{"tools":[...]}`).
    pub list: Cost,
    /// The same tools, all in Full mode, as a list.
    pub full: Cost,
}

impl ClientCost {
    /// The share of the Full list's tokens the client's modes save (0 when
    /// every tool is in Full mode; negative if a list cost more).
    pub fn saving(&self) -> f64 {
        if self.full.tokens == 0 {
            return 0.0;
        }
        1.0 - self.list.tokens as f64 / self.full.tokens as f64
    }
}

/// What `client`'s list costs in `revision`, or `None` for a client the
/// snapshot does not have.
pub fn client_cost(
    snapshot: &Snapshot,
    client: &str,
    revision: ProtocolRevision,
    tokenizer: &Tokenizer,
) -> Option<ClientCost> {
    let view = snapshot.client(client)?;
    let mut parts: Vec<(Shown, Cost)> = Vec::new();
    for entry in view.entries(revision) {
        let shown = match name_of(entry) {
            Some(name) if name == META_TOOL => Shown::MetaTool,
            Some(name) if name == SEARCH_TOOL => Shown::SearchTool,
            Some(name) => Shown::Mode(view.mode_of(&name).unwrap_or(Mode::Full)),
            None => Shown::Mode(Mode::Full),
        };
        match parts.iter_mut().find(|(s, _)| *s == shown) {
            Some((_, cost)) => cost.add(tokenizer, entry),
            None => {
                let mut cost = Cost::default();
                cost.add(tokenizer, entry);
                parts.push((shown, cost));
            }
        }
    }
    parts.sort_by_key(|(shown, _)| shown.rank());
    let text = view.list_json(revision);
    let list = Cost {
        tools: view.entries(revision).len(),
        bytes: text.len(),
        tokens: tokenizer.count(text),
    };
    // The same tools in Full mode: what the list would be with no reduced
    // mode (and so no meta-tool), in the same order.
    let entries: Vec<String> = view
        .tools()
        .map(|(def, _)| {
            revision
                .fit(def, project_tool_as(def, Mode::Full, view.profile()))
                .to_compact_string()
        })
        .collect();
    let full_text = format!("{{\"tools\":[{}]}}", entries.join(","));
    let full = Cost {
        tools: entries.len(),
        bytes: full_text.len(),
        tokens: tokenizer.count(&full_text),
    };
    Some(ClientCost {
        client: client.to_owned(),
        parts,
        list,
        full,
    })
}

/// The `name` of a listed tool's JSON.
fn name_of(entry: &str) -> Option<String> {
    match serde_json::from_str::<serde_json::Value>(entry)
        .ok()?
        .get("name")?
    {
        serde_json::Value::String(name) => Some(name.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::Tokenizer;

    /// Counts from an independent implementation of the encoding:
    /// js-tiktoken 1.0.21 with its `o200k_base` ranks
    /// (`new Tiktoken(o200k).encode(text).length`).
    #[test]
    fn counts_match_an_independent_implementation() {
        let tokenizer = Tokenizer::new().expect("the encoding ships with the crate");
        let known = [
            ("", 0),
            ("hello world", 2),
            ("{\"tools\":[]}", 4),
            (
                r#"{"name":"billing.get-invoice","description":"Returns one invoice by its number.","inputSchema":{"type":"object","properties":{"invoice_id":{"type":"string","format":"uuid"}},"required":["invoice_id"],"additionalProperties":false}}"#,
                49,
            ),
            (
                "Quotes the monthly premium of insuring a pet, with what the policy would not cover.",
                18,
            ),
            ("naïve café — 東京 🐕", 9),
        ];
        for (text, tokens) in known {
            assert_eq!(tokenizer.count(text), tokens, "{text:?}");
        }
    }
}
