//! The checks of a configuration against the registered tools: every
//! reference resolved, every problem recorded.

use crate::location::{ConfigLocation, Section};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use super::authorization::{check_authorization, is_scope, scope_problem};
use super::errors::{ProblemKind, Problems};
use super::keys::parse_hash;
use super::server::check_server;
use super::tool_checks::{check_configured_tools, check_downstreams, mappings};
use super::{Client, Config, ConfigErrors, ConfiguredTools, Lineage, Toolset};
use crate::sections::{ClientSection, MappingSection, MappingVersion, Sections, ToolsetSection};
use toolschema_configured::ConfiguredTool;
use toolschema_configured::Status;
use toolschema_runtime::call::Registry;
use toolschema_runtime::project::{META_TOOL, Mode, Profile, SEARCH_TOOL};

/// The sections' checks, for a program that writes them.
impl Sections {
    /// Checks the sections as a configuration's checks check them: each
    /// downstream, and each configured tool against the downstream it
    /// calls and the others' names. Every problem, named by its key
    /// (`gateway_tool[0].version[0].argument[2].name`).
    ///
    /// ```
    /// use toolschema_config::sections::{DownstreamSection, Sections, ToolSection, VersionSection};
    ///
    /// let mut sections = Sections::default();
    /// sections.downstream.push(DownstreamSection {
    ///     id: "pets".into(),
    ///     base_url: "https://pets.example.com".into(),
    ///     ..DownstreamSection::default()
    /// });
    /// let version = VersionSection {
    ///     version: 1,
    ///     status: "draft".into(),
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
        Config::check_tool_sections(self, "written sections")
    }

    /// The whole configuration these sections make, checked against the
    /// tools of `registry` as a file is (the same typed model, the same
    /// checks, no text in between); every problem named by its key.
    ///
    /// ```
    /// use toolschema_config::sections::{ClientSection, Sections, TenantSection};
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
        Config::from_sections(self.clone(), "written sections", registry)
    }
}

/// Checks `raw` against `registry`; `kept` are configured tools checked
/// before and kept as they are (see [`Config::from_json_after`]).
pub(super) fn check(
    mut raw: Sections,
    kept: Vec<Arc<ConfiguredTool>>,
    registry: &Registry,
    p: &mut Problems<'_>,
) -> Config {
    let mut config = Config {
        internal_prefixes: raw
            .catalog
            .as_ref()
            .map(|catalog| catalog.internal_prefixes.clone())
            .unwrap_or_default(),
        keyless_client: None,
        search_model: None,
        tenants: Vec::new(),
        clients: imbl::OrdMap::new(),
        key_owners: imbl::OrdMap::new(),
        token_owners: imbl::OrdMap::new(),
        tenant_clients: imbl::OrdSet::new(),
        toolsets: imbl::OrdMap::new(),
        mappings: imbl::OrdMap::new(),
        server: None,
        downstreams: BTreeMap::new(),
        gateway_tools: ConfiguredTools::default(),
        lineage: Lineage::new(),
        authorization: raw
            .authorization
            .as_ref()
            .map(|raw| check_authorization(raw, p)),
    };
    let tenants = check_tenants(&raw, &mut config, p);
    let derived = derived_names(registry);
    config.downstreams = check_downstreams(&raw.downstream, p);
    let is_derived = |name: &str| derived.binary_search(&name).is_ok();
    // Each raw tool is dropped once checked: an imported catalog's raw
    // and checked tools are not held whole together.
    let gateway_tools = check_configured_tools(
        core::mem::take(&mut raw.gateway_tool),
        kept,
        &config.downstreams,
        &is_derived,
        p,
    );
    config.gateway_tools = ConfiguredTools::new(gateway_tools.clone());
    let whole = Whole::of(&derived, &gateway_tools);
    let registered = Sorted(&whole.registered);
    let names = Names {
        tenants: &tenants,
        derived: &whole.derived,
        registered: &registered,
        gateway: &whole.gateway,
        authorized: raw.authorization.is_some(),
    };
    for (i, raw_set) in raw.toolset.iter().enumerate() {
        if let Some(set) = check_toolset(i, raw_set, &names, &config, registry, p) {
            config.toolsets.insert(set.id.clone(), Arc::new(set));
        }
    }
    // A key held by two clients is a problem of both: the second is told
    // (below, as in a change) and so is the first, so that whichever of
    // them an operator just wrote is named.
    let mut first_holders: HashMap<[u8; 32], (ConfigLocation, &str)> = HashMap::new();
    for (i, raw_client) in raw.client.iter().enumerate() {
        let id = &raw_client.id;
        for (j, key) in raw_client.api_keys.iter().enumerate() {
            let Some(hash) = parse_hash(key) else {
                continue;
            };
            match first_holders.get(&hash) {
                Some((at, holder)) if *holder != id.as_str() => p.duplicate(
                    at.clone(),
                    format!("client `{id}` holds this key too: {ONE_HOLDER}"),
                ),
                Some(_) => {}
                None => {
                    let at = ConfigLocation::entry_of(Section::Client, i)
                        .field_of("api_keys")
                        .item(j);
                    first_holders.insert(hash, (at, id));
                }
            }
        }
        if let Some(client) = check_client(i, raw_client, &names, &config, &[], p) {
            config.insert_client(client);
        }
    }
    for (i, mapping) in raw.mapping.iter().enumerate() {
        if let Some(versions) = check_mapping(i, mapping, &names, &config, registry, p) {
            config.mappings.insert(mapping.tool.clone(), versions);
        }
    }
    config.keyless_client = check_keyless(&raw, &config, p);
    config.search_model = check_search_model(&raw, p);
    if raw.client.is_empty() {
        p.at(
            ConfigLocation::section_whole(Section::Client),
            "the configuration names no client application (`[[client]]`), so every request would be refused; add one, or serve without a configuration (open mode)",
        );
    }
    for (name, versions) in mappings(&gateway_tools) {
        config.mappings.insert(name, versions);
    }
    config.server = raw.server.map(|server| check_server(server, p));
    let scopes: Vec<String> = config
        .toolsets
        .values()
        .flat_map(|set| set.scopes.iter().cloned())
        .collect();
    config.authorization = config
        .authorization
        .take()
        .map(|authorization| authorization.with_scopes(scopes.into_iter()));
    config
}

