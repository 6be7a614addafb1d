//! Problems of a configuration, each located at file, line, column and key,
//! all reported at once.

use core::fmt;
use std::collections::BinaryHeap;
use std::sync::Arc;

use crate::location::ConfigLocation;
use crate::places::Places;

/// What kind of problem a configuration has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProblemKind {
    /// The text cannot be read as a configuration: not TOML (or not the
    /// document's shape), a section or field the configuration does not
    /// have, a value of the wrong type, a required field missing.
    Unreadable,
    /// A name of something the configuration does not declare: a tenant,
    /// toolset, tool, downstream or client.
    Reference,
    /// An id given twice, or a key two client applications hold.
    Duplicate,
    /// A value its rules refuse (a bound, a URL, a status, a path).
    Rule,
}

/// One problem in a configuration file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    file: String,
    kind: ProblemKind,
    line: usize,
    column: usize,
    location: ConfigLocation,
    key: String,
    message: String,
}

impl ConfigError {
    /// The file.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// The line, from 1; 0 for a configuration that is not text (read
    /// with [`Config::from_json`](super::Config::from_json)), whose
    /// problems are named by [`key`](Self::key) alone.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The column, from 1; 0 when there is no line.
    pub fn column(&self) -> usize {
        self.column
    }

    /// What kind of problem it is.
    pub fn kind(&self) -> ProblemKind {
        self.kind
    }

    /// Where the problem is: the section, entry, version and field.
    pub fn location(&self) -> &ConfigLocation {
        &self.location
    }

    /// The key, as a path such as `client[2].toolsets[0]`: the
    /// [`location`](Self::location) as the file writes it.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// What is wrong and what to do.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            0 => write!(f, "{}: {}: {}", self.file, self.key, self.message),
            line => write!(
                f,
                "{}:{line}:{}: {}: {}",
                self.file, self.column, self.key, self.message
            ),
        }
    }
}

/// The most problems listed; beyond, they are counted. A file of many
/// thousands of mistakes is one mistake repeated, and its report stays
/// readable and small.
pub const MAX_LISTED_PROBLEMS: usize = 200;

/// The most problems that get a "did you mean" (each compares a name with
/// every candidate).
const MAX_SUGGESTIONS: usize = 100;

/// Every problem of a configuration file (never empty): the first
/// [`MAX_LISTED_PROBLEMS`] in file order, and how many more there are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigErrors {
    errors: Vec<ConfigError>,
    omitted: usize,
}

impl ConfigErrors {
    /// The problems listed, in file order.
    pub fn iter(&self) -> core::slice::Iter<'_, ConfigError> {
        self.errors.iter()
    }

    /// How many problems there are, listed or not.
    pub fn len(&self) -> usize {
        self.errors.len() + self.omitted
    }

    /// How many problems are counted but not listed.
    pub fn omitted(&self) -> usize {
        self.omitted
    }

    /// Always false.
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }
}

