//! What a change of version or of configuration does to the clients of
//! the one in force: two versions of one tool compared as its clients see
//! them (in each mode a toolset shows it, and Full, which
//! `discover_tool_schema` returns, in each profile a client reads), and two
//! whole catalogs compared client by client.

use core::fmt;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::{Serialize, Serializer};
use toolschema_runtime::call::Registry;
use toolschema_runtime::compat::{Report, compare_tools};
use toolschema_runtime::model::{Ref, ToolDef};
use toolschema_runtime::project::{Mode, Profile};

use crate::{Config, Snapshot, active_version};
use toolschema_configured::NoTransport;

mod text;
pub use text::{catalogs_text, versions_text};

/// A comparison as a command prints it: its text for a person, whether it
/// may break clients, and its JSON for a program.
#[derive(Debug)]
pub struct Diff {
    /// The changes, as [`versions_text`] or [`catalogs_text`] write them.
    pub text: String,
    /// Whether a change may break clients.
    pub breaks: bool,
    /// The same, as JSON.
    pub json: serde_json::Value,
}

/// `tool` compared from version `from` (else the version served, by
/// [`served_version`]) to `to`, as `diff --tool` prints it; the error says
/// what is missing: the tool, a version, or one served.
///
/// ```
/// use toolschema_catalog::versions::diff_versions;
/// use toolschema_runtime::call::Registry;
///
/// let refused = diff_versions(None, &Registry::new(), "weather.get", None, 2).unwrap_err();
/// assert_eq!(refused, "there is no tool named `weather.get`");
/// ```
pub fn diff_versions(
    config: Option<&Config>,
    registry: &Registry,
    tool: &str,
    from: Option<u32>,
    to: u32,
) -> Result<Diff, String> {
    let Some(from) = from.or_else(|| served_version(config, registry, tool)) else {
        // An unknown tool or version is told as such first.
        compare_versions(config, registry, tool, to, to).map_err(|e| e.to_string())?;
        return Err(format!(
            "no version of `{tool}` is served: name one with --from"
        ));
    };
    let reports = compare_versions(config, registry, tool, from, to).map_err(|e| e.to_string())?;
    let breaks = reports.iter().any(|seen| seen.report.breaks());
    Ok(Diff {
        text: versions_text(tool, from, to, &reports),
        breaks,
        json: serde_json::json!({
            "tool": tool, "from": from, "to": to, "breaks": breaks, "reports": reports,
        }),
    })
}

/// The catalog `old` against `new`, each with the name it is shown by, as
/// `diff --new` prints it ([`compare_catalogs`]).
pub fn diff_catalogs(old: (&str, &Snapshot), new: (&str, &Snapshot)) -> Diff {
    let report = compare_catalogs(old.1, new.1);
    Diff {
        text: catalogs_text(old.0, new.0, &report),
        breaks: report.breaks(),
        // A report of names, numbers and strings always serializes.
        json: serde_json::to_value(&report).unwrap_or_default(),
    }
}

/// What one version changes for the clients of a mode and profile. As
/// JSON: `{"mode", "profile", "breaks", "changes"}`.
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
/// a client given such a toolset reads (and the default one), for a tool
/// registered in `registry` or configured in `config` (drafts included).
/// Without a configuration (open mode) everyone sees every tool in Full,
/// in the default dialect.
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
/// let error = compare_versions(Some(&config), &registry, "weather.get", 1, 2).unwrap_err();
/// assert_eq!(error.to_string(), "there is no tool named `weather.get`");
/// assert!(compare_versions(None, &registry, "weather.get", 1, 2).is_err());
/// ```
pub fn compare_versions(
    config: Option<&Config>,
    registry: &Registry,
    tool: &str,
    from: u32,
    to: u32,
) -> Result<Vec<ModeReport>, UnknownVersion> {
    // The registered tools and every configured version: no client's list
    // is needed.
    let registry = match config {
        Some(config) => {
            crate::registered::registry_for(
                &Arc::new(registry.extended()),
                config.configured_tools().iter(),
                config.downstreams(),
                &NoTransport,
                None,
            )
            .0
        }
        None => Arc::new(registry.extended()),
    };
    let def = |version: u32| {
        registry.get(tool, version).ok_or_else(|| UnknownVersion {
            tool: tool.to_owned(),
            version,
            known: registry.versions(tool).collect(),
        })
    };
    let (old, new) = (def(from)?, def(to)?);
    Ok(compare_descriptors(config, tool, old, new))
}

