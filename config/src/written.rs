//! The configuration's sections as a program writes them (the importers,
//! an operator's own tooling, a service's tests): every section of the
//! file (`[catalog]`, `[server]`, `[authorization]`, tenants, client
//! applications, toolsets, mappings, downstreams, configured tools and
//! their versions) as serde types, written as TOML by the `toml` crate
//! (keys in the order an operator reads them, strings quoted and escaped by
//! the serializer, never assembled by hand) and checked as they are,
//! without text, by the same checks a file gets: the tool sections alone
//! ([`Sections::check`]) or the whole configuration against the registered
//! tools ([`Sections::to_config`]).
//!
//! Each field is the key of the same name in the file (`kind` is `type`,
//! `location` is `in`, `values` is `enum`), documented with the
//! configuration in docs/catalog.md and docs/gateway.md; a section read
//! back from the text is the section written.
#![expect(
    missing_docs,
    reason = "each field is the configuration key of the same name, documented in docs/gateway.md"
)]

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use toolschema_runtime::call::Registry;

use crate::{Config, ConfigErrors};

/// The sections of a configuration file, in the order it is written:
/// settings, then tenants, client applications, toolsets, mappings,
/// downstreams and configured tools.
#[derive(Serialize, Default, Debug, Clone, PartialEq)]
pub struct Sections {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub catalog: Option<CatalogSection>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<ServerSection>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub authorization: Option<AuthorizationSection>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tenant: Vec<TenantSection>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub client: Vec<ClientSection>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub toolset: Vec<ToolsetSection>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mapping: Vec<MappingSection>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub downstream: Vec<DownstreamSection>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gateway_tool: Vec<ToolSection>,
}

/// `[catalog]`: settings of the catalog as a whole.
#[derive(Serialize, Deserialize, Default, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CatalogSection {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub internal_prefixes: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keyless_client: Option<String>,
}

/// `[server]`: what `server.json` says of the server.
#[derive(Serialize, Deserialize, Default, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ServerSection {
    pub name: String,
    pub description: String,
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remotes: Vec<toml::Table>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub packages: Vec<toml::Table>,
}

/// `[authorization]`: the OAuth 2.1 authorization server whose access
/// tokens authenticate clients.
#[derive(Serialize, Deserialize, Default, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AuthorizationSection {
    pub issuer: String,
    pub resource: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jwks_uri: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub algorithms: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_claim: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant_claim: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leeway_seconds: Option<i64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes_supported: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub introspection_endpoint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub introspection_client_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub introspection_secret_env: Option<String>,
}

/// `[[tenant]]`.
#[derive(Serialize, Deserialize, Default, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TenantSection {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// `[[client]]`: a client application; `api_keys` are the SHA-256 hashes
/// of its keys ([`hash_api_key`](crate::hash_api_key)).
#[derive(Serialize, Deserialize, Default, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ClientSection {
    pub id: String,
    pub tenant: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub api_keys: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub oauth_client_ids: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub toolsets: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
}

/// `[[toolset]]`: tools of one tenant, shown together in one mode.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ToolsetSection {
    pub id: String,
    pub tenant: String,
    #[serde(default = "switched_on", skip_serializing_if = "is_on")]
    pub active: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub modes: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
}

impl Default for ToolsetSection {
    fn default() -> ToolsetSection {
        ToolsetSection {
            id: String::new(),
            tenant: String::new(),
            active: true,
            mode: None,
            tools: Vec::new(),
            modes: BTreeMap::new(),
            scopes: Vec::new(),
        }
    }
}

fn switched_on() -> bool {
    true
}

fn is_on(active: &bool) -> bool {
    *active
}

/// `[[mapping]]`: the versions of a registered (derived) tool.
#[derive(Serialize, Deserialize, Default, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MappingSection {
    pub tool: String,
    #[serde(default)]
    pub versions: Vec<MappingVersion>,
}

