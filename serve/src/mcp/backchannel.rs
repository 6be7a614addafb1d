//! The way back to the client while a request runs: the notifications a
//! tool sends (progress, log messages), the questions it asks, and the
//! cancellation the client may fire.

use std::sync::Arc;

use serde_json::{Map, Value, json};
use tokio::sync::mpsc;
use toolschema_runtime::call::{
    AskError, Asking, Caller, Cancellation, LogLevel, Offload, Peer, Question,
};

use super::asking::{Pending, Round};
use super::trace::{Outbox, Outgoing};

/// What a transport offers a request while it runs: where notifications
/// and requests to the client go (none: they are dropped, and nothing can
/// be asked in the same call), where the client's answers arrive, and the
/// cancellation it fires when the client cancels the request, and where a
/// large request's arguments are read.
#[derive(Clone, Default)]
pub struct Backchannel {
    outbox: Option<Outbox>,
    pending: Option<Arc<Pending>>,
    cancellation: Cancellation,
    offload: Option<Arc<dyn Offload>>,
}

impl core::fmt::Debug for Backchannel {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Backchannel")
            .field("outbox", &self.outbox.is_some())
            .field("pending", &self.pending.is_some())
            .field("offload", &self.offload.is_some())
            .finish_non_exhaustive()
    }
}

impl Backchannel {
    /// Notifications are dropped and nothing cancels.
    pub fn none() -> Backchannel {
        Backchannel::default()
    }

    /// The same, with notifications and requests to the client going to
    /// `outbox`, one JSON-RPC message each, as messages of `version` (the
    /// request's).
    pub fn with_outbox(
        mut self,
        outbox: mpsc::UnboundedSender<Outgoing>,
        version: &'static str,
    ) -> Backchannel {
        self.outbox = Some(Outbox(outbox, version));
        self
    }

    /// The same, with the client's answers to requests arriving through
    /// `pending` (the transport hands responses to it).
    pub fn with_pending(mut self, pending: Arc<Pending>) -> Backchannel {
        self.pending = Some(pending);
        self
    }

    /// The same, watched by the request: the client cancelled it when
    /// `cancellation` fires.
    pub fn with_cancellation(mut self, cancellation: Cancellation) -> Backchannel {
        self.cancellation = cancellation;
        self
    }

    /// The same, with a call's arguments read through `offload`: the
    /// transport found the request large.
    pub fn with_offload(mut self, offload: Arc<dyn Offload>) -> Backchannel {
        self.offload = Some(offload);
        self
    }

    /// The caller of a tool call made through this backchannel.
    pub(crate) fn caller(&self, peer: Arc<dyn Peer>) -> Caller {
        let caller = Caller::anonymous()
            .with_cancellation(self.cancellation.clone())
            .with_peer(peer);
        match &self.offload {
            Some(offload) => caller.with_offload(offload.clone()),
            None => caller,
        }
    }

    /// The peer of one tool call.
    pub(crate) fn peer(&self, call: CallPeer) -> Notifier {
        Notifier {
            outbox: self.outbox.clone(),
            pending: self.pending.clone(),
            call,
        }
    }
}

/// What the core knows of one call that its peer needs.
#[derive(Debug, Default)]
pub(crate) struct CallPeer {
    /// The client application.
    pub(crate) client: String,
    /// The request's progress token, if it asked for progress.
    pub(crate) progress_token: Option<Value>,
    /// The least severe log level the client wants, if it wants any.
    pub(crate) min_level: Option<LogLevel>,
    /// The client's declared capabilities, when known.
    pub(crate) capabilities: Option<Value>,
    /// 2026-07-28: the round the call is in.
    pub(crate) round: Option<Arc<Round>>,
}

/// A tool call's way back, as JSON-RPC messages into the outbox.
#[derive(Debug)]
pub(crate) struct Notifier {
    outbox: Option<Outbox>,
    pending: Option<Arc<Pending>>,
    call: CallPeer,
}

impl Notifier {
    fn send(&self, method: &str, params: Value) {
        let Some(outbox) = &self.outbox else { return };
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        // The request may have ended meanwhile; then nobody listens.
        let _ = outbox.send(message.to_string());
    }
}

impl Peer for Notifier {
    fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(token) = &self.call.progress_token else {
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
        if self.call.min_level.is_none_or(|min| level < min) {
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

    fn supports(&self, capability: &str) -> Option<bool> {
        let capabilities = self.call.capabilities.as_ref()?;
        Some(capabilities.get(capability).is_some())
    }

    fn ask<'a>(&'a self, question: &'a Question) -> Asking<'a> {
        Box::pin(async move {
            if self.supports(question.capability()) == Some(false) {
                if let Some(round) = &self.call.round {
                    round.lacks(question.capability());
                }
                return Err(AskError::Unsupported {
                    capability: question.capability(),
                });
            }
            if let Some(round) = &self.call.round {
                return round.ask(question);
            }
            match (&self.pending, &self.outbox) {
                (Some(pending), Some(outbox)) => {
                    pending.ask(&self.call.client, outbox, question).await
                }
                _ => Err(AskError::Unavailable),
            }
        })
    }
}
