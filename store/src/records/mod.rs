//! The catalog configuration as the store holds it: records, each one
//! section of the configuration file (a tenant, a client application, a
//! toolset, a downstream, a tool from configuration, a version of a
//! mapping, a setting), and the way between records and the file's TOML.
//!
//! Records are checked as a JSON document of the file's shape, read into
//! the configuration model a file is read into and checked by the very
//! checks a file passes ([`Config::from_json`]); each problem's key is then
//! located at its record and field.

use core::fmt;
use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};
use toolschema_catalog::{Config, ConfigErrors, Status};
use toolschema_config::{Delta, RECORD_ID_RULE, Touched, is_record_id};
use toolschema_runtime::call::Registry;

mod document;
use document::{
    Document, OwnedRecord, SOURCE, as_body, assemble, json_table, locate, record_table, take_list,
    take_text,
};

/// The body of a record: its fields other than its identifier, as JSON.
pub type Body = Map<String, Value>;

/// The kinds of records identified by an `id`, each a table of the store
/// and an array of tables of the configuration file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// `[[tenant]]`.
    Tenant,
    /// `[[client]]`: a client application.
    Client,
    /// `[[toolset]]`.
    Toolset,
    /// `[[downstream]]`: an API that tools from configuration call.
    Downstream,
    /// `[[gateway_tool]]`: a tool from configuration, without its versions
    /// (those are [`Version`]s with a definition).
    ConfiguredTool,
}

impl Kind {
    /// Every kind, in the order the configuration is rendered.
    pub const ALL: [Kind; 5] = [
        Kind::Tenant,
        Kind::Toolset,
        Kind::Client,
        Kind::Downstream,
        Kind::ConfiguredTool,
    ];

    /// The table, and the configuration file's array of tables.
    pub fn table(self) -> &'static str {
        match self {
            Kind::Tenant => "tenant",
            Kind::Client => "client",
            Kind::Toolset => "toolset",
            Kind::Downstream => "downstream",
            Kind::ConfiguredTool => "gateway_tool",
        }
    }

    /// The field that holds a record's identifier in the configuration file.
    fn id_field(self) -> &'static str {
        match self {
            Kind::ConfiguredTool => "name",
            _ => "id",
        }
    }

    /// The kind named `name` (a table name, as in the admin API's paths).
    ///
    /// ```
    /// use toolschema_store::Kind;
    ///
    /// assert_eq!(Kind::from_name("client"), Some(Kind::Client));
    /// assert_eq!(Kind::from_name("clients"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|kind| kind.table() == name)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.table())
    }
}

/// The settings the configuration file holds as single tables.
pub const SETTINGS: [&str; 3] = ["catalog", "server", "authorization"];

/// One version of a mapping: its status, and for a tool from configuration
/// its definition (the fields of `[[gateway_tool.version]]` other than
/// `version` and `status`).
pub type Version = toolschema_config::VersionRecord;

/// The whole catalog configuration, as records.
#[derive(Debug, Clone, Default)]
pub struct Records {
    /// `[catalog]`, `[server]`, `[authorization]`, by name.
    pub settings: BTreeMap<String, Body>,
    /// The records of each kind, by identifier (byte order).
    pub records: BTreeMap<Kind, BTreeMap<String, Body>>,
    /// Every mapping's versions, by tool name and number.
    pub versions: BTreeMap<(String, u32), Version>,
}

impl PartialEq for Records {
    /// Equal records: a kind without records equals a kind left out.
    fn eq(&self, other: &Records) -> bool {
        self.settings == other.settings
            && self.versions == other.versions
            && Kind::ALL
                .into_iter()
                .all(|kind| self.of(kind).eq(other.of(kind)))
    }
}

/// Where a problem is: the record (`client "acme-finance"`,
/// `tool_version "weather.current" 2`, `setting "server"`) and the field
/// in it (`toolsets[0]`; empty for the record as a whole).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The record.
    pub record: String,
    /// The field, as a path in the record (`argument[1].name`).
    pub field: String,
    /// What is wrong and what to do.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.field.is_empty() {
            true => write!(f, "{}: {}", self.record, self.message),
            false => write!(f, "{}: {}: {}", self.record, self.field, self.message),
        }
    }
}

