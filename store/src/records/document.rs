//! The records as the configuration's document (the file's shape), and
//! problems located at the records they are about.

use super::{Body, Kind, Problem, Problems, SETTINGS, Version};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use toolschema_catalog::{ConfigErrors, ConfigLocation};
use toolschema_runtime::parallel;

/// The configuration's name in messages about the stored records.
pub(super) const SOURCE: &str = "(catalog store)";

/// The records as the configuration's JSON document (the file's shape),
/// with how to name each entry of each list in problems.
pub(super) struct Document {
    pub(super) json: Map<String, Value>,
    /// For each list (`client`, `gateway_tool`, `mapping`, …), its entries
    /// in the order written.
    pub(super) entries: BTreeMap<&'static str, Vec<Entry>>,
}

/// An entry of the document: a record, or a mapping.
pub(super) struct Entry {
    /// How the record is named in problems.
    record: String,
    /// For a mapping or a tool from configuration: its version numbers, in
    /// the order written, so that `version[1]` names version 2.
    versions: Vec<u32>,
    /// The name of the tool whose versions those are.
    pub(super) tool: Option<String>,
}

/// The configuration's document of records: the `settings` (by
/// [`SETTINGS`]' order), each kind's records in order, made tables by
/// `table` (on every core: at 100,000 tools this is most of the
/// document's making), then the `mapped` tools' versions as mappings.
pub(super) fn assemble<T: Send>(
    settings: [Option<Body>; SETTINGS.len()],
    kinds: [(Kind, Vec<T>); Kind::ALL.len()],
    mapped: BTreeMap<&str, Vec<(u32, &Version)>>,
    table: impl Fn(Kind, T, &mut Vec<Problem>) -> Option<RecordTable> + Sync,
) -> Result<Document, Problems> {
    let mut out = Document {
        json: Map::new(),
        entries: BTreeMap::new(),
    };
    let mut problems = Vec::new();
    for (name, body) in SETTINGS.into_iter().zip(settings) {
        if let Some(body) = body {
            let record = format!("setting \"{name}\"");
            if let Some(table) = table_of(body, &record, &mut problems) {
                out.json.insert(name.to_owned(), Value::Object(table));
            }
        }
    }
    for (kind, records) in kinds {
        let tables = parallel::map(records, |record| {
            let mut found = Vec::new();
            let table = table(kind, record, &mut found);
            (table, found)
        });
        for (table, found) in tables {
            problems.extend(found);
            if let Some((table, record, tool, numbers)) = table {
                out.push(kind.table(), table, record, tool, numbers);
            }
        }
    }
    mappings(mapped, &mut out, &mut problems);
    match problems.is_empty() {
        true => Ok(out),
        false => Err(Problems(problems)),
    }
}

/// A record taken out of its records: its id, its body, and a configured
/// tool's versions.
pub(super) type OwnedRecord = (String, Body, Vec<(u32, Version)>);

/// A record as the configuration's table, with how problems name it, its
/// tool's name and its version numbers, for [`Document::push`].
pub(super) type RecordTable = (Value, String, Option<String>, Vec<u32>);

/// The record `id` of `kind` (`body`, and a configured tool's `versions`)
/// as the configuration's table; `None` when it is not a table (a
/// problem).
pub(super) fn record_table(
    kind: Kind,
    id: &str,
    body: Body,
    versions: Vec<(u32, Version)>,
    problems: &mut Vec<Problem>,
) -> Option<RecordTable> {
    let record = format!("{kind} \"{id}\"");
    let mut table = table_of(body, &record, problems)?;
    let mut numbers = Vec::new();
    if kind == Kind::ConfiguredTool {
        let versions = definitions(id, versions, &mut numbers, problems);
        table.insert("version".into(), Value::Array(versions));
    }
    let tool = (kind == Kind::ConfiguredTool).then(|| id.to_owned());
    table.insert(kind.id_field().to_owned(), Value::String(id.to_owned()));
    Some((Value::Object(table), record, tool, numbers))
}

pub(super) fn definitions(
    id: &str,
    versions: Vec<(u32, Version)>,
    numbers: &mut Vec<u32>,
    problems: &mut Vec<Problem>,
) -> Vec<Value> {
    let mut out = Vec::new();
    for (number, version) in versions {
        let record = format!("tool_version \"{id}\" {number}");
        let Some(definition) = version.definition else {
            problems.push(Problem {
                record,
                field: String::new(),
                message: format!("a version of the configured tool `{id}` needs a definition (its description, method and path or operation, arguments and results)"),
            });
            continue;
        };
        if let Some(mut fields) = table_of(definition, &record, problems) {
            fields.insert("version".into(), number.into());
            fields.insert("status".into(), version.status.name().into());
            out.push(Value::Object(fields));
            numbers.push(number);
        }
    }
    out
}

