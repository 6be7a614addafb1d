//! The tenants, client applications and toolsets, and what a client's
//! `tools/list` holds.

use super::super::Admin;
use super::actions::act;
use super::filters;
use super::{CsrfForm, Frame, LoggedIn, page, secured, session_form};
use crate::{Action, ActionKind};
use askama::Template;
use axum::body::Body as RequestBody;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use toolschema_catalog::Snapshot;
use toolschema_catalog::cost::{ENCODING, Tokenizer, client_cost};
use toolschema_runtime::project::ProtocolRevision;

pub(super) struct TenantRow {
    id: String,
    clients: Vec<ClientRow>,
    toolsets: Vec<ToolsetRow>,
}

pub(super) struct ClientRow {
    id: String,
    profile: &'static str,
    tools: usize,
    listed: usize,
}

pub(super) struct ToolsetRow {
    id: String,
    mode: &'static str,
    tools: usize,
    active: bool,
}

#[derive(Template)]
#[template(path = "console/overview.html")]
pub(super) struct OverviewPage {
    page: Frame,
    tenants: Vec<TenantRow>,
}

pub(super) async fn overview(State(admin): State<Admin>, logged_in: LoggedIn) -> Response {
    let told = admin.console.heard(&logged_in.id);
    let read = match admin.read().await {
        Ok(read) => read,
        Err(refused) => return refused,
    };
    let Some(config) = read.snapshot.config() else {
        return page(
            StatusCode::OK,
            &OverviewPage {
                page: Frame::of(&logged_in.session, read.revision),
                tenants: Vec::new(),
            },
        );
    };
    let tenants = config
        .tenants()
        .map(|tenant| TenantRow {
            id: tenant.to_owned(),
            clients: config
                .clients()
                .filter(|client| client.tenant() == tenant)
                .map(|client| {
                    let view = read.snapshot.client(client.id());
                    ClientRow {
                        id: client.id().to_owned(),
                        profile: client.profile().name(),
                        tools: view.map_or(0, |v| v.tools().count()),
                        listed: view.map_or(0, |v| v.entries(ProtocolRevision::LATEST).len()),
                    }
                })
                .collect(),
            toolsets: config
                .toolsets()
                .filter(|set| set.tenant() == tenant)
                .map(|set| ToolsetRow {
                    id: set.id().to_owned(),
                    mode: set.mode().name(),
                    tools: set.tools().count(),
                    active: set.is_active(),
                })
                .collect(),
        })
        .collect();
    page(
        StatusCode::OK,
        &OverviewPage {
            page: Frame::of(&logged_in.session, read.revision).told(told),
            tenants,
        },
    )
}

pub(super) async fn switch(
    State(admin): State<Admin>,
    logged_in: LoggedIn,
    Path((toolset, switch)): Path<(String, String)>,
    body: RequestBody,
) -> Response {
    if let Err(refused) = session_form::<CsrfForm>(&admin, &logged_in, body).await {
        return refused;
    }
    // The switch's name is the action's, in the one list.
    let action = match ActionKind::from_name(&switch) {
        Some(ActionKind::Activate) => Action::Activate { toolset },
        Some(ActionKind::Deactivate) => Action::Deactivate { toolset },
        _ => return secured(StatusCode::NOT_FOUND.into_response()),
    };
    act(&admin, &logged_in, action, "/console").await
}

pub(super) struct ToolEntry {
    name: String,
    version: u32,
    mode: &'static str,
    listed: bool,
}

pub(super) struct CostPart {
    shown: String,
    entries: usize,
    bytes: usize,
    tokens: usize,
}

pub(super) struct CostTable {
    encoding: &'static str,
    parts: Vec<CostPart>,
    list_entries: usize,
    list_bytes: usize,
    list_tokens: usize,
    full_entries: usize,
    full_bytes: usize,
    full_tokens: usize,
    saving: String,
}

pub(super) struct ClientInfo {
    id: String,
    tenant: String,
    profile: &'static str,
}

#[derive(Template)]
#[template(path = "console/client.html")]
pub(super) struct ClientPage {
    page: Frame,
    client: ClientInfo,
    cost: CostTable,
    tools: Vec<ToolEntry>,
    /// The toolsets assigned to it, and those of its tenant that are not.
    assigned: Vec<String>,
    assignable: Vec<String>,
}

