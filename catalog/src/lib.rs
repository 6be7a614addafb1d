//! The governed catalog: which client application of which tenant sees which
//! tools, in which mode, at which version (DESIGN §6).
//!
//! A [`Config`] (read and checked by `toolschema-config`) and a [`Registry`](toolschema_runtime::call::Registry) build
//! an immutable [`Snapshot`]; a [`Catalog`] holds the current snapshot and
//! swaps it atomically when the configuration changes.

#![cfg_attr(docsrs, feature(doc_cfg))]
#[cfg(feature = "tokens")]
pub mod cost;
pub mod export;
mod live;
mod registered;
pub mod search;
mod snapshot;
pub mod versions;

pub use live::{Catalog, ChangeSet, Watch};
// The configuration the catalog is built from (the `toolschema-config`
// crate), named here too: every snapshot and catalog takes one.
pub use snapshot::{ClientView, MetaAnswer, MetaRefusal, MetaViolation, Refusal, Snapshot};
pub use toolschema_config::{
    ALGORITHMS, Authorization, Client, Config, ConfigError, ConfigErrors, ConfigLocation,
    ConfiguredTools, Introspection, MAX_LISTED_PROBLEMS, ProblemKind, Section, ServerInfo, Status,
    Toolset, active_version, hash_api_key,
};
