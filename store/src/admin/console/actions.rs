//! Forms that change the catalog: keys, toolset assignments, imports.

use super::super::{Admin, failure};
use super::filters;
use super::{
    CsrfForm, Frame, LoggedIn, Tokened, checked, form_of, page, path_segment, secured,
    session_form, told,
};
use crate::{Action, Records, StoreError};
use askama::Template;
use axum::body::Body as RequestBody;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;

#[derive(Template)]
#[template(path = "console/key.html")]
pub(super) struct KeyPage {
    page: Frame,
    client: String,
    summary: String,
    key: String,
}

/// Applies `action` as `actor` through the store's audited actions, and
/// logs what changed.
pub(super) async fn apply_as(
    admin: &Admin,
    actor: &str,
    change: impl Into<crate::Change>,
) -> Result<crate::Applied, StoreError> {
    let applied = admin.store.apply(actor, change, &admin.registry).await?;
    tracing::info!(actor = %actor, target = %applied.done.target, summary = %applied.done.summary, revision = applied.revision, "catalog changed");
    Ok(applied)
}

/// Why the store refused an action, as a page tells it: a breaking
/// publish says how to accept it.
pub(super) fn refusal_text(error: StoreError) -> String {
    match error {
        StoreError::Breaking(reports) => {
            let what: Vec<String> = reports
                .iter()
                .map(|report| match report.from == report.to {
                    true => format!("`{}` version {} as changed", report.tool, report.to),
                    false => format!(
                        "`{}` version {} instead of version {}",
                        report.tool, report.to, report.from
                    ),
                })
                .collect();
            format!(
                "Nothing changed: serving {} may break their clients. Read what it changes below; to make the change anyway, tick \"I accept the breaking changes\" of that very report (report {}).",
                what.join(", "),
                reports
                    .iter()
                    .map(|r| r.digest.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
        other => other.to_string(),
    }
}

/// Applies `action` as the session's operator, then sends the browser to
/// `back`, told what was done or why not.
pub(super) async fn act(
    admin: &Admin,
    logged_in: &LoggedIn,
    change: impl Into<crate::Change>,
    back: &str,
) -> Response {
    let outcome = apply_as(admin, &logged_in.session.operator, change)
        .await
        .map(|applied| applied.done.summary)
        .map_err(refusal_text);
    told(admin, logged_in, back, outcome)
}

pub(super) async fn rotate_key(
    State(admin): State<Admin>,
    logged_in: LoggedIn,
    Path(client): Path<String>,
    body: RequestBody,
) -> Response {
    if let Err(refused) = session_form::<CsrfForm>(&admin, &logged_in, body).await {
        return refused;
    }
    let back = format!("/console/clients/{}", path_segment(&client));
    let action = Action::RotateKey {
        client: client.clone(),
    };
    match apply_as(&admin, &logged_in.session.operator, action).await {
        // The key is shown on this answer, never in a URL.
        Ok(applied) => match applied.done.api_key {
            Some(key) => page(
                StatusCode::OK,
                &KeyPage {
                    page: Frame::of(&logged_in.session, applied.revision),
                    client,
                    summary: applied.done.summary,
                    key,
                },
            ),
            None => told(&admin, &logged_in, &back, Ok(applied.done.summary)),
        },
        Err(error) => told(&admin, &logged_in, &back, Err(refusal_text(error))),
    }
}

#[derive(Deserialize)]
pub(super) struct AssignForm {
    csrf: String,
    toolset: String,
}

impl Tokened for AssignForm {
    fn csrf(&self) -> &str {
        &self.csrf
    }
}

pub(super) async fn assign(
    State(admin): State<Admin>,
    logged_in: LoggedIn,
    Path(client): Path<String>,
    body: RequestBody,
) -> Response {
    let fields: AssignForm = match session_form(&admin, &logged_in, body).await {
        Ok(fields) => fields,
        Err(refused) => return refused,
    };
    let back = format!("/console/clients/{}", path_segment(&client));
    let action = Action::Assign {
        client,
        toolset: fields.toolset,
    };
    act(&admin, &logged_in, action, &back).await
}

pub(super) async fn unassign(
    State(admin): State<Admin>,
    logged_in: LoggedIn,
    Path((client, toolset)): Path<(String, String)>,
    body: RequestBody,
) -> Response {
    if let Err(refused) = session_form::<CsrfForm>(&admin, &logged_in, body).await {
        return refused;
    }
    let back = format!("/console/clients/{}", path_segment(&client));
    act(
        &admin,
        &logged_in,
        Action::Unassign { client, toolset },
        &back,
    )
    .await
}

/// The import form's fields, kept to show them again.
#[derive(Deserialize, Default)]
pub(super) struct ImportFields {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    downstream: String,
    #[serde(default)]
    base_url: String,
    #[serde(default)]
    prefix: String,
    #[serde(default)]
    operations: String,
    #[serde(default)]
    document: String,
}

impl Tokened for ImportFields {
    fn csrf(&self) -> &str {
        &self.csrf
    }
}

/// What an import wrote, and what it left out.
pub(super) struct ImportDone {
    summary: String,
    tools: Vec<String>,
    skipped: Vec<(String, String)>,
    dropped: Vec<(String, String)>,
}

#[derive(Template)]
#[template(path = "console/import.html")]
pub(super) struct ImportPage {
    page: Frame,
    form: ImportFields,
    done: Option<ImportDone>,
}

pub(super) async fn import_form(State(admin): State<Admin>, logged_in: LoggedIn) -> Response {
    let revision = match admin.store.revision().await {
        Ok(revision) => revision,
        Err(error) => return secured(failure(error)),
    };
    page(
        StatusCode::OK,
        &ImportPage {
            page: Frame::of(&logged_in.session, revision),
            form: ImportFields::default(),
            done: None,
        },
    )
}

/// Imports the document of `fields` into drafts: what was written, or
/// why nothing was.
pub(super) async fn imported(
    admin: &Admin,
    actor: &str,
    fields: &ImportFields,
) -> Result<ImportDone, String> {
    use toolschema_import::{ImportOptions, import_openapi, import_wsdl, parse_document};
    let options = ImportOptions {
        operations: fields
            .operations
            .split(',')
            .map(str::trim)
            .filter(|operation| !operation.is_empty())
            .map(str::to_owned)
            .collect(),
        downstream: fields.downstream.trim().to_owned(),
        base_url: Some(fields.base_url.trim().to_owned()).filter(|url| !url.is_empty()),
        prefix: fields.prefix.trim().to_owned(),
        soap_version: None,
        soap_header_secrets: Vec::new(),
    };
    if options.downstream.is_empty() {
        return Err("Name the downstream the tools call (its id).".to_owned());
    }
    let document = fields.document.trim_start();
    // An XML document is a WSDL one; else OpenAPI or Swagger, JSON or YAML.
    let imported = match document.starts_with('<') {
        true => import_wsdl(document.as_bytes(), &options),
        false => parse_document(document).and_then(|parsed| import_openapi(&parsed, &options)),
    }
    .map_err(|error| format!("The document cannot be imported: {error}"))?;
    let records = Records::read_toml(&imported.toml, "(imported)").map_err(|e| e.to_string())?;
    let action = Action::Import {
        records: Box::new(records),
    };
    let applied = apply_as(admin, actor, action).await.map_err(refusal_text)?;
    let pairs = |list: &[toolschema_import::Skipped]| {
        list.iter()
            .map(|s| (s.operation.clone(), s.reason.clone()))
            .collect()
    };
    Ok(ImportDone {
        summary: applied.done.summary,
        tools: imported.tools.clone(),
        skipped: pairs(&imported.skipped),
        dropped: pairs(&imported.dropped),
    })
}

pub(super) async fn import(
    State(admin): State<Admin>,
    logged_in: LoggedIn,
    body: RequestBody,
) -> Response {
    let fields: ImportFields = match form_of(&admin, body, super::super::FILE_LIMIT).await {
        Ok(fields) => fields,
        Err(refused) => return refused,
    };
    if let Err(refused) = checked(&logged_in.session, fields.csrf()) {
        return refused;
    }
    let outcome = imported(&admin, &logged_in.session.operator, &fields).await;
    let revision = admin.store.revision().await.unwrap_or_default();
    let mut frame = Frame::of(&logged_in.session, revision);
    let (status, form, done) = match outcome {
        Ok(done) => (StatusCode::OK, ImportFields::default(), Some(done)),
        Err(problem) => {
            frame.problem = Some(problem);
            (StatusCode::UNPROCESSABLE_ENTITY, fields, None)
        }
    };
    page(
        status,
        &ImportPage {
            page: frame,
            form,
            done,
        },
    )
}
