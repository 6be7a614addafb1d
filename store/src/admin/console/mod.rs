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
use axum::extract::{FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use toolschema_catalog::Snapshot;
use toolschema_catalog::cost::Tokenizer;

use super::operator::{authenticate, peer_of};
use super::{Admin, failure};
use crate::Records;

mod actions;
mod audit;
mod clients;
mod tools;
use actions::{assign, import, import_form, rotate_key, unassign};
use audit::audit;
use clients::{client, client_tool, overview, switch};
use tools::{replicas, step, tool, tools};

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

async fn style() -> Response {
    secured(
        (
            [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
            include_str!("../../../templates/console/style.css"),
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
