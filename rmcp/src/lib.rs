//! toolschema's derived tools inside an [rmcp] server (the official Rust
//! MCP SDK, version 3.11.0 exactly).
//!
//! An rmcp server keeps its routing, its transports and its own types; a
//! tool method takes its arguments as [`Args<T>`] for a type `T` that
//! derives `toolschema::Tool`, and its listing comes from the same derive
//! ([`tool`]). The arguments are then read and checked against the very
//! schema the tool lists — lengths, bounds, formats, enumerations, unknown
//! fields, exposed names mapped to the struct's — and a call that breaks it
//! is answered as an `isError` result that names every field and what to
//! do, which the model can act on, before the method's body runs. (rmcp's
//! own `Parameters<T>` runs the method with whatever serde accepts, and
//! refuses the rest as a protocol error.)
//!
//! ```
//! use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
//! use rmcp::model::CallToolResult;
//! use toolschema::Tool;
//! use toolschema_rmcp::{Args, Refused, answer};
//!
//! /// Adds two numbers.
//! #[derive(Tool, serde::Deserialize)]
//! #[tool(name = "add", output = Sum)]
//! struct Add {
//!     /// The first number, from 0 to 100.
//!     #[tool(minimum = 0, maximum = 100)]
//!     a: i64,
//!     /// The second number.
//!     b: i64,
//! }
//!
//! #[derive(toolschema::Schema, serde::Serialize)]
//! struct Sum {
//!     /// `a + b`.
//!     sum: i64,
//! }
//!
//! struct Calculator;
//!
//! impl Calculator {
//!     fn add(&self, args: Args<Add>) -> Result<CallToolResult, Refused> {
//!         let add = args.into_inner()?;
//!         answer::<Add>(Sum { sum: add.a + add.b })
//!     }
//! }
//!
//! // The route as rmcp's `#[tool]` attribute would make it, described by the derive.
//! let router: ToolRouter<Calculator> = ToolRouter::new().with_route(ToolRoute::new(
//!     toolschema_rmcp::tool::<Add>(),
//!     Calculator::add,
//! ));
//! let listed = router.list_all();
//! assert_eq!(listed[0].name, "add");
//! assert_eq!(listed[0].input_schema["properties"]["a"]["maximum"], 100);
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

use rmcp::ErrorData;
use rmcp::handler::server::common::FromContextPart;
use rmcp::handler::server::tool::{IntoCallToolResult, ToolCallContext};
use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock, JsonObject};
use serde::de::DeserializeOwned;
use toolschema_runtime::call::{ToolOutput, read_args};
use toolschema_runtime::model::Tool;
use toolschema_runtime::validate::{ArgumentErrors, OutputValidator};

/// The rmcp description of the tool `T`: its name, title, description,
/// input and output schemas and annotations, as toolschema lists it.
///
/// # Panics
///
/// Never for a derived tool, whose input schema is an object: its
/// descriptor is rendered from static data whose shape rmcp reads. A
/// hand-written `Tool` whose input is not an object has no MCP
/// descriptor, and panics here.
pub fn tool<T: Tool>() -> rmcp::model::Tool {
    let rendered = toolschema_runtime::tool_json::<T>();
    #[expect(
        clippy::expect_used,
        reason = "a derived tool's descriptor always has the shape of an MCP Tool"
    )]
    serde_json::from_value(rendered).expect("an MCP Tool")
}

/// The input schema of `T`, as [`tool`] lists it (for rmcp's
/// `#[tool(input_schema = …)]`).
pub fn input_schema<T: Tool>() -> Arc<JsonObject> {
    tool::<T>().input_schema
}

/// The output schema of `T`, if it declares an output.
pub fn output_schema<T: Tool>() -> Option<Arc<JsonObject>> {
    tool::<T>().output_schema
}

