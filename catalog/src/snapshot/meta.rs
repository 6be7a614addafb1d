//! Calls of the meta-tools a list carries (`discover_tool_schema`,
//! `search_tools`), answered from the client's view alone, the same way
//! over MCP and REST. Their arguments are checked against the input schema
//! the list advertises for them, as every tool's are.

use core::fmt;

use serde_json::{Map, Value, json};
use toolschema_runtime::call::CallArguments;
use toolschema_runtime::project::{
    DEFAULT_FOUND, LONGEST_QUERY, META_TOOL, MOST_FOUND, Profile, ProtocolRevision, SEARCH_TOOL,
    apply_profile, meta_tool, meta_tool_with_names, search_tool,
};

use super::{ClientView, Snapshot};

/// What a meta-tool call answers: its structured content and the text
/// that carries the same JSON for clients that read only text.
#[derive(Debug, Clone, PartialEq)]
pub struct MetaAnswer {
    /// The `structuredContent`, conforming to the meta-tool's output schema.
    pub structured: Value,
    /// The same, serialized.
    pub text: String,
}

/// One way a meta-tool call's arguments break its input schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetaViolation {
    /// The JSON pointer of the argument (`/query`).
    pub path: String,
    /// The keyword broken (`required`, `type`, `maximum`, ...).
    pub rule: &'static str,
    /// What is wrong and what to send instead.
    pub message: String,
}

/// Why a meta-tool call has no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MetaRefusal {
    /// The arguments break the meta-tool's input schema.
    InvalidArguments(Vec<MetaViolation>),
    /// A name asked for is not a tool this client sees.
    UnknownTool {
        /// The name asked for.
        name: String,
    },
    /// The arguments' text is JSON no tree holds (a number beyond a 64-bit
    /// float, `1e400`): a malformed request rather than a broken rule.
    Unreadable {
        /// What the reader said.
        reason: String,
    },
}

impl fmt::Display for MetaRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MetaRefusal::InvalidArguments(violations) => {
                let rules = match violations.len() {
                    1 => "1 rule".to_owned(),
                    n => format!("{n} rules"),
                };
                write!(f, "the arguments break {rules}:")?;
                for violation in violations {
                    write!(f, "\n- {}", violation.message)?;
                }
                Ok(())
            }
            MetaRefusal::UnknownTool { name } => write!(
                f,
                "there is no tool named `{}`",
                toolschema_text::shorten::shorten(name, 200)
            ),
            MetaRefusal::Unreadable { reason } => {
                write!(f, "the arguments cannot be read: {reason}")
            }
        }
    }
}

impl std::error::Error for MetaRefusal {}

/// The descriptor of the meta-tool `name` in a list in `profile`, with
/// tools in search mode or not: serialized, as the list holds it.
pub(super) fn descriptor(name: &str, searched: bool, profile: Profile) -> Option<String> {
    let tool = match (name, searched) {
        (META_TOOL, false) => meta_tool(),
        (META_TOOL, true) => meta_tool_with_names(),
        (SEARCH_TOOL, true) => search_tool(),
        _ => return None,
    };
    Some(apply_profile(tool, profile).to_compact_string())
}

impl ClientView {
    /// The descriptor of the meta-tool `name`, as this client's list
    /// holds it; `None` when the list carries no meta-tool of that name.
    pub fn meta_descriptor(&self, name: &str) -> Option<String> {
        match self.lists_meta_tool(name) {
            true => descriptor(name, self.has_search_tool(), self.profile),
            false => None,
        }
    }

    /// Whether `name` is a meta-tool this client's list carries.
    pub fn lists_meta_tool(&self, name: &str) -> bool {
        match name {
            META_TOOL => self.has_meta_tool(),
            SEARCH_TOOL => self.has_search_tool(),
            _ => false,
        }
    }

    /// [`call_meta`](Self::call_meta) with the arguments as a transport
    /// holds them: the text of a request is read into a tree here, the one
    /// place every transport's meta-tool calls are read.
    ///
    ///
    /// ```
    /// use toolschema_catalog::Catalog;
    /// use toolschema_runtime::call::{CallArguments, Registry};
    /// use toolschema_runtime::project::ProtocolRevision;
    ///
    /// // Open mode lists every tool in Full: there is no meta-tool to call.
    /// let snapshot = Catalog::open(Registry::new()).snapshot();
    /// let view = snapshot.client("anyone").expect("everyone's view");
    /// let arguments = CallArguments::Parsed(serde_json::json!({"name": "x"}));
    /// let answered =
    ///     view.call_meta_arguments("discover_tool_schema", arguments, ProtocolRevision::LATEST);
    /// assert!(answered.is_none());
    /// ```
    pub fn call_meta_arguments(
        &self,
        name: &str,
        arguments: CallArguments,
        revision: ProtocolRevision,
    ) -> Option<Result<MetaAnswer, MetaRefusal>> {
        if !self.lists_meta_tool(name) {
            return None;
        }
        match arguments.into_value() {
            Ok(arguments) => self.call_meta(name, &arguments, revision),
            Err(error) => Some(Err(MetaRefusal::Unreadable {
                reason: error.to_string(),
            })),
        }
    }