pub(super) async fn client(
    State(admin): State<Admin>,
    logged_in: LoggedIn,
    Path(id): Path<String>,
) -> Response {
    let told = admin.console.heard(&logged_in.id);
    let read = match admin.read().await {
        Ok(read) => read,
        Err(refused) => return refused,
    };
    let Some(view) = read.snapshot.client(&id).filter(|view| view.id() == id) else {
        return secured(
            (
                StatusCode::NOT_FOUND,
                "there is no client application of that id",
            )
                .into_response(),
        );
    };
    let tokenizer = admin
        .console
        .tokenizer
        .get_or_init(|| Tokenizer::new().ok());
    let Some(cost) = tokenizer
        .as_ref()
        .and_then(|t| client_cost(&read.snapshot, &id, ProtocolRevision::LATEST, t))
    else {
        return secured(
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                "the token counts could not be made",
            )
                .into_response(),
        );
    };
    let cost = CostTable {
        encoding: ENCODING,
        parts: cost
            .parts
            .iter()
            .map(|(shown, part)| CostPart {
                shown: shown.to_string(),
                entries: part.tools,
                bytes: part.bytes,
                tokens: part.tokens,
            })
            .collect(),
        list_entries: cost.list.tools,
        list_bytes: cost.list.bytes,
        list_tokens: cost.list.tokens,
        full_entries: cost.full.tools,
        full_bytes: cost.full.bytes,
        full_tokens: cost.full.tokens,
        saving: format!("{:.1}%", 100.0 * cost.saving()),
    };
    let tools = view
        .tools()
        .map(|(def, mode)| ToolEntry {
            name: def.name.to_string(),
            version: def.version,
            mode: mode.name(),
            listed: mode.is_listed(),
        })
        .collect();
    let (assigned, assignable) = match read
        .snapshot
        .config()
        .and_then(|c| Some((c, c.client(&id)?)))
    {
        Some((config, configured)) => {
            let assigned: Vec<String> = configured.toolsets().map(str::to_owned).collect();
            let assignable = config
                .toolsets()
                .filter(|set| {
                    set.tenant() == configured.tenant() && !assigned.iter().any(|a| a == set.id())
                })
                .map(|set| set.id().to_owned())
                .collect();
            (assigned, assignable)
        }
        None => (Vec::new(), Vec::new()),
    };
    page(
        StatusCode::OK,
        &ClientPage {
            page: Frame::of(&logged_in.session, read.revision).told(told),
            client: ClientInfo {
                id: view.id().to_owned(),
                tenant: view.tenant().to_owned(),
                profile: view.profile().name(),
            },
            cost,
            tools,
            assigned,
            assignable,
        },
    )
}

#[derive(Template)]
#[template(path = "console/client_tool.html")]
pub(super) struct ClientToolPage {
    page: Frame,
    client: String,
    tool: String,
    version: u32,
    mode: &'static str,
    profile: &'static str,
    listed: bool,
    entry: String,
    full: String,
}

/// JSON text, indented for a person.
pub(super) fn pretty(json: &str) -> String {
    serde_json::from_str::<serde_json::Value>(json)
        .ok()
        .and_then(|value| serde_json::to_string_pretty(&value).ok())
        .unwrap_or_else(|| json.to_owned())
}

pub(super) async fn client_tool(
    State(admin): State<Admin>,
    logged_in: LoggedIn,
    Path((id, tool)): Path<(String, String)>,
) -> Response {
    let read = match admin.read().await {
        Ok(read) => read,
        Err(refused) => return refused,
    };
    let view = read.snapshot.client(&id).filter(|view| view.id() == id);
    let shown = view.and_then(|view| {
        let (def, mode) = view.tools().find(|(def, _)| *def.name == *tool)?;
        let entry = view.entry_of(&tool, ProtocolRevision::LATEST)?;
        let full = Snapshot::discover_in(view, &tool, ProtocolRevision::LATEST).ok()?;
        Some((view, def.version, mode, entry.clone(), full))
    });
    let Some((view, version, mode, entry, full)) = shown else {
        return secured(
            (
                StatusCode::NOT_FOUND,
                "that client application does not see a tool of that name",
            )
                .into_response(),
        );
    };
    page(
        StatusCode::OK,
        &ClientToolPage {
            page: Frame::of(&logged_in.session, read.revision),
            client: id.clone(),
            tool: tool.clone(),
            version,
            mode: mode.name(),
            profile: view.profile().name(),
            listed: mode.is_listed(),
            entry: pretty(&entry),
            full: pretty(&full),
        },
    )
}