/// Every problem of the stored configuration or of a change to it (never
/// empty), all at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problems(pub Vec<Problem>);

impl fmt::Display for Problems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0.len();
        write!(
            f,
            "{n} problem{} in the catalog configuration:",
            if n == 1 { "" } else { "s" }
        )?;
        for problem in &self.0 {
            write!(f, "\n  {problem}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Problems {}

impl Records {
    /// The records of a configuration file, checked first as the file
    /// itself would be (problems located at file, line and key).
    pub fn from_toml(text: &str, file: &str, registry: &Registry) -> Result<Records, ConfigErrors> {
        Config::from_toml(text, file, registry)?;
        // The file passed the checks: it parses.
        Ok(Records::read_toml(text, file).unwrap_or_default())
    }

    /// The records of part of a configuration file (say, what `toolschema
    /// import` writes: downstreams and tools from configuration), read but
    /// not checked: the configuration they end up in is checked as a whole.
    /// Only a file that is not TOML is refused here.
    pub fn read_toml(text: &str, file: &str) -> Result<Records, Problems> {
        let document: toml::Table = toml::from_str(text).map_err(|error| {
            let line = error.span().map_or(1, |span| {
                text[..span.start.min(text.len())].matches('\n').count() + 1
            });
            Problems(vec![Problem {
                record: format!("{file}:{line}"),
                field: String::new(),
                message: error.message().trim().to_owned(),
            }])
        })?;
        let mut records = Records::default();
        for (key, value) in document {
            if SETTINGS.contains(&key.as_str()) {
                records.settings.insert(key, json_table(value));
                continue;
            }
            let tables = match value {
                toml::Value::Array(tables) => tables,
                _ => continue,
            };
            if key == "mapping" {
                for table in tables {
                    let mut body = json_table(table);
                    let tool = take_text(&mut body, "tool");
                    for version in take_list(&mut body, "versions") {
                        let mut version = as_body(version);
                        records.insert_version(&tool, &mut version, false);
                    }
                }
                continue;
            }
            let Some(kind) = Kind::from_name(&key) else {
                continue;
            };
            for table in tables {
                let mut body = json_table(table);
                let id = take_text(&mut body, kind.id_field());
                if kind == Kind::ConfiguredTool {
                    for version in take_list(&mut body, "version") {
                        let mut fields = as_body(version);
                        records.insert_version(&id, &mut fields, true);
                    }
                }
                records.records.entry(kind).or_default().insert(id, body);
            }
        }
        Ok(records)
    }

    /// Adds a version read from a file: `fields` holds `version`, `status`
    /// and, for a configured tool (`configured`), its definition.
    fn insert_version(&mut self, tool: &str, fields: &mut Body, configured: bool) {
        let number = fields
            .remove("version")
            .and_then(|n| n.as_u64())
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(0);
        let status = fields
            .remove("status")
            .and_then(|s| s.as_str().and_then(Status::from_name))
            .unwrap_or(Status::Draft);
        let definition = configured.then(|| std::mem::take(fields));
        self.versions
            .insert((tool.to_owned(), number), Version { status, definition });
    }

    /// The records of `kind`.
    pub fn of(&self, kind: Kind) -> impl Iterator<Item = (&str, &Body)> {
        self.records
            .get(&kind)
            .into_iter()
            .flatten()
            .map(|(id, body)| (id.as_str(), body))
    }

    /// The record `id` of `kind`.
    pub fn get(&self, kind: Kind, id: &str) -> Option<&Body> {
        self.records.get(&kind)?.get(id)
    }

    /// The record `id` of `kind`, to change.
    pub fn get_mut(&mut self, kind: Kind, id: &str) -> Option<&mut Body> {
        self.records.get_mut(&kind)?.get_mut(id)
    }

    /// The versions of `tool`, by number.
    pub fn versions_of<'a>(&'a self, tool: &'a str) -> impl Iterator<Item = (u32, &'a Version)> {
        self.versions
            .range((tool.to_owned(), 0)..=(tool.to_owned(), u32::MAX))
            .map(|((_, number), version)| (*number, version))
    }

    /// The records as the configuration's JSON document: settings, then
    /// each kind by identifier in byte order, then mappings, so that every
    /// replica reads the same document from the same records. With
    /// `only_tools`, the configured tools are only those it names (the
    /// others are kept from a previous check). A record the configuration
    /// cannot hold (a `null`, a version without its definition) is a
    /// problem here.
    fn document(&self, only_tools: Option<&BTreeSet<String>>) -> Result<Document, Problems> {
        self.refuse_empty()?;
        let settings = SETTINGS.map(|name| self.settings.get(name).cloned());
        let kinds = Kind::ALL.map(|kind| {
            let records: Vec<(&str, &Body)> = self
                .of(kind)
                .filter(|(id, _)| {
                    kind != Kind::ConfiguredTool || only_tools.is_none_or(|only| only.contains(*id))
                })
                .collect();
            (kind, records)
        });
        // The other tools' versions are mappings, by tool.
        let mut mapped: BTreeMap<&str, Vec<(u32, &Version)>> = BTreeMap::new();
        for ((tool, number), version) in &self.versions {
            if self.get(Kind::ConfiguredTool, tool).is_none() {
                mapped.entry(tool).or_default().push((*number, version));
            }
        }
        assemble(settings, kinds, mapped, |kind, (id, body), problems| {
            record_table(
                kind,
                id,
                body.clone(),
                self.own_versions(kind, id),
                problems,
            )
        })
    }

    /// The records as [`document`](Self::document) makes them the
    /// configuration's document (all of them), moved into it rather than
    /// copied.
    fn into_document(self) -> Result<Document, Problems> {
        self.refuse_empty()?;
        let Records {
            mut settings,
            mut records,
            versions,
        } = self;
        let settings = SETTINGS.map(|name| settings.remove(name));
        let configured = records.get(&Kind::ConfiguredTool);
        let mut own: BTreeMap<String, Vec<(u32, Version)>> = BTreeMap::new();
        let mut mapped: BTreeMap<String, Vec<(u32, Version)>> = BTreeMap::new();
        for ((tool, number), version) in versions {
            let of = match configured.is_some_and(|tools| tools.contains_key(&tool)) {
                true => &mut own,
                false => &mut mapped,
            };
            of.entry(tool).or_default().push((number, version));
        }
        let kinds = Kind::ALL.map(|kind| {
            let of_kind = records.remove(&kind).unwrap_or_default();
            let records: Vec<OwnedRecord> = of_kind
                .into_iter()
                .map(|(id, body)| {
                    let versions = match kind {
                        Kind::ConfiguredTool => own.remove(&id).unwrap_or_default(),
                        _ => Vec::new(),
                    };
                    (id, body, versions)
                })
                .collect();
            (kind, records)
        });
        let mapped = mapped
            .iter()
            .map(|(tool, versions)| {
                let versions = versions.iter().map(|(n, v)| (*n, v)).collect();
                (tool.as_str(), versions)
            })
            .collect();
        assemble(
            settings,
            kinds,
            mapped,
            |kind, (id, body, versions), problems| {
                record_table(kind, &id, body, versions, problems)
            },
        )
    }

    /// The versions of the record `id` of `kind`, copied: a configured
    /// tool's own, none for any other record.
    fn own_versions(&self, kind: Kind, id: &str) -> Vec<(u32, Version)> {
        match kind {
            Kind::ConfiguredTool => self
                .versions_of(id)
                .map(|(number, version)| (number, version.clone()))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Refuses records that hold nothing at all: the store is new.
    fn refuse_empty(&self) -> Result<(), Problems> {
        if *self == Records::default() {
            return Err(Problems(vec![Problem {
                record: "catalog".into(),
                field: String::new(),
                message: "the catalog store holds no configuration yet: load one with `toolschema admin load <file>` (or the admin API's PUT /v1/catalog)".into(),
            }]));
        }
        Ok(())
    }

    /// The records as a configuration file, in TOML: settings, then each
    /// kind by identifier in byte order, then mappings.
    pub fn render(&self) -> Result<String, Problems> {
        let mut document = self.document(None)?;
        let order = SETTINGS
            .into_iter()
            .chain(Kind::ALL.map(Kind::table))
            .chain(["mapping"]);
        let mut text = String::new();
        for name in order {
            let Some(section) = document.json.remove(name) else {
                continue;
            };
            let mut table = Map::new();
            table.insert(name.to_owned(), section);
            // Checked above: objects, arrays and scalars, no nulls.
            match toml::to_string(&table) {
                Ok(fragment) => text.push_str(&fragment),
                Err(error) => {
                    return Err(Problems(vec![Problem {
                        record: name.to_owned(),
                        field: String::new(),
                        message: format!("cannot be written as configuration: {error}"),
                    }]));
                }
            }
            text.push('\n');
        }
        Ok(text)
    }

    /// Checks the records as a configuration file is checked (the same
    /// typed model, the same checks, no text in between), against the
    /// tools of `registry`; problems are located at record and field.
    pub fn check(&self, registry: &Registry) -> Result<Config, Problems> {
        let Document { json, entries } = self.document(None)?;
        Config::from_json(json, SOURCE, registry).map_err(|errors| locate(&entries, &errors))
    }

    /// Checks the records as [`check`](Self::check) does, consuming them:
    /// they are moved into the check's document rather than copied, so
    /// they and their checked configuration are never held together (at
    /// 100,000 configured tools, the records are 350 MiB). For a replica
    /// that then reads them again, or does not need them.
    ///
    /// ```
    /// use toolschema_runtime::call::Registry;
    /// use toolschema_store::Records;
    ///
    /// let text = "[[tenant]]\nid = \"acme\"\n\n[[client]]\nid = \"acme-app\"\ntenant = \"acme\"\n";
    /// let records = Records::from_toml(text, "catalog.toml", &Registry::new()).unwrap();
    /// let checked = records.check(&Registry::new()).unwrap();
    /// let consumed = records.into_config(&Registry::new()).unwrap();
    /// assert_eq!(format!("{consumed:?}"), format!("{checked:?}"));
    /// ```
    pub fn into_config(self, registry: &Registry) -> Result<Config, Problems> {
        let Document { json, entries } = self.into_document()?;
        Config::from_json(json, SOURCE, registry).map_err(|errors| locate(&entries, &errors))
    }

    /// The configuration of these records, which are those `previous`
    /// was checked from after the change `delta`: `previous` with the
    /// change applied where it can be ([`Config::apply`]), with what it
    /// touched; else these records checked whole (which says where the
    /// problems are), keeping from `previous` the configured tools the
    /// change left alone when it touched no setting or downstream
    /// ([`Config::from_json_after`]).
    pub(crate) fn check_change(
        &self,
        registry: &Registry,
        previous: &Config,
        delta: &Delta,
    ) -> Result<(Config, Option<Touched>), Problems> {
        if let Some((config, touched)) = previous.apply(delta, registry) {
            return Ok((config, Some(touched)));
        }
        if delta.touches_everything() {
            return self.check(registry).map(|config| (config, None));
        }
        let changed: BTreeSet<String> = delta.tools.keys().cloned().collect();
        let Document { json, entries } = self.document(Some(&changed))?;
        Config::from_json_after(json, SOURCE, registry, previous, |tool| {
            !changed.contains(tool)
        })
        .map(|config| (config, None))
        .map_err(|errors| locate(&entries, &errors))
    }
}

/// Some of the records: what an action may write.
#[derive(Debug, Default)]
pub(crate) struct Scope {
    /// Records by kind and identifier.
    pub(crate) records: Vec<(Kind, String)>,
    /// Tools, each with all its versions.
    pub(crate) tools: Vec<String>,
    /// Settings by name.
    pub(crate) settings: Vec<String>,
}

impl Records {
    /// A copy of the records in `scope` (those that exist), and nothing
    /// else.
    pub(crate) fn part(&self, scope: &Scope) -> Records {
        let mut part = Records::default();
        for name in &scope.settings {
            if let Some(body) = self.settings.get(name) {
                part.settings.insert(name.clone(), body.clone());
            }
        }
        for (kind, id) in &scope.records {
            if let Some(body) = self.get(*kind, id) {
                part.records
                    .entry(*kind)
                    .or_default()
                    .insert(id.clone(), body.clone());
            }
        }
        for tool in &scope.tools {
            for (number, version) in self.versions_of(tool) {
                part.versions
                    .insert((tool.clone(), number), version.clone());
            }
        }
        part
    }
}

/// The first text in what `after` changes from `before` that PostgreSQL
/// cannot keep (a NUL character, U+0000, in an identifier or a value), as
/// the problem to report: checked before anything is written, so that the
/// answer is the operator's mistake and not the database's error.
pub(crate) fn unstorable(before: &Records, after: &Records) -> Option<Problem> {
    let nul = |text: &str| text.contains('\0');
    let shown = |text: &str| text.replace('\0', "\\u0000");
    let problem = |record: String| Problem {
        record,
        field: String::new(),
        message: "holds a NUL character (U+0000), which the catalog store cannot keep; remove it"
            .to_owned(),
    };
    for (name, body) in &after.settings {
        if before.settings.get(name) != Some(body) && holds(body, &nul) {
            return Some(problem(format!("setting \"{name}\"")));
        }
    }
    for kind in Kind::ALL {
        for (id, body) in after.of(kind) {
            if before.get(kind, id) != Some(body) && (nul(id) || holds(body, &nul)) {
                return Some(problem(format!("{kind} \"{}\"", shown(id))));
            }
        }
    }
    for ((tool, number), version) in &after.versions {
        let changed = before.versions.get(&(tool.clone(), *number)) != Some(version);
        if changed && (nul(tool) || version.definition.as_ref().is_some_and(|d| holds(d, &nul))) {
            return Some(problem(format!(
                "tool_version \"{}\" {number}",
                shown(tool)
            )));
        }
    }
    None
}

/// The records created from `before` to `after` whose identifiers do not
/// follow [`is_record_id`], each a problem at its record; records that
/// existed before are left as they are (a store written before the rule
/// keeps working; such a record can be deleted and made again).
pub(crate) fn misnamed(before: &Records, after: &Records) -> Vec<Problem> {
    let mut problems = Vec::new();
    for kind in Kind::ALL {
        for (id, _) in after.of(kind) {
            if !is_record_id(id) && before.get(kind, id).is_none() {
                problems.push(Problem {
                    record: format!("{kind} \"{}\"", id.escape_debug()),
                    field: kind.id_field().to_owned(),
                    message: RECORD_ID_RULE.to_owned(),
                });
            }
        }
    }
    problems
}

/// Whether a key or string anywhere in `body` passes `test`.
fn holds(body: &Body, test: &impl Fn(&str) -> bool) -> bool {
    let mut stack: Vec<&Value> = body.values().collect();
    if body.keys().any(|key| test(key)) {
        return true;
    }
    while let Some(value) = stack.pop() {
        match value {
            Value::String(text) if test(text) => return true,
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => {
                if map.keys().any(|key| test(key)) {
                    return true;
                }
                stack.extend(map.values());
            }
            _ => {}
        }
    }
    false
}

/// The versions of the configured tool `id`, each its definition with
/// its number and status; their numbers pushed on `numbers`.
#[cfg(test)]
mod tests {
    use super::*;

    fn demo() -> (Records, Registry) {
        let registry = toolschema_demo::registry();
        let records = Records::from_toml(toolschema_demo::CATALOG_TOML, "catalog.toml", &registry)
            .expect("the demo checks");
        (records, registry)
    }

    fn places(problems: &Problems) -> Vec<(&str, &str)> {
        problems
            .0
            .iter()
            .map(|p| (p.record.as_str(), p.field.as_str()))
            .collect()
    }

    #[test]
    fn a_versions_problem_names_the_tool_version_and_its_field() {
        let registry = toolschema_demo::registry();
        let text = format!(
            "{}\n{}",
            toolschema_demo::CATALOG_TOML,
            r#"
[[downstream]]
id = "crm"
base_url = "https://crm.example.com"

[[gateway_tool]]
name = "crm.lookup"
downstream = "crm"
[[gateway_tool.version]]
version = 1
status = "published"
description = "Look a customer up."
method = "GET"
path = "/customers/{id}"
argument = [{ name = "id", source = "id", in = "path", type = "string", required = true }]
[[gateway_tool.version]]
version = 2
status = "draft"
description = "Look a customer up."
method = "GET"
path = "/customers/{id}"
argument = [{ name = "id", source = "id", in = "path", type = "string", required = true }]
"#
        );
        let mut records = Records::from_toml(&text, "catalog.toml", &registry).expect("checks");
        // The second version's argument is placed nowhere a request has,
        // and so its path's variable has no argument.
        let version = records
            .versions
            .get_mut(&("crm.lookup".to_owned(), 2))
            .expect("version 2");
        let definition = version.definition.as_mut().expect("a definition");
        definition.insert(
            "argument".into(),
            serde_json::json!([{"name": "id", "source": "id", "in": "cookie", "type": "string"}]),
        );
        let problems = records.check(&registry).expect_err("refused");
        assert_eq!(
            places(&problems),
            [
                ("tool_version \"crm.lookup\" 2", "argument[0].in"),
                ("tool_version \"crm.lookup\" 2", "path"),
            ],
            "{problems}"
        );
    }

    #[test]
    fn fields_of_the_wrong_type_are_located_at_their_records_all_at_once() {
        let (mut records, registry) = demo();
        let client = records
            .get_mut(Kind::Client, "acme-finance")
            .expect("client");
        client.insert("toolsets".into(), serde_json::json!(["acme-billing", 7]));
        let toolset = records
            .get_mut(Kind::Toolset, "acme-billing")
            .expect("toolset");
        toolset.insert("mode".into(), serde_json::json!(3));
        toolset.insert("modez".into(), serde_json::json!("full"));
        let problems = records.check(&registry).expect_err("refused");
        // One problem a record (its first), every record's at once.
        assert_eq!(
            places(&problems),
            [
                ("client \"acme-finance\"", "toolsets[1]"),
                ("toolset \"acme-billing\"", "mode"),
            ],
            "{problems}"
        );
        assert!(
            problems.0[0]
                .message
                .contains("integer `7`, expected a string"),
            "{problems}"
        );
        let toolset = records
            .get_mut(Kind::Toolset, "acme-billing")
            .expect("toolset");
        toolset.insert("mode".into(), serde_json::json!("full"));
        let problems = records.check(&registry).expect_err("refused");
        assert!(
            problems.0[1]
                .message
                .starts_with("unknown field `modez`, expected one of"),
            "{problems}"
        );
    }

    #[test]
    fn a_reference_problem_is_located_after_the_shapes_are_right() {
        let (mut records, registry) = demo();
        let toolset = records
            .get_mut(Kind::Toolset, "acme-billing")
            .expect("toolset");
        toolset.insert("mode".into(), serde_json::json!("ful"));
        let problems = records.check(&registry).expect_err("refused");
        assert_eq!(places(&problems), [("toolset \"acme-billing\"", "mode")]);
        assert!(
            problems.0[0].message.contains("unknown mode `ful`"),
            "{problems}"
        );
    }

    #[test]
    fn records_moved_into_the_check_check_as_records_copied() {
        let registry = Registry::new();
        // Two configured tools, and a client named as one of them.
        let text = r#"
[[tenant]]
id = "acme"

[[client]]
id = "items.get"
tenant = "acme"

[[downstream]]
id = "api"
base_url = "https://api.example.com"

[[gateway_tool]]
name = "items.get"
downstream = "api"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Reads an item."
method = "GET"
path = "/items"

[[gateway_tool.version]]
version = 2
status = "draft"
description = "Reads an item, and its owner."
method = "GET"
path = "/v2/items"

[[gateway_tool]]
name = "items.list"
downstream = "api"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Lists the items."
method = "GET"
path = "/items/all"
"#;
        let valid = Records::from_toml(text, "catalog.toml", &registry).expect("checks");
        let mut no_definition = valid.clone();
        no_definition
            .versions
            .get_mut(&("items.get".to_owned(), 2))
            .expect("a version")
            .definition = None;
        let mut mapped_with_definition = valid.clone();
        let definition = valid.versions[&("items.list".to_owned(), 1)].clone();
        mapped_with_definition
            .versions
            .insert(("orphan".to_owned(), 1), definition);
        let mut with_null = valid.clone();
        with_null
            .get_mut(Kind::ConfiguredTool, "items.list")
            .expect("a tool")
            .insert("downstream".into(), Value::Null);
        for (name, records) in [
            ("valid", valid),
            ("a version without its definition", no_definition),
            (
                "a mapping's version with a definition",
                mapped_with_definition,
            ),
            ("a null", with_null),
            ("nothing", Records::default()),
        ] {
            let copied = format!("{:?}", records.check(&registry));
            let moved = format!("{:?}", records.into_config(&registry));
            assert_eq!(moved, copied, "{name}");
        }
    }

    #[test]
    fn a_null_is_refused_at_its_record_and_path() {
        let (mut records, registry) = demo();
        let client = records
            .get_mut(Kind::Client, "acme-finance")
            .expect("client");
        client.insert("profile".into(), Value::Null);
        let problems = records.check(&registry).expect_err("refused");
        assert_eq!(places(&problems), [("client \"acme-finance\"", "")]);
        assert_eq!(
            problems.0[0].message,
            "`profile` is null, which the configuration cannot hold: leave the field out"
        );
        // Deep in a list, after fields that hold none.
        let client = records
            .get_mut(Kind::Client, "acme-finance")
            .expect("client");
        client.remove("profile");
        client.insert(
            "toolsets".into(),
            serde_json::json!(["acme-billing", {"a": [1, null]}]),
        );
        let problems = records.check(&registry).expect_err("refused");
        assert_eq!(
            problems.0[0].message,
            "`toolsets[1].a[1]` is null, which the configuration cannot hold: leave the field out"
        );
    }

    #[test]
    fn the_rendered_file_reads_back_as_the_same_records_and_configuration() {
        let (records, registry) = demo();
        let text = records.render().expect("renders");
        let again = Records::from_toml(&text, "rendered.toml", &registry).expect("checks");
        assert_eq!(again, records);
        let from_file = Config::from_toml(&text, "rendered.toml", &registry).expect("checks");
        let from_records = records.check(&registry).expect("checks");
        assert_eq!(
            format!("{:?}", from_file.clients().collect::<Vec<_>>()),
            format!("{:?}", from_records.clients().collect::<Vec<_>>())
        );
        // Settings first, then the kinds in order, then mappings.
        let heads: Vec<&str> = text.lines().filter(|line| line.starts_with('[')).collect();
        let first = |head: &str| heads.iter().position(|h| *h == head).expect(head);
        assert!(first("[catalog]") < first("[[tenant]]"), "{heads:?}");
        assert!(first("[[tenant]]") < first("[[toolset]]"), "{heads:?}");
        assert!(first("[[client]]") < first("[[mapping]]"), "{heads:?}");
    }
}