    /// Answers a call of the meta-tool `name` with `arguments`, for a
    /// client of `revision`; `None` when the list carries no meta-tool of
    /// that name (it is then an ordinary tool's name, or unknown).
    ///
    /// - `discover_tool_schema {name}`: the Full descriptor of that tool,
    ///   in the client's profile; with `names` (in a list with tools in
    ///   search mode), `{"tools": [...]}`, one descriptor per name, in
    ///   order.
    /// - `search_tools {query, limit?, detail?}`: `{"total", "returned",
    ///   "tools": [{name, title?, description, score, inputSchema?}]}`,
    ///   the tools in search mode that match best, best first (equal scores
    ///   by name). Only this client's tools are searched.
    pub fn call_meta(
        &self,
        name: &str,
        arguments: &Value,
        revision: ProtocolRevision,
    ) -> Option<Result<MetaAnswer, MetaRefusal>> {
        if !self.lists_meta_tool(name) {
            return None;
        }
        Some(match name {
            SEARCH_TOOL => self.search_call(arguments, revision),
            _ => self.discover_call(arguments, revision),
        })
    }

    fn discover_call(
        &self,
        arguments: &Value,
        revision: ProtocolRevision,
    ) -> Result<MetaAnswer, MetaRefusal> {
        let several = self.has_search_tool();
        let known: &[&str] = match several {
            true => &["name", "names"],
            false => &["name"],
        };
        let mut violations = Vec::new();
        let arguments = object_of(arguments, known, &mut violations)?;
        let describe = |name: &str| -> Result<Value, MetaRefusal> {
            let descriptor = Snapshot::discover_in(self, name, revision).map_err(|_| {
                MetaRefusal::UnknownTool {
                    name: name.to_owned(),
                }
            })?;
            Ok(serde_json::from_str(&descriptor).unwrap_or(Value::Null))
        };
        let name = present(arguments, "name");
        let names = present(arguments, "names").filter(|_| several);
        match (name, names) {
            (Some(Value::String(name)), None) => answer(describe(name)?),
            (Some(_), None) => Err(invalid(
                "/name",
                "type",
                "`/name` must be a string: the name of the tool whose schema to return.".into(),
            )),
            (None, Some(names)) => {
                let names = names_of(names)?;
                let tools = names
                    .into_iter()
                    .map(describe)
                    .collect::<Result<Vec<Value>, MetaRefusal>>()?;
                answer(json!({ "tools": tools }))
            }
            (Some(_), Some(_)) => Err(invalid(
                "/names",
                "not",
                "send `name` or `names`, not both.".into(),
            )),
            (None, None) => Err(invalid(
                "/name",
                "required",
                match several {
                    true => format!(
                        "`/name` is required (the name of the tool whose schema to return), or `/names` for up to {MOST_FOUND}."
                    ),
                    false => "`/name` is required: the name of the tool whose schema to return (a string).".into(),
                },
            )),
        }
    }

    fn search_call(
        &self,
        arguments: &Value,
        revision: ProtocolRevision,
    ) -> Result<MetaAnswer, MetaRefusal> {
        let mut violations = Vec::new();
        let arguments = object_of(arguments, &["query", "limit", "detail"], &mut violations)?;
        let query = match present(arguments, "query") {
            Some(Value::String(query)) if query.chars().count() > LONGEST_QUERY => {
                violations.push(MetaViolation {
                    path: "/query".into(),
                    rule: "maxLength",
                    message: format!(
                        "`/query` is longer than {LONGEST_QUERY} characters: say what the tool should do in a few words."
                    ),
                });
                ""
            }
            Some(Value::String(query)) if query.is_empty() => {
                violations.push(MetaViolation {
                    path: "/query".into(),
                    rule: "minLength",
                    message: "`/query` is empty: say what the tool should do, in a few words."
                        .into(),
                });
                ""
            }
            Some(Value::String(query)) => query,
            Some(_) => {
                violations.push(MetaViolation {
                    path: "/query".into(),
                    rule: "type",
                    message: "`/query` must be a string: what the tool should do, in a few words."
                        .into(),
                });
                ""
            }
            None => {
                violations.push(MetaViolation {
                    path: "/query".into(),
                    rule: "required",
                    message: "`/query` is required: what the tool should do, in a few words."
                        .into(),
                });
                ""
            }
        };
        let limit = match present(arguments, "limit") {
            None => DEFAULT_FOUND,
            Some(limit) => match whole_number(limit)
                .and_then(|n| usize::try_from(n).ok())
                .filter(|n| (1..=MOST_FOUND).contains(n))
            {
                Some(n) => n,
                None => {
                    violations.push(MetaViolation {
                        path: "/limit".into(),
                        rule: match whole_number(limit) {
                            None => "type",
                            Some(n) if n < 1 => "minimum",
                            Some(_) => "maximum",
                        },
                        message: format!(
                            "`/limit` must be a whole number from 1 to {MOST_FOUND} (default {DEFAULT_FOUND}), not {}.",
                            toolschema_text::shorten::shorten(&limit.to_string(), 40)
                        ),
                    });
                    DEFAULT_FOUND
                }
            },
        };
        let with_schema = match present(arguments, "detail") {
            None => false,
            Some(Value::String(detail)) if detail == "brief" => false,
            Some(Value::String(detail)) if detail == "schema" => true,
            Some(other) => {
                violations.push(MetaViolation {
                    path: "/detail".into(),
                    rule: "enum",
                    message: format!(
                        "`/detail` must be \"brief\" or \"schema\", not {}.",
                        toolschema_text::shorten::shorten(&other.to_string(), 40)
                    ),
                });
                false
            }
        };
        if !violations.is_empty() {
            return Err(MetaRefusal::InvalidArguments(violations));
        }
        let (total, hits) = self.search(query, limit);
        let tools: Vec<Value> = hits
            .iter()
            .filter_map(|hit| {
                let exposed = self.exposed(hit.name)?;
                let def = &exposed.def;
                let mut found = Map::new();
                found.insert("name".into(), Value::from(hit.name));
                if let Some(title) = &def.title {
                    found.insert("title".into(), Value::from(&**title));
                }
                found.insert("description".into(), Value::from(&*def.description));
                // Three decimals: enough to order by, stable to read.
                let score = (f64::from(hit.score) * 1000.0).round() / 1000.0;
                found.insert("score".into(), json!(score.max(0.0)));
                if with_schema {
                    let full: Value =
                        serde_json::from_str(exposed.full.get(revision)).unwrap_or(Value::Null);
                    if let Some(input) = full.get("inputSchema") {
                        found.insert("inputSchema".into(), input.clone());
                    }
                }
                Some(Value::Object(found))
            })
            .collect();
        answer(json!({
            "total": total,
            "returned": tools.len(),
            "tools": tools,
        }))
    }
}

