//! A configuration patched after a change: the records a change wrote are
//! checked, and the references the change may have broken, instead of the
//! whole configuration. What the change left alone is shared with the
//! configuration it was patched from.

use std::collections::{BTreeSet, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value};
use toolschema_runtime::call::Registry;

use super::check::{Known, Names, check_client, check_mapping, check_toolset};
use super::errors::Problems;
use super::tool_checks::check_configured_tools;
use super::{Config, ConfiguredTools, json};
use crate::Section;
use crate::delta::{Delta, ToolRecord};
use crate::sections::ToolSection;
use toolschema_configured::ConfiguredTool;

/// Which configuration this is, and what changed since the one it was
/// patched from, if it was. (Not part of what a configuration says: its
/// `Debug` shows nothing of it, so that equal configurations print alike.)
#[derive(Clone)]
pub(super) struct Lineage {
    id: u64,
    /// The id of the configuration this one was patched from.
    after: Option<u64>,
}

impl core::fmt::Debug for Lineage {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("..")
    }
}

/// Each configuration checked or patched in this process has its own id.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

impl Lineage {
    pub(super) fn new() -> Lineage {
        Lineage {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            after: None,
        }
    }
}

/// What a change touched, by name: a snapshot built after it rebuilds what
/// shows these.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Touched {
    /// Tools whose versions changed: configured tools written or removed,
    /// mappings written or removed.
    pub tools: BTreeSet<String>,
    /// Toolsets written or removed.
    pub toolsets: BTreeSet<String>,
    /// Client applications written or removed.
    pub clients: BTreeSet<String>,
}

/// The records a change removed, as (section key, id).
type Removed<'d> = Vec<(&'static str, &'d str)>;

/// The tables a change may write or remove and still be patched.
const PATCHED: [&str; 5] = ["tenant", "client", "toolset", "gateway_tool", "mapping"];

/// Tenant ids, sorted.
struct Tenants<'a>(&'a [String]);

impl Known for Tenants<'_> {
    fn has(&self, name: &str) -> bool {
        self.0.binary_search_by(|t| t.as_str().cmp(name)).is_ok()
    }
    fn all(&self) -> Vec<&str> {
        self.0.iter().map(String::as_str).collect()
    }
}

/// The registered (derived) tools.
struct Derived<'a>(&'a Registry);

impl Known for Derived<'_> {
    fn has(&self, name: &str) -> bool {
        self.0.versions(name).next().is_some()
    }
    fn all(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.0.tools().map(|t| &*t.name).collect();
        names.dedup();
        names
    }
}

/// The configured tools, in name order.
struct Configured<'a>(&'a ConfiguredTools);

impl Known for Configured<'_> {
    fn has(&self, name: &str) -> bool {
        self.0.find(name).is_ok()
    }
    fn all(&self) -> Vec<&str> {
        self.0.iter().map(|t| t.name()).collect()
    }
}

/// What a toolset may name: registered and configured tools.
struct Either<'a>(Derived<'a>, Configured<'a>);

impl Known for Either<'_> {
    fn has(&self, name: &str) -> bool {
        self.0.has(name) || self.1.has(name)
    }
    fn all(&self) -> Vec<&str> {
        let mut names = self.0.all();
        names.extend(self.1.all());
        names
    }
}

/// Whether no id comes twice.
fn unique<'a>(mut ids: impl Iterator<Item = &'a String>) -> bool {
    let mut seen = HashSet::new();
    ids.all(|id| seen.insert(id))
}