/// A tool call's arguments, read as `T` and checked against the schema
/// [`tool`] lists for it: the value, or the refusal to answer with.
///
/// Taking `Args<T>` never fails the call itself: a method gets the refusal
/// and returns it (`args.into_inner()?` in a method returning
/// `Result<_, Refused>`), and rmcp sends it as an `isError` result.
#[derive(Debug)]
pub struct Args<T>(Result<T, Refused>);

impl<T> Args<T> {
    /// The arguments, or why they were refused.
    pub fn into_inner(self) -> Result<T, Refused> {
        self.0
    }
}

impl<S, T: Tool + DeserializeOwned> FromContextPart<ToolCallContext<'_, S>> for Args<T> {
    fn from_context_part(context: &mut ToolCallContext<'_, S>) -> Result<Self, ErrorData> {
        let arguments = context.arguments.take().unwrap_or_default();
        let read = read_args::<T>(serde_json::Value::Object(arguments))
            .map_err(|errors| Refused::arguments(&T::TOOL.name, &errors));
        Ok(Args(read))
    }
}

/// A call toolschema refuses: arguments its schema does not accept, or an
/// output that breaks the tool's output schema. Sent as an `isError`
/// result whose text is the refusal (the same text toolschema's own server
/// sends: `The arguments for `add` were refused: …`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    message: String,
}

impl Refused {
    fn arguments(tool: &str, errors: &ArgumentErrors) -> Refused {
        Refused {
            message: format!("The arguments for `{tool}` were refused: {errors}"),
        }
    }

    /// What was refused and what to do, as the result's text.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl core::fmt::Display for Refused {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Refused {}

impl IntoCallToolResult for Refused {
    fn into_call_tool_result(self) -> Result<CallToolResponse, ErrorData> {
        Ok(CallToolResult::error(vec![ContentBlock::text(self.message)]).into())
    }
}

/// The result of `T` for its `output`: mapped to the exposed names and
/// checked against `T`'s output schema, sent as structured content (and as
/// its text); for a tool without an output schema, as its text alone. An
/// output that breaks the schema is the tool's defect: a refusal that says
/// which field, never a result a client would reject.
pub fn answer<T: Tool>(output: T::Output) -> Result<CallToolResult, Refused>
where
    T::Output: ToolOutput,
{
    let name = &T::TOOL.name;
    let defect = |why: String| Refused {
        message: format!("The tool `{name}` produced an output it does not declare: {why}"),
    };
    let value = match output.into_produced().map_err(defect)? {
        toolschema_runtime::call::Produced::Structured(value) => value,
        toolschema_runtime::call::Produced::Content(result) => {
            let (content, _) = result.into_json();
            let content = serde_json::from_value(content).map_err(|e| defect(e.to_string()))?;
            return Ok(CallToolResult::success(content));
        }
        toolschema_runtime::call::Produced::Document(document) => document.to_value(),
        other => return Err(defect(format!("an output of an unknown kind ({other:?})"))),
    };
    match output_validator::<T>() {
        Some(validator) => validator
            .check(value)
            .map(CallToolResult::structured)
            .map_err(|errors| defect(errors.to_string())),
        // Without an output schema the result is its text alone, as
        // toolschema's own server sends it (structured content is an
        // object a schema describes).
        None => Ok(CallToolResult::success(vec![ContentBlock::text(
            value.to_string(),
        )])),
    }
}

/// The output validator of `T`, compiled once per tool type.
fn output_validator<T: Tool>() -> Option<&'static OutputValidator> {
    type Compiled = HashMap<usize, Option<&'static OutputValidator>>;
    static COMPILED: OnceLock<RwLock<Compiled>> = OnceLock::new();
    let key = core::ptr::from_ref(T::TOOL) as usize;
    let compiled = COMPILED.get_or_init(RwLock::default);
    if let Some(found) = compiled.read().ok().and_then(|map| map.get(&key).copied()) {
        return found;
    }
    let compile = || OutputValidator::new(T::TOOL).map(|v| &*Box::leak(Box::new(v)));
    let mut map = compiled
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    *map.entry(key).or_insert_with(compile)
}
