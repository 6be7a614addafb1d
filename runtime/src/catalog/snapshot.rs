//! Immutable catalog snapshots: each client's tool list rendered and
//! serialized once, ready to send.

use core::fmt;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde_json::Value;

use super::config::{Config, key_digest};
use super::rules::active_version;
use crate::call::{CallError, Registry};
use crate::profile::{Profile, apply};
use crate::project::{META_TOOL, Mode, meta_tool, project_tool};
use crate::tool::ToolDef;

/// Why a snapshot refuses a request. A tool a client may not see is refused
/// exactly as a tool that does not exist.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// No client application has that id or key.
    UnknownClient,
    /// No tool of that name is available to this client.
    UnknownTool {
        /// The name asked for.
        name: String,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::UnknownClient => f.write_str("unknown client application"),
            Refusal::UnknownTool { name } => write!(f, "there is no tool named `{name}`"),
        }
    }
}

impl std::error::Error for Refusal {}

/// A tool as one client sees it.
#[derive(Debug, Clone)]
struct Exposed {
    def: &'static ToolDef,
    mode: Mode,
    /// The Full descriptor in the client's profile, as `discover_tool_schema`
    /// returns it.
    full: Arc<str>,
}

/// What one client application sees.
#[derive(Debug)]
pub struct ClientView {
    id: String,
    tenant: String,
    profile: Profile,
    tools: BTreeMap<&'static str, Exposed>,
    /// Each listed tool's JSON, in list order (the meta-tool included).
    entries: Vec<Arc<str>>,
    /// `{"tools":[...]}`, ready to send.
    list: Arc<str>,
}

impl ClientView {
    /// The client's id (`*` when no configuration is in force).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The client's tenant (`*` when no configuration is in force).
    pub fn tenant(&self) -> &str {
        &self.tenant
    }

    /// The client's schema dialect.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// The `tools/list` result, serialized: `{"tools":[...]}`.
    pub fn list_json(&self) -> &Arc<str> {
        &self.list
    }

    /// Each listed tool's JSON, in list order.
    pub fn entries(&self) -> &[Arc<str>] {
        &self.entries
    }

    /// The names of the tools listed, in byte order, the meta-tool included.
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.tools.keys().copied().collect();
        if self.has_meta_tool() {
            names.push(META_TOOL);
            names.sort_unstable();
        }
        names
    }

    /// The mode a tool is shown in, if this client sees it.
    pub fn mode_of(&self, tool: &str) -> Option<Mode> {
        self.tools.get(tool).map(|t| t.mode)
    }

    /// The version of a tool this client is served, if it sees it.
    pub fn version_of(&self, tool: &str) -> Option<u32> {
        self.tools.get(tool).map(|t| t.def.version)
    }

    /// Whether the list carries `discover_tool_schema`: exactly when a tool
    /// in it is shown in a reduced mode.
    pub fn has_meta_tool(&self) -> bool {
        self.tools.values().any(|t| t.mode.needs_discovery())
    }
}

/// An immutable catalog: every client's view, built once.
pub struct Snapshot {
    registry: Arc<Registry>,
    /// Views by client id; without configuration, one view under `*`.
    clients: HashMap<String, Arc<ClientView>>,
    /// Whether a configuration is in force (else everyone sees everything).
    governed: bool,
    /// Client ids by API key hash.
    keys: HashMap<[u8; 32], String>,
}

impl fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Snapshot")
            .field("clients", &self.clients.len())
            .field("governed", &self.governed)
            .finish_non_exhaustive()
    }
}

/// The id of the one view when no configuration is in force.
const EVERYONE: &str = "*";

/// Rendered tool JSON, shared across the clients of one build.
#[derive(Default)]
struct Renders {
    tools: HashMap<(&'static str, u32, Mode, Profile), Arc<str>>,
    meta: HashMap<Profile, Arc<str>>,
}

impl Renders {
    fn tool(&mut self, def: &'static ToolDef, mode: Mode, profile: Profile) -> Arc<str> {
        self.tools
            .entry((def.name, def.version, mode, profile))
            .or_insert_with(|| {
                apply(project_tool(def, mode), profile)
                    .to_compact_string()
                    .into()
            })
            .clone()
    }

    fn meta(&mut self, profile: Profile) -> Arc<str> {
        self.meta
            .entry(profile)
            .or_insert_with(|| apply(meta_tool(), profile).to_compact_string().into())
            .clone()
    }
}

impl Snapshot {
    /// The snapshot without configuration: every registered tool that is not
    /// internal, at its highest version, in Full mode, for everyone.
    pub fn open(registry: Arc<Registry>) -> Snapshot {
        let mut renders = Renders::default();
        let mut tools = BTreeMap::new();
        for def in registry.tools() {
            if def.internal {
                continue;
            }
            // `tools()` runs by name then version: the last one wins.
            tools.insert(def.name, (def, Mode::Full));
        }
        let view = view(EVERYONE, EVERYONE, Profile::Default, tools, &mut renders);
        Snapshot {
            registry,
            clients: HashMap::from([(EVERYONE.to_owned(), Arc::new(view))]),
            governed: false,
            keys: HashMap::new(),
        }
    }

