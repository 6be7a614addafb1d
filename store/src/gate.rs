//! The compatibility gate, where every change meets it: at the commit of
//! any change (a publish, a deprecate, a record put, a whole catalog
//! replaced), what each tool the change touches would be served after it
//! is compared with what it is served now, or when nothing is served, with
//! what its clients were served last (kept in the `served_baseline`
//! table). A change that may break their clients is refused unless the
//! operator accepts that very report, named by its digest; the acceptance
//! is audited with the report.

use core::fmt;
use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest as _, Sha256};
use toolschema_catalog::versions::{ModeReport, compare_descriptors, descriptor_of, served_tool};
use toolschema_catalog::{Config, Status, active_version};
use toolschema_runtime::call::Registry;
use toolschema_runtime::compat::Level;
use toolschema_runtime::model::{Ref, ToolDef};

use crate::records::{Body, Kind, Records, Version};

/// What version `to` of a tool changes for the clients of version `from`,
/// the one they are served (or were served last): in each mode its
/// toolsets show it (and Full) and each profile a client reads.
///
/// As JSON: `{"tool", "from", "to", "breaks", "accepted", "digest",
/// "reports": [{"mode", "profile", "breaks", "changes": [{"rule",
/// "level", "pointer", "old"?, "new"?}]}]}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Compatibility {
    /// The tool.
    pub tool: String,
    /// The version its clients are served, or were served last.
    pub from: u32,
    /// The version compared with it (the same number when a version's
    /// definition changed in place).
    pub to: u32,
    /// Whether a change may break a client (breaking, or undecided).
    pub breaks: bool,
    /// Whether an operator accepted this report (by its digest).
    pub accepted: bool,
    /// The report's digest: what an operator names to accept it
    /// (`accept`). Another change, even between the same versions, has
    /// another digest.
    pub digest: String,
    /// The changes, per mode and profile.
    pub reports: Vec<ModeReport>,
}

impl Compatibility {
    /// The report of `new` against `old`, two descriptors of `tool`.
    fn between(
        config: &Config,
        tool: &str,
        (from, old): (u32, &ToolDef),
        (to, new): (u32, &ToolDef),
    ) -> Compatibility {
        let reports = compare_descriptors(Some(config), tool, old, new);
        let breaks = reports.iter().any(|seen| seen.report.breaks());
        Compatibility::new(tool, (from, to), breaks, reports)
    }

    /// A report, its digest taken over all it says.
    fn new(
        tool: &str,
        (from, to): (u32, u32),
        breaks: bool,
        reports: Vec<ModeReport>,
    ) -> Compatibility {
        let shown = serde_json::json!({
            "tool": tool, "from": from, "to": to, "breaks": breaks, "reports": reports,
        });
        let digest = Sha256::digest(shown.to_string().as_bytes());
        let digest: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
        Compatibility {
            tool: tool.to_owned(),
            from,
            to,
            breaks,
            accepted: false,
            digest,
            reports,
        }
    }

    /// Whether it reports anything: another version, or a change.
    fn says_something(&self) -> bool {
        self.from != self.to
            || self.breaks
            || self
                .reports
                .iter()
                .any(|seen| !seen.report.changes().is_empty())
    }

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
        let versions = match self.from == self.to {
            true => format!("{} (its definition changed)", self.to),
            false => format!("{} -> {}", self.from, self.to),
        };
        write!(
            f,
            "`{}` {versions}: {} [report {}]",
            self.tool,
            match (self.breaks, self.accepted) {
                (false, _) => "breaks none of its clients",
                (true, false) => "may break its clients",
                (true, true) => "may break its clients (accepted)",
            },
            self.digest
        )?;
        for line in self.breaking() {
            write!(f, "\n  {line}")?;
        }
        Ok(())
    }
}

/// What a tool's clients are served: a version, and for a configured tool
/// what its descriptor is built from (the version's definition, the tool's
/// record and its downstream's). Kept per tool in `served_baseline` as the
/// last thing its clients were served.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Served {
    version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    configured: Option<Configured>,
}

/// A configured tool's served version, as records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Configured {
    definition: Body,
    tool: Body,
    downstream: String,
    downstream_record: Body,
}

impl Served {
    /// What `records` serve of `tool`: by the statuses of its mapping, or
    /// without one the highest version `registry` has; nothing when they
    /// have no client application to serve (an empty store).
    pub(crate) fn of(records: &Records, registry: &Registry, tool: &str) -> Option<Served> {
        records.of(Kind::Client).next()?;
        let mapping: Vec<(u32, Status)> = records
            .versions_of(tool)
            .map(|(number, version)| (number, version.status))
            .collect();
        let version = match mapping.is_empty() {
            true => registry.versions(tool).max(),
            false => active_version(&mapping),
        }?;
        Some(Served {
            version,
            configured: configured(records, tool, version),
        })
    }

