//! Rendering: each tool once per version, mode and profile, shared by
//! every group of clients that lists it, and each group's list serialized
//! once per protocol revision.

use super::{Exposed, Listing, PerRevision, Shared, meta};
use crate::search::{Index, SearchRanking};
use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use toolschema_runtime::model::{Ref, Text, ToolDef};
use toolschema_runtime::project::{
    META_TOOL, Mode, Profile, ProtocolRevision, SEARCH_TOOL, project_tool_as,
};

/// A tool's rendering: which tool, at which version, in which mode and
/// profile.
pub(super) type RenderKey<'a> = (&'a str, u32, Mode, Profile);

/// The tools one group of clients sees, with their modes.
pub(super) type Plan<'a> = BTreeMap<&'a str, (&'a Ref<ToolDef>, Mode)>;

/// Every tool of some plans rendered once per mode and profile needed.
#[derive(Default)]
pub(super) struct Renders<'a> {
    /// Where each rendering is in `renders`.
    slots: HashMap<RenderKey<'a>, usize>,
    renders: Vec<PerRevision<Arc<str>>>,
}

impl Renders<'_> {
    fn get(&self, key: &RenderKey<'_>) -> Option<&PerRevision<Arc<str>>> {
        self.renders.get(*self.slots.get(key)?)
    }
}

/// Renders every tool of `plans` once per mode and profile needed, plus the
/// Full descriptor `discover_tool_schema` returns, in each revision (one
/// `Arc` for the revisions that agree), on every core when they are many;
/// a rendering a group had `before` is kept.
pub(super) fn render_all<'a>(
    plans: &[(Profile, Plan<'a>)],
    before: &[Option<Arc<Shared>>],
) -> Renders<'a> {
    let planned = plans.iter().map(|(_, plan)| plan.len()).sum::<usize>();
    let mut slots = HashMap::with_capacity(planned * 2);
    let mut kept: Vec<Option<PerRevision<Arc<str>>>> = Vec::with_capacity(planned * 2);
    let mut wanted: Vec<(usize, RenderKey<'a>, &'a Ref<ToolDef>)> = Vec::new();
    for (i, (profile, plan)) in plans.iter().enumerate() {
        let before = before.get(i).and_then(Option::as_ref);
        for (def, mode) in plan.values() {
            for mode in [*mode, Mode::Full] {
                let key = (&*def.name, def.version, mode, *profile);
                if let Entry::Vacant(entry) = slots.entry(key) {
                    let slot = *entry.insert(kept.len());
                    let rendering = before.and_then(|shared| shared.rendered(def, mode));
                    if rendering.is_none() {
                        wanted.push((slot, key, def));
                    }
                    kept.push(rendering);
                }
            }
        }
    }
    let rendered =
        toolschema_runtime::parallel::map(wanted, |(slot, (_, _, mode, profile), def)| {
            (slot, render(def, mode, profile))
        });
    for (slot, rendering) in rendered {
        kept[slot] = Some(rendering);
    }
    // Each is kept or rendered.
    let renders: Vec<_> = kept.into_iter().flatten().collect();
    debug_assert_eq!(renders.len(), slots.len());
    Renders { slots, renders }
}

impl Shared {
    /// The rendering of the very same `def` in `mode`, if this group has
    /// it (its profile is the caller's to match).
    fn rendered(&self, def: &Ref<ToolDef>, mode: Mode) -> Option<PerRevision<Arc<str>>> {
        let exposed = self.tools.get(&*def.name)?;
        if !Ref::same(&exposed.def, def) {
            return None;
        }
        if mode == exposed.mode {
            Some(exposed.listed.clone())
        } else if mode == Mode::Full {
            Some(exposed.full.clone())
        } else {
            None
        }
    }

