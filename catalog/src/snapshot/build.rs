//! Building a snapshot: the tools each group of clients sees, rendered
//! once per mode and profile, and each client's list serialized once.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use arc_swap::ArcSwap;

use super::{
    Active, ClientView, EVERYONE, Group, GroupKey, Plan, Scoped, Shared, Snapshot, next_serial,
    plan_of, render_all, sets_in_force, shared,
};
use crate::config::{Client, Config, Touched};
use crate::gateway::{NoTransport, Transport, register_configured};
use crate::rules::active_version;
use toolschema_runtime::call::Registry;
use toolschema_runtime::model::{Ref, ToolDef};
use toolschema_runtime::project::{Mode, Profile};

impl Snapshot {
    /// The snapshot without configuration: every registered tool that is not
    /// internal, at its highest version, in Full mode, for everyone.
    pub fn open(registry: Arc<Registry>) -> Snapshot {
        let mut plan = Plan::new();
        for def in registry.tools() {
            if def.internal {
                continue;
            }
            // `tools()` runs by name then version: the last one wins.
            plan.insert(&*def.name, (def, Mode::Full));
        }
        let plans = [(Profile::Default, plan)];
        let renders = render_all(&plans, &[]);
        let view = ClientView {
            id: Arc::from(EVERYONE),
            tenant: Arc::from(EVERYONE),
            profile: Profile::Default,
            shared: Arc::new(shared(Profile::Default, &plans[0].1, &renders)),
        };
        Snapshot {
            base: registry.clone(),
            registry,
            clients: imbl::HashMap::unit(EVERYONE.to_owned(), Arc::new(view)),
            governed: false,
            keyless: None,
            server: None,
            authorization: None,
            scoped: None,
            downstreams: HashMap::new(),
            config: None,
            active: Active::new(),
            groups: imbl::HashMap::new(),
            serial: next_serial(),
            patched_from: None,
        }
    }

    /// The snapshot of a checked configuration, without transport for
    /// configured tools (their calls say so).
    pub fn build(registry: Arc<Registry>, config: &Config) -> Snapshot {
        Snapshot::build_with(registry, config, &NoTransport)
    }

    /// The snapshot of a checked configuration, whose configured tools call
    /// their downstreams through `transport`.
    pub fn build_with(
        registry: Arc<Registry>,
        config: &Config,
        transport: &dyn Transport,
    ) -> Snapshot {
        Snapshot::build_from(None, registry, Arc::new(config.clone()), transport)
    }

    /// The snapshot of a checked configuration, as
    /// [`build_with`](Self::build_with) builds it, sharing with `previous`
    /// what did not change: the list of each group of clients that sees
    /// the very same tool descriptors in the same modes and profile, each
    /// tool's rendering, and each configured tool's work and compiled
    /// validators when its descriptor and downstream are the same. Only
    /// what a change touched is rendered again, and a snapshot kept beside
    /// its successor (for pagination cursors) costs what changed.
    /// Descriptors are shared when a configuration is checked after a
    /// change ([`Config::from_json_after`]); a configuration checked whole
    /// shares only the derived tools' renderings. A configuration patched
    /// from `previous`'s ([`Config::after_change`]) is built as a change:
    /// only the tools, toolsets and clients it touched are looked at, and
    /// every other part is shared, not copied.
    pub fn build_after(
        previous: &Snapshot,
        registry: Arc<Registry>,
        config: Arc<Config>,
        transport: &dyn Transport,
    ) -> Snapshot {
        Snapshot::build_from(Some(previous), registry, config, transport)
    }

    /// Whether this snapshot registered the very tools `config` would
    /// over `base`: the same registered tools, the same configured tools
    /// (shared, as a change's check keeps them) and equal downstreams.
    fn serves_same_tools(&self, base: &Arc<Registry>, config: &Config) -> bool {
        let Some(before) = &self.config else {
            return false;
        };
        let (was, is) = (before.gateway_tools(), config.gateway_tools());
        Arc::ptr_eq(&self.base, base)
            && was.len() == is.len()
            && was.iter().zip(is).all(|(a, b)| Arc::ptr_eq(a, b))
            && self.downstreams.len() == config.downstreams().count()
            && config.downstreams().all(|downstream| {
                self.downstreams
                    .get(downstream.id())
                    .is_some_and(|kept| **kept == *downstream)
            })
    }

