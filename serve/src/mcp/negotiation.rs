//! Which protocol era and revision a request belongs to: the version its
//! `_meta` or the `MCP-Protocol-Version` header names, checked against the
//! HTTP routing headers (2026-07-28), and the version a reply speaks.

use serde_json::{Value, json};
use toolschema_runtime::project::ProtocolRevision;
use toolschema_text::shorten::shorten;

use super::{
    CAPABILITIES_KEY, Era, HANDSHAKE_VERSIONS, Headers, MAX_ECHO, Protocol, Reply, Request,
    STATELESS_VERSION, SUPPORTED_VERSIONS, Session, VERSION_KEY, code, refusal,
};

impl Era {
    /// The era `request` belongs to, or the refusal to send: a request with
    /// a protocol version in `_meta`, or a non-handshake
    /// `MCP-Protocol-Version` header, is a 2026-07-28 request, whose `_meta`
    /// must name the version and the client's capabilities, agree with the
    /// headers, and name a version served.
    pub(super) fn admit(request: &Request, headers: &Headers<'_>) -> Result<Era, Reply> {
        let header = headers.protocol_version.map(str::trim);
        let meta_version = request.meta_version();
        let refuse = |code, message: &str, data| {
            Err(refusal(Era::Stateless, request.id(), code, message, data))
        };
        let unsupported = |requested: &str| {
            let requested = shorten(requested, MAX_ECHO);
            refuse(
                code::UNSUPPORTED_VERSION,
                &format!("Unsupported protocol version: {requested}"),
                Some(json!({"supported": SUPPORTED_VERSIONS, "requested": requested})),
            )
        };
        if let Some(name) = headers.repeated {
            return refuse(
                code::HEADER_MISMATCH,
                &format!("Header mismatch: the {name} header is sent more than once; send it once"),
                None,
            );
        }
        match (meta_version, header) {
            (None, None) => return Ok(Era::Handshake),
            (None, Some(header)) if HANDSHAKE_VERSIONS.contains(&header) => {
                return Ok(Era::Handshake);
            }
            (None, Some(header)) if header != STATELESS_VERSION => return unsupported(header),
            _ => {}
        }
        if headers.http && header.is_none() {
            return refuse(
                code::HEADER_MISMATCH,
                "Header mismatch: a 2026-07-28 request needs the MCP-Protocol-Version header",
                None,
            );
        }
        let missing: Vec<&str> = [VERSION_KEY, CAPABILITIES_KEY]
            .into_iter()
            .filter(|key| request.meta(key).is_none())
            .collect();
        if !missing.is_empty() {
            return refuse(
                code::INVALID_PARAMS,
                &format!(
                    "Invalid params: a 2026-07-28 request's _meta must carry {}",
                    missing.join(" and ")
                ),
                None,
            );
        }
        let Some(version) = meta_version.and_then(Value::as_str) else {
            return refuse(
                code::INVALID_PARAMS,
                &format!("Invalid params: _meta {VERSION_KEY} must be a string"),
                None,
            );
        };
        if let Some(header) = header.filter(|header| *header != version) {
            return refuse(
                code::HEADER_MISMATCH,
                &format!(
                    "Header mismatch: the MCP-Protocol-Version header says {}, _meta says {}",
                    shorten(header, MAX_ECHO),
                    shorten(version, MAX_ECHO)
                ),
                None,
            );
        }
        if version != STATELESS_VERSION {
            return unsupported(version);
        }
        if headers.http {
            check_routing_headers(request, headers).map_err(|message| {
                refusal(
                    Era::Stateless,
                    request.id(),
                    code::HEADER_MISMATCH,
                    &message,
                    None,
                )
            })?;
        }
        Ok(Era::Stateless)
    }

    /// The revision a reply is shaped for: 2026-07-28 for a stateless
    /// request; in the handshake era the version agreed at `initialize`, else
    /// the one the `MCP-Protocol-Version` header names, else the oldest
    /// served (an HTTP client that sends no header predates the header).
    pub(super) fn revision(self, session: &Session, headers: &Headers<'_>) -> ProtocolRevision {
        if self == Era::Stateless {
            return ProtocolRevision::V2026_07_28;
        }
        session
            .protocol
            .or(headers.protocol_version.map(str::trim))
            .and_then(ProtocolRevision::from_version)
            .unwrap_or(ProtocolRevision::V2025_06_18)
    }
}

impl Protocol {
    /// The protocol version a reply to `request` belongs to: 2026-07-28
    /// when its `_meta` says so, else the version the session agreed on,
    /// else the one an HTTP client names in its `MCP-Protocol-Version`
    /// header, else the newest handshake-era version (an `initialize` names
    /// its own).
    pub fn version_of(
        request: Option<&Request>,
        session: &Session,
        header: Option<&str>,
    ) -> &'static str {
        if request.is_some_and(Request::is_stateless) {
            return STATELESS_VERSION;
        }
        if let Some(version) = session.protocol {
            return version;
        }
        let named = header.or_else(|| {
            request
                .filter(|r| r.method() == "initialize")
                .and_then(|r| r.params().get("protocolVersion"))
                .and_then(Value::as_str)
        });
        HANDSHAKE_VERSIONS
            .iter()
            .find(|v| Some(**v) == named)
            .copied()
            .unwrap_or(HANDSHAKE_VERSIONS[1])
    }
}

/// The 2026-07-28 routing headers: `Mcp-Method` must be the body's method,
/// exactly (values are case-sensitive; surrounding whitespace is not part
/// of a value), and `Mcp-Name` the name or URI the body targets.
fn check_routing_headers(request: &Request, headers: &Headers<'_>) -> Result<(), String> {
    // What either side says is echoed cut short: both are the client's.
    let echo = |text: &str| shorten(text, MAX_ECHO).into_owned();
    match headers.method.map(str::trim) {
        Some(method) if method == request.method() => {}
        Some(method) => {
            return Err(format!(
                "Header mismatch: the Mcp-Method header says {}, the body's method is {}",
                echo(method),
                echo(request.method())
            ));
        }
        None => {
            return Err(format!(
                "Header mismatch: the Mcp-Method header is missing; send Mcp-Method: {}",
                echo(request.method())
            ));
        }
    }
    let key = match request.method() {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        _ => return Ok(()),
    };
    let Some(target) = request.params().get(key).and_then(Value::as_str) else {
        return Ok(());
    };
    match headers.name.map(str::trim) {
        Some(name) if name == target => Ok(()),
        Some(name) => Err(format!(
            "Header mismatch: the Mcp-Name header says {}, the body names {}",
            echo(name),
            echo(target)
        )),
        None => Err(format!(
            "Header mismatch: the Mcp-Name header is missing; send Mcp-Name: {}",
            echo(target)
        )),
    }
}
