//! The registry: tools by name and version, and the typed part of a call.

use core::fmt;
use core::future::Future;
use core::pin::Pin;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use serde_json::Value;

use super::context::no_state;
use super::{
    CallError, Caller, Context, Handler, Offload, Produced, RunsWith, ToolError, ToolOutput,
    ToolResult,
};
use crate::model::walk::duplicate_property;
use crate::model::{Direction, Ref, Text, ToolDef};

mod admit;
mod arguments;
mod error;
use crate::validate::{ArgumentErrors, InputValidator, Limits, OutputValidator};
use admit::{check_raw, derived};
use arguments::Arguments;
pub use arguments::{CallArguments, ReadArguments};
pub use error::RegistryError;

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
    /// A derived tool: its arguments read into its type, then its handler;
    /// and its arguments read ahead where they stand in a message.
    Typed(Invoke, ReadAhead),
    /// A tool built at run time.
    Dynamic(Arc<dyn DynamicTool>),
}

/// Failures of the typed part of a call, once the arguments were read.
enum Invocation {
    Tool(ToolError),
    Unserializable(String),
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
        Arguments::Read(begin) => return Ok(begin(ctx)),
    };
    Ok(begin::<T>(args, state, ctx))
}

/// `T`'s handler started on its arguments, with its `state`.
fn begin<T: Handler>(
    args: T,
    state: &Arc<T::State>,
    ctx: Context,
) -> BoxFuture<Result<Produced, Invocation>>
where
    T::Output: ToolOutput,
{
    let ctx = ctx.with_state(Arc::clone(state));
    Box::pin(async move {
        let output = args.call(ctx).await.map_err(Invocation::Tool)?;
        output.into_produced().map_err(Invocation::Unserializable)
    })
}

/// A tool's handler bound to arguments read ahead: started with the
/// call's context.
type Begin = Box<dyn FnOnce(Context) -> BoxFuture<Result<Produced, Invocation>> + Send>;

/// [`Registry::read_leading`] for one tool type: the handler bound to the
/// arguments at the start of a text (or why they are refused), and how
/// many bytes they took.
type ReadAhead = Arc<
    dyn Fn(&InputValidator, &str) -> Option<(Result<Begin, ArgumentErrors>, usize)> + Send + Sync,
>;

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
    let ahead = Arc::clone(&state);
    Work::Typed(
        Arc::new(move |input, arguments, ctx| invoke::<T>(&state, input, arguments, ctx)),
        Arc::new(move |input, text| {
            let (args, used) = input.parse_leading::<T>(text)?;
            let begin = args.map(|args| {
                let state = Arc::clone(&ahead);
                Box::new(move |ctx| begin::<T>(args, &state, ctx)) as Begin
            });
            Some((begin, used))
        }),
    )
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
            CallArguments::Read(read) if Arc::ptr_eq(&read.tool, tool) => match read.begin {
                Ok(begin) => self.run(tool, caller, Arguments::Read(begin)).await,
                Err(refused) => Err(CallError::InvalidArguments(refused)),
            },
            CallArguments::Read(read) => Err(CallError::Defect {
                tool: tool.def.name.clone(),
                message: format!(
                    "it was sent arguments read for `{}` version {}",
                    read.tool.def.name, read.tool.def.version
                ),
            }),
        }
    }

    /// Reads the JSON value at the start of `text` as the arguments of
    /// `name` at `version`, in one pass into the derived tool's type,
    /// where they stand in a message (what follows them is left unread):
    /// the arguments, for [`call_as`](Self::call_as) that tool, and how
    /// many bytes they took.
    ///
    /// Arguments the tool refuses are read too: the call then refuses
    /// them with exactly the violations it lists for their text.
    ///
    /// `None` when the call must read them itself: no such tool, a tool
    /// built at run time, a schema whose nesting the one pass does not
    /// bound, or text that does not start with JSON. A transport then
    /// hands over the value's text as usual.
    ///
    /// ```
    /// # use toolschema_runtime::model::*;
    /// # #[derive(serde::Deserialize)] struct GetItem { id: u8 }
    /// # impl Schema for GetItem {
    /// #     const SCHEMA: &'static Node = &Node::Object(ObjectNode {
    /// #         info: TypeInfo { name: Ref::Static("GetItem"), type_name: Ref::Lazy(core::any::type_name::<GetItem>), title: None, description: None },
    /// #         fields: Ref::Static(&[Field { exposed: Ref::Static("id"), source: Ref::Static("id"), schema: Ref::Lazy(schema_of::<u8>), ..Field::BLANK }]),
    /// #         additional: Additional::Deny,
    /// #     });
    /// # }
    /// # impl Tool for GetItem {
    /// #     const TOOL: &'static ToolDef = &ToolDef { name: Ref::Static("items.get"), title: None, description: Ref::Static("Gets an item."),
    /// #         version: 1, input: Ref::Lazy(schema_of::<GetItem>), output: None, annotations: Annotations::NONE, icons: Ref::Static(&[]), internal: false };
    /// #     type Output = String;
    /// #     type State = ();
    /// # }
    /// # impl toolschema_runtime::call::RunsWith<()> for GetItem {
    /// #     fn state_from(_: &std::sync::Arc<()>) -> std::sync::Arc<()> { std::sync::Arc::new(()) }
    /// # }
    /// # impl toolschema_runtime::call::Handler for GetItem {
    /// #     async fn call(self, _: toolschema_runtime::call::Context) -> Result<String, toolschema_runtime::call::ToolError> {
    /// #         Ok(format!("item {}", self.id))
    /// #     }
    /// # }
    /// use toolschema_runtime::call::{CallArguments, Registry};
    ///
    /// let mut registry = Registry::new();
    /// registry.register::<GetItem>().unwrap();
    ///
    /// let message = r#"{"id": 7}, "more": "of the message"}"#;
    /// let (read, used) = registry.read_leading("items.get", 1, message).unwrap();
    /// assert_eq!(&message[..used], r#"{"id": 7}"#);
    /// let arguments = CallArguments::Read(read); // for `call_as("items.get", 1, …)`
    ///
    /// // Not JSON: for the transport to refuse.
    /// assert!(registry.read_leading("items.get", 1, r#"{"id": 7"#).is_none());
    /// ```
    pub fn read_leading(
        &self,
        name: &str,
        version: u32,
        text: &str,
    ) -> Option<(ReadArguments, usize)> {
        let tool = self.tools.get(name)?.get(&version)?;
        let Work::Typed(_, read) = &tool.work else {
            return None;
        };
        let (begin, used) = read(tool.input(), text)?;
        Some((
            ReadArguments {
                tool: Arc::clone(tool),
                begin,
            },
            used,
        ))
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
            // Read already: nothing left to do off the async worker.
            (_, Arguments::Read(begin)) => start(tool, Arguments::Read(begin), ctx)?,
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
        Work::Typed(invoke, _) => {
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
                // Only a derived tool reads ahead.
                Arguments::Read(_) => {
                    return Err(CallError::Defect {
                        tool: tool.def.name.clone(),
                        message: "a tool built at run time was sent arguments read ahead".into(),
                    });
                }
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
