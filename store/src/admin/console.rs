//! The operator console: server-rendered pages on the admin listener, for
//! operators with the same keys as the admin API.
//!
//! | Path | Page |
//! |---|---|
//! | `GET /console/login`, `POST /console/login` | log in with an operator key |
//! | `POST /console/logout` | end the session |
//! | `GET /console` | tenants, their client applications and toolsets (activate, deactivate) |
//! | `GET /console/clients/{id}` | what a client's `tools/list` holds, per mode, and its token cost |
//! | `GET /console/tools` | every tool's versions and statuses, and the version served |
//! | `GET /console/audit?actor=&action=&target=&before=&after=` | the audit trail, filtered and paged on the server |
//!
//! Every page works without JavaScript: actions are plain forms. Logging in
//! sets a session cookie (`HttpOnly`, `SameSite=Strict`, and `Secure` when
//! a TLS-terminating proxy says `X-Forwarded-Proto: https`: the listener
//! itself speaks plain HTTP, so put the console behind TLS).
//!
//! A session ends eight hours after its login ([`SESSION`]), after thirty
//! minutes without a request ([`IDLE`]), at logout, and as soon as its
//! operator no longer holds the key it logged in with: every request reads
//! the operator's key hash from the store (the session keeps the hash of
//! its key), so `toolschema admin remove-operator` or `rotate-operator`,
//! run from any process, sends the session to the login page at its next
//! request, its form unapplied. Sessions are kept in this process's memory:
//! restarting the listener ends them all.
//!
//! Every form carries the session's CSRF token, and the login
//! form a token of its own, checked against a cookie. Every page is sent
//! with a Content-Security-Policy that allows only this console's own
//! stylesheet and forms (no script at all), and output is escaped by the
//! templates (askama). Actions go through the store's audited actions, as
//! the admin API's do, with the operator as the actor.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use askama::Template;
use axum::Router;
use axum::body::Body as RequestBody;
use axum::extract::{FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use toolschema_catalog::Snapshot;
use toolschema_catalog::cost::{ENCODING, Tokenizer, client_cost};
use toolschema_runtime::project::{Mode, Profile, Revision, project_tool_as};

use super::operator::{authenticate, peer_of};
use super::{Admin, failure};
use crate::{Action, AuditQuery, Records, StoreError};
use toolschema_catalog::Status;

/// How long a session lasts at most.
const SESSION: Duration = Duration::from_secs(8 * 60 * 60);

/// How long a session lasts without a request.
const IDLE: Duration = Duration::from_secs(30 * 60);

/// How long a login form may wait to be sent.
const LOGIN: Duration = Duration::from_secs(10 * 60);

/// The most sessions kept; past them the oldest are ended.
const MOST_SESSIONS: usize = 1_000;

/// The largest form taken.
const FORM_LIMIT: usize = 16 * 1024;

/// Audit entries a page shows.
const AUDIT_PAGE: i64 = 50;

const SESSION_COOKIE: &str = "toolschema_console";
const LOGIN_COOKIE: &str = "toolschema_login";

/// What the console keeps: sessions, and the catalog last read.
pub(super) struct Console {
    sessions: Mutex<HashMap<String, Session>>,
    /// How long a session lasts without a request ([`IDLE`]).
    idle: Duration,
    /// The catalog at the revision last read: a page reads it again only
    /// when the revision moved.
    catalog: tokio::sync::Mutex<Option<Arc<Read>>>,
    tokenizer: std::sync::OnceLock<Option<Tokenizer>>,
}

impl Default for Console {
    fn default() -> Console {
        Console::with_idle(IDLE)
    }
}

/// A logged-in operator.
#[derive(Clone)]
struct Session {
    operator: String,
    /// The hash of the key it logged in with: the session lasts while the
    /// operator holds that key.
    key_hash: String,
    csrf: String,
    started: Instant,
    /// When its last request came.
    seen: Instant,
    /// What the next page tells: what the last action did, or why not
    /// (kept here, never in a URL another site could write).
    told: Told,
}

/// The store's catalog at one revision: its records, and what each client
/// sees.
struct Read {
    revision: i64,
    records: Records,
    snapshot: Snapshot,
}

pub(super) fn routes() -> Router<Admin> {
    Router::new()
        .route("/console", get(overview))
        .route("/console/login", get(login_form).post(login))
        .route("/console/logout", post(logout))
        .route("/console/clients/{id}", get(client))
        .route("/console/clients/{id}/tools/{tool}", get(client_tool))
        .route("/console/clients/{id}/rotate-key", post(rotate_key))
        .route("/console/clients/{id}/assign", post(assign))
        .route(
            "/console/clients/{id}/toolsets/{toolset}/unassign",
            post(unassign),
        )
        .route("/console/replicas", get(replicas))
        .route("/console/import", get(import_form).post(import))
        .route("/console/tools", get(tools))
        .route("/console/tools/{name}", get(tool))
        .route(
            "/console/tools/{name}/versions/{version}/{step}",
            post(step),
        )
        .route("/console/audit", get(audit))
        .route("/console/toolsets/{id}/{switch}", post(switch))
        .route("/console/style.css", get(style))
}

/// The headers every console answer carries.
fn secured(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in [
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        ),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::CACHE_CONTROL, "no-store"),
        (header::X_FRAME_OPTIONS, "DENY"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

/// `template` rendered as a page with `status`.
fn page(status: StatusCode, template: &impl Template) -> Response {
    match template.render() {
        Ok(html) => secured(
            (
                status,
                [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
                html,
            )
                .into_response(),
        ),
        Err(error) => secured(
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("the page could not be rendered: {error}"),
            )
                .into_response(),
        ),
    }
}

/// A redirect after a form (303: the browser asks with GET).
fn see_other(to: &str) -> Response {
    let mut response = StatusCode::SEE_OTHER.into_response();
    if let Ok(location) = HeaderValue::from_str(to) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    secured(response)
}

/// The value of the cookie `name` in `headers`.
fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value)
}