impl Config {
    /// This configuration after the change `delta`, checked where the
    /// change touched it, and what it touched: the records it wrote are
    /// checked as the whole check checks them, and every reference the
    /// change may have broken is looked up (a client naming a toolset
    /// removed, or of another tenant now; a toolset naming a configured
    /// tool removed; a tenant removed that something names). Everything
    /// else is shared with this configuration, not checked again and not
    /// copied. A snapshot is rebuilt from what it touched
    /// (`Snapshot::rebuild` in the catalog).
    ///
    /// `None` when the change cannot be applied this way: it writes a
    /// setting or a downstream (on which every configured tool's checks
    /// depend), the configuration issues access tokens (`[authorization]`,
    /// whose scopes and token clients span every record), this
    /// configuration was not read in the store's order (by id), or
    /// anything the change wrote is a problem. Check the whole
    /// configuration then ([`Config::from_json`]): it says where the
    /// problems are. `registry` must be the one this configuration was
    /// checked against.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolschema_config::{Config, Delta, Section};
    /// use toolschema_runtime::call::Registry;
    ///
    /// let registry = Registry::new();
    /// let document = |value: serde_json::Value| match value {
    ///     serde_json::Value::Object(map) => map,
    ///     _ => unreachable!(),
    /// };
    /// let before = Config::from_json(
    ///     document(json!({
    ///         "tenant": [{"id": "acme"}],
    ///         "client": [{"id": "app", "tenant": "acme", "toolsets": ["items"]}],
    ///         "toolset": [{"id": "items", "tenant": "acme", "tools": ["items.get"]}],
    ///         "downstream": [{"id": "api", "base_url": "https://api.example.com"}],
    ///         "gateway_tool": [{"name": "items.get", "downstream": "api", "version": [
    ///             {"version": 1, "status": "published", "description": "Reads an item.",
    ///              "method": "GET", "path": "/items"}]}],
    ///     })),
    ///     "records",
    ///     &registry,
    /// )
    /// .unwrap();
    /// // The toolset switched off: checked on its own.
    /// let mut off = Delta::default();
    /// off.records.entry(Section::Toolset).or_default().insert(
    ///     "items".into(),
    ///     Some(document(json!({"tenant": "acme", "tools": ["items.get"], "active": false}))),
    /// );
    /// let (after, touched) = before.apply(&off, &registry).expect("a change it applies");
    /// assert!(!after.toolset("items").unwrap().is_active());
    /// assert!(before.toolset("items").unwrap().is_active());
    /// assert!(touched.toolsets.contains("items") && touched.clients.is_empty());
    ///
    /// // The toolset removed while the client still names it: not applied;
    /// // the whole check says why.
    /// let mut gone = Delta::default();
    /// gone.records.entry(Section::Toolset).or_default().insert("items".into(), None);
    /// assert!(before.apply(&gone, &registry).is_none());
    /// ```
    pub fn apply(&self, delta: &Delta, registry: &Registry) -> Option<(Config, Touched)> {
        if delta.touches_everything() {
            return None;
        }
        let (written, removed) = self.written_and_removed(delta)?;
        self.patch(written, &removed, registry)
    }

