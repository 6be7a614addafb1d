//! The operator console: a session from an operator key, every page behind
//! it, CSRF tokens on every form, a strict Content-Security-Policy, output
//! escaped, actions audited as the operator, and the audit trail filtered
//! and paged on the server.

use std::io::{Read as _, Write as _};
use std::net::SocketAddr;

use toolschema_serve::HttpTimeouts;
use toolschema_store::Action;

use crate::admin_hardening::{demo_store, serve};

/// One answer: its status, its head (lower-cased header names) and body.
struct Answer {
    status: u16,
    head: String,
    body: String,
}

impl Answer {
    /// The value of header `name` (lower case), the first one.
    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            (key.eq_ignore_ascii_case(name)).then(|| value.trim())
        })
    }

    /// Every `Set-Cookie` value.
    fn cookies(&self) -> Vec<&str> {
        self.head
            .lines()
            .filter_map(|line| line.split_once(':'))
            .filter(|(key, _)| key.eq_ignore_ascii_case("set-cookie"))
            .map(|(_, value)| value.trim())
            .collect()
    }

    /// The value of the `name` cookie this answer sets.
    fn cookie(&self, name: &str) -> Option<String> {
        self.cookies().into_iter().find_map(|cookie| {
            let (pair, _) = cookie.split_once(';').unwrap_or((cookie, ""));
            let (key, value) = pair.split_once('=')?;
            (key == name).then(|| value.to_owned())
        })
    }

    /// The value of the hidden `csrf` field of the page's first form.
    fn csrf(&self) -> String {
        let at = self
            .body
            .find("name=\"csrf\" value=\"")
            .expect("a csrf field")
            + 19;
        self.body[at..]
            .split('"')
            .next()
            .expect("a value")
            .to_owned()
    }
}

fn http(
    address: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Answer {
    let mut stream = std::net::TcpStream::connect(address).expect("connects");
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).expect("writes");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("reads");
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    Answer {
        status: head.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0),
        head: head.to_owned(),
        body: body.to_owned(),
    }
}

const FORM: (&str, &str) = ("Content-Type", "application/x-www-form-urlencoded");

/// Sends the login form: `key`, and `csrf` with the login `cookie`.
fn log_in_with(address: SocketAddr, cookie: &str, key: &str, csrf: &str) -> Answer {
    let body = format!("key={key}&csrf={csrf}");
    http(
        address,
        "POST",
        "/console/login",
        &[FORM, ("Cookie", cookie)],
        &body,
    )
}

/// Logs in with `key`: the session cookie header.
fn log_in(address: SocketAddr, key: &str) -> String {
    let form = http(address, "GET", "/console/login", &[], "");
    let token = form.cookie("toolschema_login").expect("a login token");
    let cookie = format!("toolschema_login={token}");
    let answer = log_in_with(address, &cookie, key, &form.csrf());
    assert_eq!(answer.status, 303, "{}", answer.body);
    let session = answer.cookie("toolschema_console").expect("a session");
    format!("toolschema_console={session}")
}

fn strict(answer: &Answer) {
    let policy = answer.header("content-security-policy").expect("a policy");
    assert!(policy.starts_with("default-src 'none'"), "{policy}");
    assert!(!policy.contains("unsafe"), "{policy}");
    assert!(!policy.contains("script-src"), "no script at all: {policy}");
    assert_eq!(answer.header("x-content-type-options"), Some("nosniff"));
    assert_eq!(answer.header("cache-control"), Some("no-store"));
}