/// Whether two tokens are equal, in time that does not depend on where
/// they differ.
fn same_token(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// `text` as one segment of a path: every byte but letters, digits, `-`,
/// `.`, `_` and `~` percent-encoded, so that an id holding `/`, `..`, `?`,
/// `#` or `%` stays one segment, which the route's `Path` decodes back.
/// Every link and form action of the console that names a record goes
/// through it (templates as the `segment` filter).
///
/// `.` and `..` cannot be one segment (a browser removes them, encoded or
/// not), so they become an empty segment, which no route takes: such a
/// record's links and forms lead nowhere rather than to another record's.
fn path_segment(text: &str) -> String {
    if text == "." || text == ".." {
        return String::new();
    }
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(char::from(byte));
            }
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    out
}

/// The templates' own filters.
#[expect(
    unreachable_pub,
    reason = "askama's `filter_fn` makes the filter's methods `pub`"
)]
mod filters {
    /// `{{ id|segment }}`: [`path_segment`](super::path_segment), for a
    /// record's id (or a tool's name, a version) in a link or form action.
    #[askama::filter_fn]
    pub(super) fn segment(
        text: impl core::fmt::Display,
        _: &dyn askama::Values,
    ) -> askama::Result<String> {
        Ok(super::path_segment(&text.to_string()))
    }
}

fn new_token() -> String {
    crate::action::new_api_key("")
}

impl Console {
    /// A console whose sessions end after `idle` without a request.
    fn with_idle(idle: Duration) -> Console {
        Console {
            sessions: Mutex::default(),
            idle,
            catalog: tokio::sync::Mutex::default(),
            tokenizer: std::sync::OnceLock::new(),
        }
    }

    /// Whether `session` is still live at `now`.
    fn live(&self, session: &Session, now: Instant) -> bool {
        now.saturating_duration_since(session.started) <= SESSION
            && now.saturating_duration_since(session.seen) <= self.idle
    }

    /// The session `id` if it is live at `now`, which counts as its
    /// latest request; a session past its time is ended.
    fn session(&self, id: &str, now: Instant) -> Option<Session> {
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        let session = sessions.get_mut(id)?;
        if !self.live(session, now) {
            sessions.remove(id);
            return None;
        }
        session.seen = session.seen.max(now);
        Some(session.clone())
    }