/// The tenants, each once (a duplicate is a problem); returns where each
/// id was first declared.
fn check_tenants(
    raw: &Sections,
    config: &mut Config,
    p: &mut Problems<'_>,
) -> HashMap<String, usize> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, tenant) in raw.tenant.iter().enumerate() {
        let id = &tenant.id;
        if let Some(first) = seen.insert(id.clone(), i) {
            p.duplicate(
                ConfigLocation::entry_of(Section::Tenant, i).field_of("id"),
                format!("duplicate tenant id `{id}` (also tenant[{first}])"),
            );
        } else {
            config.tenants.push(id.clone());
        }
    }
    seen
}

/// The names of the registered (derived) tools, sorted, each once.
fn derived_names(registry: &Registry) -> Vec<&str> {
    let mut names: Vec<&str> = registry.tools().map(|t| &*t.name).collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// A set of names the sections may refer to.
pub(super) trait Known {
    /// Whether `name` is in it.
    fn has(&self, name: &str) -> bool;
    /// Every name in it, for a suggestion.
    fn all(&self) -> Vec<&str>;
}

impl Known for HashMap<String, usize> {
    fn has(&self, name: &str) -> bool {
        self.contains_key(name)
    }
    fn all(&self) -> Vec<&str> {
        self.keys().map(String::as_str).collect()
    }
}

/// Names sorted in byte order, each once.
pub(super) struct Sorted<'a>(pub(super) &'a [&'a str]);

impl Known for Sorted<'_> {
    fn has(&self, name: &str) -> bool {
        self.0.binary_search(&name).is_ok()
    }
    fn all(&self) -> Vec<&str> {
        self.0.to_vec()
    }
}

impl Known for HashSet<&str> {
    fn has(&self, name: &str) -> bool {
        self.contains(name)
    }
    fn all(&self) -> Vec<&str> {
        self.iter().copied().collect()
    }
}

/// What the sections may refer to.
pub(super) struct Names<'a> {
    pub(super) tenants: &'a dyn Known,
    /// The registered (derived) tools.
    pub(super) derived: &'a dyn Known,
    /// What a toolset may name: registered tools and configured tools.
    pub(super) registered: &'a dyn Known,
    pub(super) gateway: &'a dyn Known,
    /// Whether an `[authorization]` section issues access tokens.
    pub(super) authorized: bool,
}

