//! The registry: tools by name and version, and the typed part of a call.

use core::fmt;
use core::future::Future;
use core::pin::Pin;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use serde_json::Value;
use serde_json::value::RawValue;

use super::context::no_state;
use super::{
    CallError, Caller, Context, Handler, Offload, Produced, RunsWith, ToolError, ToolOutput,
    ToolResult,
};
use crate::model::walk::duplicate_property;
use crate::model::{Direction, Ref, Text, ToolDef};

mod admit;
use crate::validate::{ArgumentErrors, InputValidator, Limits, OutputValidator};
use admit::{check_raw, derived};

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// What a [`DynamicTool`] returns: a future of its result.
pub type DynamicFuture = Pin<Box<dyn Future<Output = Result<Produced, CallError>> + Send>>;

/// A tool whose work is not a Rust type: built at run time, as the tools
/// an operator configures in front of a downstream API are.
///
/// It is registered with a descriptor ([`Registry::register_dynamic`]) and
/// goes through the very same path as a derived tool: its arguments are
/// checked against the schema the client is shown (the one pass, else the
/// full path with every violation), and a structured result against its
/// output schema.
///
/// ```
/// use std::sync::Arc;
/// use serde_json::json;
/// use toolschema_runtime::call::{CallError, Context, DynamicFuture, DynamicTool, Produced, Registry};
/// use toolschema_runtime::model::{Annotations, Node, Ref, Text, ToolDef};
///
/// struct Echo;
/// impl DynamicTool for Echo {
///     fn call(&self, arguments: serde_json::Value, _ctx: Context) -> DynamicFuture {
///         Box::pin(async move { Ok(Produced::Structured(arguments)) })
///     }
/// }
///
/// let def = ToolDef {
///     name: Text::from("echo".to_owned()),
///     title: None,
///     description: Ref::Static("Echoes its arguments."),
///     version: 1,
///     input: Ref::new(Node::Any),
///     output: None,
///     annotations: Annotations::NONE,
///     icons: Ref::Static(&[]),
///     internal: false,
/// };
/// let mut registry = Registry::new();
/// registry.register_dynamic(Ref::new(def), Arc::new(Echo)).unwrap();
/// assert_eq!(registry.tools().next().map(|t| &*t.name), Some("echo"));
/// ```
pub trait DynamicTool: Send + Sync + 'static {
    /// Does the tool's work. `arguments` passed the tool's input schema and
    /// arrive as serde would read them: each property under its source name
    /// (a [`Field`](crate::model::Field)'s `source`, which is the exposed
    /// name unless the descriptor renames it), the `_schema_discovery` hint
    /// removed, a `null` for an optional property left out.
    fn call(&self, arguments: Value, ctx: Context) -> DynamicFuture;
}

/// The work behind a registered tool.
#[derive(Clone)]
enum Work {
    /// A derived tool: its arguments read into its type, then its handler.
    Typed(Invoke),
    /// A tool built at run time.
    Dynamic(Arc<dyn DynamicTool>),
}

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

/// A call's arguments as a transport hands them over: a parsed tree, or
/// the JSON text the client sent, which a derived tool reads in one pass
/// into its type (no tree is built) and any other tool reads against its
/// schema. Either is checked by the same checks, with the same refusals.
///
/// ```
/// use serde_json::json;
/// use serde_json::value::RawValue;
/// use toolschema_runtime::call::CallArguments;
///
/// let parsed = CallArguments::from(json!({"id": 1}));
/// let sent: Box<RawValue> = serde_json::from_str(r#"{"id": 1}"#).unwrap();
/// let text = CallArguments::from(sent);
/// assert_eq!(parsed.into_value().unwrap(), text.into_value().unwrap());
/// ```
#[derive(Debug)]
pub enum CallArguments {
    /// Parsed into a tree.
    Parsed(Value),
    /// The JSON text of the arguments, as sent.
    Text(Box<RawValue>),
}

