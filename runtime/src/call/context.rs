//! What a handler knows about the call it serves, and how it talks back to
//! the client while it runs: who called (tenant and client application),
//! progress, log messages, and whether the client cancelled.

use core::fmt;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context as TaskContext, Poll, Waker};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::ask::{AskError, Elicitation, Question, Root, roots, sampled_text};
use crate::model::{Schema, Text};

/// The future of [`Peer::ask`].
pub type Asking<'a> = Pin<Box<dyn Future<Output = Result<Value, AskError>> + Send + 'a>>;

/// The severity of a log message (RFC 5424, as MCP names them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum LogLevel {
    /// Detailed debugging information.
    Debug,
    /// Normal operation.
    Info,
    /// Normal but significant.
    Notice,
    /// Something may go wrong.
    Warning,
    /// Something went wrong.
    Error,
    /// A critical condition.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// Every level, least severe first.
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// The level's name in MCP (`info`, `warning`, …).
    pub fn name(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }

    /// The level of an MCP name.
    ///
    /// ```
    /// use toolschema_runtime::call::LogLevel;
    ///
    /// assert_eq!(LogLevel::from_name("warning"), Some(LogLevel::Warning));
    /// assert!(LogLevel::Error > LogLevel::Info);
    /// ```
    pub fn from_name(name: &str) -> Option<LogLevel> {
        LogLevel::ALL.into_iter().find(|level| level.name() == name)
    }
}

/// What a transport lets a running tool say to its client. The serving
/// library implements it; a handler uses it through [`Context`].
pub trait Peer: Send + Sync {
    /// Reports progress: `progress` of `total` (if known), with a message.
    fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>);

    /// Sends a log message (dropped if the client did not ask for this
    /// level).
    fn log(&self, level: LogLevel, logger: Option<&str>, data: Value);

    /// Asks the client `question`: the result of the request it names
    /// (`elicitation/create`, `sampling/createMessage`, `roots/list`).
    fn ask<'a>(&'a self, question: &'a Question) -> Asking<'a> {
        let _ = question;
        Box::pin(async { Err(AskError::Unavailable) })
    }

    /// Whether the client declared `capability` (`elicitation`,
    /// `sampling`, `roots`); `None` when the transport cannot tell.
    fn supports(&self, capability: &str) -> Option<bool> {
        let _ = capability;
        None
    }
}

/// Who calls a tool, and the channel back to them: what the serving side
/// hands the registry with each call.
#[derive(Clone, Default)]
pub struct Caller {
    tenant: Option<Arc<str>>,
    client: Option<Arc<str>>,
    peer: Option<Arc<dyn Peer>>,
    cancellation: Cancellation,
    offload: Option<Arc<dyn Offload>>,
}

/// Where the synchronous part of a call runs when its request is large:
/// reading the arguments against the schema, which for a megabyte of
/// arguments takes long enough to hold up other requests sharing an async
/// worker. A transport hands one with the calls it finds large; without
/// one the arguments are read in place.
///
/// ```
/// use std::future::Future;
/// use std::pin::Pin;
/// use toolschema_runtime::call::Offload;
///
/// /// Runs the work on a thread of its own.
/// struct Thread;
///
/// impl Offload for Thread {
///     fn run(&self, work: Box<dyn FnOnce() + Send>) -> Pin<Box<dyn Future<Output = ()> + Send>> {
///         let done = std::thread::spawn(work);
///         Box::pin(async move {
///             let _ = done.join();
///         })
///     }
/// }
/// ```
pub trait Offload: Send + Sync + 'static {
    /// Runs `work` elsewhere; the future resolves once it has run (or
    /// could not be run).
    fn run(&self, work: Box<dyn FnOnce() + Send>) -> Pin<Box<dyn Future<Output = ()> + Send>>;
}

impl fmt::Debug for Caller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Caller")
            .field("tenant", &self.tenant)
            .field("client", &self.client)
            .finish_non_exhaustive()
    }
}

impl Caller {
    /// A caller known by neither tenant nor client application (a call
    /// outside any governed catalog).
    pub fn anonymous() -> Caller {
        Caller::default()
    }