/// The sets [`Names`] refers to in a whole check.
struct Whole<'a> {
    derived: Sorted<'a>,
    registered: Vec<&'a str>,
    gateway: HashSet<&'a str>,
}

impl<'a> Whole<'a> {
    fn of(derived: &'a [&'a str], gateway_tools: &'a [Arc<ConfiguredTool>]) -> Whole<'a> {
        let gateway: HashSet<&str> = gateway_tools.iter().map(|t| t.name()).collect();
        let mut registered: Vec<&str> = derived.to_vec();
        registered.extend(gateway_tools.iter().map(|t| t.name()));
        registered.sort_unstable();
        registered.dedup();
        Whole {
            derived: Sorted(derived),
            registered,
            gateway,
        }
    }
}

impl Names<'_> {
    /// Records a problem if `tenant` (at `key`) is not declared.
    fn tenant(&self, tenant: &String, key: ConfigLocation, p: &mut Problems<'_>) {
        let id = tenant;
        if !self.tenants.has(id) {
            p.reference(
                key,
                format!(
                    "unknown tenant `{id}`{}; declare it with [[tenant]]",
                    p.suggestion(id, self.tenants.all().into_iter())
                ),
            );
        }
    }
}

/// The `i`th toolset, checked; `None` when its id is taken.
pub(super) fn check_toolset(
    i: usize,
    raw_set: &ToolsetSection,
    names: &Names<'_>,
    config: &Config,
    registry: &Registry,
    p: &mut Problems<'_>,
) -> Option<Toolset> {
    let at = ConfigLocation::entry_of(Section::Toolset, i);
    let id = raw_set.id.clone();
    if config.toolsets.contains_key(&id) {
        p.duplicate(at.field_of("id"), format!("duplicate toolset id `{id}`"));
        return None;
    }
    names.tenant(&raw_set.tenant, at.field_of("tenant"), p);
    let mode = match &raw_set.mode {
        None => Mode::Full,
        Some(word) => mode_or_problem(word, &at.field_of("mode"), p),
    };
    let mut tools = Vec::new();
    // Names listed so far: a toolset may list thousands.
    let mut listed: HashSet<&str> = HashSet::new();
    for (j, tool) in raw_set.tools.iter().enumerate() {
        let name = tool;
        // Formatted only for a problem: a toolset may list thousands.
        let key = || at.field_of("tools").item(j);
        if tool_problem(name, &key, config, registry, names.registered, p) {
            continue;
        }
        if !listed.insert(name) {
            p.at(key(), format!("`{name}` is listed twice in this toolset"));
            continue;
        }
        tools.push(name.clone());
    }
    let mut scopes = Vec::new();
    for (j, scope) in raw_set.scopes.iter().enumerate() {
        let key = at.field_of("scopes").item(j);
        let word = scope;
        if !names.authorized {
            p.at(key, "scopes are those of access tokens: configure the `[authorization]` section that issues them, or remove the scopes");
        } else if !is_scope(word) {
            p.at(key, scope_problem(word));
        } else if !scopes.contains(word) {
            scopes.push(word.clone());
        }
    }
    let mut overrides = BTreeMap::new();
    for (tool, word) in &raw_set.modes {
        let name = tool;
        let key = at.field_of("modes").field_of(name);
        if !raw_set.tools.iter().any(|t| t == name) {
            p.at(key.clone(), format!("`{name}` is not a tool of this toolset; add it to `tools` or remove the override"));
            continue;
        }
        overrides.insert(name.clone(), mode_or_problem(word, &key, p));
    }
    Some(Toolset {
        id,
        tenant: raw_set.tenant.clone(),
        active: raw_set.active,
        mode,
        tools,
        overrides,
        scopes,
    })
}

/// The `i`th client application, checked; `None` when its id is taken.
/// What to do about an API key two clients hold.
const ONE_HOLDER: &str = "a key is one client application's; give each client its own (`toolschema hash-key` prints a new key's hash)";