impl CallArguments {
    /// The arguments as a tree (text is parsed; it was read as JSON
    /// already, so only a number beyond what a tree holds fails).
    pub fn into_value(self) -> Result<Value, serde_json::Error> {
        match self {
            CallArguments::Parsed(value) => Ok(value),
            CallArguments::Text(text) => serde_json::from_str(text.get()),
        }
    }
}

impl From<Value> for CallArguments {
    fn from(value: Value) -> CallArguments {
        CallArguments::Parsed(value)
    }
}

impl From<Box<RawValue>> for CallArguments {
    fn from(text: Box<RawValue>) -> CallArguments {
        CallArguments::Text(text)
    }
}

/// Reads the arguments into `T` (the whole inbound path: limits, the one
/// pass or the full path) and starts the handler with its `state`: the
/// part of a call that knows the tool's types.
fn invoke<T: Handler>(
    state: &Arc<T::State>,
    input: &InputValidator,
    arguments: Arguments<'_>,
    ctx: Context,
) -> Result<BoxFuture<Result<Produced, Invocation>>, ArgumentErrors>
where
    T::Output: ToolOutput,
{
    let args: T = match arguments {
        Arguments::Parsed(value) => input.read(value)?,
        Arguments::Text(text) => input.parse(text)?,
    };
    let ctx = ctx.with_state(Arc::clone(state));
    Ok(Box::pin(async move {
        let output = args.call(ctx).await.map_err(Invocation::Tool)?;
        output.into_produced().map_err(Invocation::Unserializable)
    }))
}

/// [`invoke`] for one tool type, with the state it was registered with.
type Invoke = Arc<
    dyn Fn(
            &InputValidator,
            Arguments<'_>,
            Context,
        ) -> Result<BoxFuture<Result<Produced, Invocation>>, ArgumentErrors>
        + Send
        + Sync,
>;

/// The typed work of `T`, holding `state`.
fn typed<T: Handler>(state: Arc<T::State>) -> Work
where
    T::Output: ToolOutput,
{
    Work::Typed(Arc::new(move |input, arguments, ctx| {
        invoke::<T>(&state, input, arguments, ctx)
    }))
}

/// One registered tool version. Its validators are compiled on the first
/// call, so that registering (and building catalogs of) many tools is cheap.
struct Registered {
    def: Ref<ToolDef>,
    input: OnceLock<InputValidator>,
    output: OnceLock<Option<OutputValidator>>,
    limits: Limits,
    work: Work,
}

impl Registered {
    fn input(&self) -> &InputValidator {
        self.input
            .get_or_init(|| InputValidator::new(&self.def, self.limits))
    }

    fn output(&self) -> Option<&OutputValidator> {
        self.output
            .get_or_init(|| OutputValidator::new(&self.def))
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
        name: Text,
        /// The version.
        version: u32,
    },
    /// Two members of one object in the tool's arguments or result are
    /// exposed under the same name (through flattening the derive could not
    /// see into, or a hand-written schema).
    DuplicateProperty {
        /// The tool name.
        name: Text,
        /// The type holding the two members.
        type_name: String,
        /// The exposed name they share.
        property: String,
    },
    /// A schema written by hand (`#[tool(input_schema = "...")]`) that
    /// cannot serve: it does not compile as JSON Schema 2020-12 (a `$ref`
    /// that resolves nowhere), or it is nested inside another schema.
    InvalidSchema {
        /// The tool name.
        name: Text,
        /// What is wrong.
        problem: String,
    },
    /// A field's advertised default (`#[tool(default = …)]`) is not what
    /// serde gives it when a call leaves it out: clients would be told one
    /// value and the handler would get another.
    DefaultDisagrees {
        /// The tool name.
        name: Text,
        /// The field's exposed path (`/limit`, `/page/size`).
        field: String,
        /// The advertised default, as JSON.
        advertised: String,
        /// serde's default, as JSON.
        serde: String,
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
            RegistryError::InvalidSchema { name, problem } => {
                write!(f, "tool `{name}`: {problem}")
            }
            RegistryError::DefaultDisagrees {
                name,
                field,
                advertised,
                serde,
            } => write!(
                f,
                "tool `{name}`: `{field}` advertises the default {advertised}, but serde gives {serde} when a call leaves it out; make `#[tool(default = …)]` and `#[serde(default …)]` agree"
            ),
        }
    }
}

