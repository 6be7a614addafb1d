//! Configured tools and their downstreams as a program writes them (the
//! importers, a tool of an operator's own): the configuration's
//! `[[downstream]]` and `[[gateway_tool]]` sections as serde types, written
//! as TOML by the `toml` crate (keys in the order an operator reads them,
//! strings quoted and escaped by the serializer, never assembled by hand)
//! and checked as they are, without text, by the same checks a file's
//! sections get ([`Sections::check`]).
//!
//! Each field is the key of the same name in the file (`kind` is `type`,
//! `location` is `in`, `values` is `enum`), documented with the
//! configuration in docs/gateway.md; a section read back from the text is
//! the section written.
#![expect(
    missing_docs,
    reason = "each field is the configuration key of the same name, documented in docs/gateway.md"
)]

use std::collections::BTreeMap;

use serde::Serialize;

use toolschema_config::{Config, ConfigErrors};

/// Sections of a configuration file: downstreams, then configured tools.
#[derive(Serialize, Default, Debug, Clone, PartialEq)]
pub struct Sections {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub downstream: Vec<DownstreamSection>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gateway_tool: Vec<ToolSection>,
}

impl Sections {
    /// The sections as TOML text.
    pub fn text(&self) -> Result<String, String> {
        toml::to_string(self).map_err(|error| format!("the TOML writer refuses it: {error}"))
    }

    /// Checks the sections as a configuration's checks check them: each
    /// downstream, and each configured tool against the downstream it
    /// calls and the others' names. Every problem, named by its key
    /// (`gateway_tool[0].version[0].argument[2].name`).
    ///
    /// ```
    /// use toolschema_import::written::{DownstreamSection, Sections, ToolSection, VersionSection};
    ///
    /// let mut sections = Sections::default();
    /// sections.downstream.push(DownstreamSection {
    ///     id: "pets".into(),
    ///     base_url: "https://pets.example.com".into(),
    ///     protocol: None,
    ///     soap_version: None,
    ///     auth: None,
    /// });
    /// let version = VersionSection {
    ///     version: 1,
    ///     status: "draft",
    ///     description: "Lists the pets.".into(),
    ///     method: Some("GET".into()),
    ///     path: Some("/pets".into()),
    ///     ..VersionSection::default()
    /// };
    /// sections.gateway_tool.push(ToolSection {
    ///     name: "pets.list".into(),
    ///     downstream: "pets".into(),
    ///     version: vec![version],
    /// });
    /// assert!(sections.check().is_ok());
    ///
    /// sections.gateway_tool[0].downstream = "cats".into();
    /// let errors = sections.check().unwrap_err();
    /// let first = errors.iter().next().unwrap();
    /// assert_eq!(first.key(), "gateway_tool[0].downstream");
    ///
    /// // An identifier follows the one grammar of records (a file's, the store's).
    /// sections.gateway_tool[0].downstream = "my pets".into();
    /// sections.downstream[0].id = "my pets".into();
    /// let errors = sections.check().unwrap_err();
    /// let first = errors.iter().next().unwrap();
    /// assert_eq!(first.key(), "downstream[0].id");
    /// assert_eq!(first.message(), toolschema_config::RECORD_ID_RULE);
    /// ```
    pub fn check(&self) -> Result<(), ConfigErrors> {
        let document = match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(document)) => document,
            // Never, for structs of strings, numbers and lists; were it to
            // happen, the checks refuse a section they do not know rather
            // than pass nothing.
            _ => serde_json::Map::from_iter([("unwritable".to_owned(), serde_json::Value::Null)]),
        };
        Config::check_tool_sections(document, "written sections")
    }
}

/// `[[downstream]]`.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct DownstreamSection {
    pub id: String,
    pub base_url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub soap_version: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auth: Option<Auths>,
}

