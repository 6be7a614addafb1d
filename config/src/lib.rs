//! The catalog's configuration: tenants, client applications, toolsets and
//! mapping versions, read from TOML.
//!
//! A [`Config`] exists only as the result of reading a configuration and
//! checking it against the registered tools: a TOML file
//! ([`Config::from_toml`]; each problem at file, line, column and key) or a
//! JSON document of the same shape ([`Config::from_json`]; each problem at
//! its key), both read into one typed model and checked by the same checks.
//! Every problem is reported at once, and a configuration with any problem
//! is refused whole. Its parts are read through accessors, so
//! nothing unchecked can reach a snapshot.

#![cfg_attr(docsrs, feature(doc_cfg))]
use std::collections::BTreeMap;
use std::sync::Arc;

mod authorization;
mod check;
mod delta;
mod errors;
mod ids;
mod json;
mod keys;
mod location;
mod patch;

mod parts;
mod places;
mod secrets;
pub mod sections;
mod server;
mod tool_checks;

use sections::Sections;

pub use authorization::{ALGORITHMS, Authorization, Introspection};
pub use delta::{Body, Delta, MAX_LOGGED_DELTA, ToolRecord, VersionRecord};
pub use errors::{ConfigError, ConfigErrors, MAX_LISTED_PROBLEMS, ProblemKind};
pub use ids::{RECORD_ID_RULE, is_record_id};
pub use keys::hash_api_key;
#[doc(hidden)]
pub use keys::key_digest;
pub use location::{ConfigLocation, Section};
use patch::Lineage;
pub use patch::Touched;
pub use secrets::{Environment, SecretSource};
pub use toolschema_configured::{Status, active_version};

use errors::Problems;
use toolschema_configured::{ConfiguredTool, Downstream};
use toolschema_runtime::call::Registry;
use toolschema_runtime::project::{Mode, Profile};

/// A client application, as configured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Client {
    id: String,
    tenant: String,
    /// SHA-256 hashes of its API keys.
    pub(crate) key_hashes: Vec<[u8; 32]>,
    oauth_client_ids: Vec<String>,
    toolsets: Vec<String>,
    profile: Profile,
}

impl Client {
    /// Its id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Its tenant.
    pub fn tenant(&self) -> &str {
        &self.tenant
    }

    /// The toolsets assigned to it, in the order configured (each of its
    /// own tenant).
    pub fn toolsets(&self) -> impl Iterator<Item = &str> {
        self.toolsets.iter().map(String::as_str)
    }

    /// The schema dialect it is served.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// The client ids that access tokens name for it (`[authorization]`).
    pub fn oauth_client_ids(&self) -> impl Iterator<Item = &str> {
        self.oauth_client_ids.iter().map(String::as_str)
    }
}

/// A set of tools assigned to clients as one, as configured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toolset {
    id: String,
    tenant: String,
    active: bool,
    mode: Mode,
    tools: Vec<String>,
    overrides: BTreeMap<String, Mode>,
    scopes: Vec<String>,
}

impl Toolset {
    /// Its id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Its tenant.
    pub fn tenant(&self) -> &str {
        &self.tenant
    }

    /// Whether it is in force; an inactive toolset exposes nothing.
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// Its tools, by name, in the order configured.
    pub fn tools(&self) -> impl Iterator<Item = &str> {
        self.tools.iter().map(String::as_str)
    }

    /// The toolset's discovery mode (a tool may override it: see
    /// [`Toolset::mode_of`]).
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The discovery mode of `tool` in this toolset: its override, else the
    /// toolset's mode.
    pub fn mode_of(&self, tool: &str) -> Mode {
        self.overrides.get(tool).copied().unwrap_or(self.mode)
    }

    /// The scopes an access token must hold, all of them, for this
    /// toolset's tools to be listed and called (none: any token of the
    /// client, and API keys).
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }
}

