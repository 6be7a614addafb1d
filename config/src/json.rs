//! A configuration given as a JSON document of the file's shape
//! (`{"tenant": [{"id": "acme"}], "client": […], "catalog": {…}}`), read
//! into the same typed model a TOML file is, with no text in between: the
//! catalog store's records take this way.
//!
//! Values read here have no place in a text (their spans are empty); a
//! problem is named by its key (`client[2].toolsets[0]`), which says the
//! record and the field.

use crate::location::{ConfigLocation, Section};
use serde::de::value::{Error, MapDeserializer, SeqDeserializer};
use serde::de::{DeserializeOwned, Deserializer, IntoDeserializer, Visitor};
use serde_json::{Map, Value};
use serde_spanned::de::SpannedDeserializer;

use super::errors::Problems;
use super::raw::RawConfig;

/// The top-level keys a document may hold, as the file's tables.
const SECTIONS: [&str; 9] = [
    "catalog",
    "tenant",
    "client",
    "toolset",
    "mapping",
    "server",
    "downstream",
    "gateway_tool",
    "authorization",
];

/// The document's sections read into the typed model. Every section and
/// every entry of a list is read on its own, so that each one's problems
/// are all reported; `None` when any is found (the checks then do not run,
/// since they name entries by their place in the lists).
pub(super) fn read(document: Map<String, Value>, p: &mut Problems<'_>) -> Option<RawConfig> {
    let before = p.len();
    let mut raw = RawConfig::default();
    for (key, value) in document {
        let Some(section) = Section::from_key(&key) else {
            let near = p.suggestion(&key, SECTIONS.into_iter());
            p.unreadable(
                0..0,
                ConfigLocation::file().field_of(&key),
                format!(
                    "is not a section of the configuration{near}; the sections are {}",
                    SECTIONS.join(", ")
                ),
            );
            continue;
        };
        let whole = || ConfigLocation::section_whole(section);
        match section {
            Section::Catalog => raw.catalog = one(value, whole, p).unwrap_or_default(),
            Section::Server => raw.server = one(value, whole, p),
            Section::Authorization => raw.authorization = one(value, whole, p),
            Section::Tenant => raw.tenants = each(value, section, p),
            Section::Client => raw.clients = each(value, section, p),
            Section::Toolset => raw.toolsets = each(value, section, p),
            Section::Mapping => raw.mappings = each(value, section, p),
            Section::Downstream => raw.downstreams = each(value, section, p),
            Section::ConfiguredTool => raw.gateway_tools = each(value, section, p),
        }
    }
    (p.len() == before).then_some(raw)
}

/// Each entry of the list `value`, read on its own (on every core when
/// they are many).
fn each<T: DeserializeOwned + Send>(
    value: Value,
    section: Section,
    p: &mut Problems<'_>,
) -> Vec<T> {
    let Value::Array(entries) = value else {
        let whole = ConfigLocation::section_whole(section);
        p.unreadable(0..0, whole, "must be a list of tables");
        return Vec::new();
    };
    let whole: &Problems<'_> = p;
    let read = toolschema_runtime::parallel::map(
        entries.into_iter().enumerate().collect(),
        |(i, entry)| {
            let mut found = whole.part();
            let read = one(entry, || ConfigLocation::entry_of(section, i), &mut found);
            (read, found)
        },
    );
    let mut out = Vec::with_capacity(read.len());
    for (entry, found) in read {
        p.absorb(found);
        out.extend(entry);
    }
    out
}

/// `value` read as a `T`; a problem at the first field it cannot read.
/// (Read a second time to find that field's path, which is only wanted
/// when there is a problem.)
fn one<T: DeserializeOwned>(
    value: Value,
    key: impl FnOnce() -> ConfigLocation,
    p: &mut Problems<'_>,
) -> Option<T> {
    T::deserialize(Plain(&value))
        .map_err(
            |_| match serde_path_to_error::deserialize::<_, T>(Plain(&value)) {
                Err(error) => p.unreadable(
                    0..0,
                    field_key(key(), error.path()),
                    error.inner().to_string(),
                ),
                Ok(_) => p.unreadable(0..0, key(), "could not be read"),
            },
        )
        .ok()
}

/// `at` followed by the fields of `path` (`client[0]` and `toolsets[1]`:
/// `client[0].toolsets[1]`; an entry's `version` list names a version),
/// leaving out the span wrappers' own fields.
fn field_key(mut at: ConfigLocation, path: &serde_path_to_error::Path) -> ConfigLocation {
    use serde_path_to_error::Segment;
    // The versions key just read, whose index names the version.
    let mut versions: Option<&str> = None;
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => {
                at = match versions.take() {
                    Some(_) => at.in_version(*index),
                    None => at.item(*index),
                }
            }
            Segment::Map { key } | Segment::Enum { variant: key }
                if !key.starts_with("$__serde_spanned") =>
            {
                if let Some(key) = versions.take() {
                    at = at.field_of(key);
                }
                match at.takes_version(key) {
                    true => versions = Some(key),
                    false => at = at.field_of(key),
                }
            }
            _ => {}
        }
    }
    match versions {
        Some(key) => at.field_of(key),
        None => at,
    }
}

