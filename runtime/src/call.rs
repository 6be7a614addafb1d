//! Calling tools: handlers, a registry, and the inbound path for one tool.
//!
//! A call runs validate -> map -> deserialize -> handler -> serialize -> map
//! -> check. Arguments are checked against the very schema a client is shown
//! (the Full rendering of the same model); results are checked against the
//! output schema, and one that breaks it is a server-side error, never sent
//! as if valid.

use core::fmt;
use core::future::Future;
use core::pin::Pin;
use std::collections::{BTreeMap, HashMap};
use std::sync::{OnceLock, RwLock};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::render::Direction;
use crate::tool::{Tool, ToolDef};
use crate::validate::{ArgumentErrors, InputValidator, Limits, OutputErrors, OutputValidator};
use crate::values::duplicate_property;

/// What a handler knows about the call it serves.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Context {
    /// The tool called.
    pub tool: &'static str,
    /// The version of the tool called.
    pub version: u32,
}

/// The failure of a tool itself: the arguments were valid, the work failed.
/// Its message is shown to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    message: Box<str>,
}

impl ToolError {
    /// A tool error with a message for the model.
    pub fn new(message: impl Into<String>) -> ToolError {
        ToolError {
            message: message.into().into_boxed_str(),
        }
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

/// A tool that can be called: `#[derive(Tool)]` on the arguments, and this
/// trait for the work.
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use toolschema_runtime::call::{Context, Handler, ToolError};
/// # use toolschema_runtime::{Schema, Tool, ToolDef, Annotations, model::*, schema_of};
/// # #[derive(Deserialize)] struct Echo { text: String }
/// # #[derive(Serialize)] struct Echoed { text: String }
/// # impl Schema for Echoed { const SCHEMA: &'static Node = &Node::Map(MapNode { values: &Node::Any }); }
/// # impl Schema for Echo { const SCHEMA: &'static Node = &Node::Any; }
/// # impl Tool for Echo {
/// #     const TOOL: &'static ToolDef = &ToolDef { name: "echo", title: None, description: "Echoes.",
/// #         version: 1, input: schema_of::<Echo>, output: Some(schema_of::<Echoed>),
/// #         annotations: Annotations::NONE, internal: false };
/// #     type Output = Echoed;
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
    Self::Output: Serialize + Send,
{
    /// Does the tool's work.
    fn call(self, ctx: Context) -> impl Future<Output = Result<Self::Output, ToolError>> + Send;
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
        tool: &'static str,
        /// serde's message.
        message: String,
    },
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::UnknownTool { name } => write!(f, "there is no tool named `{name}`"),
            CallError::InvalidArguments(errors) => errors.fmt(f),
            CallError::Tool(error) => error.fmt(f),
            CallError::InvalidOutput(errors) => errors.fmt(f),
            CallError::Unserializable { tool, message } => {
                write!(
                    f,
                    "tool `{tool}` returned a result that cannot be serialized ({message}); this is a server-side defect"
                )
            }
        }
    }
}

impl std::error::Error for CallError {}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// Failures of the typed part of a call, once the arguments were read.
enum Invocation {
    Tool(ToolError),
    Unserializable(String),
}

/// Arguments as they arrive: parsed inside a request, or as JSON text.
enum Arguments<'a> {
    Parsed(Value),
    Text(&'a str),
}

/// Reads the arguments into `T` (the whole inbound path: limits, the one
/// pass or the full path) and starts the handler: the part of a call that
/// knows the tool's types.
fn invoke<T: Handler>(
    input: &InputValidator,
    arguments: Arguments<'_>,
    ctx: Context,
) -> Result<BoxFuture<Result<Value, Invocation>>, ArgumentErrors>
where
    T::Output: Serialize + Send,
{
    let args: T = match arguments {
        Arguments::Parsed(value) => input.read(value)?,
        Arguments::Text(text) => input.parse(text)?,
    };
    Ok(Box::pin(async move {
        let output = args.call(ctx).await.map_err(Invocation::Tool)?;
        serde_json::to_value(&output).map_err(|e| Invocation::Unserializable(e.to_string()))
    }))
}

/// [`invoke`] for one tool type.
type Invoke = fn(
    &InputValidator,
    Arguments<'_>,
    Context,
) -> Result<BoxFuture<Result<Value, Invocation>>, ArgumentErrors>;

/// One registered tool version. Its validators are compiled on the first
/// call, so that registering (and building catalogs of) many tools is cheap.
struct Registered {
    def: &'static ToolDef,
    input: OnceLock<InputValidator>,
    output: OnceLock<Option<OutputValidator>>,
    limits: Limits,
    invoke: Invoke,
}

impl Registered {
    fn input(&self) -> &InputValidator {
        self.input
            .get_or_init(|| InputValidator::new(self.def, self.limits))
    }

    fn output(&self) -> Option<&OutputValidator> {
        self.output
            .get_or_init(|| OutputValidator::new(self.def))
            .as_ref()
    }
}