/// A configuration, checked against the registered tools. It can only be
/// made by [`Config::from_toml`] or [`Config::from_json`].
///
/// Its maps are persistent: a configuration patched after a change
/// ([`Config::apply`]) shares with its predecessor every client,
/// toolset and mapping the change left alone.
#[derive(Debug, Clone)]
pub struct Config {
    tenants: Vec<String>,
    clients: imbl::OrdMap<String, Arc<Client>>,
    /// The client holding each API key, by the key's SHA-256 digest.
    key_owners: imbl::OrdMap<[u8; 32], String>,
    /// The client each access token's client id names.
    token_owners: imbl::OrdMap<String, String>,
    /// Each client, by tenant: (tenant, client id).
    tenant_clients: imbl::OrdSet<(String, String)>,
    toolsets: imbl::OrdMap<String, Arc<Toolset>>,
    mappings: imbl::OrdMap<String, Vec<(u32, Status)>>,
    internal_prefixes: Vec<String>,
    keyless_client: Option<String>,
    search_model: Option<String>,
    server: Option<ServerInfo>,
    downstreams: BTreeMap<String, Downstream>,
    gateway_tools: ConfiguredTools,
    authorization: Option<Authorization>,
    lineage: Lineage,
}

/// The tools from configuration (`[[gateway_tool]]`) of a [`Config`], in
/// the order configured: a persistent list, which a configuration patched
/// after a change shares with its predecessor.
///
/// ```
/// use toolschema_config::Config;
/// use toolschema_runtime::call::Registry;
///
/// let config = Config::from_toml(
///     r#"
/// [[tenant]]
/// id = "acme"
///
/// [[client]]
/// id = "app"
/// tenant = "acme"
///
/// [[downstream]]
/// id = "api"
/// base_url = "https://api.example.com"
///
/// [[gateway_tool]]
/// name = "items.get"
/// downstream = "api"
///
/// [[gateway_tool.version]]
/// version = 1
/// status = "published"
/// description = "Reads an item."
/// method = "GET"
/// path = "/items"
/// "#,
///     "catalog.toml",
///     &Registry::new(),
/// )
/// .unwrap();
/// let tools = config.configured_tools();
/// assert_eq!(tools.len(), 1);
/// assert_eq!(tools[0].name(), "items.get");
/// assert_eq!(tools.iter().map(|t| t.name()).collect::<Vec<_>>(), ["items.get"]);
/// ```
#[derive(Debug, Clone, Default)]
pub struct ConfiguredTools {
    tools: imbl::Vector<Arc<ConfiguredTool>>,
    /// Whether they are in name order (a catalog store's always are).
    by_name: bool,
}

impl ConfiguredTools {
    fn new(tools: Vec<Arc<ConfiguredTool>>) -> ConfiguredTools {
        let by_name = tools.is_sorted_by(|a, b| a.name() < b.name());
        ConfiguredTools {
            tools: tools.into_iter().collect(),
            by_name,
        }
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Each, in the order configured.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &Arc<ConfiguredTool>> + '_ {
        self.tools.iter()
    }

    /// The `index`th, if there are as many.
    pub fn get(&self, index: usize) -> Option<&Arc<ConfiguredTool>> {
        self.tools.get(index)
    }

    /// The tool called `name`, if it is one of them.
    pub fn named(&self, name: &str) -> Option<&Arc<ConfiguredTool>> {
        match self.by_name {
            true => self.find(name).ok().and_then(|at| self.tools.get(at)),
            false => self.tools.iter().find(|tool| tool.name() == name),
        }
    }

    /// Where the tool `name` is, or would be, in a list in name order.
    fn find(&self, name: &str) -> Result<usize, usize> {
        self.tools.binary_search_by(|t| t.name().cmp(name))
    }
}

impl core::ops::Index<usize> for ConfiguredTools {
    type Output = Arc<ConfiguredTool>;

    fn index(&self, index: usize) -> &Arc<ConfiguredTool> {
        &self.tools[index]
    }
}

impl<'a> IntoIterator for &'a ConfiguredTools {
    type Item = &'a Arc<ConfiguredTool>;
    type IntoIter = imbl::vector::Iter<'a, Arc<ConfiguredTool>, imbl::shared_ptr::DefaultSharedPtr>;

    fn into_iter(self) -> Self::IntoIter {
        self.tools.iter()
    }
}

