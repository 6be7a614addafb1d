//! What one revision changed, record by record. A change is written to
//! the records' tables and, in the same transaction, to the change log, so
//! that a replica serving an earlier revision reads the changes since its
//! own and applies them to the records it holds, instead of reading every
//! record again.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};
use toolschema_catalog::Status;

use crate::records::{Body, Kind, Records, SETTINGS, Scope, Version};

impl Records {
    /// Puts the records in `scope` back as `part` has them (removing
    /// those it lacks).
    pub(crate) fn restore(&mut self, part: &Records, scope: &Scope) {
        let now = self.part(scope);
        Changes::between(&now, part).apply(self);
    }
}

/// The records a change wrote (`Some`) or removed (`None`).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Changes {
    /// `[catalog]`, `[server]`, `[authorization]`, by name.
    pub(crate) settings: BTreeMap<String, Option<Body>>,
    /// The records of each kind, by identifier.
    pub(crate) records: BTreeMap<Kind, BTreeMap<String, Option<Body>>>,
    /// The versions of mappings, by tool name and number.
    pub(crate) versions: BTreeMap<(String, u32), Option<Version>>,
}

impl Changes {
    /// What differs from `before` to `after`.
    pub(crate) fn between(before: &Records, after: &Records) -> Changes {
        let mut changes = Changes::default();
        for name in SETTINGS {
            let (old, new) = (before.settings.get(name), after.settings.get(name));
            if old != new {
                changes.settings.insert(name.to_owned(), new.cloned());
            }
        }
        for kind in Kind::ALL {
            let mut of_kind = BTreeMap::new();
            for (id, body) in after.of(kind) {
                if before.get(kind, id) != Some(body) {
                    of_kind.insert(id.to_owned(), Some(body.clone()));
                }
            }
            for (id, _) in before.of(kind) {
                if after.get(kind, id).is_none() {
                    of_kind.insert(id.to_owned(), None);
                }
            }
            if !of_kind.is_empty() {
                changes.records.insert(kind, of_kind);
            }
        }
        for (key, version) in &after.versions {
            if before.versions.get(key) != Some(version) {
                changes.versions.insert(key.clone(), Some(version.clone()));
            }
        }
        for key in before.versions.keys() {
            if !after.versions.contains_key(key) {
                changes.versions.insert(key.clone(), None);
            }
        }
        changes
    }

    /// The records `changes` wrote or removed, and the tools whose
    /// versions they changed.
    pub(crate) fn scope(changes: &[Changes]) -> Scope {
        let mut scope = Scope::default();
        for change in changes {
            scope.settings.extend(change.settings.keys().cloned());
            for (kind, of_kind) in &change.records {
                scope
                    .records
                    .extend(of_kind.keys().map(|id| (*kind, id.clone())));
            }
            scope
                .tools
                .extend(change.versions.keys().map(|(tool, _)| tool.clone()));
        }
        scope
    }

    /// Writes the changes into `records`.
    pub(crate) fn apply(&self, records: &mut Records) {
        for (name, body) in &self.settings {
            match body {
                Some(body) => records.settings.insert(name.clone(), body.clone()),
                None => records.settings.remove(name),
            };
        }
        for (kind, of_kind) in &self.records {
            let stored = records.records.entry(*kind).or_default();
            for (id, body) in of_kind {
                match body {
                    Some(body) => stored.insert(id.clone(), body.clone()),
                    None => stored.remove(id),
                };
            }
        }
        for (key, version) in &self.versions {
            match version {
                Some(version) => records.versions.insert(key.clone(), version.clone()),
                None => records.versions.remove(key),
            };
        }
    }

    /// The change log's form: `{"settings": {name: body | null},
    /// "records": {table: {id: body | null}}, "versions": [{"tool",
    /// "version", "status", "definition"} | {"tool", "version", "removed":
    /// true}]}`.
    pub(crate) fn to_json(&self) -> Value {
        let settings: Map<String, Value> = self
            .settings
            .iter()
            .map(|(name, body)| (name.clone(), body_json(body.as_ref())))
            .collect();
        let records: Map<String, Value> = self
            .records
            .iter()
            .map(|(kind, of_kind)| {
                let of_kind: Map<String, Value> = of_kind
                    .iter()
                    .map(|(id, body)| (id.clone(), body_json(body.as_ref())))
                    .collect();
                (kind.table().to_owned(), Value::Object(of_kind))
            })
            .collect();
        let versions: Vec<Value> = self
            .versions
            .iter()
            .map(|((tool, number), version)| match version {
                Some(version) => json!({
                    "tool": tool,
                    "version": number,
                    "status": version.status.name(),
                    "definition": body_json(version.definition.as_ref()),
                }),
                None => json!({"tool": tool, "version": number, "removed": true}),
            })
            .collect();
        json!({"settings": settings, "records": records, "versions": versions})
    }

