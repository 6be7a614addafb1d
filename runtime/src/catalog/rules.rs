//! The catalog's rules, as plain functions.

use super::config::Status;

/// The version of a mapping that is exposed, by DESIGN §6: if the highest
/// version is Deprecated, none; if it is Published, it; otherwise the highest
/// Published version, if any. A new draft never interrupts a published tool.
///
/// ```
/// use toolschema_runtime::catalog::{active_version, Status::*};
///
/// assert_eq!(active_version(&[(1, Published), (2, Draft)]), Some(1));
/// assert_eq!(active_version(&[(1, Published), (2, Published)]), Some(2));
/// assert_eq!(active_version(&[(1, Published), (2, Deprecated)]), None);
/// assert_eq!(active_version(&[(1, Proposed)]), None);
/// ```
pub fn active_version(versions: &[(u32, Status)]) -> Option<u32> {
    let (highest, status) = versions.iter().max_by_key(|(n, _)| *n)?;
    match status {
        Status::Deprecated => None,
        Status::Published => Some(*highest),
        Status::Draft | Status::Proposed => versions
            .iter()
            .filter(|(_, s)| *s == Status::Published)
            .map(|(n, _)| *n)
            .max(),
    }
}