/// The `[server]` section: what a `server.json` export says about the
/// server, checked against the MCP registry's rules when loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerInfo {
    name: String,
    description: String,
    version: String,
    title: Option<String>,
    website_url: Option<String>,
    remotes: Vec<serde_json::Value>,
    packages: Vec<serde_json::Value>,
}

impl ServerInfo {
    /// A server's identity given in code rather than by a `[server]`
    /// section: its registry name (`namespace/name`, reverse-DNS, such as
    /// `io.github.acme/warehouse`), a description of at most 100
    /// characters, and a specific version. Checked when exported
    /// ([`problems`](Self::problems) says what is wrong beforehand).
    ///
    /// ```
    /// use toolschema_config::ServerInfo;
    ///
    /// let server = ServerInfo::new("io.github.acme/warehouse", "Stock and reservations", "1.4.0")
    ///     .with_title("Acme warehouse")
    ///     .with_website_url("https://acme.example/warehouse");
    /// assert!(server.problems().is_empty());
    ///
    /// let unnamed = ServerInfo::new("warehouse", "", "latest");
    /// let problems = unnamed.problems();
    /// assert_eq!(problems.len(), 3);
    /// assert_eq!(problems[0].0, "name");
    /// ```
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        version: impl Into<String>,
    ) -> ServerInfo {
        ServerInfo {
            name: name.into(),
            description: description.into(),
            version: version.into(),
            title: None,
            website_url: None,
            remotes: Vec::new(),
            packages: Vec::new(),
        }
    }

    /// The same, with a display title (1 to 100 characters).
    #[must_use]
    pub fn with_title(mut self, title: impl Into<String>) -> ServerInfo {
        self.title = Some(title.into());
        self
    }

    /// The same, with the server's homepage (`https://` or `http://`).
    #[must_use]
    pub fn with_website_url(mut self, url: impl Into<String>) -> ServerInfo {
        self.website_url = Some(url.into());
        self
    }

    /// The same, with a remote transport where the server is reachable:
    /// `kind` is `streamable-http` or `sse`.
    #[must_use]
    pub fn with_remote(mut self, kind: &str, url: &str) -> ServerInfo {
        self.remotes
            .push(serde_json::json!({"type": kind, "url": url}));
        self
    }

    /// What the MCP registry would refuse in this identity, as (field,
    /// what is wrong) pairs, in field order; empty when it can be
    /// exported. A `[server]` section was checked when it was loaded, so
    /// its identity has none.
    pub fn problems(&self) -> Vec<(&'static str, String)> {
        let mut problems = Vec::new();
        let mut note = |field: &'static str, problem: Option<String>| {
            if let Some(problem) = problem {
                problems.push((field, problem));
            }
        };
        note("name", server::name_problem(&self.name));
        note(
            "description",
            server::description_problem(&self.description),
        );
        note("version", server::version_problem(&self.version));
        note(
            "title",
            self.title.as_deref().and_then(server::title_problem),
        );
        note(
            "website_url",
            self.website_url
                .as_deref()
                .and_then(server::website_problem),
        );
        for remote in &self.remotes {
            let text = |key: &str| {
                remote
                    .get(key)
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or("")
            };
            note("remotes", server::remote_problem(text("type"), text("url")));
        }
        problems
    }

    /// Reverse-DNS name, `namespace/name`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// At most 100 characters.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// A specific version (no ranges).
    pub fn version(&self) -> &str {
        &self.version
    }

    /// A display name.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The server's homepage.
    pub fn website_url(&self) -> Option<&str> {
        self.website_url.as_deref()
    }

    /// Remote transports, as the registry describes them.
    pub fn remotes(&self) -> &[serde_json::Value] {
        &self.remotes
    }

    /// Packages, as the registry describes them.
    pub fn packages(&self) -> &[serde_json::Value] {
        &self.packages
    }
}