impl fmt::Display for ConfigErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.len();
        write!(
            f,
            "{n} problem{} in the configuration:",
            if n == 1 { "" } else { "s" }
        )?;
        for error in &self.errors {
            write!(f, "\n  {error}")?;
        }
        if self.omitted > 0 {
            write!(
                f,
                "\n  and {} more, not listed; fix these and the rest will be reported",
                self.omitted
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigErrors {}

/// A problem found, located once all are (in one pass over the text).
struct Found {
    offset: usize,
    /// The order it was found in, for problems at one place.
    order: usize,
    kind: ProblemKind,
    location: ConfigLocation,
    message: String,
}

impl Found {
    fn place(&self) -> (usize, usize) {
        (self.offset, self.order)
    }
}

impl PartialEq for Found {
    fn eq(&self, other: &Found) -> bool {
        self.place() == other.place()
    }
}

impl Eq for Found {}

impl PartialOrd for Found {
    fn partial_cmp(&self, other: &Found) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Found {
    fn cmp(&self, other: &Found) -> core::cmp::Ordering {
        self.place().cmp(&other.place())
    }
}

/// Collects problems with their places: the first
/// [`MAX_LISTED_PROBLEMS`] in file order are kept whole (a heap of them,
/// the last in the file on top), the rest only counted, so that a file of
/// a million mistakes costs no more than finding them.
pub(super) struct Problems<'a> {
    file: &'a str,
    /// The text problems are located in; none for a document that is
    /// not text.
    places: Option<Arc<Places<'a>>>,
    kept: BinaryHeap<Found>,
    /// How many problems have been found (a part's count starts at its
    /// whole's, `before`).
    found: usize,
    /// How many problems the whole had found when this part of it began
    /// ([`Problems::part`]); 0 for a whole.
    before: usize,
}

impl<'a> Problems<'a> {
    /// No problems yet, in `text` read from `file`.
    pub(super) fn new(file: &'a str, text: &'a str) -> Problems<'a> {
        Problems {
            file,
            places: Some(Arc::new(Places::new(text))),
            kept: BinaryHeap::new(),
            found: 0,
            before: 0,
        }
    }

    /// No problems yet, in a document that is not text: each problem is
    /// named by its key alone (line and column 0).
    pub(super) fn without_text(source: &'a str) -> Problems<'a> {
        Problems {
            file: source,
            places: None,
            kept: BinaryHeap::new(),
            found: 0,
            before: 0,
        }
    }

    /// A part of these problems, to be found on another thread and then
    /// [absorbed](Problems::absorb) (in the order the parts were taken,
    /// for the problems' order to be the one a single pass finds).
    pub(super) fn part(&self) -> Problems<'a> {
        Problems {
            file: self.file,
            places: self.places.clone(),
            kept: BinaryHeap::new(),
            found: self.found,
            before: self.found,
        }
    }

    /// Adds the problems of `part` (taken with [`Problems::part`]) as if
    /// found here, after those found so far.
    pub(super) fn absorb(&mut self, part: Problems<'a>) {
        // A part keeps its first problems in text order; those it dropped
        // come after as many of its own, so the whole would drop them too.
        let base = self.found;
        for found in part.kept.into_sorted_vec() {
            self.keep(Found {
                order: base + found.order - part.before,
                ..found
            });
        }
        self.found = base + part.found - part.before;
    }

    pub(super) fn is_empty(&self) -> bool {
        self.found == 0
    }

    /// How many problems have been found.
    pub(super) fn len(&self) -> usize {
        self.found
    }

    /// The problems, in file order, located at line and column.
    pub(super) fn into_errors(self) -> ConfigErrors {
        let omitted = self.found - self.kept.len();
        let kept = self.kept.into_sorted_vec();
        let offsets: Vec<usize> = kept.iter().map(|found| found.offset).collect();
        let places = match &self.places {
            Some(places) => line_columns(places.text(), &offsets),
            None => vec![(0, 0); offsets.len()],
        };
        let errors = kept
            .into_iter()
            .zip(places)
            .map(|(found, (line, column))| ConfigError {
                file: self.file.to_owned(),
                line,
                column,
                kind: found.kind,
                key: found.location.to_string(),
                location: found.location,
                message: found.message,
            })
            .collect();
        ConfigErrors { errors, omitted }
    }

    /// A problem of a value its rules refuse ([`ProblemKind::Rule`]).
    pub(super) fn at(&mut self, location: ConfigLocation, message: impl Into<String>) {
        self.found(location, ProblemKind::Rule, message.into());
    }

    /// A name of something not declared ([`ProblemKind::Reference`]).
    pub(super) fn reference(&mut self, location: ConfigLocation, message: impl Into<String>) {
        self.found(location, ProblemKind::Reference, message.into());
    }

    /// An id given twice ([`ProblemKind::Duplicate`]).
    pub(super) fn duplicate(&mut self, location: ConfigLocation, message: impl Into<String>) {
        self.found(location, ProblemKind::Duplicate, message.into());
    }

    /// Text that cannot be read ([`ProblemKind::Unreadable`]).
    pub(super) fn unreadable(&mut self, location: ConfigLocation, message: impl Into<String>) {
        self.found(location, ProblemKind::Unreadable, message.into());
    }

    /// A problem of `kind` at `location`.
    pub(super) fn found(&mut self, location: ConfigLocation, kind: ProblemKind, message: String) {
        self.found_at(None, location, kind, message);
    }

    /// A problem of `kind` at `location`, at `offset` in the text when it
    /// is known (a reading error's), else where the location is.
    pub(super) fn found_at(
        &mut self,
        offset: Option<usize>,
        location: ConfigLocation,
        kind: ProblemKind,
        message: String,
    ) {
        let order = self.found;
        self.found += 1;
        let offset = match (&self.places, offset) {
            (_, Some(offset)) => offset,
            (Some(places), None) => places.offset_of(&location),
            (None, None) => 0,
        };
        self.keep(Found {
            offset,
            order,
            kind,
            location,
            message,
        });
    }

    /// Keeps `found` if it is among the first [`MAX_LISTED_PROBLEMS`] in
    /// text order.
    fn keep(&mut self, found: Found) {
        if self.kept.len() >= MAX_LISTED_PROBLEMS {
            match self.kept.peek() {
                Some(last) if found.place() < last.place() => {
                    self.kept.pop();
                }
                _ => return,
            }
        }
        self.kept.push(found);
    }

    /// ` (did you mean `…`?)` with the candidate nearest `name`, if one is
    /// near; nothing once [`MAX_SUGGESTIONS`] problems have been found.
    pub(super) fn suggestion<'c>(
        &self,
        name: &str,
        candidates: impl Iterator<Item = &'c str>,
    ) -> String {
        if self.found >= MAX_SUGGESTIONS {
            return String::new();
        }
        match toolschema_text::suggest::closest(name, candidates) {
            Some(near) => format!(" (did you mean `{near}`?)"),
            None => String::new(),
        }
    }
}

