//! Serving of toolschema: a service's own tools over MCP (Streamable HTTP
//! and stdio, both protocol eras) and REST, governed by an optional catalog
//! configuration.
//!
//! A [`Server`] takes derived tools with their handlers, an optional catalog
//! configuration, and serves them with one call per transport:
//! [`Server::serve_http`], [`Server::serve_stdio`], or [`Server::router`]
//! to merge into an existing axum application.
//!
//! Without a catalog configuration the server runs in **open mode**: every
//! tool is listed in Full mode to every caller, no API key is asked for,
//! and it listens only on loopback addresses unless
//! [`Server::allow_open_network`] says otherwise. With one, each request is
//! authenticated as one client application of one tenant, which sees only
//! its own tools, in its modes and versions; the file is watched and a
//! valid change is swapped in while serving.
//!
//! The protocol core ([`mcp`]) is public for transports of your own. Users
//! depend on the `toolschema` facade (feature `serve`), which re-exports
//! this crate as `toolschema::serve`.
//!
//! Cargo features: `http` (Streamable HTTP and REST, with axum and tokio's
//! network), `stdio`, and `oauth` (an OAuth 2.1 resource server on the HTTP
//! transport: access tokens verified against the `[authorization]` issuer's
//! keys, protected resource metadata, scopes per toolset), and `cli` (a
//! service's own command line, [`Server::main`]: serve, list, check,
//! export), with `tokens` for the token statistics of `list --stats`.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
// Without a transport, the parts only transports use are idle.
#![cfg_attr(not(any(feature = "http", feature = "stdio")), allow(dead_code))]

#[cfg(feature = "cli")]
pub mod cli;
mod error;
#[cfg(feature = "http")]
mod http;
mod inflight;
pub mod mcp;
mod notices;
#[cfg(feature = "oauth")]
use toolschema_oauth as oauth;
mod offload;
mod refused;
mod server;
mod service;
#[cfg(feature = "stdio")]
mod stdio;

pub use error::ServeError;
#[cfg(feature = "http")]
pub use http::{HttpServer, read_body, serve_router};
#[cfg(feature = "otel")]
pub use mcp::Telemetry;
pub use server::Server;
pub use service::{Health, HealthCheck, HttpTimeouts, Service};
/// Where the secrets a configuration names are read ([`Server::secrets`]).
pub use toolschema_config::{Environment, SecretSource};

/// The application's source of the secrets the configuration names (its
/// values are never shown, not even by `Debug`).
pub(crate) struct Secrets(
    #[cfg_attr(
        not(any(feature = "oauth", feature = "gateway")),
        expect(
            dead_code,
            reason = "read by OAuth introspection and the default transport only"
        )
    )]
    pub(crate) std::sync::Arc<dyn toolschema_config::SecretSource>,
);

impl core::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Secrets")
    }
}