    /// The client application `client` of tenant `tenant`.
    pub fn client(tenant: &str, client: &str) -> Caller {
        Caller {
            tenant: Some(tenant.into()),
            client: Some(client.into()),
            ..Caller::default()
        }
    }

    /// The same peer and cancellation, for the client application `client`
    /// of tenant `tenant`.
    pub fn identified(mut self, tenant: &str, client: &str) -> Caller {
        self.tenant = Some(tenant.into());
        self.client = Some(client.into());
        self
    }

    /// The same caller, whose tool may talk back through `peer`.
    pub fn with_peer(mut self, peer: Arc<dyn Peer>) -> Caller {
        self.peer = Some(peer);
        self
    }

    /// The same caller, whose call ends early when `cancellation` fires.
    pub fn with_cancellation(mut self, cancellation: Cancellation) -> Caller {
        self.cancellation = cancellation;
        self
    }

    /// The same caller, whose arguments are read through `offload` (a
    /// large request's).
    pub fn with_offload(mut self, offload: Arc<dyn Offload>) -> Caller {
        self.offload = Some(offload);
        self
    }

    pub(crate) fn offload(&self) -> Option<&Arc<dyn Offload>> {
        self.offload.as_ref()
    }
}

/// What a handler knows about the call it serves, how it talks back, and
/// the application state its tool runs with (`S`: `()` for a tool without
/// `#[tool(state = S)]`, given once to the server with `Server::state`).
///
/// ```
/// use toolschema_runtime::call::{Context, LogLevel};
///
/// async fn work(ctx: &Context) {
///     ctx.log(LogLevel::Info, "starting");
///     ctx.progress(0.0, Some(2.0));
///     // … the first half …
///     ctx.progress(1.0, Some(2.0));
///     if ctx.is_cancelled() {
///         return;
///     }
///     // … the second half …
///     ctx.progress(2.0, Some(2.0));
/// }
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct Context<S = ()> {
    /// The tool called.
    pub tool: Text,
    /// The version of the tool called.
    pub version: u32,
    caller: Caller,
    state: Arc<S>,
}

impl<S> Clone for Context<S> {
    fn clone(&self) -> Context<S> {
        Context {
            tool: self.tool.clone(),
            version: self.version,
            caller: self.caller.clone(),
            state: Arc::clone(&self.state),
        }
    }
}

impl Context {
    pub(crate) fn new(tool: Text, version: u32, caller: Caller) -> Context {
        Context {
            tool,
            version,
            caller,
            state: no_state(),
        }
    }

    /// A context to call a handler directly, in a test: for the tool
    /// `tool` (version 1), with no client behind it (progress and logs go
    /// nowhere, a question is [`AskError::Unavailable`], nothing cancels).
    /// [`with_state`](Self::with_state) gives it the tool's state;
    /// `toolschema::serve::TestClient` calls tools as a client would.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolschema_runtime::call::Context;
    ///
    /// let ctx = Context::for_test("stock.add").with_state(Arc::new(41_u32));
    /// assert_eq!((&*ctx.tool, *ctx.state() + 1), ("stock.add", 42));
    /// assert!(!ctx.is_cancelled());
    /// ```
    pub fn for_test(tool: &str) -> Context {
        Context::new(Text::from(tool.to_owned()), 1, Caller::anonymous())
    }

    /// [`for_test`](Self::for_test), as the client application `client`
    /// of tenant `tenant`.
    pub fn for_test_as(tool: &str, tenant: &str, client: &str) -> Context {
        Context::new(
            Text::from(tool.to_owned()),
            1,
            Caller::client(tenant, client),
        )
    }
}

/// The one state of the tools that have none, shared.
#[doc(hidden)]
pub fn no_state() -> Arc<()> {
    static NONE: std::sync::OnceLock<Arc<()>> = std::sync::OnceLock::new();
    Arc::clone(NONE.get_or_init(|| Arc::new(())))
}

