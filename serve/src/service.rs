//! A service ready to serve: the live catalog, the protocol core, the
//! notices, and what the transports need to know. Built by
//! [`Server::build`](crate::Server::build); every transport shares one.

use std::sync::Arc;

use toolschema_runtime::catalog::{Catalog, Watch};

use crate::inflight::Inflight;
use crate::mcp::{Pending, Protocol, Trace};
use crate::notices::Notices;

/// Everything the transports share, built once from a [`Server`](crate::Server).
#[derive(Debug)]
pub struct Service {
    pub(crate) catalog: Arc<Catalog>,
    pub(crate) protocol: Protocol,
    pub(crate) notices: Notices,
    pub(crate) trace: Trace,
    pub(crate) options: Options,
    /// Requests running now, for cancellations.
    pub(crate) inflight: Arc<Inflight>,
    /// The server's questions to clients waiting for answers.
    pub(crate) pending: Arc<Pending>,
    /// The configuration file's watch, if any: it stops with the service.
    pub(crate) _watch: Option<Watch>,
}

/// The settings transports read.
#[derive(Debug, Clone, Default)]
pub(crate) struct Options {
    /// Host names accepted in `Host` and `Origin` besides loopback.
    pub(crate) allowed_hosts: Vec<String>,
    /// Whether open mode may be served on a non-loopback address.
    pub(crate) open_network: bool,
    /// The client application served over stdio.
    pub(crate) stdio_client: Option<String>,
}

impl Service {
    /// The live catalog: its current snapshot, reloads, change notices.
    pub fn catalog(&self) -> &Arc<Catalog> {
        &self.catalog
    }

    /// The protocol core.
    pub fn protocol(&self) -> &Protocol {
        &self.protocol
    }

    /// Whether the service runs in open mode: no catalog configuration, so
    /// every tool is listed in Full mode to every caller, without a key.
    pub fn is_open(&self) -> bool {
        !self.catalog.snapshot().is_governed()
    }

    /// Ends every event stream (each `subscriptions/listen` stream with its
    /// result), so that a graceful shutdown is not held open by them.
    pub fn close_streams(&self) {
        self.notices.close();
    }
}
