//! Turn annotated Rust structs into MCP tools with static JSON Schemas.
//!
//! `#[derive(Tool)]` on a struct makes it the input of an MCP tool: its doc
//! comment is the tool's description, its fields are the tool's arguments, and
//! `#[tool(output = T)]` names what the tool returns. The input and output
//! JSON Schemas (2020-12) are derived at compile time as constant data;
//! reading them allocates nothing.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use toolschema::{Schema, Tool};
//!
//! /// An invoice.
//! #[derive(Schema, Serialize)]
//! struct Invoice {
//!     /// The invoice's ID.
//!     id: String,
//!     /// The total in cents.
//!     total_cents: u64,
//! }
//!
//! /// Returns one invoice by its ID, optionally with line items.
//! #[derive(Tool, Deserialize)]
//! #[tool(name = "billing.get-invoice", output = Invoice, annotations(read_only))]
//! struct GetInvoice {
//!     /// The invoice's ID.
//!     #[tool(min_length = 1)]
//!     invoice_id: String,
//!     /// Include line items in the answer.
//!     #[serde(default)]
//!     include_items: bool,
//! }
//!
//! let tool = toolschema::tool_json::<GetInvoice>();
//! assert_eq!(tool["name"], "billing.get-invoice");
//! assert_eq!(tool["description"], "Returns one invoice by its ID, optionally with line items.");
//! assert_eq!(tool["inputSchema"]["required"], serde_json::json!(["invoice_id"]));
//! assert_eq!(tool["inputSchema"]["properties"]["invoice_id"]["minLength"], 1);
//! assert_eq!(tool["outputSchema"]["properties"]["total_cents"]["minimum"], 0);
//! assert_eq!(tool["annotations"]["readOnlyHint"], true);
//! ```
//!
//! # What the derives read
//!
//! - **Doc comments** are descriptions: the struct's is the tool's, a field's
//!   is its property's, a variant's describes that enum value. Hard-wrapped
//!   paragraphs are joined into one line; lists and code blocks keep their
//!   shape.
//! - **Types** map to JSON Schema as the README's table says: integers carry
//!   their width as `minimum`/`maximum`, `Option<T>` makes a field optional,
//!   nested structs are inlined, a recursive type is the one place `$defs`
//!   and a local `$ref` appear.
//! - **serde attributes** are honoured so that the schema describes exactly
//!   what serde reads and writes: `rename`, `rename_all`, `default`, `skip`,
//!   `flatten`, `tag`, `content`, `untagged`, `alias`, `transparent`, ….
//!   One the schema cannot express is a compile error, never ignored.
//! - **`#[tool(...)]` attributes** add what serde does not know: the exposed
//!   name a client sees (`rename`), bounds, formats, examples, annotations.
//!
//! Every field has a *source name* (serde's) and an *exposed name* (the
//! client's). Only exposed names are ever rendered:
//!
//! ```
//! # use serde::Deserialize;
//! # use toolschema::Tool;
//! /// Finds a customer.
//! #[derive(Tool, Deserialize)]
//! #[tool(rename_all = "camelCase")]
//! struct FindCustomer {
//!     customer_id: u64,
//!     #[tool(rename = "q")]
//!     search_text: Option<String>,
//! }
//!
//! let schema = &toolschema::tool_json::<FindCustomer>()["inputSchema"];
//! assert!(schema["properties"].get("customerId").is_some());
//! assert!(schema["properties"].get("q").is_some());
//!
//! let fields = match <FindCustomer as toolschema::Schema>::SCHEMA {
//!     toolschema::model::Node::Object(object) => &object.fields,
//!     _ => unreachable!(),
//! };
//! assert_eq!((&*fields[1].exposed, &*fields[1].source), ("q", "search_text"));
//! ```
//!
//! Mistakes are compile errors at the offending token, all reported in one
//! build:
//!
//! ```compile_fail
//! # use serde::Deserialize;
//! # use toolschema::Tool;
//! /// Sends a message.
//! #[derive(Tool, Deserialize)]
//! struct Send {
//!     #[tool(renam = "to")] // unknown `tool` attribute `renam`, did you mean `rename`?
//!     recipient: String,
//! }
//! ```
//!
//! # What this crate holds
//!
//! The derives and the schema runtime (`model`, `render`, `project`,
//! `validate`, `call`) at the root, and, by feature, what a service names
//! of the other products: `serve` (the server, its command line, the
//! test client), `catalog` (configurations and snapshots), `gateway`
//! (the HTTP transport and secrets of tools from configuration) and
//! `store`. Everything else of those products is in their own crates
//! (`toolschema-serve`, `toolschema-catalog`, `toolschema-gateway`,
//! `toolschema-store`); the public API of each is listed in the
//! repository's `public-api.txt`.
//!
//! # Cargo features
//!
//! `chrono`, `time`, `uuid`, `rust_decimal` and `url` implement [`Schema`]
//! for those crates' types. The `time` feature turns on `time`'s
//! `serde-human-readable`, so that its types are written as the strings their
//! schemas describe.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

