//! The integration tests of `toolschema-serve`, one binary: each module
//! was a test binary of its own, and every binary links the whole
//! dependency tree again (time and disk in CI).

#![allow(missing_docs)]

mod asking;
mod backchannel;
mod common;
mod hardening;
mod hostile;
mod mcp;
#[cfg(feature = "oauth")]
mod oauth;
#[cfg(feature = "oauth")]
mod oauth_issuer;
mod own_catalog;
mod revisions;
mod server;
mod state;
mod stateless;
#[cfg(feature = "otel")]
mod telemetry;
mod test_client;
mod trace;
