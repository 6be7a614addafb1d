//! The servers behind the `toolschema` binary: MCP and REST over HTTP
//! ([`http`]) and MCP over stdio ([`stdio`]).

#![forbid(unsafe_code)]

pub mod http;
#[cfg(feature = "rmcp")]
pub mod sdk;
pub mod stdio;
