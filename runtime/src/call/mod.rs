//! Calling tools: handlers, a registry, and the inbound path for one tool.
//!
//! A call runs validate -> map -> deserialize -> handler -> serialize -> map
//! -> check. Arguments are checked against the very schema a client is shown
//! (the Full rendering of the same model); results are checked against the
//! output schema, and one that breaks it is a server-side error, never sent
//! as if valid.

mod ask;
pub(crate) mod context;
mod parse;
mod registry;
mod result;

pub use ask::{AskError, Elicitation, Question, Root};
pub use context::{Asking, Caller, Cancellation, Cancelled, Context, LogLevel, Offload, Peer};
pub use parse::{parse_args, read_args};
pub use registry::{
    CallArguments, DynamicFuture, DynamicTool, ReadArguments, Registry, RegistryError,
};
pub use result::{Content, Produced, Resource, StructuredJson, ToolOutput, ToolResult};

use core::fmt;
use core::future::Future;
use std::sync::Arc;

use serde::de::DeserializeOwned;

use crate::model::{Text, Tool};
use crate::validate::{ArgumentErrors, OutputErrors};

/// The failure of a tool itself: the arguments were valid, the work failed.
/// Its message is shown to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    message: Box<str>,
    /// The tool stopped to wait for the client's input (2026-07-28): the
    /// call ends with the questions, not with this error.
    input_required: bool,
}

impl ToolError {
    /// A tool error with a message for the model.
    pub fn new(message: impl Into<String>) -> ToolError {
        ToolError {
            message: message.into().into_boxed_str(),
            input_required: false,
        }
    }

    /// Whether the tool stopped to wait for the client's input rather than
    /// failing.
    pub fn is_input_required(&self) -> bool {
        self.input_required
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ToolError {}

impl From<AskError> for ToolError {
    fn from(error: AskError) -> ToolError {
        ToolError {
            message: error.to_string().into_boxed_str(),
            input_required: error == AskError::InputRequired,
        }
    }
}

/// A tool that can be called: `#[derive(Tool)]` on the arguments, and this
/// trait for the work.
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use toolschema_runtime::call::{Context, Handler, ToolError};
/// # use toolschema_runtime::model::*;
/// # #[derive(Deserialize)] struct Echo { text: String }
/// # #[derive(Serialize)] struct Echoed { text: String }
/// # impl Schema for Echoed { const SCHEMA: &'static Node = &Node::Map(MapNode { values: Ref::Static(&Node::Any) }); }
/// # impl Schema for Echo { const SCHEMA: &'static Node = &Node::Any; }
/// # impl Tool for Echo {
/// #     const TOOL: &'static ToolDef = &ToolDef { name: Ref::Static("echo"), title: None, description: Ref::Static("Echoes."),
/// #         version: 1, input: Ref::Lazy(schema_of::<Echo>), output: Some(Ref::Lazy(schema_of::<Echoed>)),
/// #         annotations: Annotations::NONE, icons: Ref::Static(&[]), internal: false };
/// #     type Output = Echoed;
/// #     type State = ();
/// # }
///
/// impl Handler for Echo {
///     async fn call(self, _ctx: Context) -> Result<Echoed, ToolError> {
///         Ok(Echoed { text: self.text })
///     }
/// }
/// ```
pub trait Handler: Tool + DeserializeOwned + Send + 'static
where
    Self::Output: ToolOutput,
{
    /// Does the tool's work. `ctx` holds the tool's state: `Context` (of
    /// `()`) for a tool without `#[tool(state = S)]`, `Context<S>` for one
    /// with it.
    fn call(
        self,
        ctx: Context<Self::State>,
    ) -> impl Future<Output = Result<Self::Output, ToolError>> + Send;
}

/// A tool a server (or registry) of state `S` can run: every tool without
/// `#[tool(state = …)]`, whatever `S` is, and a tool with
/// `#[tool(state = S)]` on a server of that state. `#[derive(Tool)]`
/// implements it; a tool registered on a server of another state does not
/// compile.
///
/// ```
/// use std::sync::Arc;
/// use toolschema_runtime::call::RunsWith;
/// # use toolschema_runtime::model::*;
/// # struct Ping;
/// # impl Schema for Ping { const SCHEMA: &'static Node = &Node::Any; }
/// # impl Tool for Ping {
/// #     const TOOL: &'static ToolDef = &ToolDef { name: Ref::Static("ping"), title: None, description: Ref::Static("Pings."),
/// #         version: 1, input: Ref::Lazy(schema_of::<Ping>), output: None, annotations: Annotations::NONE, icons: Ref::Static(&[]), internal: false };
/// #     type Output = serde_json::Value;
/// #     type State = ();
/// # }
/// # impl<S: Send + Sync + 'static> RunsWith<S> for Ping {
/// #     fn state_from(_: &Arc<S>) -> Arc<()> { Arc::new(()) }
/// # }
///
/// fn runs_on<S, T: RunsWith<S>>() {}
/// runs_on::<String, Ping>(); // a tool without state runs on any server
/// ```
#[diagnostic::on_unimplemented(
    message = "the tool `{Self}` cannot run with the state `{S}`",
    label = "its `#[tool(state = …)]` names another state than this one",
    note = "give the server the state the tool names (`Server::state(…)`), or register it with `Registry::register_with(&state)`"
)]
pub trait RunsWith<S>: Tool {
    /// The tool's state, from the server's.
    fn state_from(state: &Arc<S>) -> Arc<Self::State>;
}

/// Why a call did not produce a result.
#[derive(Debug)]
#[non_exhaustive]
pub enum CallError {
    /// No tool of that name (MCP: JSON-RPC -32602).
    UnknownTool {
        /// The name asked for.
        name: String,
    },
    /// The arguments break the schema (MCP: a result with `isError: true`
    /// listing every violation).
    InvalidArguments(ArgumentErrors),
    /// The tool ran and failed (MCP: a result with `isError: true`).
    Tool(ToolError),
    /// The tool's result breaks its own output schema: a server-side defect.
    InvalidOutput(OutputErrors),
    /// The tool's result could not be serialized: a server-side defect.
    Unserializable {
        /// The tool.
        tool: Text,
        /// serde's message.
        message: String,
    },
    /// The tool's work failed in a way the client cannot act on, such as a
    /// downstream answer that breaks the tool's mapping: a server-side
    /// defect, reported with exposed names only.
    Defect {
        /// The tool.
        tool: Text,
        /// What went wrong.
        message: String,
    },
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::UnknownTool { name } => write!(
                f,
                "there is no tool named `{}`",
                toolschema_text::shorten::shorten(name, 200)
            ),
            CallError::InvalidArguments(errors) => errors.fmt(f),
            CallError::Tool(error) => error.fmt(f),
            CallError::InvalidOutput(errors) => errors.fmt(f),
            CallError::Unserializable { tool, message } => {
                write!(
                    f,
                    "tool `{tool}` returned a result that cannot be serialized ({message}); this is a server-side defect"
                )
            }
            CallError::Defect { tool, message } => {
                write!(
                    f,
                    "tool `{tool}` failed: {message}; this is a server-side defect"
                )
            }
        }
    }
}

impl std::error::Error for CallError {}