    /// A new session of `operator`, who logged in with the key whose hash
    /// is `key_hash`, at `now`.
    fn start(&self, operator: String, key_hash: String, now: Instant) -> (String, Session) {
        let session = Session {
            operator,
            key_hash,
            csrf: new_token(),
            started: now,
            seen: now,
            told: Told::default(),
        };
        let id = new_token();
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        sessions.retain(|_, s| self.live(s, now));
        while sessions.len() >= MOST_SESSIONS {
            let oldest = sessions
                .iter()
                .min_by_key(|(_, s)| s.started)
                .map(|(id, _)| id.clone());
            match oldest {
                Some(oldest) => sessions.remove(&oldest),
                None => break,
            };
        }
        sessions.insert(id.clone(), session.clone());
        (id, session)
    }

    /// Keeps `told` for the session's next page.
    fn tell(&self, id: &str, told: Told) {
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(session) = sessions.get_mut(id) {
            session.told = told;
        }
    }

    /// What the session's page tells, once.
    fn heard(&self, id: &str) -> Told {
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        sessions
            .get_mut(id)
            .map(|session| core::mem::take(&mut session.told))
            .unwrap_or_default()
    }

    fn end(&self, id: &str) {
        self.sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id);
    }
}

/// The session of a request: its operator and CSRF token. A request
/// without a live session is sent to the login page, before its body is
/// read.
struct LoggedIn {
    id: String,
    session: Session,
}

/// The answer to a request whose session is over: to the login page, the
/// session cookie expired.
fn logged_out() -> Response {
    let mut response = see_other("/console/login");
    let cookie = format!("{SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/console; Max-Age=0");
    if let Ok(value) = HeaderValue::from_str(&cookie) {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
    response
}

impl FromRequestParts<Admin> for LoggedIn {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, admin: &Admin) -> Result<LoggedIn, Response> {
        let Some(id) = cookie(&parts.headers, SESSION_COOKIE) else {
            return Err(see_other("/console/login"));
        };
        let Some(session) = admin.console.session(id, Instant::now()) else {
            return Err(logged_out());
        };
        // The operator may have been removed, or its key rotated, by
        // another process since: the store says whose key is current.
        let held = admin
            .store
            .operator_key(&session.operator)
            .await
            .map_err(|error| secured(failure(error)))?;
        if !held.is_some_and(|held| same_token(&held, &session.key_hash)) {
            tracing::info!(actor = %session.operator, "console session ended: the operator's key was removed or rotated");
            admin.console.end(id);
            return Err(logged_out());
        }
        Ok(LoggedIn {
            id: id.to_owned(),
            session,
        })
    }
}

/// A form's fields, read within the listener's body timeout.
async fn form<T: serde::de::DeserializeOwned>(
    admin: &Admin,
    body: RequestBody,
) -> Result<T, Response> {
    form_of(admin, body, FORM_LIMIT).await
}

/// [`form`], of at most `limit` bytes.
async fn form_of<T: serde::de::DeserializeOwned>(
    admin: &Admin,
    body: RequestBody,
    limit: usize,
) -> Result<T, Response> {
    let bytes = admin.body(body, limit).await.map_err(secured)?;
    serde_urlencoded::from_bytes(&bytes).map_err(|error| {
        secured(
            (
                StatusCode::BAD_REQUEST,
                format!("the form could not be read: {error}"),
            )
                .into_response(),
        )
    })
}

/// What every page of a logged-in operator shows.
struct Frame {
    operator: String,
    csrf: String,
    revision: i64,
    notice: Option<String>,
    problem: Option<String>,
}

impl Frame {
    fn of(session: &Session, revision: i64) -> Frame {
        Frame {
            operator: session.operator.clone(),
            csrf: session.csrf.clone(),
            revision,
            notice: None,
            problem: None,
        }
    }

    /// With what the last action did, or why it was refused.
    fn told(mut self, told: Told) -> Frame {
        self.notice = told.done;
        self.problem = told.problem;
        self
    }
}

/// What a page is told after an action.
#[derive(Clone, Default)]
struct Told {
    done: Option<String>,
    problem: Option<String>,
}

