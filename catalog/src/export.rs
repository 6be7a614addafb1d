//! Catalog export as a `server.json` document (the MCP registry's format),
//! and a build-time check that a committed export is up to date.
//!
//! The tool list goes under `_meta`, in this project's namespace
//! ([`NAMESPACE`]): the protocol version and each tool as a valid MCP `Tool`.
//! Output is deterministic: keys in a fixed order, tools in byte order of
//! name, two-space indentation and a trailing newline, so that a diff of two
//! exports shows only real changes. No secret, credential, tenant, client or
//! source name is ever written.

use core::fmt;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::{ServerInfo, Snapshot};
use toolschema_runtime::compat::{Report, compare_tool_objects};
use toolschema_runtime::model::ToolDef;
use toolschema_runtime::project::{
    META_TOOL, Mode, ProtocolRevision, SEARCH_TOOL, apply_profile, project_tool,
};
use toolschema_runtime::render::{Json, Object};

/// The `_meta` key the tool catalog is exported under.
pub const NAMESPACE: &str = "dev.toolschema/catalog";

/// The registry schema an export declares.
pub const SERVER_SCHEMA: &str =
    "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

/// The MCP revision whose `Tool` objects an export lists.
const REVISION: ProtocolRevision = ProtocolRevision::V2025_11_25;

/// The MCP protocol version whose `Tool` objects an export lists.
pub const PROTOCOL_VERSION: &str = REVISION.version();

/// What to export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope<'a> {
    /// Every tool some client sees (every tool, without configuration), in
    /// Full mode.
    Catalog,
    /// What one client application sees: its tools, modes and profile.
    Client(&'a str),
}

