//! The configuration file as read, before any check: every value keeps
//! its place in the file for error messages.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

#[derive(Deserialize)]
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
