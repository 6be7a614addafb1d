//! The catalog's configuration: tenants, client applications, toolsets and
//! mapping versions, read from TOML.
//!
//! Loading checks the file against the registered tools and reports every
//! problem at once, each with file, line, column and key. A file with any
//! problem is refused whole.

use core::fmt;
use core::ops::Range;
use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;
use sha2::{Digest, Sha256};
use toml::Spanned;

use crate::call::Registry;
use crate::profile::Profile;
use crate::project::{META_TOOL, Mode};

/// The status of one version of a mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// Being written; never exposed.
    Draft,
    /// Awaiting review; never exposed.
    Proposed,
    /// Exposed (the highest published version is the active one).
    Published,
    /// Withdrawn: as the highest version, hides the whole mapping.
    Deprecated,
}

impl Status {
    const NAMES: [(&'static str, Status); 4] = [
        ("draft", Status::Draft),
        ("proposed", Status::Proposed),
        ("published", Status::Published),
        ("deprecated", Status::Deprecated),
    ];

    /// The status of a configuration word.
    pub fn from_name(name: &str) -> Option<Status> {
        Status::NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| *s)
    }
}

/// The configuration words of the discovery modes.
const MODE_NAMES: [(&str, Mode); 3] = [
    ("full", Mode::Full),
    ("data-structure-only", Mode::DataStructureOnly),
    ("lazy", Mode::Lazy),
];

fn mode_from_name(name: &str) -> Option<Mode> {
    MODE_NAMES.iter().find(|(n, _)| *n == name).map(|(_, m)| *m)
}

/// A client application.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Client {
    /// Its id.
    pub id: String,
    /// Its tenant.
    pub tenant: String,
    /// SHA-256 hashes of its API keys.
    pub key_hashes: Vec<[u8; 32]>,
    /// The toolsets assigned to it.
    pub toolsets: Vec<String>,
    /// The schema dialect it is served.
    pub profile: Profile,
}

/// A set of tools assigned to clients as one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toolset {
    /// Its id.
    pub id: String,
    /// Its tenant.
    pub tenant: String,
    /// Whether it is in force; an inactive toolset exposes nothing.
    pub active: bool,
    /// The discovery mode of its tools, unless overridden.
    pub mode: Mode,
    /// Its tools, by name.
    pub tools: Vec<String>,
    /// Per-tool mode overrides.
    pub overrides: BTreeMap<String, Mode>,
}

/// A checked configuration.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Config {
    /// Tenant ids.
    pub tenants: Vec<String>,
    /// Client applications by id.
    pub clients: BTreeMap<String, Client>,
    /// Toolsets by id.
    pub toolsets: BTreeMap<String, Toolset>,
    /// Version statuses by tool name; a tool with none here is published at
    /// its highest registered version.
    pub mappings: BTreeMap<String, Vec<(u32, Status)>>,
    /// Tool name prefixes that are never exposed.
    pub internal_prefixes: Vec<String>,
    /// What an exported `server.json` says about the server (`[server]`).
    pub server: Option<ServerInfo>,
}

/// The `[server]` section: what a `server.json` export says about the
/// server, checked against the MCP registry's rules when loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerInfo {
    /// Reverse-DNS name, `namespace/name`.
    pub name: String,
    /// At most 100 characters.
    pub description: String,
    /// A specific version (no ranges).
    pub version: String,
    /// A display name.
    pub title: Option<String>,
    /// The server's homepage.
    pub website_url: Option<String>,
    /// Remote transports, as the registry describes them.
    pub remotes: Vec<serde_json::Value>,
    /// Packages, as the registry describes them.
    pub packages: Vec<serde_json::Value>,
}

/// One problem in a configuration file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The file.
    pub file: String,
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1.
    pub column: usize,
    /// The key, as a path such as `client[2].toolsets[0]`.
    pub key: String,
    /// What is wrong and what to do.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}: {}",
            self.file, self.line, self.column, self.key, self.message
        )
    }
}

