//! The servers behind the `toolschema` binary: MCP and REST over HTTP
//! ([`http`]) and MCP over stdio ([`stdio`]).

#![forbid(unsafe_code)]

pub mod http;
pub mod stdio;