    /// Whether this group shows exactly `plan`: the very same descriptors,
    /// in the same modes, searched with the same ranking.
    pub(super) fn shows(&self, plan: &Plan<'_>, ranking: &SearchRanking) -> bool {
        self.search
            .as_ref()
            .is_none_or(|index| index.ranks_with(ranking.embeddings()))
            && self.tools.len() == plan.len()
            && self
                .tools
                .values()
                .zip(plan.values())
                .all(|(exposed, (def, mode))| exposed.mode == *mode && Ref::same(&exposed.def, def))
    }
}

pub(super) fn render(def: &ToolDef, mode: Mode, profile: Profile) -> PerRevision<Arc<str>> {
    let latest = project_tool_as(def, mode, profile);
    let text: Arc<str> = latest.to_compact_string().into();
    PerRevision(ProtocolRevision::ALL.map(|revision| {
        if revision.changes(def) {
            revision.fit(def, latest.clone()).to_compact_string().into()
        } else {
            text.clone()
        }
    }))
}

/// The shared view of one plan.
pub(super) fn shared(
    profile: Profile,
    plan: &Plan<'_>,
    renders: &Renders<'_>,
    ranking: &SearchRanking,
) -> Shared {
    let rendered = |def: &ToolDef, mode: Mode| -> PerRevision<Arc<str>> {
        match renders.get(&(&*def.name, def.version, mode, profile)) {
            Some(json) => json.clone(),
            None => render(def, mode, profile),
        }
    };
    let needs_meta = plan.values().any(|(_, mode)| mode.needs_discovery());
    let searched: Vec<&ToolDef> = plan
        .values()
        .filter(|(_, mode)| !mode.is_listed())
        .map(|(def, _)| &***def)
        .collect();
    let needs_search = !searched.is_empty();
    let metas: Vec<(&str, Arc<str>)> = [(META_TOOL, needs_meta), (SEARCH_TOOL, needs_search)]
        .into_iter()
        .filter(|(_, needed)| *needed)
        .filter_map(|(name, _)| Some((name, meta::descriptor(name, needs_search, profile)?.into())))
        .collect();
    let search =
        (!searched.is_empty()).then(|| Index::build_ranked(searched, ranking.embeddings()));
    let tools: BTreeMap<Text, Exposed> = plan
        .values()
        .map(|(def, mode)| {
            let exposed = Exposed {
                def: (*def).clone(),
                mode: *mode,
                listed: rendered(def, *mode),
                full: rendered(def, Mode::Full),
            };
            (def.name.clone(), exposed)
        })
        .collect();
    let listing = |revision: ProtocolRevision| {
        let mut entries: Vec<(&str, Arc<str>)> = tools
            .iter()
            .filter(|(_, exposed)| exposed.mode.is_listed())
            .map(|(name, exposed)| (&**name, exposed.listed.get(revision).clone()))
            .collect();
        for (name, meta) in &metas {
            let at = entries.partition_point(|(listed, _)| listed < name);
            entries.insert(at, (name, meta.clone()));
        }
        listing(entries.into_iter().map(|(_, e)| e).collect())
    };
    let latest = Arc::new(listing(ProtocolRevision::LATEST));
    let listings = PerRevision(ProtocolRevision::ALL.map(|revision| {
        if plan.values().any(|(def, _)| revision.changes(def)) {
            Arc::new(listing(revision))
        } else {
            latest.clone()
        }
    }));
    Shared {
        tools,
        listings,
        search,
    }
}

/// The list of `entries`, serialized and fingerprinted.
pub(super) fn listing(entries: Arc<[Arc<str>]>) -> Listing {
    let mut list = String::with_capacity(12 + entries.iter().map(|e| e.len() + 1).sum::<usize>());
    list.push_str("{\"tools\":[");
    for (i, entry) in entries.iter().enumerate() {
        if i > 0 {
            list.push(',');
        }
        list.push_str(entry);
    }
    list.push_str("]}");
    let fingerprint = {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        list.hash(&mut hasher);
        hasher.finish()
    };
    Listing {
        entries,
        list: list.into(),
        fingerprint,
    }
}
