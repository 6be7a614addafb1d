//! The runtime of toolschema: the static schema model of derived tools, and
//! its rendering to JSON Schema.
//!
//! Users depend on the `toolschema` facade, which re-exports this crate and the
//! derives. See its documentation for the tutorial.

#![forbid(unsafe_code)]

extern crate alloc;

pub mod call;
pub mod catalog;
pub mod export;
mod fast;
pub mod json;
pub mod mcp;
pub mod model;
pub mod profile;
pub mod project;
pub mod render;
mod schema;
mod third_party;
mod tool;
pub mod validate;
pub mod values;

#[doc(hidden)]
pub mod __private;

pub use schema::{MapKey, Schema, schema_of};
pub use tool::{Annotations, Tool, ToolDef};

/// The MCP `Tool` object of `T` in Full mode, as a [`serde_json::Value`].
///
/// ```
/// # use toolschema_runtime::{Schema, Tool, ToolDef, Annotations, model::*, schema_of};
/// # struct Ping;
/// # impl Schema for Ping {
/// #     const SCHEMA: &'static Node = &Node::Object(ObjectNode {
/// #         info: TypeInfo { name: "Ping", type_name: core::any::type_name::<Ping>, title: None, description: None },
/// #         fields: &[],
/// #         additional: Additional::Deny,
/// #     });
/// # }
/// # impl Tool for Ping {
/// #     const TOOL: &'static ToolDef = &ToolDef {
/// #         name: "ping", title: None, description: "Answers pong.", version: 1,
/// #         input: schema_of::<Ping>, output: None, annotations: Annotations::NONE, internal: false,
/// #     };
/// #     type Output = serde_json::Value;
/// # }
/// let tool = toolschema_runtime::tool_json::<Ping>();
/// assert_eq!(tool["name"], "ping");
/// assert_eq!(tool["inputSchema"]["type"], "object");
/// ```
pub fn tool_json<T: Tool>() -> serde_json::Value {
    render::render_tool(T::TOOL).to_value()
}

/// The MCP `Tool` object of `T` as a client in `mode` with `profile` sees it.
///
/// ```
/// # use toolschema_runtime::{Schema, Tool, ToolDef, Annotations, model::*, schema_of};
/// # struct Ping;
/// # impl Schema for Ping {
/// #     const SCHEMA: &'static Node = &Node::Object(ObjectNode {
/// #         info: TypeInfo { name: "Ping", type_name: core::any::type_name::<Ping>, title: None, description: None },
/// #         fields: &[Field { exposed: "note", source: "note", schema: schema_of::<Option<String>>, ..Field::BLANK }],
/// #         additional: Additional::Deny,
/// #     });
/// # }
/// # impl Tool for Ping {
/// #     const TOOL: &'static ToolDef = &ToolDef {
/// #         name: "ping", title: None, description: "Answers pong.", version: 1,
/// #         input: schema_of::<Ping>, output: None, annotations: Annotations::NONE, internal: false,
/// #     };
/// #     type Output = serde_json::Value;
/// # }
/// use toolschema_runtime::{profile::Profile, project::Mode, tool_json_as};
///
/// let strict = tool_json_as::<Ping>(Mode::Full, Profile::OpenAiStrict);
/// assert_eq!(strict["inputSchema"]["required"][0], "note");
/// assert_eq!(strict["inputSchema"]["properties"]["note"]["type"][1], "null");
/// ```
pub fn tool_json_as<T: Tool>(mode: project::Mode, profile: profile::Profile) -> serde_json::Value {
    profile::apply(project::project_tool(T::TOOL, mode), profile).to_value()
}

/// The JSON Schema of `T` (what deserialization reads), as a
/// [`serde_json::Value`].
///
/// ```
/// let schema = toolschema_runtime::schema_json::<Option<u8>>();
/// assert_eq!(schema["anyOf"][0]["maximum"], 255);
/// ```
pub fn schema_json<T: Schema + ?Sized>() -> serde_json::Value {
    render::render_schema(T::SCHEMA, render::Direction::Input).to_value()
}