impl<S> Context<S> {
    /// The same call, with the state `state`: what a server gives the
    /// handler of a tool with `#[tool(state = T)]`.
    pub fn with_state<T>(self, state: Arc<T>) -> Context<T> {
        Context {
            tool: self.tool,
            version: self.version,
            caller: self.caller,
            state,
        }
    }

    /// The application state the tool runs with: what was given to the
    /// server with `Server::state` (or to a registry with
    /// [`Registry::register_with`](super::Registry::register_with)), for a
    /// tool with `#[tool(state = S)]`.
    pub fn state(&self) -> &S {
        &self.state
    }

    /// The state, shared (to keep beyond the call, or move into a task).
    pub fn shared_state(&self) -> Arc<S> {
        Arc::clone(&self.state)
    }

    /// The tenant of the client application that called, when the call came
    /// through a governed catalog.
    pub fn tenant(&self) -> Option<&str> {
        self.caller.tenant.as_deref()
    }

    /// The client application that called, when the call came through a
    /// governed catalog.
    pub fn client(&self) -> Option<&str> {
        self.caller.client.as_deref()
    }

    /// Reports progress to the client (sent only if the client asked for
    /// progress with a progress token).
    pub fn progress(&self, progress: f64, total: Option<f64>) {
        if let Some(peer) = &self.caller.peer {
            peer.progress(progress, total, None);
        }
    }

    /// Reports progress with a message for the user.
    pub fn progress_message(&self, progress: f64, total: Option<f64>, message: &str) {
        if let Some(peer) = &self.caller.peer {
            peer.progress(progress, total, Some(message));
        }
    }

    /// Logs a message to the client (sent only at levels the client asked
    /// for).
    pub fn log(&self, level: LogLevel, message: &str) {
        self.log_data(level, None, Value::String(message.to_owned()));
    }

    /// Logs any JSON to the client, naming the logger.
    pub fn log_data(&self, level: LogLevel, logger: Option<&str>, data: Value) {
        if let Some(peer) = &self.caller.peer {
            peer.log(level, logger, data);
        }
    }

    /// Whether the client declared `capability` (`elicitation`,
    /// `sampling`, `roots`); `None` when it cannot be told (a handshake-era
    /// call over HTTP, where the capabilities were given to another
    /// request).
    pub fn supports(&self, capability: &str) -> Option<bool> {
        self.caller.peer.as_ref()?.supports(capability)
    }

    /// Asks the client `question` and returns the result of the request.
    ///
    /// In the handshake era the request goes to the client now and the
    /// answer comes back in this call. In 2026-07-28 the first time this
    /// runs it gives [`AskError::InputRequired`], which the handler passes
    /// on with `?`: the call ends with the question, and the client calls
    /// again with the answer, which this then returns.
    pub async fn ask(&self, question: Question) -> Result<Value, AskError> {
        match &self.caller.peer {
            Some(peer) => peer.ask(&question).await,
            None => Err(AskError::Unavailable),
        }
    }

    /// Asks several questions at once (one round in 2026-07-28): every
    /// answer, in order, or the first error.
    pub async fn ask_all(&self, questions: Vec<Question>) -> Result<Vec<Value>, AskError> {
        let mut answers = Vec::with_capacity(questions.len());
        let mut required = false;
        for question in questions {
            match self.ask(question).await {
                Ok(answer) => answers.push(answer),
                // Every missing answer is asked for in the same round.
                Err(AskError::InputRequired) => required = true,
                Err(other) => return Err(other),
            }
        }
        match required {
            true => Err(AskError::InputRequired),
            false => Ok(answers),
        }
    }

