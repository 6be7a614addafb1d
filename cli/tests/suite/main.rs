//! The integration tests of `toolschema-cli`, one binary: each module
//! was a test binary of its own, and every binary links the whole
//! dependency tree again (time and disk in CI).

#![allow(missing_docs)]

mod cli;
mod common;
mod guides;
mod replicas;
mod store;