#[test]
fn an_operator_logs_in_with_a_key_and_every_page_needs_the_session() {
    let (store, key) = demo_store();
    let (address, _runtime) = serve(store, HttpTimeouts::default());
    for path in [
        "/console",
        "/console/tools",
        "/console/audit",
        "/console/clients/acme-finance",
    ] {
        let answer = http(address, "GET", path, &[], "");
        assert_eq!(
            (answer.status, answer.header("location")),
            (303, Some("/console/login")),
            "{path}"
        );
    }

    let form = http(address, "GET", "/console/login", &[], "");
    assert_eq!(form.status, 200);
    strict(&form);
    let login_cookie = form
        .cookies()
        .into_iter()
        .find(|c| c.starts_with("toolschema_login="))
        .expect("cookie");
    assert!(
        login_cookie.contains("HttpOnly") && login_cookie.contains("SameSite=Strict"),
        "{login_cookie}"
    );
    assert!(
        form.body
            .contains("<label for=\"key\">Operator key</label>"),
        "{}",
        form.body
    );
    let token = form.cookie("toolschema_login").expect("token");
    assert_eq!(form.csrf(), token, "the form's token is the cookie's");
    let cookie = format!("toolschema_login={token}");

    // A wrong key: the same page, told why, and no session.
    let wrong = format!("tso_{}", "0".repeat(64));
    let answer = log_in_with(address, &cookie, &wrong, &token);
    assert_eq!(answer.status, 401);
    assert!(
        answer.body.contains("That is not an operator key"),
        "{}",
        answer.body
    );
    assert!(answer.cookie("toolschema_console").is_none());
    // The right key with a token that is not the cookie's: refused.
    let answer = log_in_with(address, &cookie, &key, "forged");
    assert_eq!(answer.status, 403);
    assert!(answer.cookie("toolschema_console").is_none());
    // Nor an empty token against an emptied cookie (as a login leaves it).
    let answer = log_in_with(address, "toolschema_login=", &key, "");
    assert_eq!(answer.status, 403);
    assert!(answer.cookie("toolschema_console").is_none());

    let answer = log_in_with(address, &cookie, &key, &token);
    assert_eq!(
        (answer.status, answer.header("location")),
        (303, Some("/console"))
    );
    let session = answer
        .cookies()
        .into_iter()
        .find(|c| c.starts_with("toolschema_console="))
        .expect("a session")
        .to_owned();
    for attribute in [
        "HttpOnly",
        "SameSite=Strict",
        "Path=/console",
        "Max-Age=28800",
    ] {
        assert!(session.contains(attribute), "{session}");
    }
    let session = format!(
        "toolschema_console={}",
        answer.cookie("toolschema_console").expect("session")
    );
    let me = [("Cookie", session.as_str())];

    let overview = http(address, "GET", "/console", &me, "");
    assert_eq!(overview.status, 200);
    strict(&overview);
    for shown in [
        "acme",
        "globex",
        "acme-assistant",
        "globex-support",
        "acme-billing",
        "alice",
        "Log out",
    ] {
        assert!(overview.body.contains(shown), "{shown}: {}", overview.body);
    }
    // What acme-assistant sees, and what its list costs.
    let client = http(address, "GET", "/console/clients/acme-assistant", &me, "");
    assert_eq!(client.status, 200, "{}", client.body);
    assert!(
        client
            .body
            .contains("<title>acme-assistant · toolschema console</title>"),
        "{}",
        client.body
    );
    for shown in [
        "billing.get-invoice",
        "data-structure-only",
        "lazy",
        "discover_tool_schema",
        "Saving against Full mode",
        "openai-strict",
    ] {
        assert!(client.body.contains(shown), "{shown}: {}", client.body);
    }
    assert_eq!(
        http(address, "GET", "/console/clients/nobody", &me, "").status,
        404
    );
    // Every tool's versions: billing.refund 1 published and 2 a draft,
    // version 1 served.
    let tools = http(address, "GET", "/console/tools", &me, "");
    assert_eq!(tools.status, 200);
    let row = tools
        .body
        .split("<tr>")
        .find(|row| row.contains(">billing.refund</a></td>"))
        .expect("a row");
    assert!(
        row.contains("<td>1</td>") && row.contains("1 published") && row.contains("2 draft"),
        "{row}"
    );
    let audit = http(address, "GET", "/console/audit", &me, "");
    assert_eq!(audit.status, 200);
    assert!(
        audit.body.contains("<td>setup</td>") && audit.body.contains("<td>replace</td>"),
        "{}",
        audit.body
    );
    let style = http(address, "GET", "/console/style.css", &[], "");
    assert_eq!(
        (style.status, style.header("content-type")),
        (200, Some("text/css; charset=utf-8"))
    );
}

#[test]
fn actions_need_the_session_token_and_are_audited_as_the_operator() {
    let (store, key) = demo_store();
    let (address, runtime) = serve(store.clone(), HttpTimeouts::default());
    let session = log_in(address, &key);
    let me = [FORM, ("Cookie", session.as_str())];
    let csrf = http(address, "GET", "/console", &me, "").csrf();
    let revision = || runtime.block_on(store.revision()).expect("revision");

    let forged = http(
        address,
        "POST",
        "/console/toolsets/globex-support/deactivate",
        &me,
        "csrf=forged",
    );
    assert_eq!(forged.status, 403);
    let missing = http(
        address,
        "POST",
        "/console/toolsets/globex-support/deactivate",
        &me,
        "",
    );
    assert_eq!(missing.status, 400);
    assert_eq!(revision(), 1, "nothing was written");
    // Without the session, the token alone does nothing.
    let stranger = http(
        address,
        "POST",
        "/console/toolsets/globex-support/deactivate",
        &[FORM],
        &format!("csrf={csrf}"),
    );
    assert_eq!(stranger.status, 303);
    assert_eq!(revision(), 1);

    let done = http(
        address,
        "POST",
        "/console/toolsets/globex-support/deactivate",
        &me,
        &format!("csrf={csrf}"),
    );
    assert_eq!(done.status, 303);
    let to = done.header("location").expect("back to the overview");
    assert_eq!(
        to, "/console",
        "what was done is kept in the session, not the URL"
    );
    assert_eq!(revision(), 2);
    let overview = http(address, "GET", to, &me, "");
    assert!(
        overview.body.contains("class=\"notice\""),
        "{}",
        overview.body
    );
    // Told once; and a page says nothing a link's query would put in it.
    let again = http(
        address,
        "GET",
        "/console?problem=Your+key+expired%2C+log+in+at+evil.example&done=x",
        &me,
        "",
    );
    assert!(
        !again.body.contains("class=\"notice\"") && !again.body.contains("evil.example"),
        "{}",
        again.body
    );
    let row = overview
        .body
        .split("<tr>")
        .find(|row| row.contains("<td>globex-support</td><td>lazy"))
        .expect("the toolset's row");
    assert!(
        row.contains("inactive") && row.contains("Activate"),
        "{row}"
    );

    let mine = http(address, "GET", "/console/audit?actor=alice", &me, "");
    assert!(
        mine.body.contains("<td>deactivate</td>") && !mine.body.contains("<td>setup</td>"),
        "{}",
        mine.body
    );
    let none = http(
        address,
        "GET",
        "/console/audit?actor=alice&action=activate",
        &me,
        "",
    );
    assert!(none.body.contains("No entry."), "{}", none.body);

    // Logged out: the session is gone, its cookie expired.
    let out = http(
        address,
        "POST",
        "/console/logout",
        &me,
        &format!("csrf={csrf}"),
    );
    assert_eq!(
        (out.status, out.header("location")),
        (303, Some("/console/login"))
    );
    assert!(
        out.cookies()
            .iter()
            .any(|c| c.starts_with("toolschema_console=;") && c.contains("Max-Age=0"))
    );
    assert_eq!(http(address, "GET", "/console", &me, "").status, 303);
}