/// The mappings: the versions of tools that are not configured tools
/// (`versions`, by tool, once the configured tools took theirs).
fn mappings(
    versions: BTreeMap<&str, Vec<(u32, &Version)>>,
    out: &mut Document,
    problems: &mut Vec<Problem>,
) {
    for (name, versions) in versions {
        let mut listed = Vec::new();
        let mut numbers = Vec::new();
        for (number, version) in versions {
            if version.definition.is_some() {
                problems.push(Problem {
                    record: format!("tool_version \"{name}\" {number}"),
                    field: String::new(),
                    message: format!("has a definition but no gateway_tool record names `{name}`: add the tool (its downstream) or remove the definition"),
                });
                continue;
            }
            listed.push(serde_json::json!({"version": number, "status": version.status.name()}));
            numbers.push(number);
        }
        if listed.is_empty() {
            continue;
        }
        let table = serde_json::json!({"tool": name, "versions": listed});
        let record = format!("mapping \"{name}\"");
        out.push("mapping", table, record, Some(name.to_owned()), numbers);
    }
}

impl Document {
    /// Adds `table` to the list `list`, named `record` in problems.
    pub(super) fn push(
        &mut self,
        list: &'static str,
        table: Value,
        record: String,
        tool: Option<String>,
        versions: Vec<u32>,
    ) {
        let entries = self
            .json
            .entry(list)
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(entries) = entries {
            entries.push(table);
        }
        self.entries.entry(list).or_default().push(Entry {
            record,
            versions,
            tool,
        });
    }
}

/// The checks' problems, each at its record and field. Past the first
/// [`MAX_LISTED_PROBLEMS`](toolschema_catalog::MAX_LISTED_PROBLEMS), a last
/// problem says how many more there are.
pub(super) fn locate(
    entries: &BTreeMap<&'static str, Vec<Entry>>,
    errors: &ConfigErrors,
) -> Problems {
    let mut problems: Vec<Problem> = errors
        .iter()
        .map(|error| problem(entries, error.location(), error.message()))
        .collect();
    if errors.omitted() > 0 {
        problems.push(Problem {
            record: "catalog".into(),
            field: String::new(),
            message: format!(
                "and {} more problems, not listed; fix these and the rest will be reported",
                errors.omitted()
            ),
        });
    }
    Problems(problems)
}

/// The problem at `location` (`client[2].toolsets[0]`, `server.name`,
/// `gateway_tool[0].version[1].argument[0].name`): its record, and the
/// field in the record.
pub(super) fn problem(
    entries: &BTreeMap<&'static str, Vec<Entry>>,
    location: &ConfigLocation,
    message: &str,
) -> Problem {
    let at = |record: String, field: String| Problem {
        record,
        field,
        message: message.to_owned(),
    };
    let Some(section) = location.section() else {
        return at("catalog".into(), location.to_string());
    };
    if section.is_setting() {
        let field = location.field().to_owned();
        return at(format!("setting \"{}\"", section.key()), field);
    }
    let entry = location
        .entry()
        .and_then(|index| entries.get(section.key())?.get(index));
    let Some(entry) = entry else {
        return at("catalog".into(), location.to_string());
    };
    // A version's field names the version.
    let number = location.version().and_then(|i| entry.versions.get(i));
    match (number, &entry.tool) {
        (Some(number), Some(tool)) => at(
            format!("tool_version \"{tool}\" {number}"),
            location.field().to_owned(),
        ),
        _ => at(entry.record.clone(), location.within_entry()),
    }
}

/// A TOML table as a JSON object.
pub(super) fn json_table(value: toml::Value) -> Body {
    match serde_json::to_value(value) {
        Ok(Value::Object(map)) => map,
        _ => Body::new(),
    }
}

pub(super) fn as_body(value: Value) -> Body {
    match value {
        Value::Object(map) => map,
        _ => Body::new(),
    }
}

pub(super) fn take_text(body: &mut Body, key: &str) -> String {
    match body.remove(key) {
        Some(Value::String(text)) => text,
        _ => String::new(),
    }
}

pub(super) fn take_list(body: &mut Body, key: &str) -> Vec<Value> {
    match body.remove(key) {
        Some(Value::Array(items)) => items,
        _ => Vec::new(),
    }
}

/// A record's body as a table of the document; `null`, which the
/// configuration cannot hold, is a problem of `record`.
pub(super) fn table_of(
    body: Body,
    record: &str,
    problems: &mut Vec<Problem>,
) -> Option<Map<String, Value>> {
    // Its path is only written out for a null found.
    let null = body
        .iter()
        .filter(|(_, value)| holds_null(value))
        .find_map(|(key, value)| null_at(value, key.clone()));
    match null {
        None => Some(body),
        Some(path) => {
            problems.push(Problem {
                record: record.to_owned(),
                field: String::new(),
                message: format!(
                    "`{path}` is null, which the configuration cannot hold: leave the field out"
                ),
            });
            None
        }
    }
}

/// Whether `value` is or holds a `null`.
pub(super) fn holds_null(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(items) => items.iter().any(holds_null),
        Value::Object(map) => map.values().any(holds_null),
        _ => false,
    }
}

/// The path of the first `null` in `value`.
pub(super) fn null_at(value: &Value, path: String) -> Option<String> {
    match value {
        Value::Null => Some(path),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| null_at(item, format!("{path}[{i}]"))),
        Value::Object(map) => map.iter().find_map(|(key, item)| {
            let path = match path.is_empty() {
                true => key.clone(),
                false => format!("{path}.{key}"),
            };
            null_at(item, path)
        }),
        _ => None,
    }
}