/// The modes `tool` is shown in (by the toolsets naming it, and Full) and
/// the dialects it is read in (of the clients given such a toolset, active
/// or not, and the default one); without a configuration, Full in the
/// default dialect.
fn seen_as(config: Option<&Config>, tool: &str) -> (BTreeSet<Mode>, Vec<Profile>) {
    let mut modes = BTreeSet::from([Mode::Full]);
    let mut profiles = vec![Profile::Default];
    let Some(config) = config else {
        return (modes, profiles);
    };
    let showing: BTreeSet<&str> = config
        .toolsets()
        .filter(|set| set.tools().any(|name| name == tool))
        .map(|set| {
            modes.insert(set.mode_of(tool));
            set.id()
        })
        .collect();
    profiles.extend(
        config
            .clients()
            .filter(|client| client.toolsets().any(|id| showing.contains(id)))
            .map(|client| client.profile()),
    );
    profiles.sort_by_key(|profile| *profile as u8);
    profiles.dedup();
    (modes, profiles)
}

impl Serialize for ModeReport {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        let mut out = serializer.serialize_struct("ModeReport", 4)?;
        out.serialize_field("mode", self.mode.name())?;
        out.serialize_field("profile", self.profile.name())?;
        out.serialize_field("breaks", &self.report.breaks())?;
        out.serialize_field("changes", self.report.changes())?;
        out.end()
    }
}

/// The version of `tool` that `config` serves: its active version by the
/// mapping's statuses ([`active_version`]), or without a mapping (or a
/// configuration) the highest version `registry` has. `None` when no
/// version is served.
///
/// ```
/// use toolschema_catalog::versions::served_version;
/// use toolschema_runtime::call::Registry;
///
/// assert_eq!(served_version(None, &Registry::new(), "weather.get"), None);
/// ```
pub fn served_version(config: Option<&Config>, registry: &Registry, tool: &str) -> Option<u32> {
    match config.and_then(|config| config.mapping(tool)) {
        Some(versions) => active_version(versions),
        None => registry.versions(tool).max(),
    }
}

/// The version of `tool` that `config` serves ([`served_version`]) and the
/// descriptor its clients are shown: the configured version's, or the
/// registered one's. `None` when no version is served, or the one served
/// is neither configured nor registered.
///
/// ```
/// use toolschema_catalog::versions::served_tool;
/// use toolschema_runtime::call::Registry;
///
/// assert!(served_tool(None, &Registry::new(), "weather.get").is_none());
/// ```
pub fn served_tool(
    config: Option<&Config>,
    registry: &Registry,
    tool: &str,
) -> Option<(u32, Ref<ToolDef>)> {
    let version = served_version(config, registry, tool)?;
    Some((version, descriptor_of(config, registry, tool, version)?))
}

/// The descriptor of version `version` of `tool`: the configured
/// version's (drafts included), else the registered one's.
///
/// ```
/// use toolschema_catalog::versions::descriptor_of;
/// use toolschema_runtime::call::Registry;
///
/// assert!(descriptor_of(None, &Registry::new(), "weather.get", 1).is_none());
/// ```
pub fn descriptor_of(
    config: Option<&Config>,
    registry: &Registry,
    tool: &str,
    version: u32,
) -> Option<Ref<ToolDef>> {
    let configured = config
        .and_then(|config| config.configured_tools().named(tool))
        .and_then(|configured| {
            configured
                .versions()
                .iter()
                .find(|v| v.version() == version)
                .map(|v| v.def().clone())
        });
    configured.or_else(|| registry.get(tool, version).cloned())
}

/// What `new` changes for the clients of `old`, two descriptors of `tool`
/// (of any two versions, or of one version before and after its
/// definition changed), in each mode a toolset of `config` shows the tool
/// (and Full) and each profile its clients read, as
/// [`compare_versions`] compares two versions.
pub fn compare_descriptors(
    config: Option<&Config>,
    tool: &str,
    old: &ToolDef,
    new: &ToolDef,
) -> Vec<ModeReport> {
    let (modes, profiles) = seen_as(config, tool);
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
    out
}

/// One change of a tool as some clients of the old catalog see it, in one
/// mode and profile.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeenChange {
    /// The tool.
    pub tool: String,
    /// The version these clients were served (`None`: they did not see
    /// the tool).
    pub from: Option<u32>,
    /// The version they are served now (`None`: they no longer see it).
    pub to: Option<u32>,
    /// What is compared: the mode the tool is listed in (when it is the
    /// same on both sides), or Full (what `discover_tool_schema` returns,
    /// and what a call is validated against).
    #[serde(serialize_with = "mode_name")]
    pub mode: Mode,
    /// The dialect these clients read.
    #[serde(serialize_with = "profile_name")]
    pub profile: Profile,
    /// The changes.
    pub report: Report,
    /// The client applications that see this change, by id.
    pub clients: Vec<String>,
}

fn mode_name<S: Serializer>(mode: &Mode, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(mode.name())
}

fn profile_name<S: Serializer>(profile: &Profile, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(profile.name())
}

