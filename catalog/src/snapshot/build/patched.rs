//! A snapshot built as a change: only the tools, toolsets and clients the
//! change touched are looked at; every other part is shared, not copied.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use super::super::render::Plan;
use super::super::{Active, ClientView, Group, GroupKey, Shared, Snapshot, next_serial, plan_of};
use super::{active_of, group_key, lists_of, view_of};
use crate::registered::register_configured;
use toolschema_config::{Client, Config, Touched};
use toolschema_configured::Transport;
use toolschema_runtime::call::Registry;
use toolschema_runtime::project::Profile;

/// The clients a change moves between groups, and how each group's count
/// of members changes.
struct Moves<'c> {
    members: HashMap<GroupKey, isize>,
    /// For each group a moved client joins, the lists it showed before
    /// (renderings are reused only in the same profile).
    came_from: HashMap<GroupKey, Arc<Shared>>,
    /// Each moved client still configured, with the group it joins.
    joined: Vec<(&'c Client, GroupKey)>,
}

/// The groups after a change, and which lists replaced which.
struct Regrouped<'c> {
    groups: imbl::HashMap<GroupKey, Group>,
    /// The lists of groups whose clients stay in them: old for new.
    replaced: HashMap<*const Shared, Arc<Shared>>,
    /// The tenants of those groups (`None`: a group of no toolset, whose
    /// clients could be anyone's).
    replaced_tenants: Option<BTreeSet<&'c str>>,
}

impl Snapshot {
    /// This snapshot after the change that made `config` of its
    /// configuration ([`Config::apply`]) and `touched` what it touched,
    /// built as a change: the
    /// configured tools the change touched registered again, their active
    /// versions looked up again, the clients naming a toolset it touched
    /// (or a toolset naming a tool it touched) moved between groups, and
    /// only the groups whose tools may differ planned again (and rendered
    /// where they do). `None` when `config` was not patched from this
    /// snapshot's, or when a narrowing by scopes is configured.
    pub(super) fn patched(
        &self,
        base: &Arc<Registry>,
        shared_config: &Arc<Config>,
        touched: &Touched,
        transport: &dyn Transport,
    ) -> Option<Snapshot> {
        let before = self.config.as_ref()?;
        let config = &**shared_config;
        if !config.applied_to(before)
            || !self.governed
            || self.scoped.is_some()
            || config.authorization().is_some()
            || !Arc::ptr_eq(&self.base, base)
            || !self.searches_as(config)
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
        let (sets, moved) = self.reach(config, touched);
        let moves = self.moves(before, config, &moved);
        let regrouped = self.regroup(
            config,
            &active,
            touched,
            &sets,
            moves.members,
            &moves.came_from,
        );
        let (clients, replaced_views) =
            self.views_after(config, touched, &moved, &moves.joined, &regrouped);
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
            groups: regrouped.groups,
            search_ranking: self.search_ranking.clone(),
            serial: next_serial(),
            patched_from: Some((self.serial, replaced_views)),
        })
    }

    /// The toolsets whose tools may differ after the change, and the
    /// clients naming one (or written or removed by it). A tool that was
    /// active is shown by the groups that show it now; one that was not may
    /// be shown by any group whose toolsets name it.
    fn reach<'c>(
        &self,
        config: &'c Config,
        touched: &'c Touched,
    ) -> (BTreeSet<&'c str>, BTreeSet<&'c str>) {
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
        (sets, moved)
    }

    /// Each client `moved` leaves its group and joins its new one.
    fn moves<'c>(&self, before: &Config, config: &'c Config, moved: &BTreeSet<&str>) -> Moves<'c> {
        let mut moves = Moves {
            members: HashMap::new(),
            came_from: HashMap::new(),
            joined: Vec::new(),
        };
        for id in moved {
            let old = before.client(id).map(|client| group_key(before, client));
            if let Some(old) = &old {
                *moves.members.entry(old.clone()).or_default() -= 1;
            }
            if let Some(client) = config.client(id) {
                let key = group_key(config, client);
                *moves.members.entry(key.clone()).or_default() += 1;
                if let Some(view) = self.clients.get(*id).filter(|v| v.profile == key.0) {
                    moves
                        .came_from
                        .entry(key.clone())
                        .or_insert_with(|| view.shared.clone());
                }
                moves.joined.push((client, key));
            }
        }
        moves
    }

    /// The groups after the change: each group's members counted again
    /// (`members`: the change in each), and planned again where its tools
    /// may differ (a group showing a toolset of `sets` or a tool touched,
    /// and a group new), rendered where they do.
    fn regroup<'c>(
        &self,
        config: &'c Config,
        active: &Active,
        touched: &Touched,
        sets: &BTreeSet<&str>,
        members: HashMap<GroupKey, isize>,
        came_from: &HashMap<GroupKey, Arc<Shared>>,
    ) -> Regrouped<'c> {
        let mut groups = self.groups.clone();
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
        let mut seen = HashSet::new();
        dirty.retain(|key| {
            (groups.contains_key(key) || fresh.contains_key(key)) && seen.insert(key.clone())
        });
        let plans: Vec<(Profile, Plan<'_>)> = dirty
            .iter()
            .map(|(profile, in_force)| (*profile, plan_of(config, active, in_force)))
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
        let lists = lists_of(&plans, &earlier, &self.search_ranking);
        let mut replaced: HashMap<*const Shared, Arc<Shared>> = HashMap::new();
        let mut replaced_tenants: Option<BTreeSet<&str>> = Some(BTreeSet::new());
        for (key, shared) in dirty.iter().zip(lists) {
            if let Some(members) = fresh.get(key) {
                let members = *members;
                groups.insert(key.clone(), Group { shared, members });
                continue;
            }
            let Some(group) = groups.get_mut(key) else {
                continue;
            };
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
        Regrouped {
            groups,
            replaced,
            replaced_tenants,
        }
    }

    /// The clients' views after the change: those removed gone, those
    /// `joined` in their new group's, and those of a group whose lists were
    /// replaced, that did not move, in its new lists. With the ids of every
    /// view replaced.
    fn views_after(
        &self,
        config: &Config,
        touched: &Touched,
        moved: &BTreeSet<&str>,
        joined: &[(&Client, GroupKey)],
        regrouped: &Regrouped<'_>,
    ) -> (imbl::HashMap<String, Arc<ClientView>>, Vec<String>) {
        let mut clients = self.clients.clone();
        let mut replaced_views = Vec::new();
        for id in &touched.clients {
            if config.client(id).is_none() {
                clients.remove(id.as_str());
                replaced_views.push(id.clone());
            }
        }
        for (client, key) in joined {
            if let Some(group) = regrouped.groups.get(key) {
                clients.insert(client.id().to_owned(), view_of(client, &group.shared));
                replaced_views.push(client.id().to_owned());
            }
        }
        if regrouped.replaced.is_empty() {
            return (clients, replaced_views);
        }
        // The clients of a group whose tools changed, that did not move:
        // those of the groups' tenants (all of a group's clients name its
        // toolsets, which are their tenant's).
        let staying: Vec<(&String, &Arc<ClientView>)> = match &regrouped.replaced_tenants {
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
            if let Some(shared) = regrouped.replaced.get(&Arc::as_ptr(&view.shared)) {
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
        (clients, replaced_views)
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
                .filter_map(|name| config.configured_tool(name))
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