    fn build_from(
        previous: Option<&Snapshot>,
        registry: Arc<Registry>,
        shared_config: Arc<Config>,
        transport: &dyn Transport,
    ) -> Snapshot {
        if let Some(patched) =
            previous.and_then(|before| before.patched(&registry, &shared_config, transport))
        {
            return patched;
        }
        let config = &*shared_config;
        let base = registry;
        // A change that kept every configured tool and downstream (a
        // toolset switched, a client assigned) keeps the registry whole.
        let (registry, downstreams) = match previous.filter(|b| b.serves_same_tools(&base, config))
        {
            Some(before) => (before.registry.clone(), before.downstreams.clone()),
            None => crate::gateway::registry_for(
                &base,
                config.gateway_tools().iter(),
                config.downstreams(),
                transport,
                previous.map(|before| (&*before.registry, &before.downstreams)),
            ),
        };
        // The active descriptor of every tool a toolset may name.
        let mut active = Active::new();
        let mut last: Option<&str> = None;
        for def in registry.tools() {
            // `tools()` runs by name: each name once.
            if last == Some(&*def.name) {
                continue;
            }
            last = Some(&def.name);
            if let Some(def) = active_of(&registry, config, &def.name) {
                active.insert(def.name.clone(), def.clone());
            }
        }
        // Clients with the same profile and the same in-force toolsets see the
        // same list: plan, render and serialize it once for all of them.
        let mut groups: HashMap<(Profile, Vec<&str>), usize> = HashMap::new();
        let mut plans: Vec<(Profile, Plan<'_>)> = Vec::new();
        // What the group's first client saw before, in the same profile.
        let mut before: Vec<Option<Arc<Shared>>> = Vec::new();
        let mut client_group = Vec::new();
        for client in config.clients() {
            let sets = sets_in_force(config, client, None);
            let next = plans.len();
            let group = *groups
                .entry((client.profile(), sets.clone()))
                .or_insert_with(|| {
                    plans.push((client.profile(), plan_of(config, &active, &sets)));
                    before.push(
                        previous
                            .and_then(|p| p.clients.get(client.id()))
                            .filter(|view| view.profile == client.profile())
                            .map(|view| view.shared.clone()),
                    );
                    next
                });
            client_group.push(group);
        }
        let mut members = vec![0; plans.len()];
        for group in &client_group {
            members[*group] += 1;
        }
        let shared = lists_of(&plans, &before);
        let groups: imbl::HashMap<GroupKey, Group> = groups
            .into_iter()
            .map(|((profile, sets), group)| {
                let sets = sets.into_iter().map(str::to_owned).collect();
                let group = Group {
                    shared: shared[group].clone(),
                    members: members[group],
                };
                ((profile, sets), group)
            })
            .collect();
        let mut clients = imbl::HashMap::new();
        for (client, group) in config.clients().zip(client_group) {
            clients.insert(client.id().to_owned(), view_of(client, &shared[group]));
        }
        let scoped = config
            .toolsets()
            .any(|set| !set.scopes().is_empty())
            .then(|| Scoped {
                views: ArcSwap::from_pointee(HashMap::new()),
            });
        Snapshot {
            base,
            registry,
            clients,
            governed: true,
            keyless: config.keyless_client().map(str::to_owned),
            server: config.server().cloned(),
            authorization: config.authorization().cloned(),
            scoped,
            downstreams,
            config: Some(shared_config.clone()),
            active,
            groups,
            serial: next_serial(),
            patched_from: None,
        }
    }

    /// This snapshot after the change that patched its configuration into
    /// `config` ([`Config::after_change`]), built as a change: the
    /// configured tools the change touched registered again, their active
    /// versions looked up again, the clients naming a toolset it touched
    /// (or a toolset naming a tool it touched) moved between groups, and
    /// only the groups whose tools may differ planned again (and rendered
    /// where they do). `None` when `config` was not patched from this
    /// snapshot's, or when a narrowing by scopes is configured.
    fn patched(
        &self,
        base: &Arc<Registry>,
        shared_config: &Arc<Config>,
        transport: &dyn Transport,
    ) -> Option<Snapshot> {
        let before = self.config.as_ref()?;
        let touched = shared_config.touched_since(before)?;
        let config = &**shared_config;
        if !self.governed
            || self.scoped.is_some()
            || config.authorization().is_some()
            || !Arc::ptr_eq(&self.base, base)
        {
            return None;
        }
        let registry = self.registry_after(before, config, touched, transport);
        let mut active = self.active.clone();
        for name in &touched.tools {
            active.remove(name.as_str());
            if let Some(def) = active_of(&registry, config, name) {
                active.insert(def.name.clone(), def.clone());
            }
        }
        // The toolsets whose tools may differ, and the clients naming one.
        // A tool that was active is shown by the groups that show it now;
        // one that was not may be shown by any group whose toolsets name
        // it.
        let mut sets: BTreeSet<&str> = touched.toolsets.iter().map(String::as_str).collect();
        if touched
            .tools
            .iter()
            .any(|name| !self.active.contains_key(name.as_str()))
        {
            for set in config.toolsets() {
                if set.tools().any(|tool| touched.tools.contains(tool)) {
                    sets.insert(set.id());
                }
            }
        }
        // A client names only toolsets of its own tenant: those of the
        // tenants of `sets` are looked at, not every client.
        let mut moved: BTreeSet<&str> = touched.clients.iter().map(String::as_str).collect();
        let tenants: BTreeSet<&str> = sets
            .iter()
            .filter_map(|set| config.toolset(set))
            .map(|set| set.tenant())
            .collect();
        for tenant in tenants {
            for client in config.clients_of(tenant) {
                if client.toolsets().any(|id| sets.contains(id)) {
                    moved.insert(client.id());
                }
            }
        }
        // Each client moved leaves its group and joins its new one.
        let mut members: HashMap<GroupKey, isize> = HashMap::new();
        let mut came_from: HashMap<GroupKey, Arc<Shared>> = HashMap::new();
        let mut joined: Vec<(&Client, GroupKey)> = Vec::new();
        for id in &moved {
            let old = before.client(id).map(|client| group_key(before, client));
            if let Some(old) = &old {
                *members.entry(old.clone()).or_default() -= 1;
            }
            if let Some(client) = config.client(id) {
                let key = group_key(config, client);
                *members.entry(key.clone()).or_default() += 1;
                // Renderings are reused only in the same profile.
                if let Some(view) = self.clients.get(*id).filter(|v| v.profile == key.0) {
                    came_from
                        .entry(key.clone())
                        .or_insert_with(|| view.shared.clone());
                }
                joined.push((client, key));
            }
        }
        let mut groups = self.groups.clone();
        // The groups to plan again: those showing a toolset whose tools
        // may differ, and those new.
        let mut dirty: Vec<GroupKey> = groups
            .iter()
            .filter(|((_, in_force), group)| {
                in_force.iter().any(|id| sets.contains(id.as_str()))
                    || touched
                        .tools
                        .iter()
                        .any(|name| group.shared.tools.contains_key(name.as_str()))
            })
            .map(|(key, _)| key.clone())
            .collect();
        let mut fresh: HashMap<GroupKey, usize> = HashMap::new();
        for (key, change) in members {
            let now = groups.get(&key).map_or(0, |g| g.members as isize) + change;
            match (usize::try_from(now), groups.get_mut(&key)) {
                (Ok(0) | Err(_), _) => {
                    groups.remove(&key);
                }
                (Ok(now), Some(group)) => group.members = now,
                (Ok(now), None) => {
                    fresh.insert(key.clone(), now);
                    dirty.push(key);
                }
            }
        }
        let mut seen = std::collections::HashSet::new();
        dirty.retain(|key| {
            (groups.contains_key(key) || fresh.contains_key(key)) && seen.insert(key.clone())
        });
        let plans: Vec<(Profile, Plan<'_>)> = dirty
            .iter()
            .map(|(profile, in_force)| (*profile, plan_of(config, &active, in_force)))
            .collect();
        // What each showed before: its own lists, or for a new group those
        // of the group one of its clients came from.
        let earlier: Vec<Option<Arc<Shared>>> = dirty
            .iter()
            .map(|key| match groups.get(key) {
                Some(group) => Some(group.shared.clone()),
                None => came_from.get(key).cloned(),
            })
            .collect();
        let lists = lists_of(&plans, &earlier);
        // The lists of groups whose clients stay in them: old for new, and
        // the tenants of those groups (`None`: a group of no toolset, whose
        // clients could be anyone's).
        let mut replaced: HashMap<*const Shared, Arc<Shared>> = HashMap::new();
        let mut replaced_tenants: Option<BTreeSet<&str>> = Some(BTreeSet::new());
        for (key, shared) in dirty.iter().zip(lists) {
            match fresh.get(key) {
                Some(members) => {
                    groups.insert(
                        key.clone(),
                        Group {
                            shared,
                            members: *members,
                        },
                    );
                }
                None => {
                    if let Some(group) = groups.get_mut(key) {
                        if !Arc::ptr_eq(&group.shared, &shared) {
                            replaced.insert(Arc::as_ptr(&group.shared), shared.clone());
                            let tenant = key.1.first().and_then(|set| config.toolset(set));
                            match (tenant, &mut replaced_tenants) {
                                (Some(set), Some(tenants)) => {
                                    tenants.insert(set.tenant());
                                }
                                _ => replaced_tenants = None,
                            }
                        }
                        group.shared = shared;
                    }
                }
            }
        }
        let mut clients = self.clients.clone();
        let mut replaced_views = Vec::new();
        for id in &touched.clients {
            if config.client(id).is_none() {
                clients.remove(id.as_str());
                replaced_views.push(id.clone());
            }
        }
        for (client, key) in &joined {
            if let Some(group) = groups.get(key) {
                clients.insert(client.id().to_owned(), view_of(client, &group.shared));
                replaced_views.push(client.id().to_owned());
            }
        }
        // The clients of a group whose tools changed, that did not move:
        // those of the groups' tenants (all of a group's clients name its
        // toolsets, which are their tenant's).
        if !replaced.is_empty() {
            let staying: Vec<(&String, &Arc<ClientView>)> = match &replaced_tenants {
                Some(tenants) => tenants
                    .iter()
                    .flat_map(|tenant| config.clients_of(tenant))
                    .filter_map(|client| self.clients.get_key_value(client.id()))
                    .collect(),
                None => self.clients.iter().collect(),
            };
            for (id, view) in staying {
                if moved.contains(id.as_str()) {
                    continue;
                }
                if let Some(shared) = replaced.get(&Arc::as_ptr(&view.shared)) {
                    let view = ClientView {
                        id: view.id.clone(),
                        tenant: view.tenant.clone(),
                        profile: view.profile,
                        shared: shared.clone(),
                    };
                    clients.insert(id.clone(), Arc::new(view));
                    replaced_views.push(id.clone());
                }
            }
        }
        Some(Snapshot {
            base: base.clone(),
            registry,
            clients,
            governed: true,
            keyless: config.keyless_client().map(str::to_owned),
            server: config.server().cloned(),
            authorization: None,
            scoped: None,
            downstreams: self.downstreams.clone(),
            config: Some(shared_config.clone()),
            active,
            groups,
            serial: next_serial(),
            patched_from: Some((self.serial, replaced_views)),
        })
    }

    /// The registry after a change: this one's, with the configured tools
    /// the change touched registered again (their versions the change kept
    /// share their entries).
    fn registry_after(
        &self,
        before: &Config,
        config: &Config,
        touched: &Touched,
        transport: &dyn Transport,
    ) -> Arc<Registry> {
        let configured = |config: &Config| {
            touched
                .tools
                .iter()
                .filter_map(|name| config.gateway_tool(name))
                .cloned()
                .collect::<Vec<_>>()
        };
        let (was, is) = (configured(before), configured(config));
        if was.is_empty() && is.is_empty() {
            return self.registry.clone();
        }
        let mut registry = self.registry.extended();
        for tool in &was {
            registry.unregister(tool.name());
        }
        for tool in &is {
            register_configured(
                &mut registry,
                tool,
                &self.downstreams,
                transport,
                Some((&self.registry, &self.downstreams)),
            );
        }
        Arc::new(registry)
    }
}

/// The lists of each group of `plans`: what it showed `before` when it
/// shows the same, else rendered (reusing what it showed before).
fn lists_of(plans: &[(Profile, Plan<'_>)], before: &[Option<Arc<Shared>>]) -> Vec<Arc<Shared>> {
    let kept: Vec<Option<Arc<Shared>>> = plans
        .iter()
        .zip(before)
        .map(|((_, plan), before)| before.clone().filter(|shared| shared.shows(plan)))
        .collect();
    let to_render: Vec<(Profile, Plan<'_>)> = plans
        .iter()
        .zip(&kept)
        .map(|(plan, kept)| match kept {
            Some(_) => (plan.0, Plan::new()),
            None => plan.clone(),
        })
        .collect();
    let renders = render_all(&to_render, before);
    let groups: Vec<_> = plans.iter().zip(kept).collect();
    crate::parallel::map(groups, |((profile, plan), kept)| {
        kept.unwrap_or_else(|| Arc::new(shared(*profile, plan, &renders)))
    })
}

/// The active descriptor of `name`: its configured active version, or its
/// highest registered one; none for an internal tool.
fn active_of<'r>(registry: &'r Registry, config: &Config, name: &str) -> Option<&'r Ref<ToolDef>> {
    if config.is_internal_name(name) {
        return None;
    }
    let version = match config.mapping(name) {
        Some(versions) => active_version(versions)?,
        None => registry.versions(name).max()?,
    };
    registry.get(name, version).filter(|def| !def.internal)
}

/// The group `client` is in under `config`.
fn group_key(config: &Config, client: &Client) -> GroupKey {
    let sets = sets_in_force(config, client, None);
    (
        client.profile(),
        sets.into_iter().map(str::to_owned).collect(),
    )
}

/// `client`'s view, showing `shared`.
fn view_of(client: &Client, shared: &Arc<Shared>) -> Arc<ClientView> {
    Arc::new(ClientView {
        id: Arc::from(client.id()),
        tenant: Arc::from(client.tenant()),
        profile: client.profile(),
        shared: shared.clone(),
    })
}