    /// The version served.
    pub(crate) fn version(&self) -> u32 {
        self.version
    }

    /// The descriptor clients were shown: built from the records kept
    /// (checked as a configuration holding only this tool), or the
    /// registered version's. `None` when it can no longer be built (a
    /// derived version no longer registered).
    fn descriptor(&self, tool: &str, registry: &Registry) -> Option<Ref<ToolDef>> {
        let Some(configured) = &self.configured else {
            return registry.get(tool, self.version).cloned();
        };
        // A configuration holding only this tool (and a client, without
        // which none checks).
        let mut alone = Records::default();
        let mut client = Body::new();
        client.insert("tenant".into(), Value::from("gate"));
        alone
            .records
            .entry(Kind::Tenant)
            .or_default()
            .insert("gate".into(), Body::new());
        alone
            .records
            .entry(Kind::Client)
            .or_default()
            .insert("gate".into(), client);
        alone.records.entry(Kind::Downstream).or_default().insert(
            configured.downstream.clone(),
            configured.downstream_record.clone(),
        );
        alone
            .records
            .entry(Kind::ConfiguredTool)
            .or_default()
            .insert(tool.to_owned(), configured.tool.clone());
        alone.versions.insert(
            (tool.to_owned(), self.version),
            Version {
                status: Status::Published,
                definition: Some(configured.definition.clone()),
            },
        );
        let config = alone.check(&Registry::new()).ok()?;
        let (_, def) = served_tool(Some(&config), registry, tool)?;
        Some(def)
    }
}

/// `tool`'s version `version` in `records`, when it is a configured tool's.
fn configured(records: &Records, tool: &str, version: u32) -> Option<Configured> {
    let definition = records
        .versions
        .get(&(tool.to_owned(), version))?
        .definition
        .clone()?;
    let record = records.get(Kind::ConfiguredTool, tool)?;
    let downstream = record.get("downstream").and_then(Value::as_str)?;
    Some(Configured {
        definition,
        tool: record.clone(),
        downstream: downstream.to_owned(),
        downstream_record: records.get(Kind::Downstream, downstream)?.clone(),
    })
}

/// The tools whose served descriptor a change between `before` and
/// `after` may change: those whose versions or record it wrote, and those
/// calling a downstream it wrote.
pub(crate) fn touched(
    written: &toolschema_config::Delta,
    before: &Records,
    after: &Records,
) -> BTreeSet<String> {
    let mut tools: BTreeSet<String> = written.tools.keys().cloned().collect();
    if let Some(downstreams) = written.records.get(&toolschema_config::Section::Downstream) {
        for records in [before, after] {
            for (tool, body) in records.of(Kind::ConfiguredTool) {
                let calls = body.get("downstream").and_then(Value::as_str);
                if calls.is_some_and(|id| downstreams.contains_key(id)) {
                    tools.insert(tool.to_owned());
                }
            }
        }
    }
    tools
}

/// What a tool's clients were served before a change: what the records
/// served, or when nothing was, what the store kept as served last.
#[derive(Debug)]
pub(crate) struct Baseline {
    pub(crate) tool: String,
    pub(crate) served: Option<Served>,
    /// Whether `served` is the store's kept row (`served_baseline`).
    pub(crate) kept: bool,
}

/// The gate's verdict on a change: the reports of the tools whose served
/// descriptor it changes, and the baselines the store keeps or forgets.
#[derive(Debug, Default)]
pub(crate) struct Verdict {
    /// A report per tool whose served descriptor changed.
    pub(crate) reports: Vec<Compatibility>,
    /// The tools the change withdrew (nothing served after it), with what
    /// their clients were served last: kept until something is served.
    pub(crate) keep: Vec<(String, Served)>,
    /// The tools served again whose kept baseline is no longer needed (the
    /// records say what they serve).
    pub(crate) forget: Vec<String>,
}

impl Verdict {
    /// The reports that may break clients and are not accepted by
    /// `accept` (digests); marks the accepted ones.
    pub(crate) fn refused(&mut self, accept: &[String]) -> Vec<Compatibility> {
        let mut refused = Vec::new();
        for report in &mut self.reports {
            if !report.breaks {
                continue;
            }
            match accept.iter().any(|digest| digest.trim() == report.digest) {
                true => report.accepted = true,
                false => refused.push(report.clone()),
            }
        }
        refused
    }
}

