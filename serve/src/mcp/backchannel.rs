//! The way back to the client while a request runs: the notifications a
//! tool sends (progress, log messages), and the cancellation the client
//! may fire.

use serde_json::{Map, Value, json};
use tokio::sync::mpsc;
use toolschema_runtime::call::{Cancellation, LogLevel, Peer};

/// What a transport offers a request while it runs: where notifications go
/// (none: they are dropped), and the cancellation it fires when the client
/// cancels the request.
#[derive(Debug, Clone, Default)]
pub struct Backchannel {
    outbox: Option<mpsc::UnboundedSender<String>>,
    cancellation: Cancellation,
}

impl Backchannel {
    /// Notifications are dropped and nothing cancels.
    pub fn none() -> Backchannel {
        Backchannel::default()
    }

    /// The same, with notifications going to `outbox`, one JSON-RPC
    /// message each.
    pub fn with_outbox(mut self, outbox: mpsc::UnboundedSender<String>) -> Backchannel {
        self.outbox = Some(outbox);
        self
    }

    /// The same, watched by the request: the client cancelled it when
    /// `cancellation` fires.
    pub fn with_cancellation(mut self, cancellation: Cancellation) -> Backchannel {
        self.cancellation = cancellation;
        self
    }

    pub(crate) fn cancellation(&self) -> &Cancellation {
        &self.cancellation
    }

    /// The peer of one tool call: progress for `progress_token`, logs at
    /// `min_level` and above.
    pub(crate) fn peer(
        &self,
        progress_token: Option<Value>,
        min_level: Option<LogLevel>,
    ) -> Option<Notifier> {
        let outbox = self.outbox.clone()?;
        Some(Notifier {
            outbox,
            progress_token,
            min_level,
        })
    }
}

/// A tool call's notifications, as JSON-RPC messages into the outbox.
#[derive(Debug)]
pub(crate) struct Notifier {
    outbox: mpsc::UnboundedSender<String>,
    progress_token: Option<Value>,
    min_level: Option<LogLevel>,
}

impl Notifier {
    fn send(&self, method: &str, params: Value) {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        // The request may have ended meanwhile; then nobody listens.
        let _ = self.outbox.send(message.to_string());
    }
}

impl Peer for Notifier {
    fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(token) = &self.progress_token else {
            return;
        };
        let mut params = Map::new();
        params.insert("progressToken".into(), token.clone());
        params.insert("progress".into(), json!(progress));
        if let Some(total) = total {
            params.insert("total".into(), json!(total));
        }
        if let Some(message) = message {
            params.insert("message".into(), json!(message));
        }
        self.send("notifications/progress", Value::Object(params));
    }

    fn log(&self, level: LogLevel, logger: Option<&str>, data: Value) {
        if self.min_level.is_none_or(|min| level < min) {
            return;
        }
        let mut params = Map::new();
        params.insert("level".into(), json!(level.name()));
        if let Some(logger) = logger {
            params.insert("logger".into(), json!(logger));
        }
        params.insert("data".into(), data);
        self.send("notifications/message", Value::Object(params));
    }
}