#[test]
fn what_a_page_echoes_is_escaped() {
    let (store, key) = demo_store();
    let (address, _runtime) = serve(store, HttpTimeouts::default());
    let session = log_in(address, &key);
    let me = [("Cookie", session.as_str())];
    let answer = http(
        address,
        "GET",
        "/console/audit?actor=%3Cscript%3Ealert(1)%3C%2Fscript%3E%22",
        &me,
        "",
    );
    assert_eq!(answer.status, 200);
    assert!(!answer.body.contains("<script>"), "{}", answer.body);
    assert!(
        answer.body.contains("&#60;script&#62;") || answer.body.contains("&lt;script&gt;"),
        "{}",
        answer.body
    );
}

#[test]
fn the_audit_trail_is_paged_on_the_server() {
    let (store, key) = demo_store();
    let (address, runtime) = serve(store.clone(), HttpTimeouts::default());
    let registry = toolschema_demo::registry();
    // 55 more entries: 56 in all.
    runtime.block_on(async {
        for n in 0..55 {
            let toolset = "acme-reports".to_owned();
            let action = match n % 2 {
                0 => Action::Deactivate { toolset },
                _ => Action::Activate { toolset },
            };
            store
                .apply("bob", action, &registry)
                .await
                .expect("applies");
        }
    });
    let session = log_in(address, &key);
    let me = [("Cookie", session.as_str())];
    let rows = |answer: &Answer| answer.body.matches("<tr><td>20").count();
    let link = |answer: &Answer, label: &str| {
        let end = answer.body.find(&format!("\">{label}</a>"))?;
        let start = answer.body[..end].rfind("href=\"")? + 6;
        Some(
            answer.body[start..end]
                .replace("&#38;", "&")
                .replace("&amp;", "&"),
        )
    };
    let first = http(address, "GET", "/console/audit", &me, "");
    assert_eq!(rows(&first), 50);
    assert!(link(&first, "Newer").is_none());
    let older = link(&first, "Older").expect("an older page");
    let second = http(address, "GET", &older, &me, "");
    assert_eq!(rows(&second), 6, "{}", second.body);
    assert!(second.body.contains("<td>setup</td>"));
    let newer = link(&second, "Newer").expect("a newer page");
    let back = http(address, "GET", &newer, &me, "");
    assert_eq!(rows(&back), 50);
    // Filtered: bob's deactivations only, 28 of them, on one page.
    let bob = http(
        address,
        "GET",
        "/console/audit?actor=bob&action=deactivate",
        &me,
        "",
    );
    assert_eq!(rows(&bob), 28, "{}", bob.body);
    assert!(link(&bob, "Older").is_none());
}

