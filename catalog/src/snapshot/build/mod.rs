//! Building a snapshot: the tools each group of clients sees, rendered
//! once per mode and profile, and each client's list serialized once.

use std::collections::HashMap;
use std::sync::Arc;

use arc_swap::ArcSwap;

use super::render::{Plan, render_all, shared};
use super::{
    Active, ClientView, EVERYONE, Group, GroupKey, Scoped, Shared, Snapshot, next_serial, plan_of,
    sets_in_force,
};
use toolschema_config::active_version;
use toolschema_config::{Client, Config, Touched};
use toolschema_configured::{NoTransport, Transport};
use toolschema_runtime::call::Registry;
use toolschema_runtime::model::{Ref, ToolDef};
use toolschema_runtime::project::{Mode, Profile};

use crate::search::SearchRanking;

mod patched;

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
            shared: Arc::new(shared(
                Profile::Default,
                &plans[0].1,
                &renders,
                &SearchRanking::Words,
            )),
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
            search_ranking: SearchRanking::Words,
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
    /// what did not change. When `config` is `previous`'s after a change
    /// ([`Config::apply`]) and `touched` what that change touched, it is
    /// built as a change: only the tools, toolsets and clients it touched
    /// are looked at, and every other part is shared, not copied.
    /// Otherwise (no `touched`, a configuration checked whole, a narrowing
    /// by scopes or access tokens configured) it is built whole, sharing
    /// what it can: the list of each group of clients that sees the very
    /// same tool descriptors in the same modes and profile, each tool's
    /// rendering, and each configured tool's work and compiled validators
    /// when its descriptor and downstream are the same (descriptors are
    /// the same when a configuration is checked after a change,
    /// [`Config::from_json_after`]). Only what changed is rendered again,
    /// and a snapshot kept beside its successor (for pagination cursors)
    /// costs what changed.
    pub fn rebuild(
        previous: &Snapshot,
        registry: Arc<Registry>,
        config: Arc<Config>,
        touched: Option<&Touched>,
        transport: &dyn Transport,
    ) -> Snapshot {
        touched
            .and_then(|touched| previous.patched(&registry, &config, touched, transport))
            .unwrap_or_else(|| Snapshot::build_from(Some(previous), registry, config, transport))
    }

    /// Whether this snapshot registered the very tools `config` would
    /// over `base`: the same registered tools, the same configured tools
    /// (shared, as a change's check keeps them) and equal downstreams.
    fn serves_same_tools(&self, base: &Arc<Registry>, config: &Config) -> bool {
        let Some(before) = &self.config else {
            return false;
        };
        let (was, is) = (before.configured_tools(), config.configured_tools());
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
        let config = &*shared_config;
        let base = registry;
        // A change that kept every configured tool and downstream (a
        // toolset switched, a client assigned) keeps the registry whole.
        let (registry, downstreams) = match previous.filter(|b| b.serves_same_tools(&base, config))
        {
            Some(before) => (before.registry.clone(), before.downstreams.clone()),
            None => crate::registered::registry_for(
                &base,
                config.configured_tools().iter(),
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
        let search_ranking = match previous {
            Some(before) if before.searches_as(config) => before.search_ranking.clone(),
            _ => SearchRanking::for_model(config.search_model()),
        };
        let shared = lists_of(&plans, &before, &search_ranking);
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
            search_ranking,
            serial: next_serial(),
            patched_from: None,
        }
    }

    /// Whether this snapshot ranks searches as `config` asks (the same
    /// model named, and loaded, or none): a snapshot built after it keeps
    /// its ranking rather than loading the model again. A model that could
    /// not be loaded is tried again.
    fn searches_as(&self, config: &Config) -> bool {
        let before = self.config.as_ref().and_then(|c| c.search_model());
        before == config.search_model()
            && !matches!(self.search_ranking, SearchRanking::WordsInstead { .. })
    }
}

/// The lists of each group of `plans`: what it showed `before` when it
/// shows the same, else rendered (reusing what it showed before).
fn lists_of(
    plans: &[(Profile, Plan<'_>)],
    before: &[Option<Arc<Shared>>],
    ranking: &SearchRanking,
) -> Vec<Arc<Shared>> {
    let kept: Vec<Option<Arc<Shared>>> = plans
        .iter()
        .zip(before)
        .map(|((_, plan), before)| before.clone().filter(|shared| shared.shows(plan, ranking)))
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
    toolschema_runtime::parallel::map(groups, |((profile, plan), kept)| {
        kept.unwrap_or_else(|| Arc::new(shared(*profile, plan, &renders, ranking)))
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
