//! The compatibility gate of the publish workflow: what a version changes
//! for the clients of the version served, reported when it is drafted and
//! checked when it is published. A publish that may break them is refused
//! unless the operator accepts it, and the acceptance is audited.

use core::fmt;

use serde::Serialize;
use toolschema_catalog::versions::{ModeReport, compare_versions, served_version};
use toolschema_catalog::{Config, Status, active_version};
use toolschema_runtime::call::Registry;
use toolschema_runtime::compat::Level;

use crate::records::Records;

/// What version `to` of a tool changes for the clients of version `from`,
/// the one served: in each mode its toolsets show it (and Full) and each
/// profile a client reads.
///
/// As JSON: `{"tool", "from", "to", "breaks", "accepted", "reports":
/// [{"mode", "profile", "breaks", "changes": [{"rule", "level",
/// "pointer", "old"?, "new"?}]}]}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Compatibility {
    /// The tool.
    pub tool: String,
    /// The version its clients are served.
    pub from: u32,
    /// The version compared with it.
    pub to: u32,
    /// Whether a change may break a client (breaking, or undecided).
    pub breaks: bool,
    /// Whether an operator accepted the breaking changes (a publish with
    /// `accept_breaking`).
    pub accepted: bool,
    /// The changes, per mode and profile.
    pub reports: Vec<ModeReport>,
}

impl Compatibility {
    /// The changes that may break a client, each once, with where they
    /// are seen.
    fn breaking(&self) -> Vec<String> {
        let mut lines: Vec<(String, Vec<String>)> = Vec::new();
        for seen in &self.reports {
            let place = format!("{} ({})", seen.mode.name(), seen.profile.name());
            for change in seen.report.changes() {
                if !matches!(change.level, Level::Breaking | Level::Unknown) {
                    continue;
                }
                let line = change.to_string();
                match lines.iter_mut().find(|(known, _)| *known == line) {
                    Some((_, places)) => places.push(place.clone()),
                    None => lines.push((line, vec![place.clone()])),
                }
            }
        }
        lines
            .into_iter()
            .map(|(line, places)| format!("{line}; seen in {}", places.join(", ")))
            .collect()
    }
}

impl fmt::Display for Compatibility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` {} -> {}: {}",
            self.tool,
            self.from,
            self.to,
            match (self.breaks, self.accepted) {
                (false, _) => "breaks none of its clients",
                (true, false) => "may break its clients",
                (true, true) => "may break its clients (accepted)",
            }
        )?;
        for line in self.breaking() {
            write!(f, "\n  {line}")?;
        }
        Ok(())
    }
}

/// The version of `tool` the records serve, before they are checked: by
/// the statuses of its mapping, or without one the highest version
/// registered.
fn served_by(records: &Records, registry: &Registry, tool: &str) -> Option<u32> {
    let mapping: Vec<(u32, Status)> = records
        .versions_of(tool)
        .map(|(number, version)| (number, version.status))
        .collect();
    match mapping.is_empty() {
        true => registry.versions(tool).max(),
        false => active_version(&mapping),
    }
}

/// What a publish or a draft changes for the clients of the version
/// served. `before` are the records before the action, `after` the checked
/// configuration after it. For a publish, the version served before
/// against the one served after (`None` when the publish serves nothing
/// new: a first version, or a lower one); for a draft, the version served
/// against the draft (`None` when nothing is served).
pub(crate) fn compatibility(
    tool: &str,
    version: u32,
    publish: bool,
    before: &Records,
    after: &Config,
    registry: &Registry,
) -> Option<Compatibility> {
    let from = served_by(before, registry, tool)?;
    let to = match publish {
        true => served_version(Some(after), registry, tool)?,
        false => version,
    };
    if from == to {
        return None;
    }
    let reports = compare_versions(Some(after), registry, tool, from, to).ok()?;
    Some(Compatibility {
        tool: tool.to_owned(),
        from,
        to,
        breaks: reports.iter().any(|seen| seen.report.breaks()),
        accepted: false,
        reports,
    })
}