#[test]
fn a_version_is_published_from_its_page_after_its_report_and_an_explicit_acceptance() {
    let (store, key) = demo_store();
    let (address, runtime) = serve(store.clone(), HttpTimeouts::default());
    let session = log_in(address, &key);
    let me = [FORM, ("Cookie", session.as_str())];
    let revision = || runtime.block_on(store.revision()).expect("revision");

    let page = http(address, "GET", "/console/tools/billing.refund", &me, "");
    assert_eq!(page.status, 200, "{}", page.body);
    strict(&page);
    for shown in [
        "Version 1 is served.",
        "Version 2: draft",
        "What it changes for the clients of version 1",
        "may break its clients",
        "required-property-added",
        "I accept the breaking changes",
        "action=\"/console/tools/billing.refund/versions/2/publish\"",
        "Version 2 as a client in Full mode sees it",
        "&#34;reason&#34;",
    ] {
        assert!(page.body.contains(shown), "{shown}: {}", page.body);
    }
    let csrf = page.csrf();
    let publish = "/console/tools/billing.refund/versions/2/publish";
    // The box names the report it accepts.
    let digest = page
        .body
        .split("name=\"accept\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the acceptance box carries the report's digest")
        .to_owned();
    assert_eq!(digest.len(), 16, "{digest}");

    // Not accepted: refused, told why, nothing written.
    let refused = http(address, "POST", publish, &me, &format!("csrf={csrf}"));
    assert_eq!(refused.status, 303);
    let back = refused.header("location").expect("back to the tool");
    assert_eq!(back, "/console/tools/billing.refund");
    assert_eq!(revision(), 1);
    let told = http(address, "GET", back, &me, "");
    assert!(
        told.body
            .contains("role=\"alert\">Nothing changed: serving `billing.refund` version 2 instead of version 1 may break their clients"),
        "{}",
        told.body
    );

    // Accepted: published, audited as the operator, with the acceptance.
    let done = http(
        address,
        "POST",
        publish,
        &me,
        &format!("csrf={csrf}&accept={digest}"),
    );
    assert_eq!(done.status, 303);
    assert_eq!(
        done.header("location"),
        Some("/console/tools/billing.refund")
    );
    assert_eq!(revision(), 2);
    let page = http(address, "GET", "/console/tools/billing.refund", &me, "");
    assert!(page.body.contains("Version 2 is served."), "{}", page.body);
    assert!(
        page.body.contains(
            &format!("role=\"status\">draft -&#62; published; `billing.refund` 1 -&#62; 2 served, its breaking changes accepted (report {digest})")
        ),
        "{}",
        page.body
    );
    let audit = runtime.block_on(store.audit(1)).expect("audit");
    assert_eq!(
        (audit[0].actor.as_str(), audit[0].action.as_str()),
        ("alice", "publish")
    );
    assert_eq!(
        audit[0].detail["compatibility"][0]["accepted"], true,
        "{}",
        audit[0].detail
    );

    // A tool without versions in the store, and a step that is none.
    assert_eq!(
        http(address, "GET", "/console/tools/no.such-tool", &me, "").status,
        404
    );
    let odd = http(
        address,
        "POST",
        "/console/tools/billing.refund/versions/2/explode",
        &me,
        &format!("csrf={csrf}"),
    );
    assert_eq!(odd.status, 404);
}

#[test]
fn a_client_s_tools_toolsets_and_key_are_kept_from_its_page() {
    let (store, key) = demo_store();
    let (address, runtime) = serve(store.clone(), HttpTimeouts::default());
    let session = log_in(address, &key);
    let me = [FORM, ("Cookie", session.as_str())];
    let revision = || runtime.block_on(store.revision()).expect("revision");

    // A tool as the client sees it: its lazy entry, and the Full one.
    let tool = http(
        address,
        "GET",
        "/console/clients/acme-assistant/tools/billing.list-invoices",
        &me,
        "",
    );
    assert_eq!(tool.status, 200, "{}", tool.body);
    for shown in [
        "in lazy mode",
        "openai-strict",
        "_schema_discovery",
        "&#34;customer&#34;",
    ] {
        assert!(tool.body.contains(shown), "{shown}: {}", tool.body);
    }
    let hidden = http(
        address,
        "GET",
        "/console/clients/acme-assistant/tools/support.open-ticket",
        &me,
        "",
    );
    assert_eq!(hidden.status, 404, "another tenant's tool");

    let page = http(address, "GET", "/console/clients/acme-assistant", &me, "");
    let csrf = page.csrf();
    assert!(
        page.body.contains("<option value=\"acme-reports\">"),
        "{}",
        page.body
    );
    assert!(
        !page.body.contains("<option value=\"globex-support\">"),
        "only its tenant's toolsets"
    );
    let assign = "/console/clients/acme-assistant/assign";
    let done = http(
        address,
        "POST",
        assign,
        &me,
        &format!("csrf={csrf}&toolset=acme-reports"),
    );
    assert_eq!(
        done.header("location"),
        Some("/console/clients/acme-assistant"),
        "{}",
        done.head
    );
    assert_eq!(revision(), 2);
    let page = http(address, "GET", "/console/clients/acme-assistant", &me, "");
    assert!(page.body.contains("Unassign acme-reports"), "{}", page.body);
    // Another tenant's toolset: refused by the store's checks, told, nothing written.
    let refused = http(
        address,
        "POST",
        assign,
        &me,
        &format!("csrf={csrf}&toolset=globex-support"),
    );
    let to = refused.header("location").expect("back").to_owned();
    assert_eq!(to, "/console/clients/acme-assistant");
    assert_eq!(revision(), 2);
    let told = http(address, "GET", &to, &me, "");
    assert!(
        told.body.contains("role=\"alert\"") && told.body.contains("belongs to tenant"),
        "{}",
        told.body
    );
    let unassign = "/console/clients/acme-assistant/toolsets/acme-reports/unassign";
    http(address, "POST", unassign, &me, &format!("csrf={csrf}"));
    assert_eq!(revision(), 3);

    // A new key: shown on the answer, once, never in a URL.
    let rotated = http(
        address,
        "POST",
        "/console/clients/acme-assistant/rotate-key",
        &me,
        &format!("csrf={csrf}"),
    );
    assert_eq!(rotated.status, 200, "{}", rotated.body);
    assert_eq!(rotated.header("cache-control"), Some("no-store"));
    let at = rotated
        .body
        .find("aria-label=\"The new key\">tsk_")
        .expect("the key")
        + "aria-label=\"The new key\">".len();
    let new_key = &rotated.body[at..at + 68];
    assert!(
        new_key.starts_with("tsk_") && new_key[4..].bytes().all(|b| b.is_ascii_hexdigit()),
        "{new_key}"
    );
    let audit = runtime.block_on(store.audit(1)).expect("audit");
    assert_eq!(
        (audit[0].actor.as_str(), audit[0].action.as_str()),
        ("alice", "rotate_key")
    );
    assert!(
        !audit[0].detail.to_string().contains(new_key),
        "the key is not audited"
    );
}

