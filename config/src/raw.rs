//! The configuration file as read, before any check: every value keeps
//! its place in the file for error messages.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct RawConfig {
    #[serde(default)]
    pub(super) catalog: RawCatalog,
    #[serde(default, rename = "tenant")]
    pub(super) tenants: Vec<RawTenant>,
    #[serde(default, rename = "client")]
    pub(super) clients: Vec<RawClient>,
    #[serde(default, rename = "toolset")]
    pub(super) toolsets: Vec<RawToolset>,
    #[serde(default, rename = "mapping")]
    pub(super) mappings: Vec<RawMapping>,
    #[serde(default)]
    pub(super) server: Option<RawServer>,
    #[serde(default, rename = "downstream")]
    pub(super) downstreams: Vec<RawDownstream>,
    #[serde(default, rename = "gateway_tool")]
    pub(super) gateway_tools: Vec<RawGatewayTool>,
    #[serde(default)]
    pub(super) authorization: Option<RawAuthorization>,
}

/// `[authorization]`: the OAuth 2.1 authorization server whose access
/// tokens authenticate clients.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawAuthorization {
    pub(super) issuer: Spanned<String>,
    pub(super) resource: Spanned<String>,
    #[serde(default)]
    pub(super) jwks_uri: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) algorithms: Vec<Spanned<String>>,
    #[serde(default)]
    pub(super) client_claim: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) tenant_claim: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) leeway_seconds: Option<Spanned<i64>>,
    #[serde(default)]
    pub(super) scopes_supported: Vec<Spanned<String>>,
    #[serde(default)]
    pub(super) introspection_endpoint: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) introspection_client_id: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) introspection_secret_env: Option<Spanned<String>>,
}

/// `[[downstream]]`: an API that configured tools call.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawDownstream {
    pub(super) id: Spanned<String>,
    pub(super) base_url: Spanned<String>,
    #[serde(default)]
    pub(super) timeout_ms: Option<Spanned<i64>>,
    #[serde(default)]
    pub(super) connect_timeout_ms: Option<Spanned<i64>>,
    #[serde(default)]
    pub(super) max_response_bytes: Option<Spanned<i64>>,
    #[serde(default)]
    pub(super) headers: BTreeMap<Spanned<String>, Spanned<String>>,
    /// One credential, or a list of credentials sent together.
    #[serde(default)]
    pub(super) auth: Option<Spanned<RawAuths>>,
    #[serde(default)]
    pub(super) protocol: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) soap_version: Option<Spanned<String>>,
}

/// A downstream's `auth`: one table (`auth = { kind = … }`), or a list of
/// them sent together (`[[downstream.auth]]`, for an API that wants an API
/// key and a client id at once). Read by hand rather than as an untagged
/// enum, whose buffering loses the places of the values inside.
pub(super) enum RawAuths {
    /// `auth = { … }`: placed where the table is.
    One(Box<RawAuth>),
    /// `auth = [{ … }, { … }]`: each placed where it is.
    Many(Vec<Spanned<RawAuth>>),
}

impl<'de> Deserialize<'de> for RawAuths {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = RawAuths;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a table (`{ kind = \"bearer\", env = \"…\" }`) or a list of tables")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<RawAuths, A::Error> {
                RawAuth::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(|auth| RawAuths::One(Box::new(auth)))
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<RawAuths, A::Error> {
                Vec::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))
                    .map(RawAuths::Many)
            }
        }
        deserializer.deserialize_any(Visit)
    }
}

/// How a downstream authenticates the gateway: secrets by the name of the
/// environment variable that holds them, never the secret itself.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawAuth {
    pub(super) kind: Spanned<String>,
    #[serde(default)]
    pub(super) env: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) header: Option<Spanned<String>>,
    /// For `kind = "query"`: the query parameter that carries the key.
    #[serde(default)]
    pub(super) param: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) user_env: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) password_env: Option<Spanned<String>>,
    /// For `kind = "aws_sigv4"`: the variables of the access key id, the
    /// secret access key and (optional) the session token, the region and
    /// the service's signing name.
    #[serde(default)]
    pub(super) access_key_env: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) secret_key_env: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) session_token_env: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) region: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) service: Option<Spanned<String>>,
}

/// `[[gateway_tool]]`: a tool whose work is a downstream call.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawGatewayTool {
    pub(super) name: Spanned<String>,
    pub(super) downstream: Spanned<String>,
    #[serde(default, rename = "version")]
    pub(super) versions: Vec<RawGatewayVersion>,
}