/// Judges a change: for each tool of `baselines` (what its clients were
/// served before the change, or last), what `after` (the records after
/// it, checked as `config`) serves instead. A tool never served has
/// nothing to compare (a first version) and nothing to keep.
pub(crate) fn judge(
    baselines: Vec<Baseline>,
    after: &Records,
    config: &Config,
    registry: &Registry,
) -> Verdict {
    let mut verdict = Verdict::default();
    for Baseline { tool, served, kept } in baselines {
        let Some(was) = served else {
            continue;
        };
        let Some(now) = Served::of(after, registry, &tool) else {
            // Withdrawn: what its clients were served is kept.
            if !kept {
                verdict.keep.push((tool, was));
            }
            continue;
        };
        if kept {
            verdict.forget.push(tool.clone());
        }
        if was == now {
            continue;
        }
        let Some((to, new)) = served_tool(Some(config), registry, &tool) else {
            continue;
        };
        let report = match was.descriptor(&tool, registry) {
            Some(old) => Compatibility::between(config, &tool, (was.version, &old), (to, &new)),
            // The version served last can no longer be built (a derived
            // version no longer registered): undecided, so it may break.
            None => Compatibility::new(&tool, (was.version, to), true, Vec::new()),
        };
        if report.says_something() {
            verdict.reports.push(report);
        }
    }
    verdict
}

/// The report of what serving `version` of `tool` would change for the
/// clients of what they are served now, or last (`baseline`); `None` when
/// they were never served anything, or that very version.
pub(crate) fn draft_report(
    tool: &str,
    version: u32,
    baseline: Option<Served>,
    config: &Config,
    registry: &Registry,
) -> Option<Compatibility> {
    let baseline = baseline?;
    let new = descriptor_of(Some(config), registry, tool, version)?;
    let old = baseline.descriptor(tool, registry)?;
    let report = Compatibility::between(config, tool, (baseline.version, &old), (version, &new));
    report.says_something().then_some(report)
}

/// The tools whose served descriptor an action on `scope` may change,
/// found in `records` before it: the tools it names, and those calling a
/// downstream it names.
pub(crate) fn candidates(scope: &crate::records::Scope, records: &Records) -> BTreeSet<String> {
    let mut tools: BTreeSet<String> = scope.tools.iter().cloned().collect();
    for (kind, id) in &scope.records {
        match kind {
            Kind::ConfiguredTool => {
                tools.insert(id.clone());
            }
            Kind::Downstream => {
                for (tool, body) in records.of(Kind::ConfiguredTool) {
                    if body.get("downstream").and_then(Value::as_str) == Some(id) {
                        tools.insert(tool.to_owned());
                    }
                }
            }
            _ => {}
        }
    }
    tools
}

/// The baselines kept for `tools`.
pub(crate) async fn kept(
    db: &impl tokio_postgres::GenericClient,
    tools: &[String],
) -> Result<Vec<(String, Served)>, tokio_postgres::Error> {
    if tools.is_empty() {
        return Ok(Vec::new());
    }
    let rows = db
        .query(
            "SELECT tool, served FROM served_baseline WHERE tool = ANY($1::text[])",
            &[&tools],
        )
        .await?;
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let tool: String = row.try_get(0)?;
        // A row this version cannot read is no baseline.
        let Ok(served) = row.try_get::<_, Value>(1) else {
            continue;
        };
        if let Ok(served) = serde_json::from_value(served) {
            out.push((tool, served));
        }
    }
    Ok(out)
}

/// Keeps the baselines of `verdict`, and forgets those it no longer needs.
pub(crate) async fn keep(
    db: &impl tokio_postgres::GenericClient,
    verdict: &Verdict,
) -> Result<(), tokio_postgres::Error> {
    if !verdict.forget.is_empty() {
        db.execute(
            "DELETE FROM served_baseline WHERE tool = ANY($1::text[])",
            &[&verdict.forget],
        )
        .await?;
    }
    let baselines = &verdict.keep;
    if baselines.is_empty() {
        return Ok(());
    }
    let (tools, served): (Vec<String>, Vec<Value>) = baselines
        .iter()
        .map(|(tool, served)| {
            (
                tool.clone(),
                serde_json::to_value(served).unwrap_or(Value::Null),
            )
        })
        .unzip();
    db.execute(
        "INSERT INTO served_baseline (tool, served) SELECT * FROM unnest($1::text[], $2::jsonb[]) \
         ON CONFLICT (tool) DO UPDATE SET served = EXCLUDED.served",
        &[&tools, &served],
    )
    .await
    .map(drop)
}