#[test]
fn the_replicas_page_lists_the_replicas_connected_to_the_store() {
    let (store, key) = demo_store();
    let (address, runtime) = serve(store.clone(), HttpTimeouts::default());
    let session = log_in(address, &key);
    let me = [("Cookie", session.as_str())];
    let none = http(address, "GET", "/console/replicas", &me, "");
    assert_eq!(none.status, 200);
    assert!(
        none.body.contains("No replica is connected."),
        "{}",
        none.body
    );
    let follower = runtime.block_on(async {
        let loaded = store
            .load(&toolschema_demo::registry())
            .await
            .expect("loads");
        let catalog = std::sync::Arc::new(toolschema::catalog::Catalog::from_config(
            toolschema_demo::registry(),
            &loaded.config,
        ));
        store.follow_from(catalog, loaded.revision, loaded.records)
    });
    let started = std::time::Instant::now();
    while !follower.health().connected {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "the replica connects"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let one = http(address, "GET", "/console/replicas", &me, "");
    assert!(one.body.contains("Connections of replicas"), "{}", one.body);
    assert_eq!(one.body.matches("<tr><td>").count(), 1, "{}", one.body);
    assert!(
        one.body.contains("The store is at revision 1."),
        "{}",
        one.body
    );
    // The revision each serves: 1, then 2 after a change reaches it.
    let serves = |revision: i64| {
        let started = std::time::Instant::now();
        loop {
            let page = http(address, "GET", "/console/replicas", &me, "");
            let row = page.body.split("<tr><td>").nth(1).unwrap_or("").to_owned();
            if row.contains(&format!("Z</td><td>{revision}</td>")) {
                return;
            }
            assert!(
                started.elapsed() < std::time::Duration::from_secs(20),
                "serves {revision}: {row}"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    };
    serves(1);
    runtime
        .block_on(store.apply(
            "bob",
            toolschema_store::Action::Deactivate {
                toolset: "acme-reports".into(),
            },
            &toolschema_demo::registry(),
        ))
        .expect("applies");
    serves(2);
}

#[test]
fn an_api_description_is_imported_into_drafts_with_what_was_left_out() {
    let (store, key) = demo_store();
    let (address, runtime) = serve(store.clone(), HttpTimeouts::default());
    let session = log_in(address, &key);
    let me = [FORM, ("Cookie", session.as_str())];
    let form = http(address, "GET", "/console/import", &me, "");
    assert_eq!(form.status, 200);
    let csrf = form.csrf();
    let document = serde_json::json!({
        "openapi": "3.0.3",
        "info": {"title": "Pets", "version": "1"},
        "servers": [{"url": "https://pets.example.com/v1"}],
        "paths": {
            "/pets/{id}": {"get": {
                "operationId": "getPet",
                "summary": "One pet, by its id.",
                "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "responses": {"200": {"description": "the pet", "content": {"application/json": {"schema": {
                    "type": "object", "properties": {"name": {"type": "string"}}}}}}}
            }},
            "/pets/{id}/photo": {"post": {
                "operationId": "uploadPhoto",
                "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "requestBody": {"content": {"multipart/form-data": {"schema": {"type": "object"}}}},
                "responses": {"204": {"description": "stored"}}
            }}
        }
    })
    .to_string();
    let body = serde_urlencoded::to_string([
        ("csrf", csrf.as_str()),
        ("downstream", "pets"),
        ("prefix", "pets."),
        ("document", document.as_str()),
    ])
    .expect("a form");
    let done = http(address, "POST", "/console/import", &me, &body);
    assert_eq!(done.status, 200, "{}", done.body);
    assert!(done.body.contains("role=\"status\""), "{}", done.body);
    assert!(
        done.body.contains("Operations left out") && done.body.contains("uploadPhoto"),
        "{}",
        done.body
    );
    let at = done
        .body
        .find("href=\"/console/tools/pets.")
        .expect("a drafted tool")
        + 21;
    let tool = done.body[at..]
        .split('"')
        .next()
        .expect("a name")
        .to_owned();
    let (revision, records) = runtime.block_on(store.read()).expect("reads");
    assert_eq!(revision, 2);
    let drafted: Vec<_> = records
        .versions_of(&tool)
        .map(|(n, v)| (n, v.status))
        .collect();
    assert_eq!(drafted, [(1, toolschema_catalog::Status::Draft)], "{tool}");
    let audit = runtime.block_on(store.audit(1)).expect("audit");
    assert_eq!(
        (audit[0].actor.as_str(), audit[0].action.as_str()),
        ("alice", "import")
    );

    // A document that is not one: told why, the form kept (escaped), nothing written.
    let body = serde_urlencoded::to_string([
        ("csrf", csrf.as_str()),
        ("downstream", "pets"),
        ("document", "<not a=\"wsdl\">"),
    ])
    .expect("a form");
    let refused = http(address, "POST", "/console/import", &me, &body);
    assert_eq!(refused.status, 422, "{}", refused.body);
    assert!(
        refused.body.contains("The document cannot be imported"),
        "{}",
        refused.body
    );
    assert!(
        refused.body.contains("&#60;not a=&#34;wsdl&#34;&#62;") || refused.body.contains("&lt;not"),
        "{}",
        refused.body
    );
    assert_eq!(runtime.block_on(store.revision()).expect("revision"), 2);
}