/// What a new catalog changes for the clients of the old one.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CatalogReport {
    /// Each change of a tool as a set of clients sees it, by tool, version
    /// and mode.
    pub changes: Vec<SeenChange>,
    /// Client applications the old catalog served and the new one does
    /// not (their lists are not compared).
    pub clients_removed: Vec<String>,
    /// Client applications only the new catalog serves.
    pub clients_added: Vec<String>,
}

impl CatalogReport {
    /// Whether a change may break a client of the old catalog: a tool it
    /// saw changed in a way that may break it, or gone.
    pub fn breaks(&self) -> bool {
        self.changes.iter().any(|change| change.report.breaks())
    }
}

/// A change as seen: tool, versions, mode compared, profile (as a number,
/// for order).
type Key<'a> = (&'a str, Option<u32>, Option<u32>, Mode, u8);

/// The changes seen, each with its profile, report and clients.
type Seen<'a> = BTreeMap<Key<'a>, (Profile, Report, Vec<String>)>;

/// Adds `client` to the change at `key`, compared on first sight.
fn add<'a>(
    seen: &mut Seen<'a>,
    key: Key<'a>,
    profile: Profile,
    client: &str,
    compared: &dyn Fn() -> Report,
) {
    seen.entry(key)
        .or_insert_with(|| (profile, compared(), Vec::new()))
        .2
        .push(client.to_owned());
}

/// What serving `new` instead of `old` changes for each client of `old`:
/// for every client both serve, every tool it saw or sees, compared in the
/// mode it is listed in and in Full, in the client's profile. A tool a
/// client no longer sees is `tool-removed` (breaking); a tool new to it is
/// `tool-added`. Clients that see the same change share one entry.
///
/// ```
/// use toolschema_catalog::{Catalog, versions::compare_catalogs};
/// use toolschema_runtime::call::Registry;
///
/// let two = "[[tenant]]\nid = \"t\"\n[[client]]\nid = \"a\"\ntenant = \"t\"\n[[client]]\nid = \"c\"\ntenant = \"t\"\n";
/// let one = "[[tenant]]\nid = \"t\"\n[[client]]\nid = \"a\"\ntenant = \"t\"\n";
/// let old = Catalog::from_toml(Registry::new(), two, "old.toml").unwrap().snapshot();
/// let new = Catalog::from_toml(Registry::new(), one, "new.toml").unwrap().snapshot();
/// let report = compare_catalogs(&old, &new);
/// assert_eq!(report.clients_removed, ["c"]);
/// assert!(!report.breaks());
/// ```
pub fn compare_catalogs(old: &Snapshot, new: &Snapshot) -> CatalogReport {
    let mut report = CatalogReport::default();
    let mut seen: Seen<'_> = BTreeMap::new();
    for before in old.clients() {
        let Some(after) = new
            .client(before.id())
            .filter(|_| new.is_governed() == old.is_governed())
        else {
            report.clients_removed.push(before.id().to_owned());
            continue;
        };
        let profile = after.profile();
        let (id, p) = (before.id(), profile as u8);
        for (def, mode) in before.tools() {
            let name = &*def.name;
            match after.def_of(name).zip(after.mode_of(name)) {
                None => add(
                    &mut seen,
                    (name, Some(def.version), None, mode, p),
                    profile,
                    id,
                    &|| Report::tool_removed(&serde_json::json!({"name": name})),
                ),
                Some((now, now_mode)) => {
                    if Ref::same(def, now) && mode == now_mode && before.profile() == profile {
                        continue;
                    }
                    let key = |m| (name, Some(def.version), Some(now.version), m, p);
                    if mode == now_mode && mode != Mode::Full {
                        add(&mut seen, key(mode), profile, id, &|| {
                            compare_tools(def, now, mode, profile)
                        });
                    }
                    add(&mut seen, key(Mode::Full), profile, id, &|| {
                        compare_tools(def, now, Mode::Full, profile)
                    });
                }
            }
        }
        for (def, mode) in after.tools() {
            if before.def_of(&def.name).is_none() {
                add(
                    &mut seen,
                    (&def.name, None, Some(def.version), mode, p),
                    profile,
                    id,
                    &|| Report::tool_added(&serde_json::json!({"name": &*def.name})),
                );
            }
        }
    }
    for after in new.clients() {
        if old.client(after.id()).is_none() || new.is_governed() != old.is_governed() {
            report.clients_added.push(after.id().to_owned());
        }
    }
    report.changes = seen
        .into_iter()
        .filter(|(_, (_, changes, _))| !changes.is_empty())
        .map(
            |((tool, from, to, mode, _), (profile, changes, mut clients))| {
                clients.sort_unstable();
                SeenChange {
                    tool: tool.to_owned(),
                    from,
                    to,
                    mode,
                    profile,
                    report: changes,
                    clients,
                }
            },
        )
        .collect();
    report.clients_removed.sort_unstable();
    report.clients_added.sort_unstable();
    report
}