/// The 1-based line and column of each of `offsets` (in increasing
/// order), in one pass over `text`.
fn line_columns(text: &str, offsets: &[usize]) -> Vec<(usize, usize)> {
    let mut out = Vec::with_capacity(offsets.len());
    let (mut line, mut line_start, mut scanned) = (1, 0, 0);
    for &offset in offsets {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        if offset >= scanned {
            for (at, byte) in text.as_bytes()[scanned..offset].iter().enumerate() {
                if *byte == b'\n' {
                    line += 1;
                    line_start = scanned + at + 1;
                }
            }
            scanned = offset;
        }
        let column = text[line_start..offset.max(line_start)].chars().count() + 1;
        out.push((line, column));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_count_from_one() {
        assert_eq!(
            line_columns("ab\ncé\nd", &[0, 4, 6, 7, 99]),
            [(1, 1), (2, 2), (2, 3), (3, 1), (3, 2)]
        );
    }

    #[test]
    fn parts_absorbed_in_order_list_what_one_pass_finds() {
        // Problems as (offset, key): at one place (as in a JSON document,
        // where every offset is 0) the order found decides the listing.
        let found: Vec<Vec<(usize, String)>> = (0..7)
            .map(|part| {
                (0..part * 80)
                    .map(|i| ((i * 7 + part) % 3 * (part % 2), format!("p{part}.{i}")))
                    .collect()
            })
            .collect();
        let text = "x".repeat(10);
        for problems in [
            Problems::new("f.toml", &text),
            Problems::without_text("records"),
        ] {
            let mut one_pass = problems.part();
            let mut whole = problems;
            let first = || ConfigLocation::file().field_of("first");
            whole.found_at(Some(1), first(), ProblemKind::Rule, "found first".into());
            one_pass.found_at(Some(1), first(), ProblemKind::Rule, "found first".into());
            let parts: Vec<Problems<'_>> = found
                .iter()
                .map(|problems| {
                    let mut part = whole.part();
                    for (offset, key) in problems {
                        let at = ConfigLocation::file().field_of(key);
                        part.found_at(Some(*offset), at, ProblemKind::Rule, "m".into());
                    }
                    part
                })
                .collect();
            for part in parts {
                whole.absorb(part);
            }
            for (offset, key) in found.iter().flatten() {
                let at = ConfigLocation::file().field_of(key);
                one_pass.found_at(Some(*offset), at, ProblemKind::Rule, "m".into());
            }
            assert_eq!(whole.len(), one_pass.len());
            let (whole, one_pass) = (whole.into_errors(), one_pass.into_errors());
            assert!(whole.omitted() > 0, "more than are listed");
            assert_eq!(whole.omitted(), one_pass.omitted());
            let listed = |errors: &ConfigErrors| -> Vec<(usize, usize, String)> {
                errors
                    .iter()
                    .map(|e| (e.line, e.column, e.key.clone()))
                    .collect()
            };
            assert_eq!(listed(&whole), listed(&one_pass));
        }
    }

    #[test]
    fn many_problems_are_counted_past_the_first_listed() {
        let text = "x\n".repeat(10_000);
        let mut problems = Problems::new("f.toml", &text);
        // Found out of order: the listed ones are the first in the file.
        for line in (0..10_000).rev() {
            let suggestion = problems.suggestion("tools", ["toolz"].into_iter());
            problems.found_at(
                Some(line * 2),
                ConfigLocation::file().field_of("k"),
                ProblemKind::Rule,
                format!("bad{suggestion}"),
            );
        }
        let errors = problems.into_errors();
        assert_eq!(errors.len(), 10_000);
        assert_eq!(errors.omitted(), 10_000 - MAX_LISTED_PROBLEMS);
        let listed: Vec<usize> = errors.iter().map(|e| e.line).collect();
        assert_eq!(listed.len(), MAX_LISTED_PROBLEMS);
        // Found last, first in the file: listed.
        assert_eq!(listed[0], 1);
        assert!(listed.windows(2).all(|w| w[0] < w[1]), "{listed:?}");
        let text = errors.to_string();
        assert!(text.ends_with(&format!(
            "and {} more, not listed; fix these and the rest will be reported",
            10_000 - MAX_LISTED_PROBLEMS
        )));
        // The first hundred found suggest, the rest do not.
        assert!(
            !text.contains("did you mean"),
            "suggested past the first hundred"
        );
    }
}