/// Refusals of [`Registry::register`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegistryError {
    /// Another type already provides this tool name and version.
    Duplicate {
        /// The tool name.
        name: &'static str,
        /// The version.
        version: u32,
    },
    /// Two members of one object in the tool's arguments or result are
    /// exposed under the same name (through flattening the derive could not
    /// see into, or a hand-written schema).
    DuplicateProperty {
        /// The tool name.
        name: &'static str,
        /// The type holding the two members.
        type_name: &'static str,
        /// The exposed name they share.
        property: &'static str,
    },
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryError::Duplicate { name, version } => write!(
                f,
                "tool `{name}` version {version} is registered twice; give one type another `#[tool(version = N)]`"
            ),
            RegistryError::DuplicateProperty {
                name,
                type_name,
                property,
            } => write!(
                f,
                "tool `{name}`: `{type_name}` has two members exposed as `{property}`; give one of them another name with `#[tool(rename = \"...\")]`"
            ),
        }
    }
}

impl std::error::Error for RegistryError {}

/// Tools by name and version, with validators compiled at registration.
#[derive(Default)]
pub struct Registry {
    tools: BTreeMap<&'static str, BTreeMap<u32, Registered>>,
    limits: Limits,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registry")
            .field("tools", &self.tools.keys().collect::<Vec<_>>())
            .field("limits", &self.limits)
            .finish()
    }
}

impl Registry {
    /// An empty registry with the default [`Limits`].
    pub fn new() -> Registry {
        Registry::default()
    }

    /// An empty registry with the given limits.
    pub fn with_limits(limits: Limits) -> Registry {
        Registry {
            tools: BTreeMap::new(),
            limits,
        }
    }

    /// Adds a tool.
    pub fn register<T: Handler>(&mut self) -> Result<&mut Registry, RegistryError>
    where
        T::Output: Serialize + Send,
    {
        self.register_descriptor::<T>(T::TOOL)
    }

    /// Adds `T`'s handler under another descriptor: for catalogs generated at
    /// run time (many names over one handler). `def.input` must describe
    /// what `T` reads, or calls fail as unreadable.
    pub fn register_descriptor<T: Handler>(
        &mut self,
        def: &'static ToolDef,
    ) -> Result<&mut Registry, RegistryError>
    where
        T::Output: Serialize + Send,
    {
        let input = ((def.input)(), Direction::Input);
        let output = def.output.map(|output| (output(), Direction::Output));
        if let Some((type_name, property)) = [Some(input), output]
            .into_iter()
            .flatten()
            .find_map(|(root, direction)| duplicate_property(root, direction))
        {
            return Err(RegistryError::DuplicateProperty {
                name: def.name,
                type_name,
                property,
            });
        }
        let versions = self.tools.entry(def.name).or_default();
        if versions.contains_key(&def.version) {
            return Err(RegistryError::Duplicate {
                name: def.name,
                version: def.version,
            });
        }
        versions.insert(
            def.version,
            Registered {
                def,
                input: OnceLock::new(),
                output: OnceLock::new(),
                limits: self.limits,
                invoke: invoke::<T>,
            },
        );
        Ok(self)
    }

    /// Compiles the validators of `name` at `version` now, rather than on
    /// its first call. `false` when no such tool version is registered.
    pub fn prepare(&self, name: &str, version: u32) -> bool {
        match self
            .tools
            .get(name)
            .and_then(|versions| versions.get(&version))
        {
            Some(tool) => {
                tool.input();
                tool.output();
                true
            }
            None => false,
        }
    }

    /// Whether the validators of `name` at `version` are compiled (by
    /// [`prepare`](Self::prepare) or a first call).
    pub fn is_prepared(&self, name: &str, version: u32) -> bool {
        self.tools
            .get(name)
            .and_then(|versions| versions.get(&version))
            .is_some_and(|tool| tool.input.get().is_some() && tool.output.get().is_some())
    }

    /// Every registered tool version, by name then version.
    pub fn tools(&self) -> impl Iterator<Item = &'static ToolDef> + '_ {
        self.tools.values().flat_map(|v| v.values().map(|r| r.def))
    }