#[test]
fn behind_a_tls_proxy_the_session_cookie_is_secure() {
    let (store, key) = demo_store();
    let (address, _runtime) = serve(store, HttpTimeouts::default());
    let proxied = [("X-Forwarded-Proto", "https")];
    let form = http(address, "GET", "/console/login", &proxied, "");
    let token = form.cookie("toolschema_login").expect("a login token");
    assert!(
        form.cookies().iter().all(|c| c.ends_with("; Secure")),
        "{:?}",
        form.cookies()
    );
    let cookie = format!("toolschema_login={token}");
    let body = format!("key={key}&csrf={token}");
    let answer = http(
        address,
        "POST",
        "/console/login",
        &[FORM, ("Cookie", &cookie), proxied[0]],
        &body,
    );
    let session = answer
        .cookies()
        .into_iter()
        .find(|c| c.starts_with("toolschema_console="))
        .expect("a session")
        .to_owned();
    assert!(session.ends_with("; Secure"), "{session}");
    // Over plain HTTP, no.
    let plain = http(address, "GET", "/console/login", &[], "");
    assert!(
        plain.cookies().iter().all(|c| !c.contains("Secure")),
        "{:?}",
        plain.cookies()
    );
}

/// A second operator, `bob`, of `store`: his key.
fn add_bob(runtime: &tokio::runtime::Runtime, store: &toolschema_store::Store) -> String {
    runtime
        .block_on(store.add_operator("bob"))
        .expect("operator")
}

/// What bob's session does once his key no longer holds: its form is
/// refused before it is read (to the login page, nothing applied, nothing
/// audited as bob), and its pages send him to the login page.
fn bob_is_logged_out(
    address: SocketAddr,
    runtime: &tokio::runtime::Runtime,
    store: &toolschema_store::Store,
    session: &str,
    csrf: &str,
) {
    let me = [FORM, ("Cookie", session)];
    let before = runtime.block_on(store.revision()).expect("revision");
    let posted = http(
        address,
        "POST",
        "/console/toolsets/globex-support/deactivate",
        &me,
        &format!("csrf={csrf}"),
    );
    assert_eq!(
        (posted.status, posted.header("location")),
        (303, Some("/console/login")),
        "{}",
        posted.head
    );
    assert_eq!(
        runtime.block_on(store.revision()).expect("revision"),
        before,
        "nothing was applied"
    );
    let audit = runtime.block_on(store.audit(100)).expect("audit");
    assert!(
        audit.iter().all(|entry| entry.actor != "bob"),
        "nothing was audited as bob: {audit:?}"
    );
    let page = http(address, "GET", "/console", &me, "");
    assert_eq!(
        (page.status, page.header("location")),
        (303, Some("/console/login"))
    );
}

#[test]
fn a_removed_operator_s_session_ends_at_its_next_request() {
    let (store, alice) = demo_store();
    let (address, runtime) = serve(store.clone(), HttpTimeouts::default());
    let bob = add_bob(&runtime, &store);
    let bobs = log_in(address, &bob);
    let alices = log_in(address, &alice);
    let page = http(address, "GET", "/console", &[("Cookie", bobs.as_str())], "");
    assert_eq!(page.status, 200);
    let csrf = page.csrf();

    // `toolschema admin remove-operator bob`, as another process would.
    runtime
        .block_on(store.remove_operator("bob"))
        .expect("removed");
    bob_is_logged_out(address, &runtime, &store, &bobs, &csrf);
    // Logging in again with the removed key is refused.
    let form = http(address, "GET", "/console/login", &[], "");
    let token = form.cookie("toolschema_login").expect("a login token");
    let again = log_in_with(
        address,
        &format!("toolschema_login={token}"),
        &bob,
        &form.csrf(),
    );
    assert_eq!(again.status, 401);
    // Alice's session goes on.
    let hers = http(
        address,
        "GET",
        "/console",
        &[("Cookie", alices.as_str())],
        "",
    );
    assert_eq!(hers.status, 200);
}

