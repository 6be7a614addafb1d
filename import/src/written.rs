//! What an import writes, as the configuration's own sections, serialized
//! by the `toml` crate: keys in the order an operator reads them, strings
//! quoted and escaped by the serializer, never assembled by hand.

use std::collections::BTreeMap;

use serde::Serialize;

/// Sections of a configuration file: downstreams, then gateway tools.
#[derive(Serialize, Default)]
pub(super) struct Sections {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) downstream: Vec<DownstreamSection>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) gateway_tool: Vec<ToolSection>,
}

impl Sections {
    /// The sections as TOML text.
    pub(super) fn text(&self) -> Result<String, String> {
        toml::to_string(self).map_err(|error| format!("the TOML writer refuses it: {error}"))
    }
}

/// `[[downstream]]`.
#[derive(Serialize)]
pub(super) struct DownstreamSection {
    pub(super) id: String,
    pub(super) base_url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) protocol: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) soap_version: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) auth: Option<Auths>,
}

/// A downstream's `auth`: one table, or the list of credentials sent
/// together.
#[derive(Serialize)]
#[serde(untagged)]
pub(super) enum Auths {
    /// `[downstream.auth]`.
    One(Box<AuthSection>),
    /// `[[downstream.auth]]`, one after another.
    Many(Vec<AuthSection>),
}

/// A downstream's `auth`: secrets by the name of their variable.
#[derive(Serialize, Default)]
pub(super) struct AuthSection {
    pub(super) kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) header: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) param: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) env: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) user_env: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) password_env: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) access_key_env: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) secret_key_env: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) session_token_env: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) region: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) service: Option<String>,
}

/// `[[gateway_tool]]` with its one draft version.
#[derive(Serialize)]
pub(super) struct ToolSection {
    pub(super) name: String,
    pub(super) downstream: String,
    pub(super) version: Vec<VersionSection>,
}

/// `[[gateway_tool.version]]`: plain values first, then the tables.
#[derive(Serialize, Default)]
pub(super) struct VersionSection {
    pub(super) version: u32,
    pub(super) status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) title: Option<String>,
    pub(super) description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) method: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) encoding: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) operation: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) namespace: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) soap_action: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) qualified: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) read_only: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) destructive: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) idempotent: Option<bool>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub(super) headers: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub(super) query: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub(super) prefixes: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) soap_header: Vec<SoapHeaderSection>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) argument: Vec<FieldSection>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) result: Vec<FieldSection>,
}

/// `[[gateway_tool.version.soap_header]]`: a header block in a namespace
/// other than the operation's, or a credential from a secret.
#[derive(Serialize, Default)]
pub(super) struct SoapHeaderSection {
    pub(super) element: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) namespace: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) secret: Option<String>,
}

/// `[[gateway_tool.version.argument]]` or `…result]]`.
#[derive(Serialize, Default)]
pub(super) struct FieldSection {
    pub(super) name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) source: Option<String>,
    #[serde(rename = "in", skip_serializing_if = "Option::is_none")]
    pub(super) location: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) explode: Option<bool>,
    #[serde(rename = "type")]
    pub(super) kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) required: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) format: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) min_length: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) max_length: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) pattern: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) min_items: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) max_items: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) minimum: Option<toml::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) maximum: Option<toml::Value>,
    #[serde(rename = "enum", skip_serializing_if = "Option::is_none")]
    pub(super) values: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) examples: Option<Vec<toml::Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) schema: Option<String>,
}
