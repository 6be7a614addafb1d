//! What the HTTP benchmark compares ours with: the official Rust MCP SDK
//! (`rmcp`), through one adapter module built only with the `rmcp` feature.

#![forbid(unsafe_code)]

#[cfg(feature = "rmcp")]
pub mod sdk;