pub(super) fn check_client(
    i: usize,
    raw_client: &ClientSection,
    names: &Names<'_>,
    config: &Config,
    earlier: &[Client],
    p: &mut Problems<'_>,
) -> Option<Client> {
    let at = ConfigLocation::entry_of(Section::Client, i);
    let id = raw_client.id.clone();
    if config.clients.contains_key(&id) {
        p.duplicate(at.field_of("id"), format!("duplicate client id `{id}`"));
        return None;
    }
    names.tenant(&raw_client.tenant, at.field_of("tenant"), p);
    let tenant = &raw_client.tenant;
    let mut key_hashes = Vec::new();
    for (j, key) in raw_client.api_keys.iter().enumerate() {
        match parse_hash(key) {
            // A key is one client's: which client a request is served as
            // must not depend on the order clients are configured in.
            Some(hash) => match config.key_owner(&hash).or_else(|| {
                let mut earlier = earlier.iter();
                earlier.find(|c| c.key_hashes.contains(&hash)).map(Client::id)
            }) {
                Some(other) => p.duplicate(
                    at.field_of("api_keys").item(j),
                    format!("client `{other}` holds this key already: {ONE_HOLDER}"),
                ),
                None if key_hashes.contains(&hash) => {}
                None => key_hashes.push(hash),
            },
            None => p.at(
                at.field_of("api_keys").item(j),
                "API keys are stored as hashes: write `sha256:` and 64 hex digits (`toolschema hash-key` prints one); never the key itself",
            ),
        }
    }
    let oauth_client_ids = token_clients(&at, raw_client, names, config, p);
    let mut toolsets = Vec::new();
    for (j, set) in raw_client.toolsets.iter().enumerate() {
        let name = set;
        let key = at.field_of("toolsets").item(j);
        match config.toolsets.get(name) {
            None => p.reference(
                key,
                format!("unknown toolset `{name}`{}", p.suggestion(name, config.toolsets.keys().map(String::as_str))),
            ),
            Some(found) if found.tenant != *tenant => p.at(
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
        Some(word) => Profile::from_name(word).unwrap_or_else(|| {
            p.at(
                at.field_of("profile"),
                format!(
                    "unknown profile `{}`; use `default`, `openai-strict` or `gemini`",
                    &word
                ),
            );
            Profile::Default
        }),
    };
    Some(Client {
        id,
        tenant: tenant.clone(),
        key_hashes,
        oauth_client_ids,
        toolsets,
        profile,
    })
}

/// The client ids of access tokens that name the client at `at`: each
/// names one client application only.
fn token_clients(
    at: &ConfigLocation,
    raw_client: &ClientSection,
    names: &Names<'_>,
    config: &Config,
    p: &mut Problems<'_>,
) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for (j, token_client) in raw_client.oauth_client_ids.iter().enumerate() {
        let key = at.field_of("oauth_client_ids").item(j);
        let name = token_client;
        if !names.authorized {
            p.at(key, "client ids of access tokens need the `[authorization]` section that issues the tokens; add it, or remove them");
        } else if name.trim().is_empty() {
            p.at(key, "the client id is blank");
        } else if let Some(other) = config.token_owner(name) {
            p.at(
                key,
                format!(
                    "`{name}` already names client `{other}`: a token is one client application's"
                ),
            );
        } else if !ids.contains(name) {
            ids.push(name.clone());
        }
    }
    ids
}

/// The `i`th mapping's versions, checked; `None` when the mapping is
/// refused as a whole.
pub(super) fn check_mapping(
    i: usize,
    mapping: &MappingSection,
    names: &Names<'_>,
    config: &Config,
    registry: &Registry,
    p: &mut Problems<'_>,
) -> Option<Vec<(u32, Status)>> {
    let at = ConfigLocation::entry_of(Section::Mapping, i);
    let name = &mapping.tool;
    let refusal = if config.mappings.contains_key(name) {
        Some((
            ProblemKind::Duplicate,
            format!("duplicate mapping for `{name}`"),
        ))
    } else if names.gateway.has(name) {
        Some((
            ProblemKind::Rule,
            format!(
                "`{name}` is a gateway tool: its versions and statuses are its `[[gateway_tool.version]]` sections; remove this mapping"
            ),
        ))
    } else if !names.derived.has(name) {
        Some((
            ProblemKind::Reference,
            format!(
                "unknown tool `{name}`{}",
                p.suggestion(name, names.registered.all().into_iter())
            ),
        ))
    } else {
        None
    };
    if let Some((kind, refusal)) = refusal {
        p.found(at.field_of("tool"), kind, refusal);
        return None;
    }
    let mut versions: Vec<(u32, Status)> = Vec::new();
    for (j, version) in mapping.versions.iter().enumerate() {
        let key = at.in_version(j);
        if let Some(checked) = check_mapped_version(&key, name, version, &versions, registry, p) {
            versions.push(checked);
        }
    }
    Some(versions)
}

/// One version of a mapping: a registered version of the tool, listed
/// once, with a known status.
fn check_mapped_version(
    key: &ConfigLocation,
    name: &str,
    version: &MappingVersion,
    earlier: &[(u32, Status)],
    registry: &Registry,
    p: &mut Problems<'_>,
) -> Option<(u32, Status)> {
    let status = Status::from_name(&version.status);
    if status.is_none() {
        p.at(
            key.field_of("status"),
            format!(
                "unknown status `{}`; use draft, proposed, published or deprecated",
                &version.status
            ),
        );
    }
    let at = key.field_of("version");
    let Some(number) = u32::try_from(version.version).ok().filter(|n| *n >= 1) else {
        p.at(at, "versions are whole numbers from 1 up");
        return None;
    };
    if registry.get(name, number).is_none() {
        let have: Vec<String> = registry.versions(name).map(|v| v.to_string()).collect();
        p.at(
            at,
            format!(
                "no registered type provides `{name}` version {number} (registered: {}); add `#[tool(version = {number})]` to a type or fix the number",
                have.join(", ")
            ),
        );
        return None;
    }
    if earlier.iter().any(|(n, _)| *n == number) {
        p.at(at, format!("version {number} is listed twice"));
        return None;
    }
    Some((number, status?))
}

/// `catalog.keyless_client`, if it names a client application.
fn check_keyless(raw: &Sections, config: &Config, p: &mut Problems<'_>) -> Option<String> {
    let keyless = raw.catalog.as_ref()?.keyless_client.as_ref()?;
    let id = keyless;
    if config.clients.contains_key(id) {
        return Some(id.clone());
    }
    p.reference(
        ConfigLocation::section_whole(Section::Catalog).field_of("keyless_client"),
        format!(
            "unknown client `{id}`{}; name a [[client]] whose tools anyone may call without a key",
            p.suggestion(id, config.clients.keys().map(String::as_str))
        ),
    );
    None
}

/// `catalog.search_model`, if it names a directory. Whether the model is
/// there is the server's to find out when it builds a snapshot: a model
/// missing on one machine falls back to words there, and says so.
fn check_search_model(raw: &Sections, p: &mut Problems<'_>) -> Option<String> {
    let model = raw.catalog.as_ref()?.search_model.as_ref()?;
    if model.trim().is_empty() {
        p.at(
            ConfigLocation::section_whole(Section::Catalog).field_of("search_model"),
            "an empty path; name the directory of a sentence embedding model (its config.json, tokenizer.json and model.safetensors), or leave `search_model` out to rank by words alone",
        );
        return None;
    }
    Some(model.clone())
}

/// Records what is wrong with naming `name` in a toolset; true if anything.
fn tool_problem(
    name: &str,
    key: &dyn Fn() -> ConfigLocation,
    config: &Config,
    registry: &Registry,
    registered: &dyn Known,
    p: &mut Problems<'_>,
) -> bool {
    if name == META_TOOL || name == SEARCH_TOOL {
        p.at(
            key(),
            format!("`{name}` is reserved: the catalog adds it where it is needed"),
        );
        return true;
    }
    if !registered.has(name) {
        p.reference(
            key(),
            format!(
                "unknown tool `{name}`{}",
                p.suggestion(name, registered.all().into_iter())
            ),
        );
        return true;
    }
    let marked = registry
        .versions(name)
        .any(|v| registry.get(name, v).is_some_and(|d| d.internal));
    if marked || config.is_internal_name(name) {
        p.at(
            key(),
            format!("`{name}` is internal and is never exposed; remove it from the toolset"),
        );
        return true;
    }
    false
}

fn mode_or_problem(word: &String, key: &ConfigLocation, p: &mut Problems<'_>) -> Mode {
    Mode::from_name(word).unwrap_or_else(|| {
        p.at(
            key.clone(),
            format!(
                "unknown mode `{}`; use full, data-structure-only, lazy or search",
                &word
            ),
        );
        Mode::Full
    })
}
