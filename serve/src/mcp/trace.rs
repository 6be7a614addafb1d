//! A record of every message the transports send, for conformance checks.
//!
//! Each transport records where its messages leave it, in one place per
//! kind of exit: over HTTP, a reply's JSON body and an event stream's
//! events; over stdio, the line written. Handlers say what a message is
//! ([`Outgoing`]) and never record it themselves.

use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use serde_json::{Value, json};
use tokio::sync::mpsc;

/// A message on its way to the client, with what its record says of it.
#[derive(Debug)]
pub struct Outgoing {
    /// The protocol version it belongs to.
    pub version: &'static str,
    /// The method it answers; `None` for a notification or a request to the
    /// client, which names its own.
    pub answers: Option<&'static str>,
    /// The JSON-RPC message.
    pub text: String,
}

impl Outgoing {
    /// A notification or request to the client, in `version`.
    pub(crate) fn message(version: &'static str, text: String) -> Outgoing {
        Outgoing {
            version,
            answers: None,
            text,
        }
    }

    /// The reply to a `method` request, in `version`.
    pub(crate) fn reply(version: &'static str, method: &'static str, text: String) -> Outgoing {
        Outgoing {
            version,
            answers: Some(method),
            text,
        }
    }
}

/// Where a request's messages to the client go, and their version.
#[derive(Clone, Debug)]
pub(crate) struct Outbox(
    pub(crate) mpsc::UnboundedSender<Outgoing>,
    pub(crate) &'static str,
);

impl Outbox {
    /// Sends `message`; `false` when nobody listens any more.
    pub(crate) fn send(&self, message: String) -> bool {
        self.0.send(Outgoing::message(self.1, message)).is_ok()
    }
}

/// Where the transports record every message they send: a file of one
/// JSON object a line (`{"version", "method", "message"}`), or nowhere.
#[derive(Debug, Default)]
pub struct Trace {
    file: Option<Mutex<std::fs::File>>,
}

impl Trace {
    /// No record.
    pub fn off() -> Trace {
        Trace::default()
    }

    /// A record appended to the file at `path`.
    pub fn to_file(path: &Path) -> std::io::Result<Trace> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        Ok(Trace {
            file: Some(Mutex::new(file)),
        })
    }

    /// Whether messages are being recorded.
    pub fn is_on(&self) -> bool {
        self.file.is_some()
    }

    /// Records a message sent in `version` in answer to `method` (the
    /// message's own method for notifications).
    pub fn record(&self, version: &str, method: Option<&str>, sent: impl core::fmt::Display) {
        let Some(file) = &self.file else { return };
        let message: Value = serde_json::from_str(&sent.to_string()).unwrap_or(Value::Null);
        let method = method.map(str::to_owned).or_else(|| {
            message
                .get("method")
                .and_then(Value::as_str)
                .map(str::to_owned)
        });
        let line = json!({"version": version, "method": method, "message": message});
        if let Ok(mut file) = file.lock() {
            let _ = writeln!(file, "{line}");
        }
    }
}