impl Config {
    /// Reads and checks a configuration against the registered tools.
    /// `file` names the source in error messages.
    pub fn from_toml(text: &str, file: &str, registry: &Registry) -> Result<Config, ConfigErrors> {
        if text.trim().is_empty() {
            let mut problems = Problems::new(file, text);
            problems.unreadable(
                ConfigLocation::file(),
                "the configuration is empty (if it is being written, publish it whole: write another file and rename it over this one); without a configuration, serve in open mode",
            );
            return Err(problems.into_errors());
        }
        let raw = parts::read(text).map_err(|error| {
            let offset = error.span().map_or(0, |span| span.start);
            let mut problems = Problems::new(file, text);
            problems.found_at(
                Some(offset),
                parts::located(text, offset),
                ProblemKind::Unreadable,
                error.message().trim().to_owned(),
            );
            problems.into_errors()
        })?;
        let mut problems = Problems::new(file, text);
        ids::check_record_ids(&raw, &mut problems);
        let config = check::check(raw, Vec::new(), registry, &mut problems);
        match problems.is_empty() {
            true => Ok(config),
            false => Err(problems.into_errors()),
        }
    }

    /// Reads and checks a configuration given as a JSON document of the
    /// file's shape: an object whose keys are the file's tables
    /// (`catalog`, `tenant`, `client`, `toolset`, `mapping`, `server`,
    /// `downstream`, `gateway_tool`, `authorization`), each a table or a
    /// list of tables as in the file. The checks are the file's; each
    /// problem is named by its key (`client[0].toolsets[1]`), with line
    /// and column 0, and `source` names the document in messages. A value
    /// the file could not hold is refused: `null` stands for a field left
    /// out only where the field is optional.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolschema_config::Config;
    /// use toolschema_runtime::call::Registry;
    ///
    /// let registry = Registry::new();
    /// let document = json!({
    ///     "tenant": [{"id": "acme"}],
    ///     "client": [{"id": "acme-app", "tenant": "acme", "toolsets": ["billing"]}],
    /// });
    /// let serde_json::Value::Object(document) = document else { unreachable!() };
    /// let errors = Config::from_json(document, "records", &registry).unwrap_err();
    /// let first = errors.iter().next().unwrap();
    /// assert_eq!(first.key(), "client[0].toolsets[0]");
    /// assert_eq!(first.line(), 0);
    /// assert!(first.message().contains("`billing`"), "{first}");
    /// ```
    pub fn from_json(
        document: serde_json::Map<String, serde_json::Value>,
        source: &str,
        registry: &Registry,
    ) -> Result<Config, ConfigErrors> {
        Config::read_json(document, source, registry, Vec::new())
    }

    /// Reads and checks a configuration as [`Config::from_json`] does,
    /// after a change to `previous`: the document's `gateway_tool` list
    /// holds only the configured tools that changed (added or edited),
    /// and every tool of `previous` that `unchanged` names is kept as it
    /// was checked, shared and not checked again; the others are gone.
    /// The configured tools are then listed by name. `previous` must have
    /// been checked against the same `registry`; a kept tool whose
    /// downstream is not the same in both is a problem (its checks depend
    /// on it: send it again). The rest of the document is read and checked
    /// whole, so the result is the configuration [`Config::from_json`]
    /// reads from the whole document, for less work when few tools change.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolschema_config::Config;
    /// use toolschema_runtime::call::Registry;
    ///
    /// let registry = Registry::new();
    /// let tool = |name: &str, path: &str| json!({
    ///     "name": name, "downstream": "api",
    ///     "version": [{"version": 1, "status": "published", "description": "Reads an item.",
    ///                  "method": "GET", "path": path}],
    /// });
    /// let document = |tools: Vec<serde_json::Value>| {
    ///     let serde_json::Value::Object(map) = json!({
    ///         "tenant": [{"id": "acme"}],
    ///         "client": [{"id": "app", "tenant": "acme"}],
    ///         "downstream": [{"id": "api", "base_url": "https://api.example.com"}],
    ///         "gateway_tool": tools,
    ///     }) else { unreachable!() };
    ///     map
    /// };
    /// let before = Config::from_json(
    ///     document(vec![tool("items.get", "/items"), tool("items.list", "/list")]),
    ///     "records",
    ///     &registry,
    /// )
    /// .unwrap();
    /// // `items.list` changed; `items.get` did not.
    /// let after = Config::from_json_after(
    ///     document(vec![tool("items.list", "/all")]),
    ///     "records",
    ///     &registry,
    ///     &before,
    ///     |name| name == "items.get",
    /// )
    /// .unwrap();
    /// let tools = after.configured_tools();
    /// assert_eq!(tools.len(), 2);
    /// assert!(std::sync::Arc::ptr_eq(&tools[0], &before.configured_tools()[0]), "kept, not checked again");
    /// assert_eq!(tools[1].name(), "items.list");
    /// ```
    pub fn from_json_after(
        document: serde_json::Map<String, serde_json::Value>,
        source: &str,
        registry: &Registry,
        previous: &Config,
        unchanged: impl Fn(&str) -> bool,
    ) -> Result<Config, ConfigErrors> {
        let kept = previous
            .gateway_tools
            .iter()
            .filter(|tool| unchanged(tool.name()))
            .cloned()
            .collect();
        let config = Config::read_json(document, source, registry, kept)?;
        let mut problems = Problems::without_text(source);
        for tool in config.gateway_tools.iter().filter(|tool| {
            unchanged(tool.name())
                && config.downstreams.get(tool.downstream())
                    != previous.downstreams.get(tool.downstream())
        }) {
            problems.at(
                ConfigLocation::section_whole(Section::ConfiguredTool),
                format!(
                    "the configured tool `{}` was kept unchanged, but its downstream `{}` changed: its checks depend on it, so send the tool again to be checked",
                    tool.name(),
                    tool.downstream()
                ),
            );
        }
        match problems.is_empty() {
            true => Ok(config),
            false => Err(problems.into_errors()),
        }
    }

