//! Replies ready to send.

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use toolschema_catalog::Denial;

use super::id::Id;

/// A reply ready to send: its text in parts, written in order. The tool
/// list is a part shared with the snapshot, never copied: a 1,000-tool list
/// is megabytes.
#[derive(Debug, Clone)]
pub struct Reply {
    parts: Vec<Part>,
    /// The HTTP status it travels with.
    status: u16,
    outcome: Outcome,
    /// A call refused for want of scopes, which the transport answers as
    /// its authorization scheme says.
    denial: Option<Box<Denial>>,
}

/// How a request ended, as telemetry reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Outcome {
    /// A result.
    #[default]
    Success,
    /// A tool's result with `isError`: the tool ran and failed.
    ToolError,
    /// A JSON-RPC error, with its code.
    Error(i64),
    /// Refused because the caller's access token lacks the scopes the
    /// tool needs ([`Reply::denial`]; over HTTP, a `403`).
    Denied,
}

impl Default for Reply {
    fn default() -> Reply {
        Reply {
            parts: Vec::new(),
            status: 200,
            outcome: Outcome::Success,
            denial: None,
        }
    }
}

#[derive(Debug, Clone)]
enum Part {
    Owned(String),
    /// A range of bytes of a snapshot's text.
    Shared(Arc<str>, core::ops::Range<usize>),
}

impl Reply {
    /// The parts' text, in order.
    pub fn parts(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().map(|part| match part {
            Part::Owned(text) => text.as_str(),
            Part::Shared(text, range) => &text[range.clone()],
        })
    }

    /// The parts, for transports that hand bytes to the network without
    /// copying: each is either a shared string with the range to send, or
    /// owned text.
    pub fn into_chunks(
        self,
    ) -> impl Iterator<Item = Result<(Arc<str>, core::ops::Range<usize>), String>> {
        self.parts.into_iter().map(|part| match part {
            Part::Owned(text) => Err(text),
            Part::Shared(text, range) => Ok((text, range)),
        })
    }

    /// The HTTP status the reply travels with: 200, or for a 2026-07-28
    /// refusal the status its error code calls for (400, 404).
    pub fn status(&self) -> u16 {
        self.status
    }

    pub(crate) fn with_status(mut self, status: u16) -> Reply {
        self.status = status;
        self
    }

    /// How the request ended: a result, a tool's error, or a JSON-RPC
    /// error.
    pub fn outcome(&self) -> Outcome {
        self.outcome
    }

    pub(crate) fn with_outcome(mut self, outcome: Outcome) -> Reply {
        self.outcome = outcome;
        self
    }

    /// The call was refused because the caller's access token lacks the
    /// scopes the tool needs. A transport with authorization answers it as
    /// its scheme says (HTTP: `403` with an `insufficient_scope`
    /// challenge); the reply's text is the JSON-RPC error others send.
    pub fn denial(&self) -> Option<&Denial> {
        self.denial.as_deref()
    }

    pub(crate) fn with_denial(mut self, denial: Denial) -> Reply {
        self.denial = Some(Box::new(denial));
        self
    }

    /// The total length in bytes.
    pub fn len(&self) -> usize {
        self.parts().map(str::len).sum()
    }

    /// Whether the reply is empty (it never is).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(crate) fn push(&mut self, text: impl Into<String>) {
        self.parts.push(Part::Owned(text.into()));
    }

    pub(crate) fn share(&mut self, text: &Arc<str>, range: core::ops::Range<usize>) {
        self.parts.push(Part::Shared(text.clone(), range));
    }
}

impl From<String> for Reply {
    fn from(text: String) -> Reply {
        Reply {
            parts: vec![Part::Owned(text)],
            status: 200,
            outcome: Outcome::Success,
            denial: None,
        }
    }
}

impl core::fmt::Display for Reply {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.parts().try_for_each(|part| f.write_str(part))
    }
}

/// A JSON-RPC success response carrying `result`.
#[derive(Serialize)]
struct Success<'a, T> {
    jsonrpc: &'static str,
    id: &'a RawValue,
    result: T,
}

/// A JSON-RPC error response.
#[derive(Serialize)]
struct Failure<'a> {
    jsonrpc: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a RawValue>,
    error: ErrorObject<'a>,
}

#[derive(Serialize)]
struct ErrorObject<'a> {
    code: i64,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<Value>,
}

/// The success response to `id` with `result`.
pub(crate) fn success(id: &Id, result: impl Serialize) -> String {
    // Room for most answers at once: no copy as the text grows.
    let mut written = Vec::with_capacity(1024);
    let success = Success {
        jsonrpc: "2.0",
        id: id.raw(),
        result,
    };
    let text = serde_json::to_writer(&mut written, &success)
        .map_err(|e| e.to_string())
        .and_then(|()| String::from_utf8(written).map_err(|e| e.to_string()));
    text.unwrap_or_else(|e| {
        error(
            Some(id),
            super::code::INTERNAL_ERROR,
            &format!("Internal error: the result cannot be written ({e})"),
            None,
        )
    })
}

/// A JSON-RPC error response. Without a request id (unreadable messages)
/// the `id` member is left out, as MCP's schemas from 2025-11-25 allow.
///
/// ```
/// use toolschema_serve::mcp::{code, error};
///
/// let reply = error(None, code::PARSE_ERROR, "Parse error", None);
/// assert_eq!(reply, r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}"#);
/// ```
pub fn error(id: Option<&Id>, code: i64, message: &str, data: Option<Value>) -> String {
    let failure = Failure {
        jsonrpc: "2.0",
        id: id.map(Id::raw),
        error: ErrorObject {
            code,
            message,
            data,
        },
    };
    // Writing these plain types to a string cannot fail.
    serde_json::to_string(&failure).unwrap_or_default()
}