/// A downstream's `auth`: one table, or the list of credentials sent
/// together.
#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(untagged)]
pub enum Auths {
    /// `[downstream.auth]`.
    One(Box<AuthSection>),
    /// `[[downstream.auth]]`, one after another.
    Many(Vec<AuthSection>),
}

/// A downstream's `auth`: secrets by the name of their variable.
#[derive(Serialize, Default, Debug, Clone, PartialEq)]
pub struct AuthSection {
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub param: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub env: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_env: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub password_env: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub access_key_env: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret_key_env: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_token_env: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service: Option<String>,
}

/// `[[gateway_tool]]` with its one draft version.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct ToolSection {
    pub name: String,
    pub downstream: String,
    pub version: Vec<VersionSection>,
}

/// `[[gateway_tool.version]]`: plain values first, then the tables.
#[derive(Serialize, Default, Debug, Clone, PartialEq)]
pub struct VersionSection {
    pub version: u32,
    pub status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub soap_action: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qualified: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub query: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub prefixes: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub soap_header: Vec<SoapHeaderSection>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub argument: Vec<FieldSection>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub result: Vec<FieldSection>,
}

/// `[[gateway_tool.version.soap_header]]`: a header block in a namespace
/// other than the operation's, or a credential from a secret.
#[derive(Serialize, Default, Debug, Clone, PartialEq)]
pub struct SoapHeaderSection {
    pub element: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
}