    fn read_json(
        document: serde_json::Map<String, serde_json::Value>,
        source: &str,
        registry: &Registry,
        kept: Vec<Arc<ConfiguredTool>>,
    ) -> Result<Config, ConfigErrors> {
        let mut problems = Problems::without_text(source);
        let Some(raw) = json::read(document, &mut problems) else {
            return Err(problems.into_errors());
        };
        let config = check::check(raw, kept, registry, &mut problems);
        match problems.is_empty() {
            true => Ok(config),
            false => Err(problems.into_errors()),
        }
    }

    /// Checks `sections` as a file's are, with no text: each problem is
    /// named by its key, with line and column 0.
    pub(crate) fn from_sections(
        sections: Sections,
        source: &str,
        registry: &Registry,
    ) -> Result<Config, ConfigErrors> {
        let mut problems = Problems::without_text(source);
        ids::check_record_ids(&sections, &mut problems);
        let config = check::check(sections, Vec::new(), registry, &mut problems);
        match problems.is_empty() {
            true => Ok(config),
            false => Err(problems.into_errors()),
        }
    }

    /// Checks the downstreams and configured tools of `sections` as a
    /// whole configuration's checks check them (no tenant or client is
    /// needed; the tools' names are not held against registered tools).
    pub(crate) fn check_tool_sections(
        sections: &Sections,
        source: &str,
    ) -> Result<(), ConfigErrors> {
        let mut problems = Problems::without_text(source);
        ids::check_record_ids(sections, &mut problems);
        let downstreams = tool_checks::check_downstreams(&sections.downstream, &mut problems);
        let taken = |_: &str| false;
        tool_checks::check_configured_tools(
            sections.gateway_tool.clone(),
            Vec::new(),
            &downstreams,
            &taken,
            &mut problems,
        );
        match problems.is_empty() {
            true => Ok(()),
            false => Err(problems.into_errors()),
        }
    }

    /// Tenant ids, in the order configured.
    pub fn tenants(&self) -> impl Iterator<Item = &str> {
        self.tenants.iter().map(String::as_str)
    }

    /// Client applications, by id.
    pub fn clients(&self) -> impl Iterator<Item = &Client> {
        self.clients.values().map(|client| &**client)
    }

    /// The client application `id`.
    pub fn client(&self, id: &str) -> Option<&Client> {
        self.clients.get(id).map(|client| &**client)
    }

    /// The id of the client application holding the API key whose SHA-256
    /// digest is `digest` (each key is one client's).
    pub fn key_owner(&self, digest: &[u8; 32]) -> Option<&str> {
        self.key_owners.get(digest).map(String::as_str)
    }