/// Every problem of a configuration file (never empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigErrors {
    errors: Vec<ConfigError>,
}

impl ConfigErrors {
    /// The problems, in file order.
    pub fn iter(&self) -> core::slice::Iter<'_, ConfigError> {
        self.errors.iter()
    }

    /// How many problems there are.
    pub fn len(&self) -> usize {
        self.errors.len()
    }

    /// Always false.
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }
}

impl fmt::Display for ConfigErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.errors.len();
        write!(
            f,
            "{n} problem{} in the configuration:",
            if n == 1 { "" } else { "s" }
        )?;
        for error in &self.errors {
            write!(f, "\n  {error}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigErrors {}

/// The hash under which an API key is configured: `sha256:<hex>`.
///
/// ```
/// let hash = toolschema_runtime::catalog::hash_api_key("secret");
/// assert!(hash.starts_with("sha256:") && hash.len() == 7 + 64);
/// ```
pub fn hash_api_key(key: &str) -> String {
    let digest = Sha256::digest(key.as_bytes());
    let mut out = String::from("sha256:");
    for byte in digest.iter() {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// The raw SHA-256 of an API key, as the catalog indexes it.
pub(crate) fn key_digest(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

fn parse_hash(text: &str) -> Option<[u8; 32]> {
    let hex = text.strip_prefix("sha256:")?;
    if hex.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, slot) in out.iter_mut().enumerate() {
        *slot = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    catalog: RawCatalog,
    #[serde(default, rename = "tenant")]
    tenants: Vec<RawTenant>,
    #[serde(default, rename = "client")]
    clients: Vec<RawClient>,
    #[serde(default, rename = "toolset")]
    toolsets: Vec<RawToolset>,
    #[serde(default, rename = "mapping")]
    mappings: Vec<RawMapping>,
    #[serde(default)]
    server: Option<RawServer>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawServer {
    name: Spanned<String>,
    description: Spanned<String>,
    version: Spanned<String>,
    #[serde(default)]
    title: Option<Spanned<String>>,
    #[serde(default)]
    website_url: Option<Spanned<String>>,
    #[serde(default)]
    remotes: Vec<Spanned<toml::Table>>,
    #[serde(default)]
    packages: Vec<Spanned<toml::Table>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawCatalog {
    #[serde(default)]
    internal_prefixes: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTenant {
    id: Spanned<String>,
    #[serde(default)]
    #[allow(dead_code)]
    name: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawClient {
    id: Spanned<String>,
    tenant: Spanned<String>,
    #[serde(default)]
    api_keys: Vec<Spanned<String>>,
    #[serde(default)]
    toolsets: Vec<Spanned<String>>,
    #[serde(default)]
    profile: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawToolset {
    id: Spanned<String>,
    tenant: Spanned<String>,
    #[serde(default = "yes")]
    active: bool,
    #[serde(default)]
    mode: Option<Spanned<String>>,
    #[serde(default)]
    tools: Vec<Spanned<String>>,
    #[serde(default)]
    modes: BTreeMap<Spanned<String>, Spanned<String>>,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMapping {
    tool: Spanned<String>,
    #[serde(default)]
    versions: Vec<RawVersion>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawVersion {
    version: Spanned<i64>,
    status: Spanned<String>,
}

/// Collects problems with their locations.
struct Problems<'a> {
    file: &'a str,
    text: &'a str,
    errors: Vec<(usize, ConfigError)>,
}

impl Problems<'_> {
    fn at(&mut self, span: Range<usize>, key: impl Into<String>, message: impl Into<String>) {
        let (line, column) = line_column(self.text, span.start);
        self.errors.push((
            span.start,
            ConfigError {
                file: self.file.to_owned(),
                line,
                column,
                key: key.into(),
                message: message.into(),
            },
        ));
    }
}

/// The 1-based line and column of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

fn suggestion<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> String {
    match toolschema_text::suggest::closest(name, candidates) {
        Some(near) => format!(" (did you mean `{near}`?)"),
        None => String::new(),
    }
}

impl Config {
    /// Reads and checks a configuration against the registered tools.
    /// `file` names the source in error messages.
    pub fn from_toml(text: &str, file: &str, registry: &Registry) -> Result<Config, ConfigErrors> {
        let raw: RawConfig = toml::from_str(text).map_err(|error| {
            let offset = error.span().map_or(0, |span| span.start);
            let (line, column) = line_column(text, offset);
            ConfigErrors {
                errors: vec![ConfigError {
                    file: file.to_owned(),
                    line,
                    column,
                    key: "(file)".to_owned(),
                    message: error.message().trim().to_owned(),
                }],
            }
        })?;
        let mut problems = Problems {
            file,
            text,
            errors: Vec::new(),
        };
        let config = check(raw, registry, &mut problems);
        if problems.errors.is_empty() {
            Ok(config)
        } else {
            problems.errors.sort_by_key(|(offset, _)| *offset);
            Err(ConfigErrors {
                errors: problems.errors.into_iter().map(|(_, e)| e).collect(),
            })
        }
    }

    /// Whether a tool name is internal by a configured prefix.
    pub fn is_internal_name(&self, name: &str) -> bool {
        self.internal_prefixes
            .iter()
            .any(|prefix| name.starts_with(prefix.as_str()))
    }
}

fn check(raw: RawConfig, registry: &Registry, p: &mut Problems<'_>) -> Config {
    let mut config = Config {
        internal_prefixes: raw
            .catalog
            .internal_prefixes
            .iter()
            .map(|s| s.get_ref().clone())
            .collect(),
        ..Config::default()
    };

    let mut tenant_seen: HashMap<String, usize> = HashMap::new();
    for (i, tenant) in raw.tenants.iter().enumerate() {
        let id = tenant.id.get_ref();
        if let Some(first) = tenant_seen.insert(id.clone(), i) {
            p.at(
                tenant.id.span(),
                format!("tenant[{i}].id"),
                format!("duplicate tenant id `{id}` (also tenant[{first}])"),
            );
        } else {
            config.tenants.push(id.clone());
        }
    }
    let known_tenant = |id: &str| tenant_seen.contains_key(id);

    let registered: Vec<&'static str> = {
        let mut names: Vec<&'static str> = registry.tools().map(|t| t.name).collect();
        names.dedup();
        names
    };
    let is_registered = |name: &str| registered.binary_search(&name).is_ok();

    for (i, raw_set) in raw.toolsets.iter().enumerate() {
        let at = format!("toolset[{i}]");
        let id = raw_set.id.get_ref().clone();
        if config.toolsets.contains_key(&id) {
            p.at(
                raw_set.id.span(),
                format!("{at}.id"),
                format!("duplicate toolset id `{id}`"),
            );
            continue;
        }
        let tenant = raw_set.tenant.get_ref();
        if !known_tenant(tenant) {
            p.at(
                raw_set.tenant.span(),
                format!("{at}.tenant"),
                format!(
                    "unknown tenant `{tenant}`{}; declare it with [[tenant]]",
                    suggestion(tenant, tenant_seen.keys().map(String::as_str))
                ),
            );
        }
        let mode = match &raw_set.mode {
            None => Mode::Full,
            Some(word) => mode_or_problem(word, &format!("{at}.mode"), p),
        };
        let mut tools = Vec::new();
        for (j, tool) in raw_set.tools.iter().enumerate() {
            let name = tool.get_ref();
            let key = format!("{at}.tools[{j}]");
            if tool_problem(name, tool.span(), &key, &config, registry, &registered, p) {
                continue;
            }
            if tools.contains(name) {
                p.at(
                    tool.span(),
                    key,
                    format!("`{name}` is listed twice in this toolset"),
                );
                continue;
            }
            tools.push(name.clone());
        }
        let mut overrides = BTreeMap::new();
        for (tool, word) in &raw_set.modes {
            let name = tool.get_ref();
            let key = format!("{at}.modes.{name}");
            if !raw_set.tools.iter().any(|t| t.get_ref() == name) {
                p.at(tool.span(), &key, format!("`{name}` is not a tool of this toolset; add it to `tools` or remove the override"));
                continue;
            }
            overrides.insert(name.clone(), mode_or_problem(word, &key, p));
        }
        config.toolsets.insert(
            id.clone(),
            Toolset {
                id,
                tenant: tenant.clone(),
                active: raw_set.active,
                mode,
                tools,
                overrides,
            },
        );
    }

    for (i, raw_client) in raw.clients.iter().enumerate() {
        let at = format!("client[{i}]");
        let id = raw_client.id.get_ref().clone();
        if config.clients.contains_key(&id) {
            p.at(
                raw_client.id.span(),
                format!("{at}.id"),
                format!("duplicate client id `{id}`"),
            );
            continue;
        }
        let tenant = raw_client.tenant.get_ref();
        if !known_tenant(tenant) {
            p.at(
                raw_client.tenant.span(),
                format!("{at}.tenant"),
                format!(
                    "unknown tenant `{tenant}`{}; declare it with [[tenant]]",
                    suggestion(tenant, tenant_seen.keys().map(String::as_str))
                ),
            );
        }
        let mut key_hashes = Vec::new();
        for (j, key) in raw_client.api_keys.iter().enumerate() {
            match parse_hash(key.get_ref()) {
                Some(hash) => key_hashes.push(hash),
                None => p.at(
                    key.span(),
                    format!("{at}.api_keys[{j}]"),
                    "API keys are stored as hashes: write `sha256:` and 64 hex digits (`toolschema hash-key` prints one); never the key itself",
                ),
            }
        }
        let mut toolsets = Vec::new();
        for (j, set) in raw_client.toolsets.iter().enumerate() {
            let name = set.get_ref();
            let key = format!("{at}.toolsets[{j}]");
            match config.toolsets.get(name) {
                None => p.at(
                    set.span(),
                    key,
                    format!("unknown toolset `{name}`{}", suggestion(name, config.toolsets.keys().map(String::as_str))),
                ),
                Some(found) if found.tenant != *tenant => p.at(
                    set.span(),
                    key,
                    format!(
                        "toolset `{name}` belongs to tenant `{}`, and this client to tenant `{tenant}`; a client may only use its own tenant's toolsets",
                        found.tenant
                    ),
                ),
                Some(_) => toolsets.push(name.clone()),
            }
        }
        let profile = match &raw_client.profile {
            None => Profile::Default,
            Some(word) => Profile::from_name(word.get_ref()).unwrap_or_else(|| {
                p.at(
                    word.span(),
                    format!("{at}.profile"),
                    format!(
                        "unknown profile `{}`; use `default`, `openai-strict` or `gemini`",
                        word.get_ref()
                    ),
                );
                Profile::Default
            }),
        };
        config.clients.insert(
            id.clone(),
            Client {
                id,
                tenant: tenant.clone(),
                key_hashes,
                toolsets,
                profile,
            },
        );
    }

    for (i, mapping) in raw.mappings.iter().enumerate() {
        let at = format!("mapping[{i}]");
        let name = mapping.tool.get_ref();
        if config.mappings.contains_key(name) {
            p.at(
                mapping.tool.span(),
                format!("{at}.tool"),
                format!("duplicate mapping for `{name}`"),
            );
            continue;
        }
        if !is_registered(name) {
            p.at(
                mapping.tool.span(),
                format!("{at}.tool"),
                format!(
                    "unknown tool `{name}`{}",
                    suggestion(name, registered.iter().copied())
                ),
            );
            continue;
        }
        let mut versions: Vec<(u32, Status)> = Vec::new();
        for (j, version) in mapping.versions.iter().enumerate() {
            let key = format!("{at}.versions[{j}]");
            let number = *version.version.get_ref();
            let status = Status::from_name(version.status.get_ref());
            if status.is_none() {
                p.at(
                    version.status.span(),
                    format!("{key}.status"),
                    format!(
                        "unknown status `{}`; use draft, proposed, published or deprecated",
                        version.status.get_ref()
                    ),
                );
            }
            let number = match u32::try_from(number) {
                Ok(n) if n >= 1 => n,
                _ => {
                    p.at(
                        version.version.span(),
                        format!("{key}.version"),
                        "versions are whole numbers from 1 up",
                    );
                    continue;
                }
            };
            if registry.get(name, number).is_none() {
                let have: Vec<String> = registry.versions(name).map(|v| v.to_string()).collect();
                p.at(
                    version.version.span(),
                    format!("{key}.version"),
                    format!(
                        "no registered type provides `{name}` version {number} (registered: {}); add `#[tool(version = {number})]` to a type or fix the number",
                        have.join(", ")
                    ),
                );
                continue;
            }
            if versions.iter().any(|(n, _)| *n == number) {
                p.at(
                    version.version.span(),
                    format!("{key}.version"),
                    format!("version {number} is listed twice"),
                );
                continue;
            }
            if let Some(status) = status {
                versions.push((number, status));
            }
        }
        config.mappings.insert(name.clone(), versions);
    }
    config.server = raw.server.map(|server| check_server(server, p));
    config
}

/// The registry's name rule: `^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`, 3 to 200
/// characters.
fn is_registry_name(name: &str) -> bool {
    let Some((namespace, local)) = name.split_once('/') else {
        return false;
    };
    (3..=200).contains(&name.len())
        && !namespace.is_empty()
        && !local.is_empty()
        && namespace
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
        && local
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-')
}

fn is_http_url(url: &str) -> bool {
    (url.starts_with("https://") || url.starts_with("http://"))
        && url.len() > "https://".len()
        && !url.contains(char::is_whitespace)
}

/// Whether a version is a range or a floating tag, which the registry
/// refuses.
fn is_version_range(version: &str) -> bool {
    version == "latest"
        || version.contains(['^', '~', '>', '<', '=', '*', ' '])
        || version.split('.').any(|part| part == "x" || part == "X")
}

fn check_server(raw: RawServer, p: &mut Problems<'_>) -> ServerInfo {
    let name = raw.name.get_ref();
    if !is_registry_name(name) {
        p.at(
            raw.name.span(),
            "server.name",
            format!("`{name}` is not a registry server name: write `namespace/name` in reverse-DNS form (`io.github.user/weather`), matching ^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$, 3 to 200 characters"),
        );
    }
    let description = raw.description.get_ref();
    let length = description.chars().count();
    if !(1..=100).contains(&length) {
        p.at(
            raw.description.span(),
            "server.description",
            format!("the description is {length} characters long; the registry allows 1 to 100"),
        );
    }
    let version = raw.version.get_ref();
    if version.is_empty() || version.len() > 255 || is_version_range(version) {
        p.at(
            raw.version.span(),
            "server.version",
            format!("`{version}` is not a specific version: write one such as `1.0.2` (no ranges or `latest`, at most 255 characters)"),
        );
    }
    if let Some(title) = &raw.title
        && !(1..=100).contains(&title.get_ref().chars().count())
    {
        p.at(
            title.span(),
            "server.title",
            "the title must be 1 to 100 characters long",
        );
    }
    if let Some(url) = &raw.website_url
        && !is_http_url(url.get_ref())
    {
        p.at(
            url.span(),
            "server.website_url",
            "the website URL must start with https:// or http://",
        );
    }
    let mut remotes = Vec::new();
    for (i, remote) in raw.remotes.iter().enumerate() {
        let key = format!("server.remotes[{i}]");
        let table = remote.get_ref();
        let kind = table.get("type").and_then(toml::Value::as_str);
        if !matches!(kind, Some("streamable-http" | "sse")) {
            p.at(
                remote.span(),
                format!("{key}.type"),
                "a remote needs `type = \"streamable-http\"` or `\"sse\"`",
            );
        }
        if !table
            .get("url")
            .and_then(toml::Value::as_str)
            .is_some_and(is_http_url)
        {
            p.at(
                remote.span(),
                format!("{key}.url"),
                "a remote needs a `url` starting with https:// or http://",
            );
        }
        remotes.push(serde_json::to_value(table).unwrap_or_default());
    }
    let mut packages = Vec::new();
    for (i, package) in raw.packages.iter().enumerate() {
        let key = format!("server.packages[{i}]");
        let table = package.get_ref();
        for field in ["registryType", "identifier"] {
            if table.get(field).and_then(toml::Value::as_str).is_none() {
                p.at(
                    package.span(),
                    format!("{key}.{field}"),
                    format!("a package needs `{field}`, a string"),
                );
            }
        }
        let transport = table
            .get("transport")
            .and_then(|t| t.get("type"))
            .and_then(toml::Value::as_str);
        if !matches!(transport, Some("stdio" | "streamable-http" | "sse")) {
            p.at(
                package.span(),
                format!("{key}.transport"),
                "a package needs `transport = { type = \"stdio\" }` (or streamable-http, sse)",
            );
        }
        if let Some(version) = table.get("version").and_then(toml::Value::as_str)
            && (version.is_empty() || is_version_range(version))
        {
            p.at(
                package.span(),
                format!("{key}.version"),
                format!("`{version}` is not a specific package version: pin one such as `1.0.0` (no ranges or `latest`)"),
            );
        }
        packages.push(serde_json::to_value(table).unwrap_or_default());
    }
    ServerInfo {
        name: name.clone(),
        description: description.clone(),
        version: version.clone(),
        title: raw.title.map(|t| t.into_inner()),
        website_url: raw.website_url.map(|u| u.into_inner()),
        remotes,
        packages,
    }
}

/// Records what is wrong with naming `name` in a toolset; true if anything.
fn tool_problem(
    name: &str,
    span: Range<usize>,
    key: &str,
    config: &Config,
    registry: &Registry,
    registered: &[&'static str],
    p: &mut Problems<'_>,
) -> bool {
    if name == META_TOOL {
        p.at(
            span,
            key,
            format!("`{META_TOOL}` is reserved: the catalog adds it where it is needed"),
        );
        return true;
    }
    if registered.binary_search(&name).is_err() {
        p.at(
            span,
            key,
            format!(
                "unknown tool `{name}`{}",
                suggestion(name, registered.iter().copied())
            ),
        );
        return true;
    }
    let marked = registry
        .versions(name)
        .any(|v| registry.get(name, v).is_some_and(|d| d.internal));
    if marked || config.is_internal_name(name) {
        p.at(
            span,
            key,
            format!("`{name}` is internal and is never exposed; remove it from the toolset"),
        );
        return true;
    }
    false
}

fn mode_or_problem(word: &Spanned<String>, key: &str, p: &mut Problems<'_>) -> Mode {
    mode_from_name(word.get_ref()).unwrap_or_else(|| {
        p.at(
            word.span(),
            key,
            format!(
                "unknown mode `{}`; use full, data-structure-only or lazy",
                word.get_ref()
            ),
        );
        Mode::Full
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_count_from_one() {
        assert_eq!(line_column("ab\ncd", 0), (1, 1));
        assert_eq!(line_column("ab\ncd", 4), (2, 2));
    }

    #[test]
    fn hashes_round_trip() {
        let hash = hash_api_key("k");
        assert_eq!(parse_hash(&hash), Some(key_digest("k")));
        assert_eq!(parse_hash("sha256:zz"), None);
        assert_eq!(parse_hash("k"), None);
    }
}
