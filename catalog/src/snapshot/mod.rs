//! Immutable catalog snapshots: each client's tool list rendered and
//! serialized once, ready to send.

use core::fmt;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::registered::Downstreams;
use toolschema_config::{Authorization, Config, ServerInfo, key_digest};

use toolschema_runtime::call::{
    CallArguments, CallError, Caller, ReadArguments, Registry, ToolResult,
};
use toolschema_runtime::model::{Ref, Text, ToolDef};
use toolschema_runtime::project::{META_TOOL, Mode, Profile, ProtocolRevision, SEARCH_TOOL};

use crate::search::{Hit, Index, SearchRanking};

mod build;
mod meta;

pub use meta::{MetaAnswer, MetaRefusal, MetaViolation};

mod render;
use render::{Plan, Renders, shared};
mod scopes;
pub use scopes::Denial;
use scopes::Scoped;

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
            Refusal::UnknownTool { name } => write!(
                f,
                "there is no tool named `{}`",
                toolschema_text::shorten::shorten(name, 200)
            ),
        }
    }
}

impl std::error::Error for Refusal {}

/// A tool as one client sees it.
#[derive(Debug, Clone)]
struct Exposed {
    def: Ref<ToolDef>,
    mode: Mode,
    /// Its entry in the list (in `mode`, in the client's profile), per
    /// revision.
    listed: PerRevision<Arc<str>>,
    /// The Full descriptor in the client's profile, as `discover_tool_schema`
    /// returns it, per revision (shared where they are equal).
    full: PerRevision<Arc<str>>,
}

/// One value per [`ProtocolRevision`], in [`ProtocolRevision::ALL`] order.
#[derive(Debug, Clone)]
struct PerRevision<T>([T; 3]);

impl<T> PerRevision<T> {
    fn get(&self, revision: ProtocolRevision) -> &T {
        &self.0[revision as usize]
    }
}

/// One revision's `tools/list` of a group of clients.
#[derive(Debug, PartialEq)]
struct Listing {
    /// Each listed tool's JSON, in list order (the meta-tool included).
    entries: Arc<[Arc<str>]>,
    /// `{"tools":[...]}`, ready to send.
    list: Arc<str>,
    /// A hash of `list`: which list a pagination cursor came from.
    fingerprint: u64,
}

/// What clients with the same profile and the same toolsets share.
#[derive(Debug)]
struct Shared {
    tools: BTreeMap<Text, Exposed>,
    /// The list in each revision; one `Arc` where revisions agree.
    listings: PerRevision<Arc<Listing>>,
    /// The index `search_tools` searches: the tools in [`Mode::Search`],
    /// when there are some.
    search: Option<Index>,
}

/// What one client application sees.
#[derive(Debug, Clone)]
pub struct ClientView {
    id: Arc<str>,
    tenant: Arc<str>,
    profile: Profile,
    shared: Arc<Shared>,
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

    /// The client's id, shared: a clone copies no text. (Telemetry
    /// records it with every request.)
    ///
    /// ```
    /// use toolschema_runtime::call::Registry;
    /// use toolschema_catalog::Catalog;
    ///
    /// let catalog = Catalog::open(Registry::new());
    /// let snapshot = catalog.snapshot();
    /// let client = snapshot.client("anyone").expect("no configuration: one view for everyone");
    /// assert_eq!(&*client.shared_id(), client.id());
    /// assert_eq!(&*client.shared_tenant(), client.tenant());
    /// ```
    pub fn shared_id(&self) -> Arc<str> {
        self.id.clone()
    }

    /// The client's tenant, shared like [`ClientView::shared_id`].
    pub fn shared_tenant(&self) -> Arc<str> {
        self.tenant.clone()
    }

    /// The client's schema dialect.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// The `tools/list` result a client of `revision` gets, serialized:
    /// `{"tools":[...]}`.
    pub fn list_json(&self, revision: ProtocolRevision) -> &Arc<str> {
        &self.shared.listings.get(revision).list
    }

    /// Each listed tool's JSON for `revision`, in list order.
    pub fn entries(&self, revision: ProtocolRevision) -> &[Arc<str>] {
        &self.shared.listings.get(revision).entries
    }

