//! Every tool's versions and statuses, their steps, and the replicas.

use super::super::{Admin, failure};
use super::actions::act;
use super::clients::pretty;
use super::filters;
use super::{Frame, LoggedIn, Tokened, page, path_segment, secured, session_form};
use crate::{Action, ActionKind};
use askama::Template;
use axum::body::Body as RequestBody;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use toolschema_catalog::Status;
use toolschema_runtime::project::{Mode, Profile, project_tool_as};

#[derive(Template)]
#[template(path = "console/replicas.html")]
pub(super) struct ReplicasPage {
    page: Frame,
    replicas: Vec<crate::ReplicaConnection>,
}

pub(super) async fn replicas(State(admin): State<Admin>, logged_in: LoggedIn) -> Response {
    let (replicas, revision) = match (admin.store.replicas().await, admin.store.revision().await) {
        (Ok(replicas), Ok(revision)) => (replicas, revision),
        (Err(error), _) | (_, Err(error)) => return secured(failure(error)),
    };
    page(
        StatusCode::OK,
        &ReplicasPage {
            page: Frame::of(&logged_in.session, revision),
            replicas,
        },
    )
}

pub(super) struct VersionCell {
    number: u32,
    status: &'static str,
}

pub(super) struct ToolRow {
    name: String,
    served: Option<u32>,
    versions: Vec<VersionCell>,
}

#[derive(Template)]
#[template(path = "console/tools.html")]
pub(super) struct ToolsPage {
    page: Frame,
    tools: Vec<ToolRow>,
}

pub(super) async fn tools(State(admin): State<Admin>, logged_in: LoggedIn) -> Response {
    let read = match admin.read().await {
        Ok(read) => read,
        Err(refused) => return refused,
    };
    let mut rows: Vec<ToolRow> = Vec::new();
    for ((name, number), version) in &read.records.versions {
        if rows.last().is_none_or(|row| row.name != *name) {
            rows.push(ToolRow {
                name: name.clone(),
                served: None,
                versions: Vec::new(),
            });
        }
        if let Some(row) = rows.last_mut() {
            row.versions.push(VersionCell {
                number: *number,
                status: version.status.name(),
            });
        }
    }
    for row in &mut rows {
        let statuses: Vec<(u32, Status)> = read
            .records
            .versions
            .range((row.name.clone(), 0)..=(row.name.clone(), u32::MAX))
            .map(|((_, n), v)| (*n, v.status))
            .collect();
        row.served = toolschema_catalog::active_version(&statuses);
    }
    page(
        StatusCode::OK,
        &ToolsPage {
            page: Frame::of(&logged_in.session, read.revision),
            tools: rows,
        },
    )
}

/// What publishing a version changes for the clients of the one served.
pub(super) struct ReportView {
    from: u32,
    breaks: bool,
    /// What accepting it names.
    digest: String,
    verdict: String,
    lines: Vec<String>,
}

/// A form that moves a version.
pub(super) struct StepForm {
    name: &'static str,
    label: &'static str,
    /// The digest of the report whose breaking changes it asks to accept.
    accept: Option<String>,
}

pub(super) struct VersionView {
    number: u32,
    status: &'static str,
    report: Option<ReportView>,
    steps: Vec<StepForm>,
    definition: Option<String>,
    /// Its MCP descriptor as a client in Full mode and the default dialect
    /// would see it.
    descriptor: Option<String>,
}

#[derive(Template)]
#[template(path = "console/tool.html")]
pub(super) struct ToolPage {
    page: Frame,
    name: String,
    served: Option<u32>,
    versions: Vec<VersionView>,
}

/// The moves a version of `status` may make, the one served aside.
pub(super) fn steps(status: Status, served: bool, breaking: Option<&str>) -> Vec<StepForm> {
    let step = |name, label| StepForm {
        name,
        label,
        accept: breaking.filter(|_| name == "publish").map(str::to_owned),
    };
    match (status, served) {
        (_, true) => vec![step("deprecate", "Deprecate")],
        (Status::Draft, false) => vec![step("propose", "Propose"), step("publish", "Publish")],
        (Status::Proposed | Status::Deprecated, false) => vec![step("publish", "Publish")],
        (Status::Published, false) => vec![step("deprecate", "Deprecate")],
        (_, false) => Vec::new(),
    }
}

