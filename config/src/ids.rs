//! The one grammar of record identifiers: tenants, client applications,
//! toolsets, downstreams and configured tools, wherever they are made (a
//! file, the store's admin API, the console, an import). An identifier
//! names its record in URL paths and links, so it is one path segment.

use crate::errors::Problems;
use crate::location::{ConfigLocation, Section};
use crate::sections::Sections;

/// What an identifier is, and what to do about one that is not.
pub const RECORD_ID_RULE: &str = "an identifier is 1 to 128 ASCII letters, digits, `_`, `-` and `.`, not starting with `.` (it names the record in paths and links); choose one of those";

/// Whether `id` is a record identifier: 1 to 128 ASCII letters, digits,
/// `_`, `-` and `.`, not starting with `.` (so never `..`).
///
/// ```
/// use toolschema_config::is_record_id;
///
/// assert!(is_record_id("acme-billing"));
/// assert!(is_record_id("billing.refund"));
/// assert!(!is_record_id("../toolsets/globex-support"));
/// assert!(!is_record_id(".."));
/// assert!(is_record_id("_internal"));
/// assert!(!is_record_id("a b"));
/// assert!(!is_record_id(""));
/// ```
pub fn is_record_id(id: &str) -> bool {
    (1..=128).contains(&id.len())
        && !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// The identifiers of the records a file makes (tenants, clients,
/// toolsets, downstreams), each a problem at its `id` when it is not a
/// record identifier. (Configured tools' names are checked with their
/// tools; the store checks the records an action makes, leaving those it
/// held before the rule as they are.)
pub(crate) fn check_record_ids(raw: &Sections, p: &mut Problems<'_>) {
    let ids = [
        (
            Section::Tenant,
            raw.tenant.iter().map(|t| &t.id).collect::<Vec<_>>(),
        ),
        (Section::Client, raw.client.iter().map(|c| &c.id).collect()),
        (
            Section::Toolset,
            raw.toolset.iter().map(|t| &t.id).collect(),
        ),
        (
            Section::Downstream,
            raw.downstream.iter().map(|d| &d.id).collect(),
        ),
    ];
    for (section, ids) in ids {
        for (i, id) in ids.into_iter().enumerate() {
            check_record_id(id, ConfigLocation::entry_of(section, i).field_of("id"), p);
        }
    }
}

fn check_record_id(id: &str, at: ConfigLocation, p: &mut Problems<'_>) {
    if !is_record_id(id) {
        p.at(at, RECORD_ID_RULE);
    }
}