    /// A hash of the list bytes of `revision`: equal lists have equal
    /// fingerprints.
    pub fn fingerprint(&self, revision: ProtocolRevision) -> u64 {
        self.shared.listings.get(revision).fingerprint
    }

    /// Whether one of this client's lists (in some revision) has
    /// `fingerprint`.
    pub fn has_list(&self, fingerprint: u64) -> bool {
        self.shared
            .listings
            .0
            .iter()
            .any(|listing| listing.fingerprint == fingerprint)
    }

    /// Whether this client's list is the same as `other`'s in every
    /// revision.
    pub fn same_list(&self, other: &ClientView) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
            || ProtocolRevision::ALL
                .into_iter()
                .all(|r| self.list_json(r) == other.list_json(r))
    }

    /// The names of the tools listed, in byte order, the meta-tools
    /// included (tools in [`Mode::Search`] are not listed).
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self
            .shared
            .tools
            .iter()
            .filter(|(_, tool)| tool.mode.is_listed())
            .map(|(name, _)| &**name)
            .collect();
        if self.has_meta_tool() {
            names.push(META_TOOL);
        }
        if self.has_search_tool() {
            names.push(SEARCH_TOOL);
        }
        names.sort_unstable();
        names
    }

    /// The mode a tool is shown in, if this client sees it.
    pub fn mode_of(&self, tool: &str) -> Option<Mode> {
        self.shared.tools.get(tool).map(|t| t.mode)
    }

    /// The definition of a tool this client is served, if it sees it.
    pub fn def_of(&self, tool: &str) -> Option<&Ref<ToolDef>> {
        self.shared.tools.get(tool).map(|t| &t.def)
    }

    /// A tool's entry as this client's list shows it in `revision` (in its
    /// mode and the client's profile), if the client sees the tool. A tool
    /// in [`Mode::Search`] is not in the list: this is then how it is
    /// projected (as in [`Mode::Lazy`]).
    pub fn entry_of(&self, tool: &str, revision: ProtocolRevision) -> Option<&Arc<str>> {
        self.shared.tools.get(tool).map(|t| t.listed.get(revision))
    }

    /// The version of a tool this client is served, if it sees it.
    pub fn version_of(&self, tool: &str) -> Option<u32> {
        self.shared.tools.get(tool).map(|t| t.def.version)
    }

    /// Whether the list carries `discover_tool_schema`: exactly when a tool
    /// in it is shown in a reduced mode.
    pub fn has_meta_tool(&self) -> bool {
        self.shared.tools.values().any(|t| t.mode.needs_discovery())
    }

    /// Whether the list carries `search_tools` (and `discover_tool_schema`
    /// takes several names): exactly when some of this client's tools are
    /// in [`Mode::Search`].
    pub fn has_search_tool(&self) -> bool {
        self.shared.search.is_some()
    }

    /// Whether its searches rank by meaning too (and so embed each query:
    /// milliseconds of CPU, which a server runs off its async workers).
    pub fn searches_by_meaning(&self) -> bool {
        self.shared
            .search
            .as_ref()
            .is_some_and(Index::ranks_by_meaning)
    }

    /// The tools in [`Mode::Search`] this client sees that match `query`,
    /// best first (equal scores by name): how many match, and the first
    /// `limit` of them. Only this client's tools are indexed for it.
    pub fn search(&self, query: &str, limit: usize) -> (usize, Vec<Hit<'_>>) {
        match &self.shared.search {
            Some(index) => index.top(query, limit),
            None => (0, Vec::new()),
        }
    }

    /// Each tool this client sees (the meta-tool aside), with its mode, in
    /// byte order of name.
    pub fn tools(&self) -> impl Iterator<Item = (&Ref<ToolDef>, Mode)> + '_ {
        self.shared.tools.values().map(|t| (&t.def, t.mode))
    }

    fn exposed(&self, tool: &str) -> Option<&Exposed> {
        self.shared.tools.get(tool)
    }
}

