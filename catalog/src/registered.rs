//! Configured tools registered beside the derived ones: every version of
//! every configured tool, calling its downstream through a transport, and
//! shared with the previous snapshot's registry where nothing changed.

use std::collections::HashMap;
use std::sync::Arc;

use toolschema_configured::{ConfiguredTool, Downstream, Transport};
use toolschema_runtime::call::Registry;

/// The registry a snapshot serves: the registered tools and every version
/// of every configured tool (drafts too; the selection rule decides which one
/// clients see), calling `downstreams` through `transport`, and the
/// downstreams by id. A version `previous` registered with the very same
/// descriptor, calling an equal downstream, is shared with it (its work and
/// compiled validators), as is the downstream.
pub(crate) fn registry_for<'a, 't>(
    registry: &Arc<Registry>,
    tools: impl ExactSizeIterator<Item = &'t Arc<ConfiguredTool>>,
    downstreams: impl Iterator<Item = &'a Downstream>,
    transport: &dyn Transport,
    previous: Option<(&Registry, &Downstreams)>,
) -> (Arc<Registry>, Downstreams) {
    let downstreams: Downstreams = downstreams
        .map(|downstream| {
            let kept = previous
                .and_then(|(_, before)| before.get(downstream.id()))
                .filter(|before| ***before == *downstream);
            let shared = kept
                .cloned()
                .unwrap_or_else(|| Arc::new(downstream.clone()));
            (downstream.id().to_owned(), shared)
        })
        .collect();
    if tools.len() == 0 {
        return (registry.clone(), downstreams);
    }
    let mut extended = registry.extended();
    for tool in tools {
        register_configured(&mut extended, tool, &downstreams, transport, previous);
    }
    (Arc::new(extended), downstreams)
}

/// Registers every version of the configured `tool` in `extended`,
/// calling its downstream (of `downstreams`) through `transport`; a version
/// whose descriptor `previous` registered, over the very same downstream,
/// keeps its entry there (its work and compiled validators).
pub(crate) fn register_configured(
    extended: &mut Registry,
    tool: &ConfiguredTool,
    downstreams: &Downstreams,
    transport: &dyn Transport,
    previous: Option<(&Registry, &Downstreams)>,
) {
    // The configuration's checks resolve every downstream.
    let Some(downstream) = downstreams.get(tool.downstream()) else {
        tracing::error!(tool = %tool.name(), "a gateway tool's downstream is not configured");
        return;
    };
    // The previous registry's work calls the same downstream only if
    // the downstream is shared.
    let before = previous
        .filter(|(_, before)| {
            before
                .get(tool.downstream())
                .is_some_and(|d| Arc::ptr_eq(d, downstream))
        })
        .map(|(registry, _)| registry);
    for version in tool.versions() {
        let work = || transport.tool(version, downstream);
        let registered = match before {
            Some(before) => extended
                .register_dynamic_from(before, version.def().clone(), work)
                .map(drop),
            None => extended
                .register_dynamic(version.def().clone(), work())
                .map(drop),
        };
        if let Err(error) = registered {
            // The configuration's checks refuse what registration would.
            tracing::error!(%error, "a gateway tool was not registered");
        }
    }
}

/// The downstreams a snapshot's configured tools call, by id.
pub(crate) type Downstreams = HashMap<String, Arc<Downstream>>;
