//! The configuration's sections, as a file holds them and as a program
//! writes them (the importers, an operator's own tooling, a service's
//! tests): one declaration of every section of the file (`[catalog]`, `[server]`, `[authorization]`, tenants, client
//! applications, toolsets, mappings, downstreams, configured tools and
//! their versions) as serde types, written as TOML by the `toml` crate
//! (keys in the order an operator reads them, strings quoted and escaped by
//! the serializer, never assembled by hand) and checked as they are,
//! without text, by the same checks a file gets: the tool sections alone
//! ([`Sections::check`]) or the whole configuration against the registered
//! tools ([`Sections::to_config`]). A file is read into these same types
//! (`Config::from_toml`), and so is a JSON document of the file's shape
//! (`Config::from_json`): what is read is what is written.
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

/// The sections of a configuration file, in the order it is written:
/// settings, then tenants, client applications, toolsets, mappings,
/// downstreams and configured tools.
#[derive(Serialize, Deserialize, Default, Debug, Clone, PartialEq)]
#[serde(default, deny_unknown_fields)]
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search_model: Option<String>,
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
    /// As the file holds it: an integer, which the checks want from 1 up.
    pub version: i64,
    pub status: String,
}

impl Sections {
    /// The sections as TOML text.
    pub fn text(&self) -> Result<String, String> {
        toml::to_string(self).map_err(|error| format!("the TOML writer refuses it: {error}"))
    }
}

/// `[[downstream]]`: an API that configured tools call.
#[derive(Serialize, Deserialize, Default, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DownstreamSection {
    pub id: String,
    pub base_url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub soap_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_timeout_ms: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_response_bytes: Option<i64>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<Auths>,
}

/// A downstream's `auth`: one table (`auth = { kind = … }`), or the list
/// of credentials sent together (`[[downstream.auth]]`, for an API that
/// wants an API key and a client id at once).
#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(untagged)]
pub enum Auths {
    /// `[downstream.auth]`.
    One(Box<AuthSection>),
    /// `[[downstream.auth]]`, one after another.
    Many(Vec<AuthSection>),
}

impl Auths {
    /// Each credential, in the order written.
    pub fn iter(&self) -> core::slice::Iter<'_, AuthSection> {
        match self {
            Auths::One(auth) => core::slice::from_ref(&**auth).iter(),
            Auths::Many(auths) => auths.iter(),
        }
    }
}

/// Read by its shape, a table or a list (an untagged enum would answer a
/// wrong field inside with "did not match any variant").
impl<'de> Deserialize<'de> for Auths {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Auths;

            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("a table (`{ kind = \"bearer\", env = \"…\" }`) or a list of tables")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Auths, A::Error> {
                AuthSection::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(|auth| Auths::One(Box::new(auth)))
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Auths, A::Error> {
                Vec::deserialize(serde::de::value::SeqAccessDeserializer::new(seq)).map(Auths::Many)
            }
        }
        deserializer.deserialize_any(Visit)
    }
}

/// A downstream's `auth`: secrets by the name of the environment variable
/// that holds them, never the secret itself.
#[derive(Serialize, Deserialize, Default, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AuthSection {
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub param: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_env: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password_env: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_key_env: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_key_env: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_token_env: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<String>,
}

/// `[[gateway_tool]]`: a configured tool, whose work is a downstream call,
/// and its versions.
#[derive(Serialize, Deserialize, Default, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ToolSection {
    pub name: String,
    pub downstream: String,
    #[serde(default)]
    pub version: Vec<VersionSection>,
}

/// `[[gateway_tool.version]]`: plain values first, then the tables.
#[derive(Serialize, Deserialize, Default, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct VersionSection {
    /// As the file holds it: an integer, which the checks want from 1 up.
    pub version: i64,
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// How the body is written: `json` (the default) or `form`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
    /// A SOAP operation's request element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub soap_action: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qualified: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
    /// Headers every call of this version sends, as written
    /// (`X-Amz-Target = "DynamoDB_20120810.GetItem"`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// Query parameters every call of this version sends, as written
    /// (`Action = "DescribeInstances"`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub query: BTreeMap<String, String>,
    /// For a SOAP operation: namespace prefixes its source paths may use
    /// (`n1 = "http://…/Arrays"`, then `Ids.n1:long[]`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub prefixes: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub soap_header: Vec<SoapHeaderSection>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub argument: Vec<FieldSection>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub result: Vec<FieldSection>,
}

/// `[[gateway_tool.version.soap_header]]`: a header block in a namespace
/// other than the operation's, or a credential from a secret.
#[derive(Serialize, Deserialize, Default, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SoapHeaderSection {
    pub element: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
}