/// `[[gateway_tool.version.argument]]` or `…result]]`.
#[derive(Serialize, Default, Debug, Clone, PartialEq)]
pub struct FieldSection {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(rename = "in", skip_serializing_if = "Option::is_none")]
    pub location: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explode: Option<bool>,
    #[serde(rename = "type")]
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_length: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_length: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_items: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_items: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minimum: Option<toml::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maximum: Option<toml::Value>,
    #[serde(rename = "enum", skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub examples: Option<Vec<toml::Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolschema_runtime::call::Registry;

    /// Every key each section can write, set.
    fn everything() -> Sections {
        let tag = FieldSection {
            name: "tags[]".to_owned(),
            source: Some("tag".to_owned()),
            location: Some("query"),
            explode: Some(false),
            kind: "string",
            examples: Some(vec![toml::Value::String("indoor".into())]),
            ..FieldSection::default()
        };
        let tags = FieldSection {
            name: "tags".to_owned(),
            kind: "array",
            required: Some(true),
            description: Some("The tags wanted.".to_owned()),
            min_items: Some(1),
            max_items: Some(5),
            ..FieldSection::default()
        };
        let number = FieldSection {
            name: "limit".to_owned(),
            location: Some("query"),
            kind: "integer",
            minimum: Some(toml::Value::Integer(1)),
            maximum: Some(toml::Value::Integer(50)),
            ..FieldSection::default()
        };
        let text = FieldSection {
            name: "kind".to_owned(),
            location: Some("query"),
            kind: "string",
            format: None,
            min_length: Some(1),
            max_length: Some(20),
            pattern: Some("^[a-z]+$".to_owned()),
            values: Some(vec!["cat".to_owned(), "dog".to_owned()]),
            ..FieldSection::default()
        };
        let version = VersionSection {
            version: 1,
            status: "draft",
            title: Some("Tags".to_owned()),
            description: "Lists a pet's tags.".to_owned(),
            method: Some("GET".to_owned()),
            path: Some("/pets/tags".to_owned()),
            read_only: Some(true),
            destructive: Some(false),
            idempotent: Some(true),
            headers: BTreeMap::from([("X-Api-Version".to_owned(), "2".to_owned())]),
            query: BTreeMap::from([("format".to_owned(), "json".to_owned())]),
            argument: vec![tag, tags, number, text],
            result: vec![FieldSection {
                name: "meta".to_owned(),
                kind: "object",
                schema: Some(
                    r#"{"type": "object", "properties": {"count": {"type": "integer"}}}"#.into(),
                ),
                ..FieldSection::default()
            }],
            ..VersionSection::default()
        };
        let soap = VersionSection {
            version: 1,
            status: "published",
            description: "Gets a quote.".to_owned(),
            encoding: None,
            operation: Some("GetQuote".to_owned()),
            namespace: Some("urn:quotes".to_owned()),
            soap_action: Some("urn:quotes#GetQuote".to_owned()),
            qualified: Some(true),
            prefixes: BTreeMap::from([("q".to_owned(), "urn:quotes".to_owned())]),
            soap_header: vec![SoapHeaderSection {
                element: "Token".to_owned(),
                namespace: Some("urn:auth".to_owned()),
                secret: Some("QUOTES_TOKEN".to_owned()),
            }],
            argument: vec![FieldSection {
                name: "symbol".to_owned(),
                kind: "string",
                required: Some(true),
                ..FieldSection::default()
            }],
            ..VersionSection::default()
        };
        let auth = AuthSection {
            kind: "aws_sigv4",
            access_key_env: Some("AWS_ACCESS_KEY_ID".to_owned()),
            secret_key_env: Some("AWS_SECRET_ACCESS_KEY".to_owned()),
            session_token_env: Some("AWS_SESSION_TOKEN".to_owned()),
            region: Some("eu-west-1".to_owned()),
            service: Some("execute-api".to_owned()),
            ..AuthSection::default()
        };
        let header = AuthSection {
            kind: "header",
            header: Some("X-Key".to_owned()),
            env: Some("PETS_KEY".to_owned()),
            ..AuthSection::default()
        };
        Sections {
            downstream: vec![
                DownstreamSection {
                    id: "pets".to_owned(),
                    base_url: "https://pets.example.com".to_owned(),
                    protocol: None,
                    soap_version: None,
                    auth: Some(Auths::Many(vec![auth, header])),
                },
                DownstreamSection {
                    id: "quotes".to_owned(),
                    base_url: "https://quotes.example.com/soap".to_owned(),
                    protocol: Some("soap"),
                    soap_version: Some("1.2"),
                    auth: None,
                },
            ],
            gateway_tool: vec![
                ToolSection {
                    name: "pets.tags".to_owned(),
                    downstream: "pets".to_owned(),
                    version: vec![version],
                },
                ToolSection {
                    name: "quotes.get".to_owned(),
                    downstream: "quotes".to_owned(),
                    version: vec![soap],
                },
            ],
        }
    }

    #[test]
    fn what_is_written_is_what_a_file_reads_and_both_checks_agree() {
        let sections = everything();
        sections
            .check()
            .expect("the written sections pass the checks");
        let text = sections.text().expect("TOML");
        let file =
            format!("[[tenant]]\nid = \"t\"\n\n[[client]]\nid = \"c\"\ntenant = \"t\"\n\n{text}");
        let config = Config::from_toml(&file, "written.toml", &Registry::new())
            .unwrap_or_else(|errors| panic!("{errors}\n{text}"));
        assert_eq!(config.configured_tools().len(), 2);
        assert_eq!(config.downstreams().count(), 2);
    }

    #[test]
    fn a_problem_is_named_by_its_key_as_the_file_check_names_it() {
        let mut sections = everything();
        sections.gateway_tool[0].version[0].argument[2].kind = "whole";
        let errors = sections.check().expect_err("an unknown type");
        let keys: Vec<&str> = errors.iter().map(|e| e.key()).collect();
        assert_eq!(
            keys,
            ["gateway_tool[0].version[0].argument[2].type"],
            "{errors}"
        );
        let text = sections.text().expect("TOML");
        let file =
            format!("[[tenant]]\nid = \"t\"\n\n[[client]]\nid = \"c\"\ntenant = \"t\"\n\n{text}");
        let from_file = Config::from_toml(&file, "written.toml", &Registry::new())
            .expect_err("the same problem");
        let file_keys: Vec<&str> = from_file.iter().map(|e| e.key()).collect();
        assert_eq!(keys, file_keys);
    }
}