fn answer(structured: Value) -> Result<MetaAnswer, MetaRefusal> {
    let text = structured.to_string();
    Ok(MetaAnswer { structured, text })
}

fn invalid(path: &str, rule: &'static str, message: String) -> MetaRefusal {
    MetaRefusal::InvalidArguments(vec![MetaViolation {
        path: path.into(),
        rule,
        message,
    }])
}

/// The whole number `value` holds, `8` and `8.0` alike (JSON Schema's
/// `integer` is any number without a fraction, and every integer slot of a
/// derived or configured tool takes `8.0`); `None` for `8.5` and for what
/// is not a number.
fn whole_number(value: &Value) -> Option<i128> {
    match (value.as_i64(), value.as_u64(), value.as_f64()) {
        (Some(n), _, _) => Some(n.into()),
        (_, Some(n), _) => Some(n.into()),
        // The cast saturates: `1e300` stays above any limit.
        (_, _, Some(n)) if n.fract() == 0.0 => Some(n as i128),
        _ => None,
    }
}

/// `arguments` as an object with only `known` properties; a property sent
/// as `null` counts as absent (as strict dialects send optional ones).
fn object_of<'a>(
    arguments: &'a Value,
    known: &[&str],
    violations: &mut Vec<MetaViolation>,
) -> Result<&'a Map<String, Value>, MetaRefusal> {
    let Value::Object(object) = arguments else {
        return Err(invalid(
            "",
            "type",
            "the arguments must be an object.".into(),
        ));
    };
    for key in object.keys().filter(|key| !known.contains(&key.as_str())) {
        violations.push(MetaViolation {
            path: format!("/{}", key.replace('~', "~0").replace('/', "~1")),
            rule: "additionalProperties",
            message: format!(
                "`{}` is not an argument: the arguments are {}.",
                toolschema_text::shorten::shorten(key, 60),
                known
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        });
    }
    match violations.is_empty() {
        true => Ok(object),
        false => Err(MetaRefusal::InvalidArguments(core::mem::take(violations))),
    }
}

/// The value of `key`, unless absent or `null`.
fn present<'a>(arguments: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    arguments.get(key).filter(|value| !value.is_null())
}

/// `names` as 1 to [`MOST_FOUND`] distinct strings.
fn names_of(names: &Value) -> Result<Vec<&str>, MetaRefusal> {
    let rule = format!("`/names` must hold 1 to {MOST_FOUND} distinct tool names (strings).");
    let Some(list) = names.as_array() else {
        return Err(invalid("/names", "type", rule));
    };
    let names: Vec<&str> = list.iter().filter_map(Value::as_str).collect();
    if names.len() != list.len() {
        return Err(invalid("/names", "type", rule));
    }
    if names.is_empty() || names.len() > MOST_FOUND {
        let keyword = if names.is_empty() {
            "minItems"
        } else {
            "maxItems"
        };
        return Err(invalid("/names", keyword, rule));
    }
    let mut seen = std::collections::HashSet::new();
    if !names.iter().all(|name| seen.insert(*name)) {
        return Err(invalid("/names", "uniqueItems", rule));
    }
    Ok(names)
}