    /// The snapshot of a checked configuration.
    pub fn build(registry: Arc<Registry>, config: &Config) -> Snapshot {
        let mut renders = Renders::default();
        // The active descriptor of every tool a toolset may name.
        let mut active: HashMap<&str, &'static ToolDef> = HashMap::new();
        for def in registry.tools() {
            if def.internal || config.is_internal_name(def.name) || active.contains_key(def.name) {
                continue;
            }
            let version = match config.mappings.get(def.name) {
                Some(versions) => active_version(versions),
                None => registry.versions(def.name).max(),
            };
            if let Some(def) = version.and_then(|v| registry.get(def.name, v)) {
                active.insert(def.name, def);
            }
        }
        let mut clients = HashMap::new();
        let mut keys = HashMap::new();
        for client in config.clients.values() {
            let mut tools: BTreeMap<&'static str, (&'static ToolDef, Mode)> = BTreeMap::new();
            let sets = client
                .toolsets
                .iter()
                .filter_map(|id| config.toolsets.get(id))
                .filter(|set| set.active && set.tenant == client.tenant);
            for set in sets {
                for name in &set.tools {
                    let Some(def) = active.get(name.as_str()) else {
                        continue;
                    };
                    let mode = set.overrides.get(name).copied().unwrap_or(set.mode);
                    let entry = tools.entry(def.name).or_insert((def, mode));
                    // The most informative mode wins.
                    entry.1 = entry.1.max(mode);
                }
            }
            for hash in &client.key_hashes {
                keys.insert(*hash, client.id.clone());
            }
            let view = view(
                &client.id,
                &client.tenant,
                client.profile,
                tools,
                &mut renders,
            );
            clients.insert(client.id.clone(), Arc::new(view));
        }
        Snapshot {
            registry,
            clients,
            governed: true,
            keys,
        }
    }

    /// Whether a configuration is in force.
    pub fn is_governed(&self) -> bool {
        self.governed
    }

    /// The view of a client application. Without configuration, every id
    /// gets the one open view.
    pub fn client(&self, id: &str) -> Option<&Arc<ClientView>> {
        if self.governed {
            self.clients.get(id)
        } else {
            self.clients.get(EVERYONE)
        }
    }

    /// The view of the client application that holds `api_key`.
    pub fn client_by_key(&self, api_key: &str) -> Option<&Arc<ClientView>> {
        if !self.governed {
            return self.clients.get(EVERYONE);
        }
        let id = self.keys.get(&key_digest(api_key))?;
        self.clients.get(id)
    }

    /// Every client view, in no particular order.
    pub fn clients(&self) -> impl Iterator<Item = &Arc<ClientView>> {
        self.clients.values()
    }

    /// The serialized `tools/list` result of a client.
    pub fn discover(&self, client: &str) -> Result<Arc<str>, Refusal> {
        Ok(self
            .client(client)
            .ok_or(Refusal::UnknownClient)?
            .list
            .clone())
    }

    /// The Full descriptor of a tool the client sees, in its profile.
    pub fn discover_schema(&self, client: &str, tool: &str) -> Result<Arc<str>, Refusal> {
        let view = self.client(client).ok_or(Refusal::UnknownClient)?;
        view.tools
            .get(tool)
            .map(|t| t.full.clone())
            .ok_or_else(|| Refusal::UnknownTool {
                name: tool.to_owned(),
            })
    }

    /// Calls a tool the client sees, at the version it is served; any other
    /// name is refused as unknown.
    pub async fn call(
        &self,
        client: &str,
        tool: &str,
        arguments: Value,
    ) -> Result<Value, CallError> {
        let unknown = || CallError::UnknownTool {
            name: tool.to_owned(),
        };
        let view = self.client(client).ok_or_else(unknown)?;
        let exposed = view.tools.get(tool).ok_or_else(unknown)?;
        self.registry
            .call_version(exposed.def.name, exposed.def.version, arguments)
            .await
    }

    /// The registry behind the snapshot.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }
}

fn view(
    id: &str,
    tenant: &str,
    profile: Profile,
    tools: BTreeMap<&'static str, (&'static ToolDef, Mode)>,
    renders: &mut Renders,
) -> ClientView {
    let needs_meta = tools.values().any(|(_, mode)| mode.needs_discovery());
    let mut entries: Vec<(&str, Arc<str>)> = tools
        .iter()
        .map(|(name, (def, mode))| (*name, renders.tool(def, *mode, profile)))
        .collect();
    if needs_meta {
        let at = entries.partition_point(|(name, _)| *name < META_TOOL);
        entries.insert(at, (META_TOOL, renders.meta(profile)));
    }
    let mut list =
        String::with_capacity(12 + entries.iter().map(|(_, e)| e.len() + 1).sum::<usize>());
    list.push_str("{\"tools\":[");
    for (i, (_, entry)) in entries.iter().enumerate() {
        if i > 0 {
            list.push(',');
        }
        list.push_str(entry);
    }
    list.push_str("]}");
    let tools = tools
        .into_iter()
        .map(|(name, (def, mode))| {
            let full = renders.tool(def, Mode::Full, profile);
            (name, Exposed { def, mode, full })
        })
        .collect();
    ClientView {
        id: id.to_owned(),
        tenant: tenant.to_owned(),
        profile,
        tools,
        entries: entries.into_iter().map(|(_, e)| e).collect(),
        list: list.into(),
    }
}