    /// The id of the client application an access token's client id names
    /// (`oauth_client_ids`; each names one client).
    pub fn token_owner(&self, token_client: &str) -> Option<&str> {
        self.token_owners.get(token_client).map(String::as_str)
    }

    /// The client applications of `tenant`, by id.
    pub fn clients_of<'a>(&'a self, tenant: &'a str) -> impl Iterator<Item = &'a Client> + 'a {
        self.tenant_clients
            .range((tenant.to_owned(), String::new())..)
            .take_while(move |(of, _)| of == tenant)
            .filter_map(|(_, id)| self.client(id))
    }

    /// Adds a checked client, its keys and token client ids indexed.
    pub(crate) fn insert_client(&mut self, client: Client) {
        self.tenant_clients
            .insert((client.tenant.clone(), client.id.clone()));
        for digest in &client.key_hashes {
            self.key_owners.insert(*digest, client.id.clone());
        }
        for token_client in &client.oauth_client_ids {
            self.token_owners
                .insert(token_client.clone(), client.id.clone());
        }
        self.clients.insert(client.id.clone(), Arc::new(client));
    }

    /// Removes the client `id`, and its keys and token client ids from the
    /// indexes.
    pub(crate) fn remove_client(&mut self, id: &str) {
        let Some(client) = self.clients.remove(id) else {
            return;
        };
        self.tenant_clients
            .remove(&(client.tenant.clone(), client.id.clone()));
        for digest in &client.key_hashes {
            if self.key_owners.get(digest).is_some_and(|owner| owner == id) {
                self.key_owners.remove(digest);
            }
        }
        for token_client in &client.oauth_client_ids {
            if self
                .token_owners
                .get(token_client)
                .is_some_and(|owner| owner == id)
            {
                self.token_owners.remove(token_client);
            }
        }
    }

    /// Toolsets, by id.
    pub fn toolsets(&self) -> impl Iterator<Item = &Toolset> {
        self.toolsets.values().map(|set| &**set)
    }

    /// The toolset `id`.
    pub fn toolset(&self, id: &str) -> Option<&Toolset> {
        self.toolsets.get(id).map(|set| &**set)
    }

    /// The configured versions of `tool` and their statuses; `None` when the
    /// tool has no `[[mapping]]` (it is then published at its highest
    /// registered version).
    pub fn mapping(&self, tool: &str) -> Option<&[(u32, Status)]> {
        self.mappings.get(tool).map(Vec::as_slice)
    }

    /// Whether a tool name is internal by a configured prefix.
    pub fn is_internal_name(&self, name: &str) -> bool {
        self.internal_prefixes
            .iter()
            .any(|prefix| name.starts_with(prefix.as_str()))
    }

    /// The client application a request without an API key is served as
    /// (`[catalog] keyless_client`), if any: its tools are public.
    pub fn keyless_client(&self) -> Option<&str> {
        self.keyless_client.as_deref()
    }

    /// The directory of the sentence embedding model the search mode
    /// ranks by, with words (`[catalog] search_model`), if one is named.
    /// Served by a build with the `semantic` feature; without it, or when
    /// the model cannot be loaded, the search mode ranks by words alone
    /// and says so.
    pub fn search_model(&self) -> Option<&str> {
        self.search_model.as_deref()
    }

    /// The `[server]` section, if any.
    pub fn server(&self) -> Option<&ServerInfo> {
        self.server.as_ref()
    }

    /// The downstream APIs configured tools call (`[[downstream]]`), by id.
    pub fn downstreams(&self) -> impl Iterator<Item = &Downstream> {
        self.downstreams.values()
    }

    /// The downstream `id`, if configured.
    pub fn downstream(&self, id: &str) -> Option<&Downstream> {
        self.downstreams.get(id)
    }

    /// The tools from configuration (`[[gateway_tool]]`), in the order
    /// configured.
    pub fn configured_tools(&self) -> &ConfiguredTools {
        &self.gateway_tools
    }

    /// The `[authorization]` section: whose access tokens authenticate
    /// clients, if any.
    pub fn authorization(&self) -> Option<&Authorization> {
        self.authorization.as_ref()
    }
}