/// One version of a mapping: its number and status (`draft`, `proposed`,
/// `published`, `deprecated`).
#[derive(Serialize, Deserialize, Default, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MappingVersion {
    pub version: u32,
    pub status: String,
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
    /// use toolschema_config::written::{DownstreamSection, Sections, ToolSection, VersionSection};
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
        Config::check_tool_sections(self.document(), "written sections")
    }

    /// The whole configuration these sections make, checked against the
    /// tools of `registry` as a file is (the same typed model, the same
    /// checks, no text in between); every problem named by its key.
    ///
    /// ```
    /// use toolschema_config::written::{ClientSection, Sections, TenantSection};
    /// use toolschema_runtime::call::Registry;
    ///
    /// let mut sections = Sections::default();
    /// sections.tenant.push(TenantSection { id: "acme".into(), name: None });
    /// sections.client.push(ClientSection {
    ///     id: "acme-app".into(),
    ///     tenant: "acme".into(),
    ///     toolsets: vec!["billing".into()],
    ///     ..ClientSection::default()
    /// });
    /// let errors = sections.to_config(&Registry::new()).unwrap_err();
    /// let keys: Vec<&str> = errors.iter().map(|e| e.key()).collect();
    /// assert_eq!(keys, ["client[0].toolsets[0]"]);
    ///
    /// sections.client[0].toolsets.clear();
    /// let config = sections.to_config(&Registry::new()).unwrap();
    /// assert_eq!(config.client("acme-app").unwrap().tenant(), "acme");
    /// ```
    pub fn to_config(&self, registry: &Registry) -> Result<Config, ConfigErrors> {
        Config::from_json(self.document(), "written sections", registry)
    }

    /// The sections as the JSON document the checks read.
    fn document(&self) -> serde_json::Map<String, serde_json::Value> {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(document)) => document,
            // Never, for structs of strings, numbers and lists; were it to
            // happen, the checks refuse a section they do not know rather
            // than pass nothing.
            _ => serde_json::Map::from_iter([("unwritable".to_owned(), serde_json::Value::Null)]),
        }
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
            ..Sections::default()
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

    #[test]
    fn every_section_written_is_the_file_it_reads_as() {
        let mut sections = everything();
        sections.catalog = Some(CatalogSection {
            internal_prefixes: vec!["internal.".to_owned()],
            keyless_client: Some("acme-app".to_owned()),
        });
        sections.server = Some(ServerSection {
            name: "io.example/pets".to_owned(),
            description: "Pets and quotes.".to_owned(),
            version: "1.2.0".to_owned(),
            ..ServerSection::default()
        });
        sections.tenant = vec![TenantSection {
            id: "acme".to_owned(),
            name: Some("Acme".to_owned()),
        }];
        sections.toolset = vec![ToolsetSection {
            id: "pets".to_owned(),
            tenant: "acme".to_owned(),
            active: false,
            mode: Some("lazy".to_owned()),
            tools: vec!["pets.tags".to_owned(), "quotes.get".to_owned()],
            modes: BTreeMap::from([("quotes.get".to_owned(), "full".to_owned())]),
            ..ToolsetSection::default()
        }];
        sections.client = vec![ClientSection {
            id: "acme-app".to_owned(),
            tenant: "acme".to_owned(),
            api_keys: vec![crate::hash_api_key("acme-key")],
            toolsets: vec!["pets".to_owned()],
            profile: Some("openai-strict".to_owned()),
            ..ClientSection::default()
        }];
        let registry = Registry::new();
        let typed = sections.to_config(&registry).expect("every section checks");
        let text = sections.text().expect("TOML");
        let read = Config::from_toml(&text, "written.toml", &registry)
            .unwrap_or_else(|errors| panic!("{errors}\n{text}"));
        assert_eq!(format!("{typed:?}"), format!("{read:?}"));
        let toolset = typed.toolset("pets").expect("the toolset");
        assert!(!toolset.is_active());
        assert_eq!(typed.keyless_client(), Some("acme-app"));
        // A setting that is not one is named where a file would be.
        sections.toolset[0].mode = Some("sideways".to_owned());
        let errors = sections.to_config(&registry).expect_err("an unknown mode");
        let keys: Vec<&str> = errors.iter().map(|e| e.key()).collect();
        assert_eq!(keys, ["toolset[0].mode"], "{errors}");
    }
}