/// A JSON value as serde data, whose spanned values take an empty span.
#[derive(Clone, Copy)]
struct Plain<'a>(&'a Value);

impl<'a> IntoDeserializer<'_, Error> for Plain<'a> {
    type Deserializer = Plain<'a>;

    fn into_deserializer(self) -> Plain<'a> {
        self
    }
}

impl<'de> Deserializer<'de> for Plain<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(flag) => visitor.visit_bool(*flag),
            Value::Number(number) => match (number.as_u64(), number.as_i64(), number.as_f64()) {
                (Some(whole), _, _) => visitor.visit_u64(whole),
                (_, Some(whole), _) => visitor.visit_i64(whole),
                (_, _, float) => visitor.visit_f64(float.unwrap_or(f64::NAN)),
            },
            Value::String(text) => visitor.visit_str(text),
            Value::Array(items) => {
                let mut items = SeqDeserializer::new(items.iter().map(Plain));
                let value = visitor.visit_seq(&mut items)?;
                items.end()?;
                Ok(value)
            }
            Value::Object(map) => {
                let entries = map.iter().map(|(k, v)| (Key(k), Plain(v)));
                let mut entries = MapDeserializer::new(entries);
                let value = visitor.visit_map(&mut entries)?;
                entries.end()?;
                Ok(value)
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match serde_spanned::de::is_spanned(name) {
            true => visitor.visit_map(SpannedDeserializer::new(self, 0..0)),
            false => self.deserialize_any(visitor),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map enum
        identifier ignored_any
    }
}

/// A key of a JSON object as serde data: a string, spanned or not.
#[derive(Clone, Copy)]
struct Key<'a>(&'a str);

impl<'a> IntoDeserializer<'_, Error> for Key<'a> {
    type Deserializer = Key<'a>;

    fn into_deserializer(self) -> Key<'a> {
        self
    }
}

impl<'de> Deserializer<'de> for Key<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_str(self.0)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match serde_spanned::de::is_spanned(name) {
            true => visitor.visit_map(SpannedDeserializer::new(self, 0..0)),
            false => visitor.visit_str(self.0),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raw::RawClient;

    fn read_one<T: DeserializeOwned>(value: Value) -> Result<T, String> {
        let mut problems = Problems::without_text("records");
        one(
            value,
            || ConfigLocation::entry_of(Section::Client, 0),
            &mut problems,
        )
        .ok_or_else(|| {
            let errors = problems.into_errors();
            errors
                .iter()
                .map(|e| format!("{}: {}", e.key(), e.message()))
                .collect()
        })
    }

    #[test]
    fn a_record_reads_as_the_file_would_with_empty_spans() {
        let client: RawClient = read_one(serde_json::json!({
            "id": "acme-app", "tenant": "acme", "toolsets": ["billing"], "profile": null
        }))
        .expect("reads");
        assert_eq!(client.id.get_ref(), "acme-app");
        assert_eq!(client.id.span(), 0..0);
        assert_eq!(client.toolsets[0].get_ref(), "billing");
        assert!(
            client.profile.is_none(),
            "null is absent for an optional field"
        );
    }

    #[test]
    fn a_key_that_is_no_section_is_named_with_the_nearest_section() {
        let document = serde_json::json!({"clients": [], "tenant": [{"id": "acme"}]});
        let Value::Object(document) = document else {
            unreachable!()
        };
        let mut problems = Problems::without_text("records");
        assert!(read(document, &mut problems).is_none());
        let errors = problems.into_errors();
        let first = errors.iter().next().expect("a problem");
        assert_eq!(first.key(), "clients");
        assert!(
            first
                .message()
                .starts_with("is not a section of the configuration (did you mean `client`?)"),
            "{first}"
        );
        assert_eq!(
            first.to_string(),
            format!("records: clients: {}", first.message())
        );
    }

    #[test]
    fn a_field_of_the_wrong_type_is_named_by_its_path() {
        let error = read_one::<RawClient>(serde_json::json!({
            "id": "acme-app", "tenant": "acme", "toolsets": ["billing", 7]
        }))
        .err()
        .expect("refused");
        assert_eq!(
            error,
            "client[0].toolsets[1]: invalid type: integer `7`, expected a string"
        );
        let error = read_one::<RawClient>(serde_json::json!({
            "id": "acme-app", "tenant": "acme", "toolset": []
        }))
        .err()
        .expect("refused");
        assert!(
            error.starts_with("client[0].toolset: unknown field `toolset`, expected one of"),
            "{error}"
        );
    }
}