/// Sends the browser to `to`, whose page tells the session what an action
/// did (`Ok`) or why it was refused (`Err`).
fn told(
    admin: &Admin,
    logged_in: &LoggedIn,
    to: &str,
    outcome: Result<String, String>,
) -> Response {
    let told = match outcome {
        Ok(done) => Told {
            done: Some(done),
            problem: None,
        },
        Err(problem) => Told {
            done: None,
            problem: Some(problem),
        },
    };
    admin.console.tell(&logged_in.id, told);
    see_other(to)
}

impl Admin {
    /// The store's catalog now: read again only when the revision moved.
    async fn read(&self) -> Result<Arc<Read>, Response> {
        let revision = self
            .store
            .revision()
            .await
            .map_err(|e| secured(failure(e)))?;
        let mut held = self.console.catalog.lock().await;
        if let Some(read) = held.as_ref().filter(|read| read.revision == revision) {
            return Ok(read.clone());
        }
        let loaded = self
            .store
            .load(&self.registry)
            .await
            .map_err(|e| secured(failure(e)))?;
        let snapshot = Snapshot::build(self.registry.clone(), &loaded.config);
        let read = Arc::new(Read {
            revision: loaded.revision,
            records: loaded.records,
            snapshot,
        });
        *held = Some(read.clone());
        Ok(read)
    }
}

#[derive(Template)]
#[template(path = "console/login.html")]
struct LoginPage {
    csrf: String,
    problem: Option<&'static str>,
}

/// `; Secure` for a request that reached a TLS-terminating proxy in front
/// of the listener (`X-Forwarded-Proto: https`): its cookies then travel
/// over TLS only. (The listener itself speaks plain HTTP.)
fn secure_attribute(headers: &HeaderMap) -> &'static str {
    let https = headers
        .get("x-forwarded-proto")
        .and_then(|value| value.to_str().ok())
        .is_some_and(|proto| proto.trim().eq_ignore_ascii_case("https"));
    match https {
        true => "; Secure",
        false => "",
    }
}