impl std::error::Error for RegistryError {}

/// Tools by name and version. Each tool version's validators are compiled
/// once, on its first call or ahead of it ([`prepare`](Registry::prepare),
/// which catalogs run on a background thread), and kept.
#[derive(Default)]
pub struct Registry {
    /// A persistent map: [`extended`](Registry::extended) copies nothing.
    tools: imbl::OrdMap<Text, BTreeMap<u32, Arc<Registered>>>,
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
            tools: imbl::OrdMap::new(),
            limits,
        }
    }

    /// Adds a tool without state (one with `#[tool(state = S)]` is added
    /// with [`register_with`](Self::register_with)).
    pub fn register<T: Handler + RunsWith<()>>(&mut self) -> Result<&mut Registry, RegistryError>
    where
        T::Output: ToolOutput,
    {
        self.register_with::<T, ()>(&no_state())
    }

    /// Adds a tool that runs with `state` (its handler reads it from its
    /// `Context`): a tool with `#[tool(state = S)]` where `state` is an
    /// `Arc<S>`, or any tool without state. The state is shared, not
    /// copied: give the same `Arc` to every tool of one application.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolschema_runtime::call::Registry;
    ///
    /// let mut registry = Registry::new();
    /// let state = Arc::new(String::from("shared"));
    /// // registry.register_with::<MyTool, _>(&state)?;
    /// # let _ = (&mut registry, state);
    /// ```
    pub fn register_with<T: Handler + RunsWith<S>, S>(
        &mut self,
        state: &Arc<S>,
    ) -> Result<&mut Registry, RegistryError>
    where
        T::Output: ToolOutput,
    {
        derived(T::TOOL, T::SERDE_DEFAULTS)?;
        self.insert(T::TOOL.into(), typed::<T>(T::state_from(state)))
    }

    /// Checks a descriptor before it is registered: no two members share
    /// an exposed name, a hand-written schema compiles, the name and
    /// version are free.
    fn admit(&self, def: &ToolDef) -> Result<(), RegistryError> {
        let input = (&*def.input, Direction::Input);
        let output = def
            .output
            .as_ref()
            .map(|output| (&**output, Direction::Output));
        if let Some((type_name, property)) = [Some(input), output]
            .into_iter()
            .flatten()
            .find_map(|(root, direction)| duplicate_property(root, direction))
        {
            return Err(RegistryError::DuplicateProperty {
                name: def.name.clone(),
                type_name: type_name.to_owned(),
                property: property.to_owned(),
            });
        }
        check_raw(def, input.0, output.map(|(root, _)| root))?;
        if self
            .tools
            .get(&*def.name)
            .is_some_and(|versions| versions.contains_key(&def.version))
        {
            return Err(RegistryError::Duplicate {
                name: def.name.clone(),
                version: def.version,
            });
        }
        Ok(())
    }

    /// Adds `T`'s handler under another descriptor: for catalogs generated at
    /// run time (many names over one handler), a constant `&'static
    /// ToolDef` or one built at run time ([`Ref::new`]). `def.input` must
    /// describe what `T` reads, or calls fail as unreadable.
    pub fn register_descriptor<T: Handler + RunsWith<()>>(
        &mut self,
        def: impl Into<Ref<ToolDef>>,
    ) -> Result<&mut Registry, RegistryError>
    where
        T::Output: ToolOutput,
    {
        self.insert(def.into(), typed::<T>(T::state_from(&no_state())))
    }

    /// Adds a tool built at run time: `def` describes it, `work` does it.
    /// The same checks as [`register`](Self::register) apply.
    pub fn register_dynamic(
        &mut self,
        def: Ref<ToolDef>,
        work: Arc<dyn DynamicTool>,
    ) -> Result<&mut Registry, RegistryError> {
        self.insert(def, Work::Dynamic(work))
    }

    /// Adds a tool built at run time as [`register_dynamic`](Self::register_dynamic)
    /// does, unless `previous` holds the very same descriptor (the same
    /// data, [`Ref::same`]) under the same limits: then its entry is shared,
    /// with its work and its compiled validators, and `work` is not called.
    /// A catalog rebuilt after a change registers what did not change this
    /// way. `true` when the entry was shared.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolschema_runtime::call::{Context, DynamicFuture, DynamicTool, Produced, Registry};
    /// use toolschema_runtime::model::{Annotations, Node, Ref, Text, ToolDef};
    ///
    /// struct Echo;
    /// impl DynamicTool for Echo {
    ///     fn call(&self, arguments: serde_json::Value, _ctx: Context) -> DynamicFuture {
    ///         Box::pin(async move { Ok(Produced::Structured(arguments)) })
    ///     }
    /// }
    ///
    /// let def = Ref::new(ToolDef {
    ///     name: Text::from("echo".to_owned()),
    ///     title: None,
    ///     description: Ref::Static("Echoes its arguments."),
    ///     version: 1,
    ///     input: Ref::new(Node::Any),
    ///     output: None,
    ///     annotations: Annotations::NONE,
    ///     icons: Ref::Static(&[]),
    ///     internal: false,
    /// });
    /// let mut before = Registry::new();
    /// before.register_dynamic(def.clone(), Arc::new(Echo)).unwrap();
    /// before.prepare("echo", 1);
    ///
    /// // The same descriptor: shared, validators compiled already.
    /// let mut after = Registry::new();
    /// assert!(after.register_dynamic_from(&before, def.clone(), || Arc::new(Echo)).unwrap());
    /// assert!(after.is_prepared("echo", 1));
    ///
    /// // An equal descriptor built again is registered anew.
    /// let rebuilt = Ref::new(ToolDef::clone(&def));
    /// let mut again = Registry::new();
    /// assert!(!again.register_dynamic_from(&before, rebuilt, || Arc::new(Echo)).unwrap());
    /// assert!(!again.is_prepared("echo", 1));
    /// ```
    pub fn register_dynamic_from(
        &mut self,
        previous: &Registry,
        def: Ref<ToolDef>,
        work: impl FnOnce() -> Arc<dyn DynamicTool>,
    ) -> Result<bool, RegistryError> {
        let kept = previous
            .tools
            .get(&*def.name)
            .and_then(|versions| versions.get(&def.version))
            .filter(|entry| previous.limits == self.limits && Ref::same(&entry.def, &def));
        let Some(entry) = kept else {
            self.register_dynamic(def, work())?;
            return Ok(false);
        };
        let versions = self.tools.entry(def.name.clone()).or_default();
        if versions.contains_key(&def.version) {
            return Err(RegistryError::Duplicate {
                name: def.name.clone(),
                version: def.version,
            });
        }
        versions.insert(def.version, entry.clone());
        Ok(true)
    }

    fn insert(&mut self, def: Ref<ToolDef>, work: Work) -> Result<&mut Registry, RegistryError> {
        self.admit(&def)?;
        let versions = self.tools.entry(def.name.clone()).or_default();
        versions.insert(
            def.version,
            Arc::new(Registered {
                def,
                input: OnceLock::new(),
                output: OnceLock::new(),
                limits: self.limits,
                work,
            }),
        );
        Ok(self)
    }

    /// A registry with every tool of this one, sharing their compiled
    /// validators, to which more can be added: what a catalog serves for
    /// one configuration (the registered tools and the configured ones).
    /// Nothing is copied: the two share their map until either changes,
    /// and then only the part that changed is copied.
    pub fn extended(&self) -> Registry {
        Registry {
            tools: self.tools.clone(),
            limits: self.limits,
        }
    }

    /// Removes every version of `name`; how many there were. A catalog
    /// that rebuilds its registry after a change removes the configured
    /// tools the change rewrote, then registers them again.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolschema_runtime::call::{Context, DynamicFuture, DynamicTool, Produced, Registry};
    /// use toolschema_runtime::model::{Annotations, Node, Ref, Text, ToolDef};
    ///
    /// struct Echo;
    /// impl DynamicTool for Echo {
    ///     fn call(&self, arguments: serde_json::Value, _ctx: Context) -> DynamicFuture {
    ///         Box::pin(async move { Ok(Produced::Structured(arguments)) })
    ///     }
    /// }
    /// let def = |version| Ref::new(ToolDef {
    ///     name: Text::from("echo".to_owned()),
    ///     title: None,
    ///     description: Ref::Static("Echoes its arguments."),
    ///     version,
    ///     input: Ref::new(Node::Any),
    ///     output: None,
    ///     annotations: Annotations::NONE,
    ///     icons: Ref::Static(&[]),
    ///     internal: false,
    /// });
    /// let mut registry = Registry::new();
    /// registry.register_dynamic(def(1), Arc::new(Echo)).unwrap();
    /// registry.register_dynamic(def(2), Arc::new(Echo)).unwrap();
    /// let kept = registry.extended();
    /// assert_eq!(registry.unregister("echo"), 2);
    /// assert_eq!(registry.versions("echo").count(), 0);
    /// assert_eq!(registry.unregister("echo"), 0);
    /// // The registry it was extended from is untouched.
    /// assert_eq!(kept.versions("echo").collect::<Vec<_>>(), [1, 2]);
    /// ```
    pub fn unregister(&mut self, name: &str) -> usize {
        self.tools.remove(name).map_or(0, |versions| versions.len())
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
    pub fn tools(&self) -> impl Iterator<Item = &Ref<ToolDef>> + '_ {
        self.tools.values().flat_map(|v| v.values().map(|r| &r.def))
    }

    /// The descriptor of `name` at `version`, if registered.
    pub fn get(&self, name: &str, version: u32) -> Option<&Ref<ToolDef>> {
        self.tools.get(name)?.get(&version).map(|r| &r.def)
    }

    /// The registered versions of `name`, ascending.
    pub fn versions(&self, name: &str) -> impl Iterator<Item = u32> + '_ {
        self.tools
            .get(name)
            .into_iter()
            .flat_map(|v| v.keys().copied())
    }

    /// Calls `name` at `version` with `arguments` (a parsed tree, or the
    /// JSON text the client sent), for `caller`.
    pub async fn call_as(
        &self,
        caller: Caller,
        name: &str,
        version: u32,
        arguments: impl Into<CallArguments>,
    ) -> Result<ToolResult, CallError> {
        let tool = self
            .tools
            .get(name)
            .and_then(|versions| versions.get(&version))
            .ok_or_else(|| CallError::UnknownTool {
                name: name.to_owned(),
            })?;
        match arguments.into() {
            CallArguments::Parsed(value) => self.run(tool, caller, Arguments::Parsed(value)).await,
            CallArguments::Text(text) => self.run(tool, caller, Arguments::Text(text.get())).await,
        }
    }

    /// Calls `name` at `version` with parsed arguments.
    pub async fn call_version(
        &self,
        name: &str,
        version: u32,
        arguments: Value,
    ) -> Result<ToolResult, CallError> {
        self.call_as(Caller::anonymous(), name, version, arguments)
            .await
    }

    /// Calls the highest registered version of `name` with parsed arguments.
    pub async fn call(&self, name: &str, arguments: Value) -> Result<ToolResult, CallError> {
        let tool = self.latest(name)?;
        self.run(tool, Caller::anonymous(), Arguments::Parsed(arguments))
            .await
    }

    /// Calls the highest registered version of `name` with arguments as JSON
    /// text (size and nesting are checked before parsing).
    pub async fn call_str(&self, name: &str, arguments: &str) -> Result<ToolResult, CallError> {
        let tool = self.latest(name)?;
        self.run(tool, Caller::anonymous(), Arguments::Text(arguments))
            .await
    }

    fn latest(&self, name: &str) -> Result<&Arc<Registered>, CallError> {
        self.tools
            .get(name)
            .and_then(|versions| versions.values().next_back())
            .ok_or_else(|| CallError::UnknownTool {
                name: name.to_owned(),
            })
    }

    async fn run(
        &self,
        tool: &Arc<Registered>,
        caller: Caller,
        arguments: Arguments<'_>,
    ) -> Result<ToolResult, CallError> {
        let offload = caller.offload().cloned();
        let ctx = Context::new(tool.def.name.clone(), tool.def.version, caller);
        let started = match (offload, arguments) {
            (Some(offload), Arguments::Parsed(value)) => {
                start_elsewhere(&*offload, tool, Owned::Parsed(value), ctx).await?
            }
            (Some(offload), Arguments::Text(text)) => {
                start_elsewhere(&*offload, tool, Owned::Text(text.into()), ctx).await?
            }
            (None, arguments) => start(tool, arguments, ctx)?,
        };
        let produced = started.await?;
        match (produced, tool.output()) {
            (Produced::Structured(value), Some(output)) => output
                .check(value)
                .map(ToolResult::structured_value)
                .map_err(CallError::InvalidOutput),
            (Produced::Document(document), Some(output)) => output
                .check_document(document)
                .map(ToolResult::structured_text)
                .map_err(CallError::InvalidOutput),
            // JSON without an output schema to hold it to: text only.
            (Produced::Structured(value), None) => Ok(ToolResult::json(&value)),
            (Produced::Document(document), None) => {
                Ok(ToolResult::text(document.to_compact_string()))
            }
            (Produced::Content(result), _) => Ok(result),
        }
    }
}