/// One version of a configured tool's mapping.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawGatewayVersion {
    pub(super) version: Spanned<i64>,
    pub(super) status: Spanned<String>,
    #[serde(default)]
    pub(super) title: Option<Spanned<String>>,
    pub(super) description: Spanned<String>,
    #[serde(default)]
    pub(super) method: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) path: Option<Spanned<String>>,
    /// A SOAP operation's request element.
    #[serde(default)]
    pub(super) operation: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) namespace: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) soap_action: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) qualified: Option<Spanned<bool>>,
    #[serde(default)]
    pub(super) read_only: Option<bool>,
    #[serde(default)]
    pub(super) destructive: Option<bool>,
    #[serde(default)]
    pub(super) idempotent: Option<bool>,
    #[serde(default)]
    pub(super) open_world: Option<bool>,
    /// How the body is written: `json` (the default) or `form`.
    #[serde(default)]
    pub(super) encoding: Option<Spanned<String>>,
    /// Headers every call of this version sends, as written
    /// (`X-Amz-Target = "DynamoDB_20120810.GetItem"`).
    #[serde(default)]
    pub(super) headers: BTreeMap<Spanned<String>, Spanned<String>>,
    /// Query parameters every call of this version sends, as written
    /// (`Action = "DescribeInstances"`).
    #[serde(default)]
    pub(super) query: BTreeMap<Spanned<String>, Spanned<String>>,
    /// For a SOAP operation: namespace prefixes its source paths may use
    /// (`n1 = "http://…/Arrays"`, then `Ids.n1:long[]`), for elements in
    /// another namespace than the request element's.
    #[serde(default)]
    pub(super) prefixes: BTreeMap<Spanned<String>, Spanned<String>>,
    /// The blocks of a SOAP request's `Header` that are declared: a
    /// namespace of their own, or a credential read from a secret.
    #[serde(default, rename = "soap_header")]
    pub(super) soap_headers: Vec<RawSoapHeader>,
    #[serde(default, rename = "argument")]
    pub(super) arguments: Vec<RawField>,
    #[serde(default, rename = "result")]
    pub(super) results: Vec<RawField>,
}

/// `[[gateway_tool.version.soap_header]]`: a block of a SOAP request's
/// `Header`, its element's local name and namespace, and, for a
/// credential, the secret holding its text.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSoapHeader {
    pub(super) element: Spanned<String>,
    #[serde(default)]
    pub(super) namespace: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) secret: Option<Spanned<String>>,
}

/// One argument or result field: its exposed path, its source path, and
/// what the schema says of it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawField {
    pub(super) name: Spanned<String>,
    #[serde(default)]
    pub(super) source: Option<Spanned<String>>,
    #[serde(default, rename = "in")]
    pub(super) location: Option<Spanned<String>>,
    /// A query list written as one parameter, its values joined by commas
    /// (`explode = false`), instead of the parameter repeated.
    #[serde(default)]
    pub(super) explode: Option<Spanned<bool>>,
    #[serde(rename = "type")]
    pub(super) kind: Spanned<String>,
    #[serde(default)]
    pub(super) required: Option<Spanned<bool>>,
    #[serde(default)]
    pub(super) description: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) format: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) pattern: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) min_length: Option<Spanned<i64>>,
    #[serde(default)]
    pub(super) max_length: Option<Spanned<i64>>,
    #[serde(default)]
    pub(super) minimum: Option<Spanned<toml::Value>>,
    #[serde(default)]
    pub(super) maximum: Option<Spanned<toml::Value>>,
    #[serde(default)]
    pub(super) min_items: Option<Spanned<i64>>,
    #[serde(default)]
    pub(super) max_items: Option<Spanned<i64>>,
    #[serde(default, rename = "enum")]
    pub(super) values: Option<Spanned<Vec<String>>>,
    #[serde(default)]
    pub(super) default: Option<Spanned<toml::Value>>,
    #[serde(default)]
    pub(super) examples: Option<Spanned<Vec<toml::Value>>>,
    /// The field's whole JSON Schema, as JSON text: its value is passed on
    /// as the client writes it (an object with its own property names).
    #[serde(default)]
    pub(super) schema: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawServer {
    pub(super) name: Spanned<String>,
    pub(super) description: Spanned<String>,
    pub(super) version: Spanned<String>,
    #[serde(default)]
    pub(super) title: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) website_url: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) remotes: Vec<Spanned<toml::Table>>,
    #[serde(default)]
    pub(super) packages: Vec<Spanned<toml::Table>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCatalog {
    #[serde(default)]
    pub(super) internal_prefixes: Vec<Spanned<String>>,
    #[serde(default)]
    pub(super) keyless_client: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTenant {
    pub(super) id: Spanned<String>,
    #[serde(default)]
    #[allow(dead_code)]
    pub(super) name: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawClient {
    pub(super) id: Spanned<String>,
    pub(super) tenant: Spanned<String>,
    #[serde(default)]
    pub(super) api_keys: Vec<Spanned<String>>,
    /// The client ids access tokens name for this client application.
    #[serde(default)]
    pub(super) oauth_client_ids: Vec<Spanned<String>>,
    #[serde(default)]
    pub(super) toolsets: Vec<Spanned<String>>,
    #[serde(default)]
    pub(super) profile: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawToolset {
    pub(super) id: Spanned<String>,
    pub(super) tenant: Spanned<String>,
    #[serde(default = "yes")]
    pub(super) active: bool,
    #[serde(default)]
    pub(super) mode: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) tools: Vec<Spanned<String>>,
    #[serde(default)]
    pub(super) modes: BTreeMap<Spanned<String>, Spanned<String>>,
    /// The scopes an access token must hold to use this toolset.
    #[serde(default)]
    pub(super) scopes: Vec<Spanned<String>>,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawMapping {
    pub(super) tool: Spanned<String>,
    #[serde(default)]
    pub(super) versions: Vec<RawVersion>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawVersion {
    pub(super) version: Spanned<i64>,
    pub(super) status: Spanned<String>,
}