/// The login form, with a fresh token in a cookie of its own.
fn login_page(status: StatusCode, problem: Option<&'static str>, secure: &str) -> Response {
    let csrf = new_token();
    let mut response = page(
        status,
        &LoginPage {
            csrf: csrf.clone(),
            problem,
        },
    );
    let cookie = format!(
        "{LOGIN_COOKIE}={csrf}; HttpOnly; SameSite=Strict; Path=/console/login; Max-Age={}{secure}",
        LOGIN.as_secs()
    );
    if let Ok(value) = HeaderValue::from_str(&cookie) {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
    response
}

async fn login_form(headers: HeaderMap) -> Response {
    login_page(StatusCode::OK, None, secure_attribute(&headers))
}

#[derive(Deserialize)]
struct LoginForm {
    key: String,
    csrf: String,
}

async fn login(State(admin): State<Admin>, request: axum::extract::Request) -> Response {
    let (parts, body) = request.into_parts();
    let fields: LoginForm = match form(&admin, body).await {
        Ok(fields) => fields,
        Err(refused) => return refused,
    };
    let secure = secure_attribute(&parts.headers);
    let expected = cookie(&parts.headers, LOGIN_COOKIE);
    // An empty token (a cookie emptied, as logging in leaves it) proves
    // nothing.
    if !expected.is_some_and(|expected| !expected.is_empty() && same_token(expected, &fields.csrf))
    {
        return login_page(
            StatusCode::FORBIDDEN,
            Some("The form had expired or did not come from this console: log in again."),
            secure,
        );
    }
    match authenticate(&admin, peer_of(&parts), Some(&fields.key)).await {
        Ok(operator) => {
            tracing::info!(actor = %operator.name, "console login");
            let (id, _) = admin
                .console
                .start(operator.name, operator.key_hash, Instant::now());
            let mut response = see_other("/console");
            for cookie in [
                format!(
                    "{SESSION_COOKIE}={id}; HttpOnly; SameSite=Strict; Path=/console; Max-Age={}{secure}",
                    SESSION.as_secs()
                ),
                format!(
                    "{LOGIN_COOKIE}=; HttpOnly; SameSite=Strict; Path=/console/login; Max-Age=0"
                ),
            ] {
                if let Ok(value) = HeaderValue::from_str(&cookie) {
                    response.headers_mut().append(header::SET_COOKIE, value);
                }
            }
            response
        }
        Err(refused) => {
            let problem = match refused.status() {
                StatusCode::TOO_MANY_REQUESTS => {
                    "Too many wrong keys from this address: wait a minute, then try again."
                }
                StatusCode::UNAUTHORIZED => {
                    "That is not an operator key. Make one with `toolschema admin add-operator NAME`."
                }
                _ => "The catalog store cannot check keys now: try again shortly.",
            };
            login_page(refused.status(), Some(problem), secure)
        }
    }
}

#[derive(Deserialize)]
struct CsrfForm {
    csrf: String,
}

/// A form that carries the session's CSRF token.
trait Tokened: serde::de::DeserializeOwned {
    fn csrf(&self) -> &str;
}

impl Tokened for CsrfForm {
    fn csrf(&self) -> &str {
        &self.csrf
    }
}

/// A form of the logged-in operator's: read, and its token checked
/// against the session's.
async fn session_form<T: Tokened>(
    admin: &Admin,
    logged_in: &LoggedIn,
    body: RequestBody,
) -> Result<T, Response> {
    let fields: T = form(admin, body).await?;
    checked(&logged_in.session, fields.csrf())?;
    Ok(fields)
}

/// Checks a form's CSRF token against the session's.
fn checked(session: &Session, sent: &str) -> Result<(), Response> {
    match same_token(&session.csrf, sent) {
        true => Ok(()),
        false => Err(secured(
            (
                StatusCode::FORBIDDEN,
                "the form did not come from this session: reload the page and send it again",
            )
                .into_response(),
        )),
    }
}

async fn logout(State(admin): State<Admin>, logged_in: LoggedIn, body: RequestBody) -> Response {
    if let Err(refused) = session_form::<CsrfForm>(&admin, &logged_in, body).await {
        return refused;
    }
    admin.console.end(&logged_in.id);
    logged_out()
}

struct TenantRow {
    id: String,
    clients: Vec<ClientRow>,
    toolsets: Vec<ToolsetRow>,
}

struct ClientRow {
    id: String,
    profile: &'static str,
    tools: usize,
    listed: usize,
}

struct ToolsetRow {
    id: String,
    mode: &'static str,
    tools: usize,
    active: bool,
}

#[derive(Template)]
#[template(path = "console/overview.html")]
struct OverviewPage {
    page: Frame,
    tenants: Vec<TenantRow>,
}

async fn overview(State(admin): State<Admin>, logged_in: LoggedIn) -> Response {
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
                        listed: view.map_or(0, |v| v.entries(Revision::LATEST).len()),
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

async fn switch(
    State(admin): State<Admin>,
    logged_in: LoggedIn,
    Path((toolset, switch)): Path<(String, String)>,
    body: RequestBody,
) -> Response {
    if let Err(refused) = session_form::<CsrfForm>(&admin, &logged_in, body).await {
        return refused;
    }
    let action = match switch.as_str() {
        "activate" => Action::Activate { toolset },
        "deactivate" => Action::Deactivate { toolset },
        _ => return secured(StatusCode::NOT_FOUND.into_response()),
    };
    act(&admin, &logged_in, action, "/console").await
}

struct ToolEntry {
    name: String,
    version: u32,
    mode: &'static str,
    listed: bool,
}

struct CostPart {
    shown: String,
    entries: usize,
    bytes: usize,
    tokens: usize,
}

struct CostTable {
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

struct ClientInfo {
    id: String,
    tenant: String,
    profile: &'static str,
}

#[derive(Template)]
#[template(path = "console/client.html")]
struct ClientPage {
    page: Frame,
    client: ClientInfo,
    cost: CostTable,
    tools: Vec<ToolEntry>,
    /// The toolsets assigned to it, and those of its tenant that are not.
    assigned: Vec<String>,
    assignable: Vec<String>,
}

async fn client(
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
        .and_then(|t| client_cost(&read.snapshot, &id, Revision::LATEST, t))
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
struct ClientToolPage {
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
fn pretty(json: &str) -> String {
    serde_json::from_str::<serde_json::Value>(json)
        .ok()
        .and_then(|value| serde_json::to_string_pretty(&value).ok())
        .unwrap_or_else(|| json.to_owned())
}

async fn client_tool(
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
        let entry = view.entry_of(&tool, Revision::LATEST)?;
        let full = Snapshot::discover_in(view, &tool, Revision::LATEST).ok()?;
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

#[derive(Template)]
#[template(path = "console/key.html")]
struct KeyPage {
    page: Frame,
    client: String,
    summary: String,
    key: String,
}

/// Applies `action` as `actor` through the store's audited actions, and
/// logs what changed.
async fn apply_as(
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
fn refusal_text(error: StoreError) -> String {
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
async fn act(
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

async fn rotate_key(
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
struct AssignForm {
    csrf: String,
    toolset: String,
}

impl Tokened for AssignForm {
    fn csrf(&self) -> &str {
        &self.csrf
    }
}

async fn assign(
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

async fn unassign(
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
struct ImportFields {
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
struct ImportDone {
    summary: String,
    tools: Vec<String>,
    skipped: Vec<(String, String)>,
    dropped: Vec<(String, String)>,
}

#[derive(Template)]
#[template(path = "console/import.html")]
struct ImportPage {
    page: Frame,
    form: ImportFields,
    done: Option<ImportDone>,
}

async fn import_form(State(admin): State<Admin>, logged_in: LoggedIn) -> Response {
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
async fn imported(admin: &Admin, actor: &str, fields: &ImportFields) -> Result<ImportDone, String> {
    use toolschema_gateway::import::{ImportOptions, import_openapi, import_wsdl, parse_document};
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
    let pairs = |list: &[toolschema_gateway::import::Skipped]| {
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

async fn import(State(admin): State<Admin>, logged_in: LoggedIn, body: RequestBody) -> Response {
    let fields: ImportFields = match form_of(&admin, body, super::FILE_LIMIT).await {
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

#[derive(Template)]
#[template(path = "console/replicas.html")]
struct ReplicasPage {
    page: Frame,
    replicas: Vec<crate::ReplicaConnection>,
}

async fn replicas(State(admin): State<Admin>, logged_in: LoggedIn) -> Response {
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

struct VersionCell {
    number: u32,
    status: &'static str,
}

struct ToolRow {
    name: String,
    served: Option<u32>,
    versions: Vec<VersionCell>,
}

#[derive(Template)]
#[template(path = "console/tools.html")]
struct ToolsPage {
    page: Frame,
    tools: Vec<ToolRow>,
}

async fn tools(State(admin): State<Admin>, logged_in: LoggedIn) -> Response {
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
struct ReportView {
    from: u32,
    breaks: bool,
    /// What accepting it names.
    digest: String,
    verdict: String,
    lines: Vec<String>,
}

/// A form that moves a version.
struct StepForm {
    name: &'static str,
    label: &'static str,
    /// The digest of the report whose breaking changes it asks to accept.
    accept: Option<String>,
}

struct VersionView {
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
struct ToolPage {
    page: Frame,
    name: String,
    served: Option<u32>,
    versions: Vec<VersionView>,
}

/// The moves a version of `status` may make, the one served aside.
fn steps(status: Status, served: bool, breaking: Option<&str>) -> Vec<StepForm> {
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

async fn tool(
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
struct StepFields {
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

async fn step(
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
    let action = match step.as_str() {
        "propose" => Action::Propose { tool, version },
        "publish" => Action::Publish { tool, version },
        "deprecate" => Action::Deprecate { tool, version },
        _ => return secured(StatusCode::NOT_FOUND.into_response()),
    };
    act(&admin, &logged_in, action.accepting(accept), &back).await
}

#[derive(Deserialize, Default)]
struct AuditFilter {
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

struct AuditRow {
    at: String,
    actor: String,
    action: String,
    target: String,
    revision: i64,
    summary: String,
}

#[derive(Template)]
#[template(path = "console/audit.html")]
struct AuditPage {
    page: Frame,
    filter: AuditFilter,
    entries: Vec<AuditRow>,
    newer: Option<String>,
    older: Option<String>,
}

async fn audit(
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

async fn style() -> Response {
    secured(
        (
            [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
            include_str!("../../templates/console/style.css"),
        )
            .into_response(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINUTE: Duration = Duration::from_secs(60);

    #[test]
    fn a_session_ends_after_thirty_minutes_without_a_request() {
        let console = Console::default();
        let login = Instant::now();
        let (id, _) = console.start("bob".to_owned(), "sha256:00".to_owned(), login);
        assert!(console.session(&id, login + 29 * MINUTE).is_some());
        assert!(
            console.session(&id, login + 58 * MINUTE).is_some(),
            "its last request was 29 minutes before"
        );
        assert!(
            console.session(&id, login + 89 * MINUTE).is_none(),
            "31 minutes without a request"
        );
        assert!(
            console.session(&id, login + 59 * MINUTE).is_none(),
            "an ended session stays ended"
        );
    }

    #[test]
    fn a_session_ends_eight_hours_after_its_login_however_busy() {
        let console = Console::default();
        let login = Instant::now();
        let (id, _) = console.start("bob".to_owned(), "sha256:00".to_owned(), login);
        let mut at = login;
        while at < login + SESSION {
            assert!(console.session(&id, at).is_some(), "{:?}", at - login);
            at += 20 * MINUTE;
        }
        assert!(console.session(&id, login + SESSION + MINUTE).is_none());
    }

    /// A store nobody listens for.
    fn unreachable_store() -> crate::Store {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .map(|address| address.port())
            .expect("a free port");
        crate::Store::new(&format!("postgresql://toolschema@127.0.0.1:{port}/catalog"))
            .expect("url")
    }

    #[tokio::test]
    async fn an_idle_session_is_sent_to_the_login_page() {
        let idle = Duration::from_millis(200);
        let admin = Admin {
            store: unreachable_store(),
            registry: Arc::new(toolschema_runtime::call::Registry::new()),
            guard: Arc::default(),
            timeouts: toolschema_serve::HttpTimeouts::default(),
            console: Arc::new(Console::with_idle(idle)),
        };
        let (id, _) = admin
            .console
            .start("bob".to_owned(), "sha256:00".to_owned(), Instant::now());
        let request = || {
            axum::http::Request::builder()
                .uri("/console")
                .header(header::COOKIE, format!("{SESSION_COOKIE}={id}"))
                .body(())
                .expect("a request")
                .into_parts()
                .0
        };
        // Live: past the session, its operator's key is asked of the store
        // (unreachable here: 503).
        let live = LoggedIn::from_request_parts(&mut request(), &admin).await;
        assert_eq!(
            live.err().map(|r| r.status()),
            Some(StatusCode::SERVICE_UNAVAILABLE)
        );
        tokio::time::sleep(idle + Duration::from_millis(100)).await;
        let idle = LoggedIn::from_request_parts(&mut request(), &admin)
            .await
            .err()
            .expect("refused");
        assert_eq!(idle.status(), StatusCode::SEE_OTHER);
        assert_eq!(
            idle.headers()
                .get(header::LOCATION)
                .map(HeaderValue::as_bytes),
            Some(&b"/console/login"[..])
        );
        let expired = idle
            .headers()
            .get(header::SET_COOKIE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default();
        assert!(expired.contains("Max-Age=0"), "{expired}");
    }

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

    #[test]
    fn a_path_segment_holds_any_id_as_one_segment() {
        assert_eq!(path_segment("acme-billing"), "acme-billing");
        assert_eq!(path_segment("billing.refund"), "billing.refund");
        assert_eq!(
            path_segment("../toolsets/globex-support"),
            "..%2Ftoolsets%2Fglobex-support"
        );
        assert_eq!(path_segment("a?b#c%d e"), "a%3Fb%23c%25d%20e");
        assert_eq!(path_segment("é"), "%C3%A9");
        // No encoding of `.` or `..` is one segment to a browser: none
        // that a route takes.
        assert_eq!(path_segment(".."), "");
        assert_eq!(path_segment("."), "");
        assert_eq!(path_segment("..."), "...");
    }
}