/// The synchronous part of a call: the arguments read against the schema
/// (into the tool's type for a derived tool), and the work started.
fn start(
    tool: &Registered,
    arguments: Arguments<'_>,
    ctx: Context,
) -> Result<DynamicFuture, CallError> {
    match &tool.work {
        Work::Typed(invoke) => {
            let running =
                invoke(tool.input(), arguments, ctx).map_err(CallError::InvalidArguments)?;
            let name = tool.def.name.clone();
            Ok(Box::pin(async move {
                running.await.map_err(|failure| match failure {
                    Invocation::Tool(error) => CallError::Tool(error),
                    Invocation::Unserializable(message) => CallError::Unserializable {
                        tool: name,
                        message,
                    },
                })
            }))
        }
        Work::Dynamic(work) => {
            let input = tool.input();
            let arguments: Value = match arguments {
                Arguments::Parsed(value) => input.read(value),
                Arguments::Text(text) => input.parse(text),
            }
            .map_err(CallError::InvalidArguments)?;
            Ok(work.call(arguments, ctx))
        }
    }
}

/// Arguments to read on another thread.
enum Owned {
    Parsed(Value),
    Text(Box<str>),
}

/// [`start`] run through `offload`, off the caller's async worker.
async fn start_elsewhere(
    offload: &dyn Offload,
    tool: &Arc<Registered>,
    arguments: Owned,
    ctx: Context,
) -> Result<DynamicFuture, CallError> {
    let slot = Arc::new(Mutex::new(None));
    let (filled, tool_there) = (slot.clone(), tool.clone());
    offload
        .run(Box::new(move || {
            let started = match arguments {
                Owned::Parsed(value) => start(&tool_there, Arguments::Parsed(value), ctx),
                Owned::Text(text) => start(&tool_there, Arguments::Text(&text), ctx),
            };
            *filled.lock().unwrap_or_else(PoisonError::into_inner) = Some(started);
        }))
        .await;
    let started = slot.lock().unwrap_or_else(PoisonError::into_inner).take();
    started.unwrap_or_else(|| {
        Err(CallError::Defect {
            tool: tool.def.name.clone(),
            message: "the call's arguments could not be read: the server is shutting down"
                .to_owned(),
        })
    })
}
