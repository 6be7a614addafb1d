//! What went wrong with the store.

use super::link;
use crate::{Compatibility, Problems, Refused};
use core::fmt;

/// What went wrong with the store.
#[derive(Debug)]
pub enum StoreError {
    /// The database URL cannot be read.
    Url(String),
    /// The database cannot be reached, or refused the connection.
    Connect {
        /// The database, without its password.
        database: String,
        /// Why.
        error: tokio_postgres::Error,
    },
    /// A query failed.
    Database(tokio_postgres::Error),
    /// The schema could not be created or upgraded.
    Migrate(String),
    /// The stored configuration, or a change to it, does not pass the
    /// checks: every problem, at its record and field. Nothing was written.
    Invalid(Problems),
    /// The action does not fit the current state; nothing was written.
    Refused(Refused),
    /// The change would serve a tool's clients something that may break
    /// them (another version, or a version's definition changed), and the
    /// operator did not accept that report (by its digest): the reports
    /// refused. Nothing was written.
    Breaking(Vec<Compatibility>),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Url(message) => write!(f, "the database URL cannot be read: {message}"),
            StoreError::Connect { database, error } => {
                write!(
                    f,
                    "cannot connect to the catalog store {database}: {}",
                    link::describe(error)
                )
            }
            StoreError::Database(error)
                if error.code() == Some(&tokio_postgres::error::SqlState::UNDEFINED_TABLE) =>
            {
                write!(
                    f,
                    "the catalog store has no tables yet (or an older schema): run `toolschema admin migrate` ({})",
                    link::describe(error)
                )
            }
            StoreError::Database(error) => {
                write!(f, "the catalog store failed: {}", link::describe(error))
            }
            StoreError::Migrate(message) => {
                write!(
                    f,
                    "the catalog store's schema could not be upgraded: {message}"
                )
            }
            StoreError::Invalid(problems) => write!(f, "{problems}"),
            StoreError::Refused(refused) => write!(f, "{refused}"),
            StoreError::Breaking(reports) => {
                for report in reports {
                    writeln!(f, "{report}")?;
                }
                let digests: Vec<&str> = reports.iter().map(|r| r.digest.as_str()).collect();
                write!(
                    f,
                    "nothing was changed: to make this change anyway, accept {} by {} digest (accept = {})",
                    match reports.len() {
                        1 => "this report",
                        _ => "these reports",
                    },
                    match reports.len() {
                        1 => "its",
                        _ => "their",
                    },
                    digests.join(", ")
                )
            }
        }
    }
}

impl std::error::Error for StoreError {}

impl From<tokio_postgres::Error> for StoreError {
    fn from(error: tokio_postgres::Error) -> StoreError {
        StoreError::Database(error)
    }
}
