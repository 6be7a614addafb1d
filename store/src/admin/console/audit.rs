//! The audit trail, filtered and paged on the server.

use super::super::{Admin, failure};
use super::{AUDIT_PAGE, Frame, LoggedIn, page, secured};
use crate::AuditQuery;
use askama::Template;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;

#[derive(Deserialize, Default)]
pub(super) struct AuditFilter {
    #[serde(default)]
    actor: String,
    #[serde(default)]
    action: String,
    #[serde(default)]
    target: String,
    #[serde(default)]
    since: String,
    #[serde(default)]
    until: String,
    before: Option<i64>,
    after: Option<i64>,
}

/// Whether `text` is a day of the calendar as `YYYY-MM-DD`, between
/// 0001-01-01 and 9999-12-31 (leap years counted as the Gregorian
/// calendar does): a day PostgreSQL takes as a `date`.
///
/// ```text
/// 2024-02-29 yes   2026-02-29 no   2026-02-31 no   0000-01-01 no   2026-13-01 no
/// ```
fn is_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    let shaped = bytes.len() == 10
        && bytes.iter().enumerate().all(|(i, b)| match i {
            4 | 7 => *b == b'-',
            _ => b.is_ascii_digit(),
        });
    if !shaped {
        return false;
    }
    let (Ok(year), Ok(month), Ok(day)) = (
        text[..4].parse::<u16>(),
        text[5..7].parse::<u8>(),
        text[8..10].parse::<u8>(),
    ) else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    year >= 1 && (1..=days).contains(&day)
}

pub(super) struct AuditRow {
    at: String,
    actor: String,
    action: String,
    target: String,
    revision: i64,
    summary: String,
}

#[derive(Template)]
#[template(path = "console/audit.html")]
pub(super) struct AuditPage {
    page: Frame,
    filter: AuditFilter,
    entries: Vec<AuditRow>,
    newer: Option<String>,
    older: Option<String>,
}

pub(super) async fn audit(
    State(admin): State<Admin>,
    logged_in: LoggedIn,
    Query(filter): Query<AuditFilter>,
) -> Response {
    let given = |value: &str| Some(value.trim().to_owned()).filter(|v| !v.is_empty());
    let mut problem = None;
    let mut date = |value: &str, what: &str| {
        let value = given(value)?;
        if is_date(&value) {
            return Some(value);
        }
        problem = Some(format!("`{what}` is a day, as 2026-12-31: not used."));
        None
    };
    let (since, until) = (date(&filter.since, "From"), date(&filter.until, "To"));
    let query = AuditQuery {
        actor: given(&filter.actor),
        action: given(&filter.action),
        target: given(&filter.target),
        since,
        until,
        before: filter.before,
        after: filter.after,
        limit: AUDIT_PAGE,
    };
    let (entries, revision) = match (
        admin.store.audit_page(&query).await,
        admin.store.revision().await,
    ) {
        (Ok(entries), Ok(revision)) => (entries, revision),
        (Err(error), _) | (_, Err(error)) => return secured(failure(error)),
    };
    // Links to the next pages keep the filter.
    let link = |key: &str, id: i64| {
        let mut pairs: Vec<(&str, String)> = Vec::new();
        for (name, value) in [
            ("actor", &query.actor),
            ("action", &query.action),
            ("target", &query.target),
            ("since", &query.since),
            ("until", &query.until),
        ] {
            if let Some(value) = value {
                pairs.push((name, value.clone()));
            }
        }
        pairs.push((key, id.to_string()));
        serde_urlencoded::to_string(pairs).unwrap_or_default()
    };
    let full = entries.len() as i64 == AUDIT_PAGE;
    // Newer entries exist when this page started below the newest.
    let newer = entries
        .first()
        .filter(|_| query.before.is_some() || (query.after.is_some() && full))
        .map(|entry| link("after", entry.id));
    let older = entries
        .last()
        .filter(|_| full || query.after.is_some())
        .map(|entry| link("before", entry.id));
    let rows = entries
        .into_iter()
        .map(|entry| AuditRow {
            summary: entry.detail["summary"].as_str().unwrap_or("").to_owned(),
            at: entry.at,
            actor: entry.actor,
            action: entry.action,
            target: entry.target,
            revision: entry.revision,
        })
        .collect();
    let mut frame = Frame::of(&logged_in.session, revision);
    frame.problem = problem;
    page(
        StatusCode::OK,
        &AuditPage {
            page: frame,
            filter,
            entries: rows,
            newer,
            older,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::is_date;

    #[test]
    fn a_day_is_one_the_calendar_has() {
        for day in [
            "2026-02-28",
            "2024-02-29",
            "2000-02-29",
            "0001-01-01",
            "9999-12-31",
            "2026-04-30",
        ] {
            assert!(is_date(day), "{day}");
        }
        for not_a_day in [
            "2026-02-31",
            "0000-01-01",
            "2026-02-29",
            "1900-02-29",
            "2026-04-31",
            "2026-13-01",
            "2026-00-10",
            "2026-01-00",
            "2026-1-01",
            "2026/01/01",
            "+026-01-01",
            "",
        ] {
            assert!(!is_date(not_a_day), "{not_a_day}");
        }
    }
}