/// An immutable catalog: every client's view, built once.
pub struct Snapshot {
    /// The registered tools it was built over (the catalog's).
    base: Arc<Registry>,
    /// Those and the configured tools.
    registry: Arc<Registry>,
    /// Views by client id; without configuration, one view under `*`.
    /// Persistent maps here and below: a snapshot built after a change
    /// shares them with its predecessor, and copies only what changed.
    clients: imbl::HashMap<String, Arc<ClientView>>,
    /// Whether a configuration is in force (else everyone sees everything).
    governed: bool,
    /// The client a request without a key is served as, if any.
    keyless: Option<String>,
    /// The `[server]` section, for exports.
    server: Option<ServerInfo>,
    /// The `[authorization]` section.
    authorization: Option<Authorization>,
    /// What narrowing views to a token's scopes needs, when toolsets
    /// require scopes.
    scoped: Option<Scoped>,
    /// The downstreams configured tools call, by id: a snapshot built after
    /// this one shares the work of tools whose downstream is the same.
    downstreams: Downstreams,
    /// The configuration this snapshot was built from, if any.
    config: Option<Arc<Config>>,
    /// The active descriptor of every tool a toolset may name, by name.
    active: Active,
    /// The groups of clients that see the same list, with how many
    /// clients are in each.
    groups: imbl::HashMap<GroupKey, Group>,
    /// How its search mode ranks tools.
    search_ranking: SearchRanking,
    /// This snapshot's number, unique in the process.
    serial: u64,
    /// When built as a change from another snapshot: that one's number,
    /// and the clients whose views the change replaced, added or removed
    /// (every other client's view is the very one it had).
    patched_from: Option<(u64, Vec<String>)>,
}

/// A number for the next snapshot built, unique in the process.
fn next_serial() -> u64 {
    static SERIAL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    SERIAL.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// The active descriptor of every tool a toolset may name, by name.
type Active = imbl::OrdMap<Text, Ref<ToolDef>>;

/// What makes clients see the same list: their profile and the toolsets
/// in force for them.
type GroupKey = (Profile, Vec<String>);

/// A group of clients, and what they share.
#[derive(Clone)]
struct Group {
    shared: Arc<Shared>,
    members: usize,
}

/// The tools the toolsets `sets` of `config` expose, with their modes.
fn plan_of<'a, S: AsRef<str>>(config: &Config, active: &'a Active, sets: &[S]) -> Plan<'a> {
    let mut plan = Plan::new();
    for set in sets.iter().filter_map(|id| config.toolset(id.as_ref())) {
        for name in set.tools() {
            let Some(def) = active.get(name) else {
                continue;
            };
            let mode = set.mode_of(name);
            let entry = plan.entry(&*def.name).or_insert((def, mode));
            // The most informative mode wins.
            entry.1 = entry.1.max(mode);
        }
    }
    plan
}

/// The toolsets in force for `client`: assigned, active, of its tenant, and
/// (for a token holding `scopes`) unlocked by them; sorted.
fn sets_in_force<'c>(
    config: &'c Config,
    client: &'c toolschema_config::Client,
    scopes: Option<&[&str]>,
) -> Vec<&'c str> {
    let mut sets: Vec<&str> = client
        .toolsets()
        .filter(|id| {
            config.toolset(id).is_some_and(|set| {
                set.is_active()
                    && set.tenant() == client.tenant()
                    && scopes.is_none_or(|held| {
                        set.scopes()
                            .iter()
                            .all(|needed| held.contains(&needed.as_str()))
                    })
            })
        })
        .collect();
    sets.sort_unstable();
    sets.dedup();
    sets
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

impl Snapshot {
    /// The configuration this snapshot was built from; `None` without
    /// one (open mode).
    pub fn config(&self) -> Option<&Arc<Config>> {
        self.config.as_ref()
    }

    /// The `[authorization]` section of the configuration, if any.
    pub fn authorization(&self) -> Option<&Authorization> {
        self.authorization.as_ref()
    }

    /// The view of the client application an access token's client id
    /// names (`oauth_client_ids`), if any.
    pub fn client_by_token(&self, token_client: &str) -> Option<&Arc<ClientView>> {
        self.clients
            .get(self.config.as_ref()?.token_owner(token_client)?)
    }