    /// Reads the change log's form back; `None` when it is not that form
    /// (the replica then reads every record).
    pub(crate) fn from_json(value: &Value) -> Option<Changes> {
        let mut changes = Changes::default();
        for (name, body) in value.get("settings")?.as_object()? {
            changes.settings.insert(name.clone(), json_body(body)?);
        }
        for (table, of_kind) in value.get("records")?.as_object()? {
            let kind = Kind::from_name(table)?;
            let stored = changes.records.entry(kind).or_default();
            for (id, body) in of_kind.as_object()? {
                stored.insert(id.clone(), json_body(body)?);
            }
        }
        for entry in value.get("versions")?.as_array()? {
            let tool = entry.get("tool")?.as_str()?.to_owned();
            let number = u32::try_from(entry.get("version")?.as_u64()?).ok()?;
            let version = match entry.get("removed") {
                Some(Value::Bool(true)) => None,
                _ => Some(Version {
                    status: Status::from_name(entry.get("status")?.as_str()?)?,
                    definition: json_body(entry.get("definition")?)?,
                }),
            };
            changes.versions.insert((tool, number), version);
        }
        Some(changes)
    }
}

fn body_json(body: Option<&Body>) -> Value {
    body.map_or(Value::Null, |body| Value::Object(body.clone()))
}

/// A body, or `null` for none; `None` for anything else.
fn json_body(value: &Value) -> Option<Option<Body>> {
    match value {
        Value::Null => Some(None),
        Value::Object(body) => Some(Some(body.clone())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use toolschema_catalog::Status;
    use toolschema_runtime::call::Registry;

    use super::Changes;
    use crate::records::{Kind, Records};

    const CATALOG: &str = r#"
[catalog]
internal_prefixes = ["internal."]

[[tenant]]
id = "t"

[[client]]
id = "c"
tenant = "t"
toolsets = ["s"]

[[toolset]]
id = "s"
tenant = "t"
tools = ["weather.current"]

[[downstream]]
id = "api"
base_url = "https://api.example.com"

[[gateway_tool]]
name = "weather.current"
downstream = "api"

[[gateway_tool.version]]
version = 1
status = "published"
description = "The weather now."
method = "GET"
path = "/now"
"#;

    fn records() -> Records {
        Records::from_toml(CATALOG, "catalog.toml", &Registry::new())
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn the_changes_between_two_catalogs_make_the_second_from_the_first() {
        let before = records();
        let mut after = before.clone();
        after.settings.remove("catalog");
        after.records.entry(Kind::Tenant).or_default().remove("t");
        let client = after
            .records
            .entry(Kind::Client)
            .or_default()
            .get_mut("c")
            .expect("the client");
        client.insert("tenant".into(), "u".into());
        after
            .records
            .entry(Kind::Tenant)
            .or_default()
            .insert("u".into(), body(&[("name", "U")]));
        let mut version = after.versions[&("weather.current".to_owned(), 1)].clone();
        version.status = Status::Deprecated;
        after
            .versions
            .insert(("weather.current".into(), 1), version.clone());
        version.status = Status::Draft;
        after
            .versions
            .insert(("weather.current".into(), 2), version);

        let changes = Changes::between(&before, &after);
        assert_eq!(changes.settings.len(), 1);
        assert_eq!(changes.records[&Kind::Tenant].len(), 2);
        assert_eq!(changes.versions.len(), 2);
        // Through the change log's form and back.
        let logged = Changes::from_json(&changes.to_json()).expect("its own form");
        assert_eq!(logged, changes);
        let mut applied = before.clone();
        logged.apply(&mut applied);
        assert_eq!(applied, after);
        // Nothing changed, nothing logged; and back again.
        assert_eq!(Changes::between(&after, &after), Changes::default());
        let mut back = after.clone();
        Changes::between(&after, &before).apply(&mut back);
        assert_eq!(back, before);
    }

    #[test]
    fn a_log_entry_of_another_form_is_not_read() {
        for text in [
            r#"{}"#,
            r#"{"settings": {}, "records": {"tenants": {}}, "versions": []}"#,
            r#"{"settings": {"catalog": 1}, "records": {}, "versions": []}"#,
            r#"{"settings": {}, "records": {}, "versions": [{"tool": "x", "version": 1, "status": "gone", "definition": null}]}"#,
        ] {
            let value: serde_json::Value = serde_json::from_str(text).expect("JSON");
            assert!(Changes::from_json(&value).is_none(), "{text}");
        }
    }

    fn body(fields: &[(&str, &str)]) -> crate::records::Body {
        fields
            .iter()
            .map(|(k, v)| ((*k).to_owned(), serde_json::Value::from(*v)))
            .collect()
    }
}
