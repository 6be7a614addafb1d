//! The reports as text for a person (`toolschema diff`; the reports
//! themselves serialize as JSON for a program).

use core::fmt::Write as _;

use super::{CatalogReport, ModeReport};
use toolschema_runtime::compat::Report;

/// The lines of a report's changes, indented.
fn changes(out: &mut String, report: &Report) {
    for change in report.changes() {
        let _ = writeln!(out, "    {change}");
    }
}

/// What `toolschema diff --tool` prints: the changes from version `from` to `to`,
/// once for each set of modes and profiles that sees the same ones.
pub fn versions_text(tool: &str, from: u32, to: u32, reports: &[ModeReport]) -> String {
    let mut out = String::new();
    // Modes and profiles that see the same changes are told together.
    let mut groups: Vec<(&Report, Vec<String>)> = Vec::new();
    for seen in reports {
        let place = format!("{} ({})", seen.mode.name(), seen.profile.name());
        match groups
            .iter_mut()
            .find(|(report, _)| **report == seen.report)
        {
            Some((_, places)) => places.push(place),
            None => groups.push((&seen.report, vec![place])),
        }
    }
    let breaking = reports.iter().any(|seen| seen.report.breaks());
    let _ = writeln!(
        out,
        "{tool} {from} -> {to}: {}",
        match breaking {
            true => "may break its clients",
            false => "breaks none of its clients",
        }
    );
    for (report, places) in groups {
        let _ = writeln!(out, "  as {} see it:", places.join(", "));
        match report.is_empty() {
            true => out.push_str("    no change\n"),
            false => changes(&mut out, report),
        }
    }
    out
}

/// At most this many clients are named for a change (then a count).
const NAMED_CLIENTS: usize = 5;

/// What `toolschema diff --new` prints: each change with the clients that see it.
pub fn catalogs_text(old: &str, new: &str, report: &CatalogReport) -> String {
    let mut out = String::new();
    for seen in &report.changes {
        let version = |v: Option<u32>| v.map_or_else(|| "(none)".to_owned(), |v| v.to_string());
        let mut clients = seen.clients[..seen.clients.len().min(NAMED_CLIENTS)].join(", ");
        if seen.clients.len() > NAMED_CLIENTS {
            let _ = write!(clients, " and {} more", seen.clients.len() - NAMED_CLIENTS);
        }
        let _ = writeln!(
            out,
            "{} {} -> {}, {} ({}), for {}:",
            seen.tool,
            version(seen.from),
            version(seen.to),
            seen.mode.name(),
            seen.profile.name(),
            clients
        );
        changes(&mut out, &seen.report);
    }
    for (what, clients) in [
        ("no longer served", &report.clients_removed),
        ("new", &report.clients_added),
    ] {
        if !clients.is_empty() {
            let _ = writeln!(out, "client applications {what}: {}", clients.join(", "));
        }
    }
    let breaking = report
        .changes
        .iter()
        .filter(|seen| seen.report.breaks())
        .count();
    let _ = match (report.changes.is_empty(), breaking) {
        (true, _) => writeln!(out, "{new} changes no tool for the clients of {old}"),
        (false, 0) => writeln!(out, "{new} breaks none of the clients of {old}"),
        (false, n) => writeln!(
            out,
            "{new} may break clients of {old}: {n} of the {} changes above",
            report.changes.len()
        ),
    };
    out
}