#[test]
fn a_rotated_operator_s_session_ends_and_the_new_key_logs_in() {
    let (store, _) = demo_store();
    let (address, runtime) = serve(store.clone(), HttpTimeouts::default());
    let bob = add_bob(&runtime, &store);
    let bobs = log_in(address, &bob);
    let page = http(address, "GET", "/console", &[("Cookie", bobs.as_str())], "");
    assert_eq!(page.status, 200);
    let csrf = page.csrf();

    let rotated = runtime
        .block_on(store.rotate_operator("bob"))
        .expect("rotated");
    assert!(
        rotated.starts_with("tso_") && rotated.len() == 68 && rotated != bob,
        "{rotated}"
    );
    bob_is_logged_out(address, &runtime, &store, &bobs, &csrf);
    // The new key logs in, acts, and is audited as bob.
    let session = log_in(address, &rotated);
    let me = [FORM, ("Cookie", session.as_str())];
    let csrf = http(address, "GET", "/console", &me, "").csrf();
    let done = http(
        address,
        "POST",
        "/console/toolsets/globex-support/deactivate",
        &me,
        &format!("csrf={csrf}"),
    );
    assert_eq!(done.header("location"), Some("/console"));
    let audit = runtime.block_on(store.audit(1)).expect("audit");
    assert_eq!(
        (audit[0].actor.as_str(), audit[0].action.as_str()),
        ("bob", "deactivate")
    );
    // Nobody else's key is rotated, and nobody's that does not exist.
    let missing = runtime.block_on(store.rotate_operator("carol"));
    assert!(
        missing
            .as_ref()
            .is_err_and(|error| error.to_string().contains("no operator `carol`")),
        "{missing:?}"
    );
}

#[test]
fn a_valid_key_logs_in_whatever_wrong_keys_came_from_its_address() {
    let (store, key) = demo_store();
    let (address, _runtime) = serve(store, HttpTimeouts::default());
    // Someone else behind the same proxy (one address for all) spends the
    // address's tries on wrong keys, at the API and at the login form.
    let wrong = format!("tso_{}", "0".repeat(64));
    let bearer = format!("Bearer {wrong}");
    for _ in 0..10 {
        let answer = http(
            address,
            "GET",
            "/v1/revision",
            &[("Authorization", &bearer)],
            "",
        );
        assert_eq!(answer.status, 401);
    }
    let form = http(address, "GET", "/console/login", &[], "");
    let token = form.cookie("toolschema_login").expect("a login token");
    let cookie = format!("toolschema_login={token}");
    let refused = log_in_with(address, &cookie, &wrong, &token);
    assert_eq!(refused.status, 429, "{}", refused.body);
    assert!(
        refused.body.contains("Too many wrong keys"),
        "{}",
        refused.body
    );
    assert!(refused.cookie("toolschema_console").is_none());
    // The operator's valid key logs in all the same.
    let answer = log_in_with(address, &cookie, &key, &token);
    assert_eq!(
        (answer.status, answer.header("location")),
        (303, Some("/console")),
        "{}",
        answer.body
    );
    assert!(answer.cookie("toolschema_console").is_some());
}

#[test]
fn an_audit_filter_of_a_day_the_calendar_lacks_is_not_used() {
    let (store, key) = demo_store();
    let (address, _runtime) = serve(store, HttpTimeouts::default());
    let session = log_in(address, &key);
    let me = [("Cookie", session.as_str())];
    for (query, field) in [
        ("since=2026-02-31", "From"),
        ("until=2026-02-31", "To"),
        ("since=0000-01-01", "From"),
        ("until=0000-01-01", "To"),
        ("since=2026-02-29", "From"),
        ("until=2026-13-01", "To"),
    ] {
        let answer = http(address, "GET", &format!("/console/audit?{query}"), &me, "");
        assert_eq!(answer.status, 200, "{query}: {}", answer.body);
        assert!(
            answer
                .body
                .contains(&format!("`{field}` is a day, as 2026-12-31: not used.")),
            "{query}: {}",
            answer.body
        );
        assert!(
            answer.body.contains("<td>setup</td>"),
            "the filter is not used: {query}: {}",
            answer.body
        );
    }
    // A leap day is a day.
    let answer = http(
        address,
        "GET",
        "/console/audit?since=2024-02-29&until=9999-12-31",
        &me,
        "",
    );
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert!(!answer.body.contains("not used"), "{}", answer.body);
    assert!(answer.body.contains("<td>setup</td>"), "{}", answer.body);
}