    /// The `[server]` section of the configuration, if any.
    pub fn server(&self) -> Option<&ServerInfo> {
        self.server.as_ref()
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

    /// How its search mode ranks tools: by words, or by words and the
    /// meaning the configured model finds (`[catalog] search_model`), or
    /// by words although a model is named, with the reason.
    pub fn search_ranking(&self) -> &SearchRanking {
        &self.search_ranking
    }

    /// The view a request without an API key is served: the open view
    /// without configuration, else the `keyless_client` if one is
    /// configured (and none otherwise: the request must authenticate).
    pub fn keyless_client(&self) -> Option<&Arc<ClientView>> {
        match (&self.keyless, self.governed) {
            (_, false) => self.clients.get(EVERYONE),
            (Some(id), true) => self.clients.get(id),
            (None, true) => None,
        }
    }

    /// The view of the client application that holds `api_key`.
    pub fn client_by_key(&self, api_key: &str) -> Option<&Arc<ClientView>> {
        if !self.governed {
            return self.clients.get(EVERYONE);
        }
        // Looked up by the key's SHA-256 digest. How long that takes may
        // say something of the digests configured, never of a key: a
        // caller can compute the digest of any key it tries, and finding
        // a key from a digest is finding a SHA-256 preimage. A scan of
        // every hash in constant time cost each request O(keys).
        let id = self.config.as_ref()?.key_owner(&key_digest(api_key))?;
        self.clients.get(id)
    }

    /// Compiles the validators of every tool version some client can call,
    /// so that no call waits for one; returns how many tool versions that
    /// is. Each is compiled once for the life of the registry, so preparing
    /// the next snapshot compiles only what is new. See
    /// [`Catalog::prepare_in_background`](super::Catalog::prepare_in_background).
    pub fn prepare(&self) -> usize {
        self.prepare_views(self.clients.values())
    }

    /// The same for the clients `ids` only, as after a reload that changed
    /// their lists (the [`ChangeSet`](super::ChangeSet) it tells): what
    /// the others call was prepared before. Unknown ids are passed over.
    ///
    /// ```
    /// use toolschema_catalog::Catalog;
    /// use toolschema_runtime::call::Registry;
    ///
    /// let catalog = Catalog::open(Registry::new());
    /// let reloads = catalog.subscribe();
    /// // After each reload, what the clients it changed are served:
    /// while let Ok(changed) = reloads.try_recv() {
    ///     catalog.snapshot().prepare_for(changed.clients.iter().map(String::as_str));
    /// }
    /// assert_eq!(catalog.snapshot().prepare_for(["nobody"]), 0);
    /// ```
    pub fn prepare_for<'a>(&self, ids: impl IntoIterator<Item = &'a str>) -> usize {
        self.prepare_views(ids.into_iter().filter_map(|id| self.clients.get(id)))
    }

