//! Building a snapshot: the tools each group of clients sees, rendered
//! once per mode and profile, and each client's list serialized once.

use std::collections::HashMap;
use std::sync::Arc;

use arc_swap::ArcSwap;

use super::{
    ClientView, EVERYONE, Plan, Scoped, Shared, Snapshot, plan_of, render_all, sets_in_force,
    shared,
};
use crate::config::Config;
use crate::gateway::{NoTransport, Transport};
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
            clients: HashMap::from([(EVERYONE.to_owned(), Arc::new(view))]),
            governed: false,
            keys: Vec::new(),
            keyless: None,
            server: None,
            authorization: None,
            token_clients: HashMap::new(),
            scoped: None,
            downstreams: HashMap::new(),
            config: None,
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
    /// shares only the derived tools' renderings.
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
        let config = &*shared_config;
        let base = registry;
        // A change that kept every configured tool and downstream (a
        // toolset switched, a client assigned) keeps the registry whole.
        let (registry, downstreams) = match previous.filter(|b| b.serves_same_tools(&base, config))
        {
            Some(before) => (before.registry.clone(), before.downstreams.clone()),
            None => crate::gateway::registry_for(
                &base,
                config.gateway_tools(),
                config.downstreams(),
                transport,
                previous.map(|before| (&*before.registry, &before.downstreams)),
            ),
        };
        // The active descriptor of every tool a toolset may name.
        let mut active: HashMap<&str, &Ref<ToolDef>> = HashMap::new();
        for def in registry.tools() {
            if def.internal || config.is_internal_name(&def.name) || active.contains_key(&*def.name)
            {
                continue;
            }
            let version = match config.mapping(&def.name) {
                Some(versions) => active_version(versions),
                None => registry.versions(&def.name).max(),
            };
            if let Some(def) = version.and_then(|v| registry.get(&def.name, v)) {
                active.insert(&def.name, def);
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
        // A group that shows what it showed before keeps its lists.
        let kept: Vec<Option<Arc<Shared>>> = plans
            .iter()
            .zip(&before)
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
        let renders = render_all(&to_render, &before);
        let shared: Vec<Arc<Shared>> = plans
            .iter()
            .zip(kept)
            .map(|((profile, plan), kept)| {
                kept.unwrap_or_else(|| Arc::new(shared(*profile, plan, &renders)))
            })
            .collect();
        let mut clients = HashMap::new();
        let mut keys = Vec::new();
        let mut token_clients = HashMap::new();
        for (client, group) in config.clients().zip(client_group) {
            for hash in &client.key_hashes {
                keys.push((*hash, client.id().to_owned()));
            }
            for token_client in client.oauth_client_ids() {
                token_clients.insert(token_client.to_owned(), client.id().to_owned());
            }
            let view = ClientView {
                id: Arc::from(client.id()),
                tenant: Arc::from(client.tenant()),
                profile: client.profile(),
                shared: shared[group].clone(),
            };
            clients.insert(client.id().to_owned(), Arc::new(view));
        }
        let scoped = config
            .toolsets()
            .any(|set| !set.scopes().is_empty())
            .then(|| Scoped {
                active: active
                    .values()
                    .map(|def| (def.name.clone(), def.version))
                    .collect(),
                views: ArcSwap::from_pointee(HashMap::new()),
            });
        Snapshot {
            base,
            registry,
            clients,
            governed: true,
            keys,
            keyless: config.keyless_client().map(str::to_owned),
            server: config.server().cloned(),
            authorization: config.authorization().cloned(),
            token_clients,
            scoped,
            downstreams,
            config: Some(shared_config.clone()),
        }
    }
}