/// `text` as one path segment, every byte but `A-Za-z0-9-._~` encoded:
/// what the console's links and forms must hold for a record's id.
fn one_segment(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

/// Every link and form action of a page, as a browser reads them.
fn targets(body: &str) -> Vec<String> {
    let mut found = Vec::new();
    for attribute in ["href=\"", "action=\""] {
        for (at, _) in body.match_indices(attribute) {
            let rest = &body[at + attribute.len()..];
            let value = rest.split('"').next().unwrap_or_default();
            found.push(
                value
                    .replace("&#38;", "&")
                    .replace("&amp;", "&")
                    .replace("&#37;", "%"),
            );
        }
    }
    found
}

/// Whether a browser would take `target` as it is: no fragment, no dot
/// segment in its path (`.`, `..`, encoded or not), nothing a record's id
/// could have put there.
fn kept_as_is(target: &str) -> bool {
    let path = target.split('?').next().unwrap_or_default();
    !target.contains('#')
        && path.split('/').all(|segment| {
            let segment = segment.to_ascii_lowercase().replace("%2e", ".");
            segment != "." && segment != ".."
        })
}

/// The ids a store older than the id grammar (or someone with the
/// database) may hold: each must stay one segment.
const ODD_TOOLSET: &str = "../toolsets/globex-support";
const ODD_TOOLSET_2: &str = "x?y#z%41..";
const ODD_CLIENT: &str = "../clients/acme-finance?a#b%2F";

#[test]
fn ids_with_slashes_dots_and_marks_stay_one_segment_in_links_and_forms() {
    let url = toolschema_test_support::postgres::Postgres::shared().database();
    let store = toolschema_store::Store::new(&url).expect("url");
    let (address, runtime) = serve(store.clone(), HttpTimeouts::default());
    let registry = toolschema_demo::registry();
    let records = toolschema_store::Records::from_toml(
        toolschema_demo::CATALOG_TOML,
        "catalog.toml",
        &registry,
    )
    .expect("demo");
    let key = runtime.block_on(async {
        store.migrate().await.expect("migrates");
        let replace = Action::Replace {
            records: Box::new(records),
        };
        store
            .apply("setup", replace, &registry)
            .await
            .expect("loads");
        store.add_operator("alice").await.expect("operator")
    });
    // Written straight into the tables, past the store's checks.
    runtime.block_on(async {
        let (db, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .expect("connects");
        tokio::spawn(connection);
        let toolset = serde_json::json!({"tenant": "acme", "tools": ["billing.get-invoice"]});
        for id in [ODD_TOOLSET, ODD_TOOLSET_2] {
            db.execute(
                "INSERT INTO toolset (id, body) VALUES ($1, $2)",
                &[&id, &toolset],
            )
            .await
            .expect("a toolset");
        }
        let client = serde_json::json!({
            "tenant": "acme", "api_keys": [], "toolsets": [ODD_TOOLSET],
        });
        db.execute(
            "INSERT INTO client (id, body) VALUES ($1, $2)",
            &[&ODD_CLIENT, &client],
        )
        .await
        .expect("a client");
        db.execute("UPDATE catalog_revision SET revision = revision + 1", &[])
            .await
            .expect("a revision");
    });
    let session = log_in(address, &key);
    let me = [FORM, ("Cookie", session.as_str())];

    let overview = http(address, "GET", "/console", &me, "");
    assert_eq!(overview.status, 200, "{}", overview.body);
    let csrf = overview.csrf();
    let client_page = format!("/console/clients/{}", one_segment(ODD_CLIENT));
    let deactivate = format!("/console/toolsets/{}/deactivate", one_segment(ODD_TOOLSET));
    let found = targets(&overview.body);
    for expected in [
        client_page.clone(),
        deactivate.clone(),
        format!(
            "/console/toolsets/{}/deactivate",
            one_segment(ODD_TOOLSET_2)
        ),
    ] {
        assert!(found.contains(&expected), "{expected}: {found:?}");
    }
    assert!(found.iter().all(|t| kept_as_is(t)), "{found:?}");

    let client = http(address, "GET", &client_page, &me, "");
    assert_eq!(client.status, 200, "{}", client.body);
    let found = targets(&client.body);
    for expected in [
        format!(
            "/console/clients/{}/toolsets/{}/unassign",
            one_segment(ODD_CLIENT),
            one_segment(ODD_TOOLSET)
        ),
        format!("/console/clients/{}/assign", one_segment(ODD_CLIENT)),
        format!("/console/clients/{}/rotate-key", one_segment(ODD_CLIENT)),
        format!(
            "/console/clients/{}/tools/billing.get-invoice",
            one_segment(ODD_CLIENT)
        ),
    ] {
        assert!(found.contains(&expected), "{expected}: {found:?}");
    }
    assert!(found.iter().all(|t| kept_as_is(t)), "{found:?}");
    let rotated = http(
        address,
        "POST",
        &format!("/console/clients/{}/rotate-key", one_segment(ODD_CLIENT)),
        &me,
        &format!("csrf={csrf}"),
    );
    assert_eq!(rotated.status, 200, "{}", rotated.body);
    let found = targets(&rotated.body);
    assert!(found.contains(&client_page), "{found:?}");
    assert!(found.iter().all(|t| kept_as_is(t)), "{found:?}");

    // The Deactivate form of the odd toolset switches that toolset, not
    // the one its id spells a path to.
    let done = http(address, "POST", &deactivate, &me, &format!("csrf={csrf}"));
    assert_eq!(done.header("location"), Some("/console"), "{}", done.head);
    let audit = runtime.block_on(store.audit(1)).expect("audit");
    assert_eq!(
        (audit[0].action.as_str(), audit[0].target.as_str()),
        ("deactivate", format!("toolset \"{ODD_TOOLSET}\"").as_str())
    );
    let overview = http(address, "GET", "/console", &me, "");
    let row = overview
        .body
        .split("<tr>")
        .find(|row| row.contains("<td>globex-support</td>"))
        .expect("globex-support's row");
    assert!(row.contains("Deactivate"), "still active: {row}");
}