    /// Prepares what `views` show, each group of clients' tools once.
    fn prepare_views<'a>(&self, views: impl Iterator<Item = &'a Arc<ClientView>>) -> usize {
        let mut groups = std::collections::HashSet::new();
        let mut served = BTreeSet::new();
        for view in views {
            if groups.insert(Arc::as_ptr(&view.shared)) {
                for (def, _) in view.tools() {
                    served.insert((def.name.clone(), def.version));
                }
            }
        }
        served
            .into_iter()
            .filter(|(name, version)| self.registry.prepare(name, *version))
            .count()
    }

    /// Every client view, in no particular order.
    pub fn clients(&self) -> impl Iterator<Item = &Arc<ClientView>> {
        self.clients.values()
    }

    /// The clients whose tool lists differ from their lists in `before`
    /// (added, removed, or with different bytes), in byte order. When this
    /// snapshot was built as a change from `before`
    /// ([`rebuild`](Self::rebuild)), only the views that change
    /// replaced are compared; otherwise every client is.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolschema_catalog::Snapshot;
    /// use toolschema_runtime::call::Registry;
    ///
    /// let registry = Arc::new(Registry::new());
    /// let before = Snapshot::open(registry.clone());
    /// let after = Snapshot::open(registry);
    /// // The same (empty) list for everyone.
    /// assert!(after.clients_changed_since(&before).is_empty());
    /// ```
    pub fn clients_changed_since(&self, before: &Snapshot) -> BTreeSet<String> {
        let differs = |id: &str| match (before.clients.get(id), self.clients.get(id)) {
            (Some(old), Some(new)) => !old.same_list(new),
            (None, None) => false,
            _ => true,
        };
        match &self.patched_from {
            Some((serial, replaced)) if *serial == before.serial => {
                replaced.iter().filter(|id| differs(id)).cloned().collect()
            }
            _ => self
                .clients
                .keys()
                .chain(
                    before
                        .clients
                        .keys()
                        .filter(|id| !self.clients.contains_key(*id)),
                )
                .filter(|id| differs(id))
                .cloned()
                .collect(),
        }
    }

    /// The serialized `tools/list` result of a client of `revision`.
    pub fn discover(&self, client: &str, revision: ProtocolRevision) -> Result<Arc<str>, Refusal> {
        Ok(self
            .client(client)
            .ok_or(Refusal::UnknownClient)?
            .list_json(revision)
            .clone())
    }

    /// The Full descriptor of a tool the client sees, in its profile and
    /// `revision`.
    pub fn discover_schema(
        &self,
        client: &str,
        tool: &str,
        revision: ProtocolRevision,
    ) -> Result<Arc<str>, Refusal> {
        let view = self.client(client).ok_or(Refusal::UnknownClient)?;
        Snapshot::discover_in(view, tool, revision)
    }

    /// [`discover_schema`](Self::discover_schema) within `view` (a client's
    /// view, or one narrowed to a token's scopes).
    pub fn discover_in(
        view: &ClientView,
        tool: &str,
        revision: ProtocolRevision,
    ) -> Result<Arc<str>, Refusal> {
        view.exposed(tool)
            .map(|t| t.full.get(revision).clone())
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
        arguments: impl Into<CallArguments>,
    ) -> Result<ToolResult, CallError> {
        self.call_with(client, tool, arguments, Caller::anonymous())
            .await
    }

    /// [`call`](Self::call), with the transport's side of the call: the
    /// peer a handler talks back through, and its cancellation. The
    /// handler's context names the client application and its tenant when
    /// a configuration is in force.
    pub async fn call_with(
        &self,
        client: &str,
        tool: &str,
        arguments: impl Into<CallArguments>,
        caller: Caller,
    ) -> Result<ToolResult, CallError> {
        let view = self.client(client).ok_or_else(|| CallError::UnknownTool {
            name: tool.to_owned(),
        })?;
        self.call_in(view, tool, arguments, caller).await
    }

    /// [`call_with`](Self::call_with) within `view` (a client's view, or
    /// one narrowed to a token's scopes): a tool outside it is unknown.
    pub async fn call_in(
        &self,
        view: &ClientView,
        tool: &str,
        arguments: impl Into<CallArguments>,
        caller: Caller,
    ) -> Result<ToolResult, CallError> {
        let exposed = view.exposed(tool).ok_or_else(|| CallError::UnknownTool {
            name: tool.to_owned(),
        })?;
        let caller = match self.governed {
            true => caller.identified(view.tenant(), view.id()),
            false => caller,
        };
        self.registry
            .call_as(caller, &exposed.def.name, exposed.def.version, arguments)
            .await
    }

    /// Reads the arguments of a call of `tool` within `view` from the start
    /// of `text`, where they stand in the client's message, as
    /// [`call_in`](Self::call_in) calls that tool: into the derived tool's
    /// type, in one pass, for `call_in` with [`CallArguments::Read`]. With
    /// how many bytes they took.
    ///
    /// `None` when the call must read them itself (see
    /// [`Registry::read_leading`]): a meta-tool, a tool built at run time
    /// (a configured one), a tool outside the view, or arguments the one
    /// pass does not accept as they are, whose refusal the call then says.
    pub fn read_arguments(
        &self,
        view: &ClientView,
        tool: &str,
        text: &str,
    ) -> Option<(ReadArguments, usize)> {
        if view.lists_meta_tool(tool) {
            return None;
        }
        let exposed = view.exposed(tool)?;
        self.registry
            .read_leading(&exposed.def.name, exposed.def.version, text)
    }

    /// The registry behind the snapshot.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }
}
