//! The governed catalog: which client application of which tenant sees which
//! tools, in which mode, at which version (DESIGN §6).
//!
//! A [`Config`] (from TOML) and a [`Registry`](toolschema_runtime::call::Registry) build
//! an immutable [`Snapshot`]; a [`Catalog`] holds the current snapshot and
//! swaps it atomically when the configuration changes.

mod config;
#[cfg(feature = "tokens")]
pub mod cost;
pub mod export;
pub mod gateway;
mod live;
#[doc(hidden)]
pub mod parallel;
mod rules;
pub mod search;
mod snapshot;
pub mod versions;

pub use config::{
    ALGORITHMS, Authorization, Client, Config, ConfigError, ConfigErrors, ConfiguredTools,
    Introspection, MAX_LISTED_PROBLEMS, ServerInfo, Toolset, hash_api_key,
};
pub use live::{Catalog, ChangeSet, Watch};
pub use rules::{Status, active_version};
pub use snapshot::{ClientView, MetaAnswer, MetaRefusal, MetaViolation, Refusal, Snapshot};