    /// The descriptor of `name` at `version`, if registered.
    pub fn get(&self, name: &str, version: u32) -> Option<&'static ToolDef> {
        self.tools.get(name)?.get(&version).map(|r| r.def)
    }

    /// The registered versions of `name`, ascending.
    pub fn versions(&self, name: &str) -> impl Iterator<Item = u32> + '_ {
        self.tools
            .get(name)
            .into_iter()
            .flat_map(|v| v.keys().copied())
    }

    /// Calls `name` at `version` with parsed arguments.
    pub async fn call_version(
        &self,
        name: &str,
        version: u32,
        arguments: Value,
    ) -> Result<Value, CallError> {
        let tool = self
            .tools
            .get(name)
            .and_then(|versions| versions.get(&version))
            .ok_or_else(|| CallError::UnknownTool {
                name: name.to_owned(),
            })?;
        self.run(tool, Arguments::Parsed(arguments)).await
    }

    /// Calls the highest registered version of `name` with parsed arguments.
    pub async fn call(&self, name: &str, arguments: Value) -> Result<Value, CallError> {
        let tool = self.latest(name)?;
        self.run(tool, Arguments::Parsed(arguments)).await
    }

    /// Calls the highest registered version of `name` with arguments as JSON
    /// text (size and nesting are checked before parsing).
    pub async fn call_str(&self, name: &str, arguments: &str) -> Result<Value, CallError> {
        let tool = self.latest(name)?;
        self.run(tool, Arguments::Text(arguments)).await
    }

    fn latest(&self, name: &str) -> Result<&Registered, CallError> {
        self.tools
            .get(name)
            .and_then(|versions| versions.values().next_back())
            .ok_or_else(|| CallError::UnknownTool {
                name: name.to_owned(),
            })
    }

    async fn run(&self, tool: &Registered, arguments: Arguments<'_>) -> Result<Value, CallError> {
        let ctx = Context {
            tool: tool.def.name,
            version: tool.def.version,
        };
        let running =
            (tool.invoke)(tool.input(), arguments, ctx).map_err(CallError::InvalidArguments)?;
        let result = running.await.map_err(|failure| match failure {
            Invocation::Tool(error) => CallError::Tool(error),
            Invocation::Unserializable(message) => CallError::Unserializable {
                tool: tool.def.name,
                message,
            },
        })?;
        match tool.output() {
            Some(output) => output.check(result).map_err(CallError::InvalidOutput),
            None => Ok(result),
        }
    }
}

/// The input validator of `T`, compiled on first use and kept for the life
/// of the process (one per tool type).
///
/// Keyed by the address of `T`'s descriptor. The first [`SLOTS`] tool types
/// live in a table read without locks or reference counts (one acquire load
/// per probe); any beyond that share a map behind a lock.
fn input_validator<T: Tool>() -> &'static InputValidator {
    const SLOTS: usize = 256;
    type Slot = OnceLock<(usize, &'static InputValidator)>;
    static TABLE: [Slot; SLOTS] = [const { OnceLock::new() }; SLOTS];
    static OVERFLOW: OnceLock<RwLock<HashMap<usize, &'static InputValidator>>> = OnceLock::new();

    let key = core::ptr::from_ref(T::TOOL) as usize;
    let compile = || -> &'static InputValidator {
        Box::leak(Box::new(InputValidator::new(T::TOOL, Limits::default())))
    };
    // Descriptors are at least 8-byte aligned: drop the bits that never vary.
    let start = (key >> 3).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (usize::BITS - 8);
    for probe in 0..SLOTS {
        let slot = &TABLE[(start + probe) % SLOTS];
        let (found, validator) = *slot.get_or_init(|| (key, compile()));
        if found == key {
            return validator;
        }
    }
    let overflow = OVERFLOW.get_or_init(RwLock::default);
    if let Some(found) = overflow.read().ok().and_then(|map| map.get(&key).copied()) {
        return found;
    }
    match overflow.write() {
        Ok(mut map) => map.entry(key).or_insert_with(compile),
        Err(_) => compile(),
    }
}

/// The whole inbound path of one tool, without the handler: limits, JSON,
/// the `_schema_discovery` hint, null-as-absent, schema validation (every
/// violation), exposed-to-source names, and serde.
///
/// ```
/// # use toolschema_runtime::{Schema, Tool, ToolDef, Annotations, model::*, schema_of};
/// # #[derive(serde::Deserialize, Debug)] struct Ping { count: u8 }
/// # impl Schema for Ping {
/// #     const SCHEMA: &'static Node = &Node::Object(ObjectNode {
/// #         info: TypeInfo { name: "Ping", type_name: core::any::type_name::<Ping>, title: None, description: None },
/// #         fields: &[Field { exposed: "count", source: "count", schema: schema_of::<u8>, ..Field::BLANK }],
/// #         additional: Additional::Deny,
/// #     });
/// # }
/// # impl Tool for Ping {
/// #     const TOOL: &'static ToolDef = &ToolDef { name: "ping", title: None, description: "Pings.",
/// #         version: 1, input: schema_of::<Ping>, output: None, annotations: Annotations::NONE, internal: false };
/// #     type Output = serde_json::Value;
/// # }
/// use toolschema_runtime::call::parse_args;
///
/// let ping: Ping = parse_args(r#"{"count": 3}"#).unwrap();
/// assert_eq!(ping.count, 3);
///
/// let errors = parse_args::<Ping>(r#"{"count": 300, "extra": true}"#).unwrap_err();
/// let paths: Vec<&str> = errors.iter().map(|v| v.path()).collect();
/// assert_eq!(paths, ["/count", "/extra"]);
/// ```
pub fn parse_args<T: Tool + DeserializeOwned>(json: &str) -> Result<T, ArgumentErrors> {
    input_validator::<T>().parse(json)
}
