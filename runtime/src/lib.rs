//! The runtime of toolschema: what a served tool needs beyond its schema
//! (the `toolschema-schema` crate, re-exported here), in layers that each
//! use only the ones before them:
//!
//! 1. [`model`], [`render`], [`project`]: the schema model, its JSON Schema
//!    rendering and its projection per mode and profile (re-exported);
//! 2. [`validate`]: arguments and results checked against the very schema
//!    a client is shown, names mapped, the one-pass parser;
//! 3. [`call`]: handlers and the registry of callable tools.
//!
//! The governed catalog (tenants, client applications, toolsets, versions,
//! export) is the `toolschema-catalog` crate, above this one. Users depend
//! on the `toolschema` facade, which re-exports what they name. See its documentation for the tutorial.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

pub mod call;
pub mod validate;

#[doc(hidden)]
pub mod __private;
// Work spread over the machine's cores, for the crates above (the
// configuration's checks, snapshots, the store's records).
#[doc(hidden)]
pub mod parallel;

pub use toolschema_schema::{
    Annotations, MapKey, Schema, Tool, ToolDef, compat, formats, model, project, render,
    schema_json, schema_of, tool_json, tool_json_as,
};
