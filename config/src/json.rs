//! A configuration given as a JSON document of the file's shape
//! (`{"tenant": [{"id": "acme"}], "client": […], "catalog": {…}}`), read
//! into the same typed model a TOML file is, with no text in between: the
//! catalog store's records take this way.
//!
//! Values read here have no place in a text; a problem is named by its key
//! (`client[2].toolsets[0]`), which says the record and the field.

use crate::location::{ConfigLocation, Section};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::errors::Problems;
use crate::sections::Sections;

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
pub(super) fn read(document: Map<String, Value>, p: &mut Problems<'_>) -> Option<Sections> {
    let before = p.len();
    let mut raw = Sections::default();
    for (key, value) in document {
        let Some(section) = Section::from_key(&key) else {
            let near = p.suggestion(&key, SECTIONS.into_iter());
            p.unreadable(
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
            Section::Catalog => raw.catalog = one(value, whole, p),
            Section::Server => raw.server = one(value, whole, p),
            Section::Authorization => raw.authorization = one(value, whole, p),
            Section::Tenant => raw.tenant = each(value, section, p),
            Section::Client => raw.client = each(value, section, p),
            Section::Toolset => raw.toolset = each(value, section, p),
            Section::Mapping => raw.mapping = each(value, section, p),
            Section::Downstream => raw.downstream = each(value, section, p),
            Section::ConfiguredTool => raw.gateway_tool = each(value, section, p),
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
        p.unreadable(whole, "must be a list of tables");
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
    if !value.is_object() {
        p.unreadable(key(), "must be a table");
        return None;
    }
    T::deserialize(&value)
        .map_err(|_| match serde_path_to_error::deserialize::<_, T>(&value) {
            Err(error) => p.unreadable(field_key(key(), error.path()), error.inner().to_string()),
            Ok(_) => p.unreadable(key(), "could not be read"),
        })
        .ok()
}

/// `at` followed by the fields of `path` (`client[0]` and `toolsets[1]`:
/// `client[0].toolsets[1]`; an entry's `version` list names a version),
/// leaving out the `Option` and map wrappers' own segments.
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
            Segment::Map { key } | Segment::Enum { variant: key } => {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sections::ClientSection;

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
    fn a_record_reads_as_the_file_would() {
        let client: ClientSection = read_one(serde_json::json!({
            "id": "acme-app", "tenant": "acme", "toolsets": ["billing"], "profile": null
        }))
        .expect("reads");
        assert_eq!(client.id, "acme-app");
        assert_eq!(client.toolsets[0], "billing");
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
        let error = read_one::<ClientSection>(serde_json::json!({
            "id": "acme-app", "tenant": "acme", "toolsets": ["billing", 7]
        }))
        .expect_err("refused");
        assert_eq!(
            error,
            "client[0].toolsets[1]: invalid type: integer `7`, expected a string"
        );
        let error = read_one::<ClientSection>(serde_json::json!({
            "id": "acme-app", "tenant": "acme", "toolset": []
        }))
        .expect_err("refused");
        assert!(
            error.starts_with("client[0].toolset: unknown field `toolset`, expected one of"),
            "{error}"
        );
    }
}