    /// Asks the user for a `T` (its derived schema is the one requested).
    ///
    /// ```
    /// use serde::Deserialize;
    /// use toolschema_runtime::call::{Context, Elicitation, ToolError};
    /// # use toolschema_runtime::model::*;
    /// # #[derive(Deserialize)] struct Confirm { ok: bool }
    /// # impl Schema for Confirm { const SCHEMA: &'static Node = &Node::Any; }
    ///
    /// async fn confirmed(ctx: &Context) -> Result<bool, ToolError> {
    ///     Ok(match ctx.elicit::<Confirm>("confirm", "Really delete?").await? {
    ///         Elicitation::Accept(answer) => answer.ok,
    ///         Elicitation::Decline | Elicitation::Cancel => false,
    ///     })
    /// }
    /// ```
    pub async fn elicit<T: Schema + DeserializeOwned>(
        &self,
        key: &str,
        message: &str,
    ) -> Result<Elicitation<T>, AskError> {
        let result = self.ask(Question::elicit_for::<T>(key, message)).await?;
        Elicitation::from_result(result)?.read()
    }

    /// Asks the user for a value of a schema written by hand.
    pub async fn elicit_with(
        &self,
        key: &str,
        message: &str,
        requested_schema: Value,
    ) -> Result<Elicitation<Value>, AskError> {
        let result = self
            .ask(Question::elicit(key, message, requested_schema))
            .await?;
        Elicitation::from_result(result)
    }

    /// Asks the client's model to answer `prompt`; the text of its answer.
    pub async fn sample(
        &self,
        key: &str,
        prompt: &str,
        max_tokens: u32,
    ) -> Result<String, AskError> {
        let result = self.ask(Question::sample(key, prompt, max_tokens)).await?;
        sampled_text(&result)
    }

    /// Asks the client for its roots.
    pub async fn list_roots(&self, key: &str) -> Result<Vec<Root>, AskError> {
        let result = self.ask(Question::list_roots(key)).await?;
        roots(&result)
    }

    /// Whether the client cancelled the call.
    pub fn is_cancelled(&self) -> bool {
        self.caller.cancellation.is_cancelled()
    }

    /// Resolves when the client cancels the call (never, if it does not).
    pub fn cancelled(&self) -> Cancelled {
        self.caller.cancellation.cancelled()
    }
}

/// A cancellation that a transport fires and a handler watches.
#[derive(Debug, Clone, Default)]
pub struct Cancellation(Arc<Flag>);

#[derive(Debug, Default)]
struct Flag {
    fired: AtomicBool,
    waiting: Mutex<Vec<Waker>>,
}

impl Cancellation {
    /// A cancellation not fired yet.
    pub fn new() -> Cancellation {
        Cancellation::default()
    }

    /// Fires it: every watcher wakes, and it stays fired.
    pub fn cancel(&self) {
        self.0.fired.store(true, Ordering::Release);
        let waiting = match self.0.waiting.lock() {
            Ok(mut waiting) => core::mem::take(&mut *waiting),
            Err(poisoned) => core::mem::take(&mut *poisoned.into_inner()),
        };
        waiting.into_iter().for_each(Waker::wake);
    }

    /// Whether it was fired.
    pub fn is_cancelled(&self) -> bool {
        self.0.fired.load(Ordering::Acquire)
    }

    /// Resolves when it is fired.
    pub fn cancelled(&self) -> Cancelled {
        Cancelled(self.clone())
    }
}

/// The future of [`Cancellation::cancelled`].
#[derive(Debug)]
pub struct Cancelled(Cancellation);

impl Future for Cancelled {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<()> {
        let flag = &(self.0).0;
        if flag.fired.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        if let Ok(mut waiting) = flag.waiting.lock()
            && !waiting.iter().any(|w| w.will_wake(cx.waker()))
        {
            waiting.push(cx.waker().clone());
        }
        // Fired between the first check and registering: do not sleep.
        if flag.fired.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancellation_wakes_its_watchers_and_stays_fired() {
        let cancellation = Cancellation::new();
        let mut watching = Box::pin(cancellation.cancelled());
        let waker = Waker::noop();
        let mut cx = TaskContext::from_waker(waker);
        assert!(watching.as_mut().poll(&mut cx).is_pending());
        assert!(!cancellation.is_cancelled());
        cancellation.clone().cancel();
        assert!(watching.as_mut().poll(&mut cx).is_ready());
        assert!(cancellation.is_cancelled());
        assert!(
            Box::pin(cancellation.cancelled())
                .as_mut()
                .poll(&mut cx)
                .is_ready()
        );
    }
}
