//! Problems of a configuration, each located at file, line, column and key,
//! all reported at once.

use core::fmt;
use core::ops::Range;

/// One problem in a configuration file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The file.
    pub file: String,
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1.
    pub column: usize,
    /// The key, as a path such as `client[2].toolsets[0]`.
    pub key: String,
    /// What is wrong and what to do.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}: {}",
            self.file, self.line, self.column, self.key, self.message
        )
    }
}

/// Every problem of a configuration file (never empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigErrors {
    errors: Vec<ConfigError>,
}

impl ConfigErrors {
    /// The problems, in file order.
    pub fn iter(&self) -> core::slice::Iter<'_, ConfigError> {
        self.errors.iter()
    }

    /// How many problems there are.
    pub fn len(&self) -> usize {
        self.errors.len()
    }

    /// Always false.
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }
}

impl fmt::Display for ConfigErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.errors.len();
        write!(
            f,
            "{n} problem{} in the configuration:",
            if n == 1 { "" } else { "s" }
        )?;
        for error in &self.errors {
            write!(f, "\n  {error}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigErrors {}

/// Collects problems with their locations.
pub(super) struct Problems<'a> {
    file: &'a str,
    text: &'a str,
    /// Each problem with its byte offset, to sort them in file order.
    errors: Vec<(usize, ConfigError)>,
}

impl<'a> Problems<'a> {
    /// No problems yet, in `text` read from `file`.
    pub(super) fn new(file: &'a str, text: &'a str) -> Problems<'a> {
        Problems {
            file,
            text,
            errors: Vec::new(),
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// The problems, in file order.
    pub(super) fn into_errors(mut self) -> ConfigErrors {
        self.errors.sort_by_key(|(offset, _)| *offset);
        ConfigErrors {
            errors: self.errors.into_iter().map(|(_, e)| e).collect(),
        }
    }

    pub(super) fn at(
        &mut self,
        span: Range<usize>,
        key: impl Into<String>,
        message: impl Into<String>,
    ) {
        let (line, column) = line_column(self.text, span.start);
        self.errors.push((
            span.start,
            ConfigError {
                file: self.file.to_owned(),
                line,
                column,
                key: key.into(),
                message: message.into(),
            },
        ));
    }
}

/// The 1-based line and column of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

pub(super) fn suggestion<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> String {
    match toolschema_text::suggest::closest(name, candidates) {
        Some(near) => format!(" (did you mean `{near}`?)"),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_count_from_one() {
        assert_eq!(line_column("ab\ncd", 0), (1, 1));
        assert_eq!(line_column("ab\ncd", 4), (2, 2));
    }
}