/// Why an export could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExportError {
    /// The configuration has no `[server]` section to describe the server.
    NoServerSection,
    /// No client application has that id.
    UnknownClient(String),
    /// The server's identity given in code is not one the MCP registry
    /// accepts: each (field, what is wrong).
    InvalidServer(Vec<(&'static str, String)>),
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::NoServerSection => f.write_str(
                "a server.json export needs the server's identity: a [server] section in the configuration (name, description, version), or one given in code (a description given to the server, or export_as)",
            ),
            ExportError::UnknownClient(id) => write!(f, "there is no client application `{id}` to export for"),
            ExportError::InvalidServer(problems) => {
                f.write_str("the server's identity cannot be exported as server.json:")?;
                for (field, problem) in problems {
                    write!(f, "\n  {field}: {problem}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for ExportError {}

/// The `server.json` text of `scope`, described by the configuration's
/// `[server]` section (see [`export_as`] for a catalog without one).
pub fn export(snapshot: &Snapshot, scope: Scope<'_>) -> Result<String, ExportError> {
    let server = snapshot.server().ok_or(ExportError::NoServerSection)?;
    document_of(snapshot, scope, server)
}

/// The `server.json` text of `scope`, described by `server`: a service's
/// own tools exported with no configuration at all (open mode: every tool
/// in Full mode), or a governed catalog under an identity given in code.
///
/// ```
/// use std::sync::Arc;
/// use toolschema_runtime::call::Registry;
/// use toolschema_catalog::{ServerInfo, Snapshot};
/// use toolschema_catalog::export::{Scope, export_as};
///
/// let snapshot = Snapshot::open(Arc::new(Registry::new()));
/// let server = ServerInfo::new("io.github.acme/warehouse", "Stock and reservations", "1.4.0");
/// let json = export_as(&snapshot, Scope::Catalog, &server)?;
/// assert!(json.contains(r#""name": "io.github.acme/warehouse""#));
///
/// // The registry refuses a name without a namespace, and so does export.
/// let refused = export_as(&snapshot, Scope::Catalog, &ServerInfo::new("warehouse", "Stock", "1.4.0"));
/// assert!(refused.unwrap_err().to_string().contains("name: `warehouse` is not a registry server name"));
/// # Ok::<(), toolschema_catalog::export::ExportError>(())
/// ```
pub fn export_as(
    snapshot: &Snapshot,
    scope: Scope<'_>,
    server: &ServerInfo,
) -> Result<String, ExportError> {
    let problems = server.problems();
    if !problems.is_empty() {
        return Err(ExportError::InvalidServer(problems));
    }
    document_of(snapshot, scope, server)
}

fn document_of(
    snapshot: &Snapshot,
    scope: Scope<'_>,
    server: &ServerInfo,
) -> Result<String, ExportError> {
    let tools = match scope {
        Scope::Catalog => {
            let mut all: BTreeMap<&str, &ToolDef> = BTreeMap::new();
            for view in snapshot.clients() {
                for (def, _) in view.tools() {
                    all.insert(&def.name, def);
                }
            }
            all.values()
                .map(|def| REVISION.fit(def, project_tool(def, Mode::Full)))
                .collect()
        }
        Scope::Client(id) => {
            let view = snapshot
                .client(id)
                .filter(|v| v.id() == id)
                .ok_or_else(|| ExportError::UnknownClient(id.to_owned()))?;
            let profile = view.profile();
            // What its list holds: tools in search mode are found by the
            // search meta-tool, not listed.
            let mut tools: Vec<(&str, Json)> = view
                .tools()
                .filter(|(_, mode)| mode.is_listed())
                .map(|(def, mode)| {
                    let json = apply_profile(project_tool(def, mode), profile);
                    (&*def.name, REVISION.fit(def, json))
                })
                .collect();
            for meta in [META_TOOL, SEARCH_TOOL] {
                if let Some(descriptor) = view.meta_descriptor(meta) {
                    let json = Json::parse(&descriptor).unwrap_or(Json::Null);
                    tools.push((meta, json));
                }
            }
            tools.sort_by(|a, b| a.0.cmp(b.0));
            tools.into_iter().map(|(_, json)| json).collect()
        }
    };
    Ok(document(server, tools).to_pretty_string() + "\n")
}

fn document(server: &ServerInfo, tools: Vec<Json>) -> Json {
    let mut out = Object::new();
    out.insert("$schema", SERVER_SCHEMA);
    out.insert("name", server.name().to_owned());
    if let Some(title) = server.title() {
        out.insert("title", title.to_owned());
    }
    out.insert("description", server.description().to_owned());
    out.insert("version", server.version().to_owned());
    if let Some(url) = server.website_url() {
        out.insert("websiteUrl", url.to_owned());
    }
    for (key, list) in [
        ("remotes", server.remotes()),
        ("packages", server.packages()),
    ] {
        if !list.is_empty() {
            out.insert(key, Json::Array(list.iter().map(from_value).collect()));
        }
    }
    let mut catalog = Object::new();
    catalog.insert("protocolVersion", PROTOCOL_VERSION);
    catalog.insert("tools", Json::Array(tools));
    let mut meta = Object::new();
    meta.insert(NAMESPACE, catalog);
    out.insert("_meta", meta);
    Json::Object(out)
}

/// A `serde_json::Value` as an order-keeping tree (object keys sorted, so
/// output stays deterministic).
fn from_value(value: &serde_json::Value) -> Json {
    match value {
        serde_json::Value::Null => Json::Null,
        serde_json::Value::Bool(b) => Json::Bool(*b),
        serde_json::Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => Json::from(u),
            (None, Some(i), _) => Json::Number(toolschema_runtime::model::Number::Int(i)),
            (_, _, f) => Json::Number(toolschema_runtime::model::Number::Float(f.unwrap_or(0.0))),
        },
        serde_json::Value::String(s) => Json::from(s.clone()),
        serde_json::Value::Array(items) => Json::Array(items.iter().map(from_value).collect()),
        serde_json::Value::Object(map) => {
            let mut object = Object::new();
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            for key in keys {
                object.insert(key.clone(), from_value(&map[key]));
            }
            Json::Object(object)
        }
    }
}

/// The outcome of [`verify_file`] when nothing is stale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The committed file is up to date.
    Fresh,
    /// `TOOLSCHEMA_BLESS=1` was set: the file was rewritten.
    Blessed,
}

/// A committed export that no longer matches the catalog.
#[derive(Debug)]
pub struct StaleExport {
    path: PathBuf,
    diff: String,
    changes: Vec<ToolReport>,
}

/// What a change does to the clients of one tool of a committed export.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolReport {
    /// The tool's name.
    pub tool: String,
    /// Its changes, most serious first.
    pub report: Report,
}

impl StaleExport {
    /// The committed file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What changed, as `-`/`+` lines with context.
    pub fn diff(&self) -> &str {
        &self.diff
    }

    /// Each tool whose contract changed, in byte order of name: what the
    /// change does to the clients of the committed export.
    pub fn compatibility(&self) -> &[ToolReport] {
        &self.changes
    }

    /// Whether a client of the committed export may break: a tool gone or
    /// renamed, an argument refused that was accepted, a result allowed
    /// that was not promised, or a change the comparison cannot decide.
    pub fn breaks(&self) -> bool {
        self.changes.iter().any(|tool| tool.report.breaks())
    }
}

impl fmt::Display for StaleExport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} is stale: the catalog changed. Review the difference, then rerun with TOOLSCHEMA_BLESS=1 to rewrite it.",
            self.path.display(),
        )?;
        if !self.changes.is_empty() {
            let breaking = self.changes.iter().filter(|t| t.report.breaks()).count();
            write!(
                f,
                "\nFor the clients of the committed export, {breaking} of the {} tools that changed may break:",
                self.changes.len()
            )?;
            for tool in &self.changes {
                for change in tool.report.changes() {
                    write!(f, "\n  {}: {change}", tool.tool)?;
                }
            }
        }
        write!(f, "\n{}", self.diff)
    }
}