/// `[[gateway_tool.version.argument]]` or `…result]]`: a field's exposed
/// path, its source path, and what the schema says of it.
#[derive(Serialize, Deserialize, Default, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FieldSection {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(default, rename = "in", skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// A query list written as one parameter, its values joined by commas
    /// (`explode = false`), instead of the parameter repeated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explode: Option<bool>,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum: Option<toml::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum: Option<toml::Value>,
    #[serde(default, rename = "enum", skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<toml::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub examples: Option<Vec<toml::Value>>,
    /// The field's whole JSON Schema, as JSON text: its value is passed on
    /// as the client writes it (an object with its own property names).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Config;
    use toolschema_runtime::call::Registry;

    /// Every key each section can write, set.
    fn everything() -> Sections {
        let tag = FieldSection {
            name: "tags[]".to_owned(),
            source: Some("tag".to_owned()),
            location: Some("query".into()),
            explode: Some(false),
            kind: "string".into(),
            examples: Some(vec![toml::Value::String("indoor".into())]),
            ..FieldSection::default()
        };
        let tags = FieldSection {
            name: "tags".to_owned(),
            kind: "array".into(),
            required: Some(true),
            description: Some("The tags wanted.".to_owned()),
            min_items: Some(1),
            max_items: Some(5),
            ..FieldSection::default()
        };
        let number = FieldSection {
            name: "limit".to_owned(),
            location: Some("query".into()),
            kind: "integer".into(),
            minimum: Some(toml::Value::Integer(1)),
            maximum: Some(toml::Value::Integer(50)),
            ..FieldSection::default()
        };
        let text = FieldSection {
            name: "kind".to_owned(),
            location: Some("query".into()),
            kind: "string".into(),
            format: None,
            min_length: Some(1),
            max_length: Some(20),
            pattern: Some("^[a-z]+$".to_owned()),
            values: Some(vec!["cat".to_owned(), "dog".to_owned()]),
            ..FieldSection::default()
        };
        let version = VersionSection {
            version: 1,
            status: "draft".into(),
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
                kind: "object".into(),
                schema: Some(
                    r#"{"type": "object", "properties": {"count": {"type": "integer"}}}"#.into(),
                ),
                ..FieldSection::default()
            }],
            ..VersionSection::default()
        };
        let soap = VersionSection {
            version: 1,
            status: "published".into(),
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
                kind: "string".into(),
                required: Some(true),
                ..FieldSection::default()
            }],
            ..VersionSection::default()
        };
        let auth = AuthSection {
            kind: "aws_sigv4".into(),
            access_key_env: Some("AWS_ACCESS_KEY_ID".to_owned()),
            secret_key_env: Some("AWS_SECRET_ACCESS_KEY".to_owned()),
            session_token_env: Some("AWS_SESSION_TOKEN".to_owned()),
            region: Some("eu-west-1".to_owned()),
            service: Some("execute-api".to_owned()),
            ..AuthSection::default()
        };
        let header = AuthSection {
            kind: "header".into(),
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
                    ..DownstreamSection::default()
                },
                DownstreamSection {
                    id: "quotes".to_owned(),
                    base_url: "https://quotes.example.com/soap".to_owned(),
                    protocol: Some("soap".into()),
                    soap_version: Some("1.2".into()),
                    auth: None,
                    ..DownstreamSection::default()
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
        sections.gateway_tool[0].version[0].argument[2].kind = "whole".into();
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
            search_model: None,
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

    #[test]
    fn a_version_out_of_range_is_a_problem_of_its_own_and_the_others_are_found_too() {
        let text = "[[tenant]]\nid = \"t\"\n\n[[client]]\nid = \"c\"\ntenant = \"t\"\ntoolsets = [\"nowhere\"]\n\n[[downstream]]\nid = \"api\"\nbase_url = \"https://api.example.com\"\n\n[[gateway_tool]]\nname = \"items.get\"\ndownstream = \"api\"\n\n[[gateway_tool.version]]\nversion = -1\nstatus = \"draft\"\ndescription = \"Gets an item.\"\nmethod = \"GET\"\npath = \"/items\"\n";
        let errors = Config::from_toml(text, "v.toml", &Registry::new()).expect_err("refused");
        let found: Vec<(&str, &str)> = errors.iter().map(|e| (e.key(), e.message())).collect();
        assert!(
            found.contains(&(
                "gateway_tool[0].version[0].version",
                "versions are whole numbers from 1 up"
            )),
            "{errors}"
        );
        assert!(
            found.iter().any(|(key, _)| *key == "client[0].toolsets[0]"),
            "{errors}"
        );
        let version = errors
            .iter()
            .find(|e| e.key().ends_with(".version"))
            .expect("the version's problem");
        assert_eq!((version.line(), version.column()), (18, 11));
    }
}
