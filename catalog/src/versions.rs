//! Two versions of one tool of a configuration compared as its clients see
//! them: in each mode a toolset shows it (and Full, which
//! `discover_tool_schema` returns), in each profile a client reads.

use core::fmt;
use std::collections::BTreeSet;
use std::sync::Arc;

use toolschema_runtime::call::Registry;
use toolschema_runtime::compat::{Report, compare_tools};
use toolschema_runtime::project::{Mode, Profile};

use crate::Config;
use crate::gateway::NoTransport;

/// What one version changes for the clients of a mode and profile.
#[derive(Debug, Clone, PartialEq)]
pub struct ModeReport {
    /// The mode clients are shown the tool in.
    pub mode: Mode,
    /// The dialect they read it in.
    pub profile: Profile,
    /// The changes, most serious first.
    pub report: Report,
}

/// Why two versions could not be compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownVersion {
    /// The tool asked for.
    pub tool: String,
    /// The version it lacks.
    pub version: u32,
    /// The versions it has.
    pub known: Vec<u32>,
}

impl fmt::Display for UnknownVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.known.is_empty() {
            true => write!(f, "there is no tool named `{}`", self.tool),
            false => write!(
                f,
                "`{}` has no version {} (its versions: {})",
                self.tool,
                self.version,
                self.known
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

impl std::error::Error for UnknownVersion {}

/// What version `to` of `tool` changes for the clients of version `from`,
/// in each mode a toolset of `config` shows it (and Full) and each profile
/// a client of `config` reads, for a tool registered in `registry` or
/// configured in `config` (drafts included).
///
/// ```
/// use toolschema_catalog::{Config, versions::compare_versions};
/// use toolschema_runtime::call::Registry;
///
/// let registry = Registry::new();
/// let config = Config::from_toml(
///     "[[tenant]]\nid = \"t\"\n[[client]]\nid = \"c\"\ntenant = \"t\"\n",
///     "catalog.toml",
///     &registry,
/// )
/// .unwrap();
/// let error = compare_versions(&config, &registry, "weather.get", 1, 2).unwrap_err();
/// assert_eq!(error.to_string(), "there is no tool named `weather.get`");
/// ```
pub fn compare_versions(
    config: &Config,
    registry: &Registry,
    tool: &str,
    from: u32,
    to: u32,
) -> Result<Vec<ModeReport>, UnknownVersion> {
    // The registered tools and every configured version: no client's list
    // is needed.
    let (registry, _) = crate::gateway::registry_for(
        &Arc::new(registry.extended()),
        config.gateway_tools(),
        config.downstreams(),
        &NoTransport,
        None,
    );
    let def = |version: u32| {
        registry.get(tool, version).ok_or_else(|| UnknownVersion {
            tool: tool.to_owned(),
            version,
            known: registry.versions(tool).collect(),
        })
    };
    let (old, new) = (def(from)?, def(to)?);
    let mut modes: BTreeSet<Mode> = config
        .toolsets()
        .filter(|set| set.tools().any(|name| name == tool))
        .map(|set| set.mode_of(tool))
        .collect();
    modes.insert(Mode::Full);
    let mut profiles: Vec<Profile> = config.clients().map(|client| client.profile()).collect();
    profiles.push(Profile::Default);
    profiles.sort_by_key(|profile| *profile as u8);
    profiles.dedup();
    let mut out = Vec::new();
    for mode in modes {
        for profile in &profiles {
            out.push(ModeReport {
                mode,
                profile: *profile,
                report: compare_tools(old, new, mode, *profile),
            });
        }
    }
    Ok(out)
}