pub(super) async fn tool(
    State(admin): State<Admin>,
    logged_in: LoggedIn,
    Path(name): Path<String>,
) -> Response {
    let told = admin.console.heard(&logged_in.id);
    let read = match admin.read().await {
        Ok(read) => read,
        Err(refused) => return refused,
    };
    let statuses: Vec<(u32, Status)> = read
        .records
        .versions_of(&name)
        .map(|(number, version)| (number, version.status))
        .collect();
    if statuses.is_empty() {
        return secured(
            (
                StatusCode::NOT_FOUND,
                "there is no tool with versions of that name",
            )
                .into_response(),
        );
    }
    let served = toolschema_catalog::active_version(&statuses);
    // What the tool's clients are served, or were last: what a version
    // is compared with.
    let mut baseline = crate::gate::Served::of(&read.records, &admin.registry, &name);
    if baseline.is_none() {
        baseline = match admin.store.served_last(&name).await {
            Ok(served) => served,
            Err(error) => return secured(failure(error)),
        };
    }
    let mut versions = Vec::new();
    for (number, version) in read.records.versions_of(&name) {
        let is_served = served == Some(number);
        // What publishing it would change, for a version that is not
        // served and could be.
        // From the catalog this page read (records and their checked
        // configuration), not a read and check of the store per version.
        let report = match (is_served, version.status, read.snapshot.config()) {
            (false, Status::Draft | Status::Proposed | Status::Deprecated, Some(config)) => {
                crate::gate::draft_report(&name, number, baseline.clone(), config, &admin.registry)
            }
            _ => None,
        };
        let report = report.map(|report| {
            let text = report.to_string();
            let mut lines = text.lines();
            let verdict = lines.next().unwrap_or_default().to_owned();
            ReportView {
                from: report.from,
                breaks: report.breaks,
                digest: report.digest,
                verdict,
                lines: lines.map(|line| line.trim().to_owned()).collect(),
            }
        });
        let breaking = report
            .as_ref()
            .filter(|report| report.breaks)
            .map(|report| report.digest.as_str());
        versions.push(VersionView {
            number,
            status: version.status.name(),
            steps: steps(version.status, is_served, breaking),
            report,
            definition: version
                .definition
                .as_ref()
                .and_then(|definition| serde_json::to_string_pretty(definition).ok()),
            descriptor: read.snapshot.registry().get(&name, number).map(|def| {
                pretty(&project_tool_as(def, Mode::Full, Profile::Default).to_compact_string())
            }),
        });
    }
    page(
        StatusCode::OK,
        &ToolPage {
            page: Frame::of(&logged_in.session, read.revision).told(told),
            name,
            served,
            versions,
        },
    )
}

#[derive(Deserialize)]
pub(super) struct StepFields {
    csrf: String,
    /// The digest of the report accepted, when the box is ticked.
    #[serde(default)]
    accept: Option<String>,
}

impl Tokened for StepFields {
    fn csrf(&self) -> &str {
        &self.csrf
    }
}

pub(super) async fn step(
    State(admin): State<Admin>,
    logged_in: LoggedIn,
    Path((tool, version, step)): Path<(String, u32, String)>,
    body: RequestBody,
) -> Response {
    let fields: StepFields = match session_form(&admin, &logged_in, body).await {
        Ok(fields) => fields,
        Err(refused) => return refused,
    };
    let accept: Vec<String> = fields.accept.into_iter().collect();
    let back = format!("/console/tools/{}", path_segment(&tool));
    // The step's name is the action's, in the one list.
    let action = match ActionKind::from_name(&step) {
        Some(ActionKind::Propose) => Action::Propose { tool, version },
        Some(ActionKind::Publish) => Action::Publish { tool, version },
        Some(ActionKind::Deprecate) => Action::Deprecate { tool, version },
        _ => return secured(StatusCode::NOT_FOUND.into_response()),
    };
    act(&admin, &logged_in, action.accepting(accept), &back).await
}
