//! The integration tests of `toolschema-store`, one binary: each module
//! was a test binary of its own, and every binary links the whole
//! dependency tree again (time and disk in CI).

#![allow(missing_docs)]

#[cfg(feature = "admin-http")]
mod admin;
#[cfg(feature = "admin-http")]
mod admin_hardening;
mod changes;
#[cfg(feature = "admin-http")]
mod console;
mod gate;
mod replicas;
mod store;
mod tls;