    /// `delta` as the file's shape: a document of the records it wrote,
    /// and the (section key, id) of those it removed. `None` when a tool
    /// it wrote cannot be a record (a version without its definition, a
    /// definition without its configured tool).
    fn written_and_removed<'d>(
        &self,
        delta: &'d Delta,
    ) -> Option<(Map<String, Value>, Removed<'d>)> {
        let mut written: Map<String, Value> = Map::new();
        let mut push = |key: &str, entry: Map<String, Value>| {
            if let Value::Array(entries) = written
                .entry(key)
                .or_insert_with(|| Value::Array(Vec::new()))
            {
                entries.push(Value::Object(entry));
            }
        };
        let mut removed = Vec::new();
        for (section, records) in &delta.records {
            for (id, body) in records {
                match body {
                    Some(body) => {
                        let mut entry = body.clone();
                        entry.insert("id".into(), Value::String(id.clone()));
                        push(section.key(), entry);
                    }
                    None => removed.push((section.key(), id.as_str())),
                }
            }
        }
        for (name, tool) in &delta.tools {
            let was_configured = self.configured_tool(name).is_some();
            match tool {
                None if was_configured => {
                    removed.push((Section::ConfiguredTool.key(), name.as_str()))
                }
                None => removed.push((Section::Mapping.key(), name.as_str())),
                Some(ToolRecord {
                    configured: Some(body),
                    versions,
                }) => {
                    let mut entry = body.clone();
                    entry.insert("name".into(), Value::String(name.clone()));
                    let mut listed = Vec::with_capacity(versions.len());
                    for (number, version) in versions {
                        let mut fields = version.definition.clone()?;
                        fields.insert("version".into(), (*number).into());
                        fields.insert("status".into(), version.status.name().into());
                        listed.push(Value::Object(fields));
                    }
                    entry.insert("version".into(), Value::Array(listed));
                    push(Section::ConfiguredTool.key(), entry);
                }
                // Versions left of a configured tool whose record was
                // removed, or a definition without a record: problems the
                // whole check locates.
                Some(ToolRecord {
                    configured: None,
                    versions,
                }) => {
                    if was_configured || versions.values().any(|v| v.definition.is_some()) {
                        return None;
                    }
                    if versions.is_empty() {
                        removed.push((Section::Mapping.key(), name.as_str()));
                        continue;
                    }
                    let listed = versions
                        .iter()
                        .map(|(number, version)| {
                            serde_json::json!({"version": number, "status": version.status.name()})
                        })
                        .collect();
                    let mut entry = Map::new();
                    entry.insert("tool".into(), Value::String(name.clone()));
                    entry.insert("versions".into(), Value::Array(listed));
                    push(Section::Mapping.key(), entry);
                }
            }
        }
        Some((written, removed))
    }

    /// This configuration after a change given in the file's shape:
    /// `written`, a document holding only the records the change wrote,
    /// whole, and `removed`, the (section key, id) of the records it
    /// removed.
    fn patch(
        &self,
        written: Map<String, Value>,
        removed: &[(&str, &str)],
        registry: &Registry,
    ) -> Option<(Config, Touched)> {
        if self.authorization.is_some()
            || written
                .keys()
                .any(|table| !PATCHED.contains(&table.as_str()))
            || removed.iter().any(|(table, _)| !PATCHED.contains(table))
            || !self.tenants.is_sorted()
            || !self.gateway_tools.by_name
        {
            return None;
        }
        let mut p = Problems::without_text("change");
        let raw = json::read(written, &mut p)?;
        if !unique(raw.tenant.iter().map(|t| &t.id))
            || !unique(raw.client.iter().map(|c| &c.id))
            || !unique(raw.toolset.iter().map(|s| &s.id))
            || !unique(raw.gateway_tool.iter().map(|t| &t.name))
            || !unique(raw.mapping.iter().map(|m| &m.tool))
        {
            return None;
        }
        let mut next = self.clone();
        let mut touched = Touched::default();
        let removed_of = |wanted: &str| -> BTreeSet<&str> {
            removed
                .iter()
                .filter(|(table, _)| *table == wanted)
                .map(|(_, id)| *id)
                .collect()
        };
        let (gone_tenants, gone_tools) = (removed_of("tenant"), removed_of("gateway_tool"));
        next.tenants.retain(|t| !gone_tenants.contains(t.as_str()));
        for tenant in &raw.tenant {
            let id = &tenant.id;
            if let Err(at) = next.tenants.binary_search(id) {
                next.tenants.insert(at, id.clone());
            }
        }
        // Configured tools: the list rebuilt only when one was written or
        // removed, in name order.
        if (!gone_tools.is_empty() || !raw.gateway_tool.is_empty())
            && !next.patch_configured(
                self,
                raw.gateway_tool,
                &gone_tools,
                registry,
                &mut touched,
                &mut p,
            )
        {
            return None;
        }
        for name in removed_of("mapping") {
            next.mappings.remove(name);
            touched.tools.insert(name.to_owned());
        }
        for mapping in &raw.mapping {
            next.mappings.remove(&mapping.tool);
        }
        for id in removed_of("toolset") {
            next.toolsets.remove(id);
            touched.toolsets.insert(id.to_owned());
        }
        for set in &raw.toolset {
            next.toolsets.remove(&set.id);
        }
        for id in removed_of("client") {
            next.remove_client(id);
            touched.clients.insert(id.to_owned());
        }
        for client in &raw.client {
            next.remove_client(&client.id);
        }
        // The records written, checked against the configuration after the
        // change, in the whole check's order: mappings and toolsets, then
        // clients (which name toolsets).
        let tenants = Tenants(&next.tenants);
        let configured = Configured(&next.gateway_tools);
        let registered = Either(Derived(registry), Configured(&next.gateway_tools));
        let names = Names {
            tenants: &tenants,
            derived: &Derived(registry),
            registered: &registered,
            gateway: &configured,
            authorized: false,
        };
        let mut mappings = Vec::new();
        for (i, mapping) in raw.mapping.iter().enumerate() {
            if let Some(versions) = check_mapping(i, mapping, &names, &next, registry, &mut p) {
                mappings.push((mapping.tool.clone(), versions));
            }
        }
        let mut toolsets = Vec::new();
        for (i, set) in raw.toolset.iter().enumerate() {
            toolsets.extend(check_toolset(i, set, &names, &next, registry, &mut p));
        }
        if !p.is_empty() {
            return None;
        }
        for (tool, versions) in mappings {
            touched.tools.insert(tool.clone());
            next.mappings.insert(tool, versions);
        }
        for set in toolsets {
            touched.toolsets.insert(set.id.clone());
            next.toolsets.insert(set.id.clone(), Arc::new(set));
        }
        let mut clients = Vec::new();
        for (i, client) in raw.client.iter().enumerate() {
            if let Some(client) = check_client(i, client, &names, &next, &clients, &mut p) {
                clients.push(client);
            }
        }
        if !p.is_empty() {
            return None;
        }
        for client in clients {
            touched.clients.insert(client.id.clone());
            next.insert_client(client);
        }
        if !next.still_holds(self, &touched, &gone_tenants, &gone_tools) {
            return None;
        }
        next.lineage = Lineage {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            after: Some(self.lineage.id),
        };
        Some((next, touched))
    }

    /// The configured tools `written` (each with all its versions) and
    /// those `gone`, patched into this configuration (a copy of
    /// `previous`), with their mappings; the tools they touched added to
    /// `touched`. `false` when a configured tool written is a registered
    /// tool's mapping.
    fn patch_configured(
        &mut self,
        previous: &Config,
        written: Vec<ToolSection>,
        gone_tools: &BTreeSet<&str>,
        registry: &Registry,
        touched: &mut Touched,
        p: &mut Problems<'_>,
    ) -> bool {
        let derived = Derived(registry);
        let taken = |name: &str| derived.has(name);
        let mut written = check_configured_tools(written, Vec::new(), &self.downstreams, &taken, p);
        written.sort_by(|a, b| a.name().cmp(b.name()));
        let before = Configured(&previous.gateway_tools);
        let rewritten: BTreeSet<&str> = written.iter().map(|t| t.name()).collect();
        // A registered tool's mapping is not a configured tool's.
        if rewritten
            .iter()
            .any(|name| previous.mappings.contains_key(*name) && !before.has(name))
        {
            return false;
        }
        let tools = &mut self.gateway_tools;
        for name in gone_tools {
            if let Ok(at) = tools.find(name) {
                tools.tools.remove(at);
            }
        }
        for tool in &written {
            match tools.find(tool.name()) {
                Ok(at) => {
                    tools.tools.set(at, tool.clone());
                }
                Err(at) => tools.tools.insert(at, tool.clone()),
            }
        }
        for name in gone_tools {
            self.mappings.remove(*name);
            touched.tools.insert((*name).to_owned());
        }
        for tool in &written {
            let versions = tool.versions.iter().map(|v| (v.version, v.status));
            self.mappings
                .insert(tool.name().to_owned(), versions.collect());
            touched.tools.insert(tool.name().to_owned());
        }
        true
    }

    /// Whether the references a change may have broken still hold: every
    /// client naming a toolset the change touched finds it, of its own
    /// tenant; nothing names a tenant or a configured tool it removed; the
    /// keyless client is still there, and some client is. The clients are
    /// walked only when the change removed a toolset of `previous` or moved
    /// one to another tenant, or removed a tenant: otherwise those it wrote
    /// were checked against the whole configuration, and the others name
    /// what they did.
    fn still_holds(
        &self,
        previous: &Config,
        touched: &Touched,
        gone_tenants: &BTreeSet<&str>,
        gone_tools: &BTreeSet<&str>,
    ) -> bool {
        let broken = touched.toolsets.iter().any(|id| {
            let was = previous.toolsets.get(id.as_str()).map(|set| set.tenant());
            was.is_some() && was != self.toolsets.get(id.as_str()).map(|set| set.tenant())
        });
        let walk = broken || !gone_tenants.is_empty();
        let clients_hold = !walk
            || self.clients.values().all(|client| {
                !gone_tenants.contains(client.tenant()) && {
                    client
                        .toolsets()
                        .filter(|id| touched.toolsets.contains(*id))
                        .all(|id| {
                            self.toolsets
                                .get(id)
                                .is_some_and(|set| set.tenant() == client.tenant())
                        })
                }
            });
        let toolsets_hold = (gone_tenants.is_empty() && gone_tools.is_empty())
            || self.toolsets.values().all(|set| {
                !gone_tenants.contains(set.tenant())
                    && set.tools().all(|tool| !gone_tools.contains(tool))
            });
        let keyless_holds = self
            .keyless_client
            .as_ref()
            .is_none_or(|id| self.clients.contains_key(id));
        clients_hold && toolsets_hold && keyless_holds && !self.clients.is_empty()
    }

    /// The configured tool `name`, in a configuration whose configured
    /// tools are in name order (as [`Config::apply`] makes and takes
    /// them).
    pub fn configured_tool(&self, name: &str) -> Option<&Arc<ConfiguredTool>> {
        let at = self.gateway_tools.find(name).ok()?;
        self.gateway_tools.get(at)
    }

    /// Whether this configuration is `previous` after a change
    /// ([`Config::apply`]), so that what that change touched is all that
    /// differs between them.
    pub fn applied_to(&self, previous: &Config) -> bool {
        self.lineage.after == Some(previous.lineage.id)
    }
}
