//! What one revision changed, as the configuration's [`Delta`]: each record
//! it wrote, whole (a tool with all its versions), or removed. A change is
//! written to the records' tables and, in the same transaction, to the
//! change log, so that a replica serving an earlier revision reads the
//! changes since its own and applies them to the records it holds, and to
//! the configuration it serves, instead of reading and checking every
//! record again.

use std::collections::BTreeSet;

use toolschema_config::{Delta, Section, ToolRecord};

use crate::records::{Kind, Records, SETTINGS, Scope};

impl Kind {
    /// The configuration's section of this kind of record.
    pub fn section(self) -> Section {
        match self {
            Kind::Tenant => Section::Tenant,
            Kind::Client => Section::Client,
            Kind::Toolset => Section::Toolset,
            Kind::Downstream => Section::Downstream,
            Kind::ConfiguredTool => Section::ConfiguredTool,
        }
    }

    /// The kind of record a section holds, when it holds records.
    pub(crate) fn of_section(section: Section) -> Option<Kind> {
        Kind::ALL.into_iter().find(|kind| kind.section() == section)
    }
}

impl Records {
    /// Puts the records in `scope` back as `part` has them (removing
    /// those it lacks): its settings and records, and every version of its
    /// tools.
    pub(crate) fn restore(&mut self, part: &Records, scope: &Scope) {
        for name in &scope.settings {
            match part.settings.get(name) {
                Some(body) => self.settings.insert(name.clone(), body.clone()),
                None => self.settings.remove(name),
            };
        }
        for (kind, id) in &scope.records {
            let stored = self.records.entry(*kind).or_default();
            match part.get(*kind, id) {
                Some(body) => stored.insert(id.clone(), body.clone()),
                None => stored.remove(id),
            };
        }
        for tool in &scope.tools {
            self.remove_versions(tool);
            for (number, version) in part.versions_of(tool) {
                self.versions
                    .insert((tool.clone(), number), version.clone());
            }
        }
    }

    /// Every version of `tool` removed.
    fn remove_versions(&mut self, tool: &str) {
        let numbers: Vec<u32> = self.versions_of(tool).map(|(number, _)| number).collect();
        for number in numbers {
            self.versions.remove(&(tool.to_owned(), number));
        }
    }

    /// The tool `name` as these records hold it: its configured tool's
    /// record and every version; `None` when they hold neither.
    pub(crate) fn tool_record(&self, name: &str) -> Option<ToolRecord> {
        let configured = self.get(Kind::ConfiguredTool, name).cloned();
        let versions: std::collections::BTreeMap<_, _> = self
            .versions_of(name)
            .map(|(number, version)| (number, version.clone()))
            .collect();
        (configured.is_some() || !versions.is_empty()).then_some(ToolRecord {
            configured,
            versions,
        })
    }

    /// Writes `delta` into these records: each setting and record it names
    /// as it has it, each tool it names replaced whole.
    pub(crate) fn apply_delta(&mut self, delta: &Delta) {
        for (section, body) in &delta.settings {
            let name = section.key().to_owned();
            match body {
                Some(body) => self.settings.insert(name, body.clone()),
                None => self.settings.remove(&name),
            };
        }
        for (section, of_section) in &delta.records {
            let Some(kind) = Kind::of_section(*section) else {
                continue;
            };
            let stored = self.records.entry(kind).or_default();
            for (id, body) in of_section {
                match body {
                    Some(body) => stored.insert(id.clone(), body.clone()),
                    None => stored.remove(id),
                };
            }
        }
        for (name, tool) in &delta.tools {
            self.remove_versions(name);
            let stored = self.records.entry(Kind::ConfiguredTool).or_default();
            match tool.as_ref().and_then(|tool| tool.configured.as_ref()) {
                Some(body) => stored.insert(name.clone(), body.clone()),
                None => stored.remove(name),
            };
            for (number, version) in tool.iter().flat_map(|tool| &tool.versions) {
                self.versions
                    .insert((name.clone(), *number), version.clone());
            }
        }
    }
}

/// What changed from `before` to `after` (the same records, or the same
/// part of them), as a delta: each tool whose record or any version
/// changed is written whole, as `whole` (the records `after` is part of,
/// or `after` itself) holds it.
pub(crate) fn delta(before: &Records, after: &Records, whole: &Records) -> Delta {
    let mut delta = Delta::default();
    for name in SETTINGS {
        let (old, new) = (before.settings.get(name), after.settings.get(name));
        if old != new
            && let Some(section) = Section::from_key(name)
        {
            delta.settings.insert(section, new.cloned());
        }
    }
    let mut tools: BTreeSet<&str> = BTreeSet::new();
    for kind in Kind::ALL {
        let mut changed: BTreeSet<&str> = after
            .of(kind)
            .filter(|(id, body)| before.get(kind, id) != Some(*body))
            .map(|(id, _)| id)
            .collect();
        changed.extend(
            before
                .of(kind)
                .filter(|(id, _)| after.get(kind, id).is_none())
                .map(|(id, _)| id),
        );
        if kind == Kind::ConfiguredTool {
            tools.extend(changed);
        } else if !changed.is_empty() {
            delta.records.insert(
                kind.section(),
                changed
                    .into_iter()
                    .map(|id| (id.to_owned(), after.get(kind, id).cloned()))
                    .collect(),
            );
        }
    }
    for (key, version) in &after.versions {
        if before.versions.get(key) != Some(version) {
            tools.insert(&key.0);
        }
    }
    for key in before.versions.keys() {
        if !after.versions.contains_key(key) {
            tools.insert(&key.0);
        }
    }
    for name in tools {
        delta.tools.insert(name.to_owned(), whole.tool_record(name));
    }
    delta
}

#[cfg(test)]
mod tests {
    use toolschema_catalog::Status;
    use toolschema_config::{Delta, Section};
    use toolschema_runtime::call::Registry;

    use super::delta;
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
    fn the_delta_between_two_catalogs_makes_the_second_from_the_first() {
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

        let changes = delta(&before, &after, &after);
        assert_eq!(changes.settings.len(), 1);
        assert_eq!(changes.records[&Section::Tenant].len(), 2);
        // One tool, written whole: its record and both versions.
        let tool = changes.tools["weather.current"].as_ref().expect("written");
        assert!(tool.configured.is_some());
        assert_eq!(tool.versions.len(), 2);
        // Through the change log's form and back.
        let logged =
            Delta::from_log(serde_json::to_value(&changes).expect("JSON")).expect("its own form");
        assert_eq!(logged, changes);
        let mut applied = before.clone();
        applied.apply_delta(&logged);
        assert_eq!(applied, after);
        // Nothing changed, nothing logged; and back again.
        assert_eq!(delta(&after, &after, &after), Delta::default());
        let mut back = after.clone();
        back.apply_delta(&delta(&after, &before, &before));
        assert_eq!(back, before);
    }

    #[test]
    fn a_tool_removed_is_removed_with_every_version() {
        let before = records();
        let mut after = before.clone();
        after
            .records
            .entry(Kind::ConfiguredTool)
            .or_default()
            .remove("weather.current");
        after.versions.clear();
        let changes = delta(&before, &after, &after);
        assert_eq!(changes.tools["weather.current"], None);
        let mut applied = before.clone();
        applied.apply_delta(&changes);
        assert_eq!(applied, after);
    }

    fn body(fields: &[(&str, &str)]) -> crate::records::Body {
        fields
            .iter()
            .map(|(k, v)| ((*k).to_owned(), serde_json::Value::from(*v)))
            .collect()
    }
}
