//! The catalog's rules, as plain functions, and the statuses of versions
//! they read.

/// The status of one version of a mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Status {
    /// Being written; never exposed.
    Draft,
    /// Awaiting review; never exposed.
    Proposed,
    /// Exposed (the highest published version is the active one).
    Published,
    /// Withdrawn: as the highest version, hides the whole mapping.
    Deprecated,
}

impl Status {
    const NAMES: [(&'static str, Status); 4] = [
        ("draft", Status::Draft),
        ("proposed", Status::Proposed),
        ("published", Status::Published),
        ("deprecated", Status::Deprecated),
    ];

    /// The status of a configuration word.
    ///
    /// ```
    /// use toolschema_configured::Status;
    ///
    /// assert_eq!(Status::from_name("published"), Some(Status::Published));
    /// assert_eq!(Status::from_name("live"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Status> {
        Status::NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| *s)
    }

    /// The status's configuration word.
    ///
    /// ```
    /// use toolschema_configured::Status;
    ///
    /// assert_eq!(Status::Proposed.name(), "proposed");
    /// ```
    pub fn name(self) -> &'static str {
        Status::NAMES
            .iter()
            .find(|(_, s)| *s == self)
            .map_or("draft", |(n, _)| n)
    }
}

/// The version of a mapping that is exposed, by DESIGN §6: if the highest
/// version is Deprecated, none; if it is Published, it; otherwise the highest
/// Published version, if any. A new draft never interrupts a published tool.
///
/// ```
/// use toolschema_configured::{active_version, Status::*};
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