/// What `current` (an export) changes for the clients of `committed`,
/// tool by tool (matched by name), in byte order of name; empty when
/// either is not an export this crate writes.
pub fn compatibility(committed: &str, current: &str) -> Vec<ToolReport> {
    let tools = |text: &str| -> Option<BTreeMap<String, serde_json::Value>> {
        let document: serde_json::Value = serde_json::from_str(text).ok()?;
        let tools = document
            .get("_meta")?
            .get(NAMESPACE)?
            .get("tools")?
            .as_array()?;
        Some(
            tools
                .iter()
                .filter_map(|tool| Some((tool.get("name")?.as_str()?.to_owned(), tool.clone())))
                .collect(),
        )
    };
    let (Some(before), Some(after)) = (tools(committed), tools(current)) else {
        return Vec::new();
    };
    let names: std::collections::BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    names
        .into_iter()
        .filter_map(|name| {
            let report = match (before.get(name), after.get(name)) {
                (Some(old), Some(new)) => compare_tool_objects(old, new),
                (Some(old), None) => Report::tool_removed(old),
                (None, Some(new)) => Report::tool_added(new),
                (None, None) => return None,
            };
            (!report.is_empty()).then(|| ToolReport {
                tool: name.clone(),
                report,
            })
        })
        .collect()
}

impl std::error::Error for StaleExport {}

/// Compares a committed export with the current one, the snapshot-test way:
/// a readable diff when stale, and with `TOOLSCHEMA_BLESS=1` in the
/// environment, the file is rewritten instead.
///
/// ```no_run
/// # fn current() -> String { String::new() }
/// use toolschema_catalog::export::verify_file;
///
/// // In a test or a build step:
/// if let Err(stale) = verify_file("server.json", &current()) {
///     panic!("{stale}");
/// }
/// ```
pub fn verify_file(path: impl AsRef<Path>, expected: &str) -> Result<Verdict, StaleExport> {
    let bless = std::env::var_os("TOOLSCHEMA_BLESS").is_some_and(|v| v == "1");
    verify_file_with(path, expected, bless)
}

/// [`verify_file`] with blessing decided by the caller rather than the
/// environment.
pub fn verify_file_with(
    path: impl AsRef<Path>,
    expected: &str,
    bless: bool,
) -> Result<Verdict, StaleExport> {
    let path = path.as_ref();
    let committed = std::fs::read_to_string(path).ok();
    if committed.as_deref() == Some(expected) {
        return Ok(Verdict::Fresh);
    }
    if bless {
        return match std::fs::write(path, expected) {
            Ok(()) => Ok(Verdict::Blessed),
            Err(error) => Err(StaleExport {
                path: path.to_owned(),
                diff: format!("(could not write the file: {error})"),
                changes: Vec::new(),
            }),
        };
    }
    let (diff, changes) = match committed {
        Some(committed) => (
            diff(&committed, expected),
            compatibility(&committed, expected),
        ),
        None => ("(the file does not exist yet)".to_owned(), Vec::new()),
    };
    Err(StaleExport {
        path: path.to_owned(),
        diff,
        changes,
    })
}

/// A line diff with two lines of context around each change.
pub fn diff(before: &str, after: &str) -> String {
    let a: Vec<&str> = before.lines().collect();
    let b: Vec<&str> = after.lines().collect();
    // Longest common subsequence table, from the ends.
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut ops: Vec<(char, usize, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            ops.push((' ', i + 1, a[i]));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            // A line replaced reads as diff(1) writes it: the old line first.
            ops.push(('-', i + 1, a[i]));
            i += 1;
        } else {
            ops.push(('+', j + 1, b[j]));
            j += 1;
        }
    }
    let near_change = |k: usize| {
        let lo = k.saturating_sub(2);
        let hi = (k + 2).min(ops.len() - 1);
        ops[lo..=hi].iter().any(|(op, _, _)| *op != ' ')
    };
    let mut out = String::new();
    let mut skipped = false;
    for (k, (op, line, text)) in ops.iter().enumerate() {
        if near_change(k) {
            if skipped {
                out.push_str("  ...\n");
                skipped = false;
            }
            out.push_str(&format!("{op} {line:>5} | {text}\n"));
        } else {
            skipped = true;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::diff;

    #[test]
    fn diff_shows_changes_with_context() {
        let before = "a\nb\nc\nd\ne\nf\ng\n";
        let after = "a\nb\nc\nD\ne\nf\ng\nh\n";
        let shown = diff(before, after);
        assert!(shown.contains("-     4 | d"), "{shown}");
        assert!(shown.contains("+     4 | D"), "{shown}");
        assert!(shown.contains("+     8 | h"), "{shown}");
        let (removed, added) = (shown.find("-     4 | d"), shown.find("+     4 | D"));
        assert!(removed < added, "the old line comes first: {shown}");
        assert!(!shown.contains("| a"), "{shown}");
        assert_eq!(diff("x\n", "x\n"), "");
    }
}
