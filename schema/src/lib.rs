//! The schema of toolschema, in layers that each use only the ones before
//! them:
//!
//! 1. [`model`]: the static schema model the derives emit, the [`Schema`]
//!    and [`Tool`] traits;
//! 2. [`render`]: the model as JSON Schema (2020-12) and MCP `Tool` objects;
//! 3. [`project`]: discovery modes and client dialect profiles;
//! 4. [`compat`]: what changed between two versions of a schema, and
//!    whether it breaks the clients of the old one.
//!
//! Validation of arguments and results against what a client is shown, and
//! calls, are the `toolschema-runtime` crate, above this one. Users depend on
//! the `toolschema` facade, which re-exports what they name. See its
//! documentation for the tutorial.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

extern crate alloc;

// The checks of attributes against field types, which the derives
// evaluate at compile time (through the runtime's private items) and
// registration once more.
#[doc(hidden)]
pub mod checks;
pub mod compat;
pub mod formats;
pub mod model;
pub mod project;
pub mod render;

pub use model::{Annotations, MapKey, Schema, Tool, ToolDef, schema_of};

/// The MCP `Tool` object of `T` in Full mode, as a [`serde_json::Value`].
///
/// ```
/// # use toolschema_schema::model::*;
/// # struct Ping;
/// # impl Schema for Ping {
/// #     const SCHEMA: &'static Node = &Node::Object(ObjectNode {
/// #         info: TypeInfo { name: Ref::Static("Ping"), type_name: Ref::Lazy(core::any::type_name::<Ping>), title: None, description: None },
/// #         fields: Ref::Static(&[]),
/// #         additional: Additional::Deny,
/// #     });
/// # }
/// # impl Tool for Ping {
/// #     const TOOL: &'static ToolDef = &ToolDef {
/// #         name: Ref::Static("ping"), title: None, description: Ref::Static("Answers pong."), version: 1,
/// #         input: Ref::Lazy(schema_of::<Ping>), output: None, annotations: Annotations::NONE, icons: Ref::Static(&[]), internal: false,
/// #     };
/// #     type Output = serde_json::Value;
/// #     type State = ();
/// # }
/// let tool = toolschema_schema::tool_json::<Ping>();
/// assert_eq!(tool["name"], "ping");
/// assert_eq!(tool["inputSchema"]["type"], "object");
/// ```
pub fn tool_json<T: Tool>() -> serde_json::Value {
    render::render_tool(T::TOOL).to_value()
}

/// The MCP `Tool` object of `T` as a client in `mode` with `profile` sees it.
///
/// ```
/// # use toolschema_schema::model::*;
/// # struct Ping;
/// # impl Schema for Ping {
/// #     const SCHEMA: &'static Node = &Node::Object(ObjectNode {
/// #         info: TypeInfo { name: Ref::Static("Ping"), type_name: Ref::Lazy(core::any::type_name::<Ping>), title: None, description: None },
/// #         fields: Ref::Static(&[Field { exposed: Ref::Static("note"), source: Ref::Static("note"), schema: Ref::Lazy(schema_of::<Option<String>>), ..Field::BLANK }]),
/// #         additional: Additional::Deny,
/// #     });
/// # }
/// # impl Tool for Ping {
/// #     const TOOL: &'static ToolDef = &ToolDef {
/// #         name: Ref::Static("ping"), title: None, description: Ref::Static("Answers pong."), version: 1,
/// #         input: Ref::Lazy(schema_of::<Ping>), output: None, annotations: Annotations::NONE, icons: Ref::Static(&[]), internal: false,
/// #     };
/// #     type Output = serde_json::Value;
/// #     type State = ();
/// # }
/// use toolschema_schema::{project::{Mode, Profile}, tool_json_as};
///
/// let strict = tool_json_as::<Ping>(Mode::Full, Profile::OpenAiStrict);
/// assert_eq!(strict["inputSchema"]["required"][0], "note");
/// assert_eq!(strict["inputSchema"]["properties"]["note"]["type"][1], "null");
/// ```
pub fn tool_json_as<T: Tool>(mode: project::Mode, profile: project::Profile) -> serde_json::Value {
    project::project_tool_as(T::TOOL, mode, profile).to_value()
}

/// The JSON Schema of `T` (what deserialization reads), as a
/// [`serde_json::Value`].
///
/// ```
/// let schema = toolschema_schema::schema_json::<Option<u8>>();
/// assert_eq!(schema["anyOf"][0]["maximum"], 255);
/// ```
pub fn schema_json<T: Schema + ?Sized>() -> serde_json::Value {
    render::render_schema(T::SCHEMA, model::Direction::Input).to_value()
}
