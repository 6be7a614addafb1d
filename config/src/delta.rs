//! What one change does to a catalog's configuration, as a value: each
//! record it wrote, whole, and each it removed. The catalog store computes
//! it once per change, writes it as its change log, and a replica reads it
//! back as the same type; [`Config::apply`] applies it to a checked
//! configuration.

use std::collections::BTreeMap;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::{Section, Status};

/// A record's fields as the configuration file has them (its id aside).
pub type Body = Map<String, Value>;

/// What one change does: the settings, records and tools it wrote (`Some`,
/// whole) or removed (`None`). A tool is written with all its versions, so
/// that a delta holds every record it names as it is after the change.
///
/// Its serialized form is the catalog store's change log:
///
/// ```
/// use serde_json::json;
/// use toolschema_config::{Delta, Section, Status, ToolRecord, VersionRecord};
///
/// let mut delta = Delta::default();
/// delta.records.entry(Section::Toolset).or_default().insert("billing".into(), None);
/// delta.tools.insert(
///     "invoices.list".into(),
///     Some(ToolRecord {
///         configured: None,
///         versions: [(2, VersionRecord { status: Status::Published, definition: None })].into(),
///     }),
/// );
/// let logged = serde_json::to_value(&delta).unwrap();
/// assert_eq!(
///     logged,
///     json!({
///         "records": {"toolset": {"billing": null}},
///         "tools": {"invoices.list": {"versions": {"2": {"status": "published"}}}},
///     })
/// );
/// assert_eq!(Delta::from_log(logged), Some(delta));
/// // Anything else is not a delta: the replica then reads every record.
/// assert_eq!(Delta::from_log(json!({"records": {"tenants": {}}})), None);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Delta {
    /// `[catalog]`, `[server]` and `[authorization]`, by section.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub settings: BTreeMap<Section, Option<Body>>,
    /// Tenants, client applications, toolsets and downstreams, by section
    /// and id.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub records: BTreeMap<Section, BTreeMap<String, Option<Body>>>,
    /// Tools whose record or versions changed, by name: a configured
    /// tool's record and versions, or a registered tool's versions.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tools: BTreeMap<String, Option<ToolRecord>>,
}

/// A tool as a change leaves it: a configured tool's record with its
/// versions, or a registered tool's versions (its mapping).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolRecord {
    /// The configured tool's record (its downstream, its name aside);
    /// `None` for a registered tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configured: Option<Body>,
    /// Its versions, by number.
    #[serde(default)]
    pub versions: BTreeMap<u32, VersionRecord>,
}

/// One version of a tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VersionRecord {
    /// Draft, proposed, published or deprecated.
    #[serde(with = "status_name")]
    pub status: Status,
    /// A configured tool's version: its description, method and path or
    /// operation, arguments and results. `None` for a registered tool's
    /// version (its definition is its Rust type).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub definition: Option<Body>,
}

/// How long a change log entry may be, in bytes of its text: a longer one
/// (a whole catalog of many tools replaced) is not read back; the replica
/// reads every record instead.
pub const MAX_LOGGED_DELTA: usize = 256 << 20;

impl Delta {
    /// Whether the change does nothing.
    pub fn is_empty(&self) -> bool {
        self.settings.is_empty() && self.records.is_empty() && self.tools.is_empty()
    }

    /// Whether the change wrote or removed a setting or a downstream, on
    /// which every configured tool's checks depend.
    pub fn touches_everything(&self) -> bool {
        !self.settings.is_empty() || self.records.contains_key(&Section::Downstream)
    }

    /// `later` folded into this change: what both did, the later one's
    /// record where both wrote one.
    pub fn merge(&mut self, later: Delta) {
        self.settings.extend(later.settings);
        for (section, records) in later.records {
            self.records.entry(section).or_default().extend(records);
        }
        self.tools.extend(later.tools);
    }

    /// The change log's entry read back: `None` when it is not a delta's
    /// form (written by another version, or damaged), or holds a section
    /// where it does not belong. Never panics; nesting beyond the JSON
    /// reader's limit is refused where the entry is read.
    pub fn from_log(value: Value) -> Option<Delta> {
        if !value.is_object() {
            return None;
        }
        let delta = Delta::deserialize(value).ok()?;
        let settings_hold = delta.settings.keys().all(|s| s.is_setting());
        let records_hold = delta.records.keys().all(|s| {
            matches!(
                s,
                Section::Tenant | Section::Client | Section::Toolset | Section::Downstream
            )
        });
        (settings_hold && records_hold).then_some(delta)
    }

    /// The change log's entry read from its text, bounded: `None` past
    /// [`MAX_LOGGED_DELTA`] bytes or when [`from_log`](Self::from_log)
    /// refuses it.
    pub fn from_log_text(text: &str) -> Option<Delta> {
        if text.len() > MAX_LOGGED_DELTA {
            return None;
        }
        Delta::from_log(serde_json::from_str(text).ok()?)
    }
}

impl Serialize for Section {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.key())
    }
}

impl<'de> Deserialize<'de> for Section {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Section, D::Error> {
        let key = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Section::from_key(&key)
            .ok_or_else(|| D::Error::custom(format_args!("no section is named `{key}`")))
    }
}

/// A [`Status`] as its name.
mod status_name {
    use super::*;

    pub(super) fn serialize<S: Serializer>(status: &Status, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(status.name())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Status, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Status::from_name(&name)
            .ok_or_else(|| D::Error::custom(format_args!("no status is named `{name}`")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn entries_of_another_form_are_not_deltas() {
        for value in [
            json!([]),
            json!({"settings": {"tenant": null}}),
            json!({"records": {"catalog": {}}}),
            json!({"records": {"tenant": {"t": 1}}}),
            json!({"tools": {"x": {"versions": {"one": {"status": "published"}}}}}),
            json!({"tools": {"x": {"versions": {"1": {"status": "gone"}}}}}),
            json!({"tools": {"x": {"versions": {"-1": {"status": "draft"}}}}}),
            json!({"records": {}, "versions": []}),
        ] {
            assert_eq!(Delta::from_log(value.clone()), None, "{value}");
        }
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        assert_eq!(Delta::from_log_text(&deep), None);
        assert_eq!(Delta::from_log_text("{"), None);
    }

    #[test]
    fn a_later_change_wins_where_both_wrote() {
        let body = |name: &str| {
            let mut body = Body::new();
            body.insert("name".into(), name.into());
            Some(body)
        };
        let mut first = Delta::default();
        first
            .records
            .entry(Section::Tenant)
            .or_default()
            .insert("t".into(), body("one"));
        first.settings.insert(Section::Catalog, None);
        let mut later = Delta::default();
        later
            .records
            .entry(Section::Tenant)
            .or_default()
            .insert("t".into(), None);
        later
            .records
            .entry(Section::Tenant)
            .or_default()
            .insert("u".into(), body("two"));
        first.merge(later);
        assert_eq!(first.records[&Section::Tenant]["t"], None);
        assert_eq!(first.records[&Section::Tenant]["u"], body("two"));
        assert!(first.touches_everything());
        assert!(!first.is_empty());
    }
}
