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
//! # Cargo features
//!
//! `chrono`, `time`, `uuid`, `rust_decimal` and `url` implement [`Schema`]
//! for those crates' types. The `time` feature turns on `time`'s
//! `serde-human-readable`, so that its types are written as the strings their
//! schemas describe.

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

#[cfg(feature = "catalog")]
pub use toolschema_catalog::{self as catalog, export};
#[cfg(feature = "gateway")]
pub use toolschema_gateway as gateway;
pub use toolschema_runtime::{call, formats, model, project, render, validate};
#[cfg(feature = "serve")]
pub use toolschema_serve as serve;
#[cfg(feature = "store")]
pub use toolschema_store as store;

#[doc(hidden)]
pub use toolschema_runtime::__private;

/// The README's and the guides' Rust blocks, compiled and run as doctests
/// so that what they show keeps working (the README's use the `cli`
/// feature, which `cargo test --workspace` turns on through the binary).
#[cfg(doctest)]
mod guides {
    #[cfg(feature = "cli")]
    #[doc = include_str!("../README.md")]
    struct Readme;
    #[doc = include_str!("../docs/tools.md")]
    struct Tools;
    #[doc = include_str!("../docs/catalog.md")]
    struct Catalog;
    #[cfg(feature = "gateway")]
    #[doc = include_str!("../docs/gateway.md")]
    struct Gateway;
    #[doc = include_str!("../docs/store.md")]
    struct Store;
    #[doc = include_str!("../docs/identity.md")]
    struct Identity;
    #[doc = include_str!("../docs/telemetry.md")]
    struct Telemetry;
}
