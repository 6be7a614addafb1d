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
pub use snapshot::{ClientView, Denial, MetaAnswer, MetaRefusal, MetaViolation, Refusal, Snapshot};
pub use toolschema_config::{
    ALGORITHMS, Authorization, Client, Config, ConfigError, ConfigErrors, ConfigLocation,
    ConfiguredTools, Introspection, MAX_LISTED_PROBLEMS, ProblemKind, Section, ServerInfo, Status,
    Toolset, active_version, hash_api_key,
};

/// What `check` says of a configuration that passes, named `name`: `NAME:
/// ok (2 tenants, 1 toolset, 3 client applications, 0 gateway tools)`.
///
/// ```
/// use toolschema_catalog::{Config, check_summary};
/// use toolschema_runtime::call::Registry;
///
/// let text = "[[tenant]]\nid = \"t\"\n[[client]]\nid = \"c\"\ntenant = \"t\"\n";
/// let config = Config::from_toml(text, "catalog.toml", &Registry::new()).unwrap();
/// assert_eq!(
///     check_summary("catalog.toml", &config),
///     "catalog.toml: ok (1 tenant, 0 toolsets, 1 client application, 0 gateway tools)"
/// );
/// ```
pub fn check_summary(name: &str, checked: &Config) -> String {
    let count =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    format!(
        "{name}: ok ({}, {}, {}, {})",
        count(checked.tenants().count(), "tenant", "tenants"),
        count(checked.toolsets().count(), "toolset", "toolsets"),
        count(
            checked.clients().count(),
            "client application",
            "client applications"
        ),
        count(
            checked.configured_tools().len(),
            "gateway tool",
            "gateway tools"
        ),
    )
}