pub use toolschema_macros::{Schema, Tool};
pub use toolschema_runtime::call::{
    CallError, Content, Context, Handler, LogLevel, Registry, RunsWith, ToolError, ToolResult,
    parse_args,
};
pub use toolschema_runtime::project::{Mode, Profile};
pub use toolschema_runtime::validate::{ArgumentErrors, Violation};
pub use toolschema_runtime::{
    Annotations, MapKey, Schema, Tool, ToolDef, schema_json, schema_of, tool_json, tool_json_as,
};

pub use toolschema_runtime::{call, compat, formats, model, project, render, validate};

#[cfg(feature = "catalog")]
pub use toolschema_catalog::export;

/// The governed catalog: a configuration of tenants, clients, toolsets and
/// versions, checked against the registered tools, and the snapshots of
/// what each client sees. The rest of it (token cost, search) is in the
/// `toolschema-catalog` crate, the configuration's parts and configured
/// tools as checked in `toolschema-config`.
#[cfg(feature = "catalog")]
pub mod catalog {
    pub use toolschema_catalog::{
        Catalog, ChangeSet, ClientView, Config, ConfigError, ConfigErrors, ConfigLocation, Denial,
        MetaAnswer, MetaRefusal, MetaViolation, ProblemKind, Refusal, Section, ServerInfo,
        Snapshot, Status, Watch, hash_api_key, search, versions,
    };
}

/// Tools from configuration: the HTTP transport that calls their
/// downstream APIs, and where it reads their credentials. Encoding and
/// SOAP are in the `toolschema-gateway` crate, the importers in
/// `toolschema-import`.
#[cfg(feature = "gateway")]
pub mod gateway {
    pub use toolschema_gateway::{Environment, HttpTransport, SecretSource};
}

/// Serving tools over MCP and REST: the server, its command line, and the
/// test client. The protocol core and the lower-level serving functions
/// are in the `toolschema-serve` crate.
#[cfg(feature = "serve")]
pub mod serve {
    #[cfg(feature = "http")]
    pub use toolschema_serve::HttpServer;
    #[cfg(feature = "otel")]
    pub use toolschema_serve::Telemetry;
    #[cfg(feature = "cli")]
    pub use toolschema_serve::cli::Commands;
    pub use toolschema_serve::{
        Environment, Health, HealthCheck, HttpTimeouts, SecretSource, ServeError, Server, Service,
    };
    #[cfg(feature = "stdio")]
    pub use toolschema_testing::{Called, TestClient, TestError};
}

/// The catalog in PostgreSQL: the store, its records and actions,
/// replicas following it, and the admin API.
#[cfg(feature = "store")]
pub mod store {
    #[cfg(feature = "admin-http")]
    pub use toolschema_store::admin;
    pub use toolschema_store::{
        Action, Applied, CHANNEL, Follower, FollowerHealth, Kind, Loaded, Problem, Problems,
        Records, Store, StoreError,
    };
}

#[doc(hidden)]
pub use toolschema_runtime::__private;
