//! The builder a service starts from: its identity, its tools, an optional
//! catalog configuration, and one call per transport.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use toolschema_catalog::{Catalog, Config};
use toolschema_config::{Environment, SecretSource};
use toolschema_configured::Transport;
use toolschema_runtime::call::{Handler, Registry, RegistryError, RunsWith, ToolOutput};

use crate::Secrets;
use crate::error::ServeError;
use crate::mcp::{Identity, Protocol, StateKey, Trace};
use crate::notices::Notices;
use crate::service::{Options, Service};

/// A server of derived tools, built step by step and served over
/// Streamable HTTP, stdio, or merged into an axum application.
///
/// ```no_run
/// # use serde::{Deserialize, Serialize};
/// # use toolschema_serve::Server;
/// # use toolschema_runtime::call::{Context, Handler, ToolError};
/// # use toolschema_runtime::model::*;
/// # #[derive(Deserialize)] struct Ping {}
/// # impl Schema for Ping { const SCHEMA: &'static Node = &Node::Object(ObjectNode {
/// #     info: TypeInfo { name: Ref::Static("Ping"), type_name: Ref::Lazy(core::any::type_name::<Ping>), title: None, description: None },
/// #     fields: Ref::Static(&[]), additional: Additional::Deny }); }
/// # impl Tool for Ping {
/// #     const TOOL: &'static ToolDef = &ToolDef { name: Ref::Static("ping"), title: None, description: Ref::Static("Pings."),
/// #         version: 1, input: Ref::Lazy(schema_of::<Ping>), output: None, annotations: Annotations::NONE, icons: Ref::Static(&[]), internal: false };
/// #     type Output = serde_json::Value;
/// #     type State = ();
/// # }
/// # impl<S: Send + Sync + 'static> toolschema_runtime::call::RunsWith<S> for Ping {
/// #     fn state_from(_: &std::sync::Arc<S>) -> std::sync::Arc<()> { std::sync::Arc::new(()) }
/// # }
/// # impl Handler for Ping {
/// #     async fn call(self, _ctx: Context) -> Result<serde_json::Value, ToolError> { Ok(serde_json::json!({})) }
/// # }
/// # async fn run() -> Result<(), toolschema_serve::ServeError> {
/// Server::new("pinger", "1.0.0")
///     .tool::<Ping>()
///     .serve_http("127.0.0.1:8080")
///     .await
/// # }
/// ```
///
/// A service's tools reach its state (a database pool, a client, settings)
/// through [`state`](Self::state): given once, shared by every handler of
/// this server, typed. A tool with `#[tool(state = S)]` reads it with
/// `ctx.state()`; one without it runs on any server.
#[derive(Debug)]
pub struct Server<S = ()> {
    /// The state given to the tools registered from here on.
    state: Arc<S>,
    pub(crate) identity: Identity,
    pub(crate) registry: Registry,
    pub(crate) refused: Vec<RegistryError>,
    pub(crate) catalog: Source,
    reload_every: Duration,
    reload_settle: Duration,
    page_size: Option<usize>,
    state_secret: Option<Vec<u8>>,
    trace: Option<PathBuf>,
    options: Options,
    pub(crate) transport: Option<Arc<dyn Transport>>,
    /// Where the secrets the configuration names are read.
    secrets: Secrets,
    #[cfg(feature = "otel")]
    telemetry: Option<crate::Telemetry>,
}

/// Where the catalog configuration comes from.
#[derive(Debug)]
pub(crate) enum Source {
    /// None: open mode.
    Open,
    /// A file, watched for changes.
    File(PathBuf),
    /// Text given in code (`name` for error messages), never reloaded.
    Text { text: String, name: String },
    /// A configuration checked already (read from a store that keeps it
    /// current itself).
    Config(Box<toolschema_catalog::Config>),
}

impl Server {
    /// A server called `name` at `version` (its MCP `serverInfo`), with no
    /// tools yet and no state.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Server {
        Server {
            state: Arc::new(()),
            identity: Identity::new(name, version),
            registry: Registry::new(),
            refused: Vec::new(),
            catalog: Source::Open,
            reload_every: Duration::from_millis(500),
            reload_settle: Duration::from_secs(2),
            page_size: None,
            state_secret: None,
            trace: None,
            options: Options::default(),
            transport: None,
            secrets: Secrets(Arc::new(Environment)),
            #[cfg(feature = "otel")]
            telemetry: None,
        }
    }
}

impl<S: Send + Sync + 'static> Server<S> {
    /// Gives the tools registered from here on `state`: a tool with
    /// `#[tool(state = T)]` reads it from its `Context` (`ctx.state()`), and
    /// only registers on a server whose state is a `T`. Tools registered
    /// before keep theirs.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use serde::Deserialize;
    /// use toolschema_runtime::call::{Context, Handler, ToolError, ToolResult};
    /// use toolschema_serve::Server;
    /// # use toolschema_runtime::model::*;
    ///
    /// /// The service's state: a counter.
    /// #[derive(Default)]
    /// struct Counter(Mutex<u64>);
    ///
    /// # #[derive(Deserialize)]
    /// /// Counts one more.
    /// struct Bump {}
    /// # impl Schema for Bump { const SCHEMA: &'static Node = &Node::Object(ObjectNode {
    /// #     info: TypeInfo { name: Ref::Static("Bump"), type_name: Ref::Lazy(core::any::type_name::<Bump>), title: None, description: None },
    /// #     fields: Ref::Static(&[]), additional: Additional::Deny }); }
    /// # impl Tool for Bump {
    /// #     const TOOL: &'static ToolDef = &ToolDef { name: Ref::Static("bump"), title: None, description: Ref::Static("Counts."),
    /// #         version: 1, input: Ref::Lazy(schema_of::<Bump>), output: None, annotations: Annotations::NONE, icons: Ref::Static(&[]), internal: false };
    /// #     type Output = ToolResult;
    /// #     type State = Counter;
    /// # }
    /// # impl toolschema_runtime::call::RunsWith<Counter> for Bump {
    /// #     fn state_from(state: &Arc<Counter>) -> Arc<Counter> { state.clone() }
    /// # }
    /// // With `#[derive(Tool)]` and `#[tool(state = Counter)]` on `Bump`:
    /// impl Handler for Bump {
    ///     async fn call(self, ctx: Context<Counter>) -> Result<ToolResult, ToolError> {
    ///         let mut count = ctx.state().0.lock().map_err(|_| ToolError::new("the counter is broken"))?;
    ///         *count += 1;
    ///         Ok(ToolResult::text(count.to_string()))
    ///     }
    /// }
    ///
    /// let server = Server::new("counter", "1").state(Counter::default()).tool::<Bump>();
    /// # let _ = server;
    /// ```
    pub fn state<T: Send + Sync + 'static>(self, state: T) -> Server<T> {
        Server {
            state: Arc::new(state),
            identity: self.identity,
            registry: self.registry,
            refused: self.refused,
            catalog: self.catalog,
            reload_every: self.reload_every,
            reload_settle: self.reload_settle,
            page_size: self.page_size,
            state_secret: self.state_secret,
            trace: self.trace,
            options: self.options,
            transport: self.transport,
            secrets: self.secrets,
            #[cfg(feature = "otel")]
            telemetry: self.telemetry,
        }
    }

    /// Traces and measures every request with `telemetry` (feature `otel`):
    /// a span per request and tool call in the MCP semantic conventions,
    /// the operation duration and call counts as metrics.
    ///
    /// ```no_run
    /// # use toolschema_serve::{Server, Telemetry};
    /// // After installing the OpenTelemetry providers globally:
    /// let server = Server::new("billing", "1.0.0").telemetry(Telemetry::global());
    /// # let _ = server;
    /// ```
    #[cfg(feature = "otel")]
    pub fn telemetry(mut self, telemetry: crate::Telemetry) -> Server<S> {
        self.telemetry = Some(telemetry);
        self
    }

    /// A display title for `serverInfo` (and `server.json`).
    pub fn title(mut self, title: impl Into<String>) -> Server<S> {
        self.identity = self.identity.with_title(title);
        self
    }

    /// What the server does, in at most 100 characters: shown in
    /// `serverInfo`, and what lets [`Service::export`] describe the server
    /// as `server.json` without a `[server]` section. For that, the server's
    /// name is its registry name (`io.github.acme/warehouse`).
    pub fn description(mut self, description: impl Into<String>) -> Server<S> {
        self.identity = self.identity.with_description(description);
        self
    }

    /// The server's homepage, in `serverInfo` and `server.json`.
    pub fn website_url(mut self, url: impl Into<String>) -> Server<S> {
        self.identity = self.identity.with_website_url(url);
        self
    }

    /// Adds the tool `T` (a `#[derive(Tool)]` type with a [`Handler`]),
    /// running with this server's state. A tool that cannot be registered
    /// is reported when the server is built; one whose `#[tool(state = …)]`
    /// is not this server's state does not compile.
    pub fn tool<T: Handler + RunsWith<S>>(mut self) -> Server<S>
    where
        T::Output: ToolOutput,
    {
        if let Err(refused) = self.registry.register_with::<T, S>(&self.state) {
            self.refused.push(refused);
        }
        self
    }

    /// Serves the tools of `registry` (built by hand, for instance with
    /// descriptors generated at run time) instead of those added so far;
    /// tools added with [`tool`](Self::tool) afterwards join them.
    pub fn registry(mut self, registry: Registry) -> Server<S> {
        self.registry = registry;
        self
    }

    /// Governs the tools with the catalog configuration in `path` (TOML:
    /// tenants, client applications and their keys, toolsets, versions).
    /// The file is checked when the server is built and watched while it
    /// serves: a valid change is swapped in and clients are told; an invalid
    /// one is logged and the last good catalog keeps serving.
    pub fn catalog_file(mut self, path: impl Into<PathBuf>) -> Server<S> {
        self.catalog = Source::File(path.into());
        self
    }

    /// Governs the tools with a configuration given as text (`name` names
    /// it in error messages); it is never reloaded.
    pub fn catalog_toml(mut self, text: impl Into<String>, name: impl Into<String>) -> Server<S> {
        self.catalog = Source::Text {
            text: text.into(),
            name: name.into(),
        };
        self
    }

    /// Governs the catalog by `config`, checked already against the same
    /// tools as this server registers (say, loaded from a catalog store that
    /// then keeps the catalog current through
    /// [`Service::catalog`](crate::Service::catalog)); the server never
    /// reloads it itself.
    pub fn catalog_config(mut self, config: toolschema_catalog::Config) -> Server<S> {
        self.catalog = Source::Config(Box::new(config));
        self
    }

    /// Calls the downstreams of the configuration's configured tools
    /// through `transport`. By default (feature `gateway`) the gateway
    /// crate's HTTP transport, reading credentials from environment
    /// variables; without that feature, none (their calls say so).
    pub fn transport(mut self, transport: Arc<dyn Transport>) -> Server<S> {
        self.transport = Some(transport);
        self
    }

    /// Reads the secrets the configuration names from `secrets` instead of
    /// environment variables: the introspection client's
    /// (`[authorization]`'s `introspection_secret_env`, feature `oauth`)
    /// and, through the default transport (feature `gateway`), the
    /// downstreams' credentials. A transport given with
    /// [`transport`](Self::transport) reads its own.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolschema_config::SecretSource;
    /// use toolschema_serve::Server;
    ///
    /// struct Vault;
    ///
    /// impl SecretSource for Vault {
    ///     fn secret(&self, name: &str) -> Option<String> {
    ///         (name == "SHOP_TOKEN").then(|| "token-from-the-vault".to_owned())
    ///     }
    /// }
    ///
    /// let server = Server::new("shop", "1").secrets(Arc::new(Vault));
    /// # drop(server);
    /// ```
    pub fn secrets(mut self, secrets: Arc<dyn SecretSource>) -> Server<S> {
        self.secrets = Secrets(secrets);
        self
    }

    /// The transport configured tools call through: the application's, else
    /// the default over the server's secrets.
    pub(crate) fn transport_in_force(&self) -> Arc<dyn Transport> {
        match &self.transport {
            Some(transport) => transport.clone(),
            None => default_transport(&self.secrets),
        }
    }

    /// How often the configuration file is checked for changes (default
    /// half a second).
    pub fn reload_every(mut self, interval: Duration) -> Server<S> {
        self.reload_every = interval;
        self
    }

    /// How long a changed configuration file must stay unchanged before it
    /// is loaded (default two seconds), so that a file being written is
    /// never loaded half-done. Publishing by renaming a complete file over
    /// the watched one is atomic; then this is only a delay.
    pub fn reload_settle(mut self, settle: Duration) -> Server<S> {
        self.reload_settle = settle;
        self
    }

    /// Accepts `host` in the `Host` and `Origin` headers, besides loopback
    /// names (which are always accepted). Others are refused, against DNS
    /// rebinding.
    pub fn allow_host(mut self, host: impl Into<String>) -> Server<S> {
        self.options.allowed_hosts.push(host.into());
        self
    }

    /// Lets open mode (no catalog configuration: every tool, to anyone,
    /// without a key) listen on addresses other than loopback. Without it,
    /// such a bind is refused.
    pub fn allow_open_network(mut self) -> Server<S> {
        self.options.open_network = true;
        self
    }

    /// The client application served over stdio (with a catalog
    /// configuration; in open mode, everyone is served alike).
    pub fn stdio_client(mut self, id: impl Into<String>) -> Server<S> {
        self.options.stdio_client = Some(id.into());
        self
    }

    /// How long HTTP clients may take to send a request, and how long an
    /// idle connection is kept (see [`HttpTimeouts`](crate::HttpTimeouts)
    /// for the defaults).
    pub fn http_timeouts(mut self, timeouts: crate::HttpTimeouts) -> Server<S> {
        self.options.timeouts = timeouts;
        self
    }

    /// At most `size` tools in one `tools/list` page (default 1,000).
    pub fn page_size(mut self, size: usize) -> Server<S> {
        self.page_size = Some(size);
        self
    }

    /// Seals the `requestState` of input-required results (2026-07-28)
    /// with a key derived from `secret`, so that every replica given the
    /// same secret can continue a call another one began. Without it, each
    /// process seals with a random key of its own.
    pub fn state_secret(mut self, secret: impl Into<Vec<u8>>) -> Server<S> {
        self.state_secret = Some(secret.into());
        self
    }

    /// Records every message the transports send to the file at `path`,
    /// one JSON object a line, for conformance checks.
    pub fn trace_file(mut self, path: impl Into<PathBuf>) -> Server<S> {
        self.trace = Some(path.into());
        self
    }

    /// Checks the tools and the configuration and builds the service the
    /// transports share, shared already: its router, its stdio loop, a
    /// catalog store's follower and an in-process connection
    /// ([`Service::connect`]) each hold it. Validators are compiled on a background thread (after
    /// this and after each reload), so that calls find them ready.
    pub fn build(self) -> Result<Arc<Service>, ServeError> {
        if !self.refused.is_empty() {
            return Err(ServeError::Tools(self.refused));
        }
        let transport = self.transport_in_force();
        let (catalog, watched) = load_catalog(self.registry, self.catalog, transport)?;
        let trace = match self.trace {
            Some(path) => {
                Trace::to_file(&path).map_err(|error| ServeError::Trace { path, error })?
            }
            None => Trace::off(),
        };
        let catalog = Arc::new(catalog);
        catalog.prepare_in_background();
        let watch = watched.map(|path| catalog.watch(path, self.reload_every, self.reload_settle));
        let mut protocol = Protocol::new(self.identity);
        if let Some(size) = self.page_size {
            protocol = protocol.with_page_size(size);
        }
        if let Some(secret) = &self.state_secret {
            protocol = protocol.with_state_key(StateKey::from_secret(secret));
        }
        #[cfg(feature = "otel")]
        if let Some(telemetry) = self.telemetry {
            protocol = protocol.with_telemetry(telemetry);
        }
        Ok(Arc::new(Service {
            notices: Notices::new(&catalog),
            catalog,
            protocol,
            trace,
            options: self.options,
            #[cfg(feature = "http")]
            inflight: Arc::default(),
            #[cfg(feature = "http")]
            pending: Arc::default(),
            blocking: Arc::default(),
            _watch: watch,
            #[cfg(feature = "oauth")]
            tokens: crate::oauth::Verifier::new(self.secrets.0.clone()),
            health: crate::service::HealthChecks::default(),
        }))
    }

    /// Serves MCP (Streamable HTTP, at `/mcp`) and REST (at `/v1/tools`) on
    /// `address` until Ctrl-C or SIGTERM, then shuts down gracefully.
    ///
    /// In open mode, only a loopback address is accepted unless
    /// [`allow_open_network`](Self::allow_open_network) was called.
    #[cfg(feature = "http")]
    pub async fn serve_http(
        self,
        address: impl tokio::net::ToSocketAddrs,
    ) -> Result<(), ServeError> {
        self.bind_http(address).await?.run().await
    }

    /// Builds the service and listens on `address` without serving yet: the
    /// returned server tells its address (useful with port 0) and runs.
    #[cfg(feature = "http")]
    pub async fn bind_http(
        self,
        address: impl tokio::net::ToSocketAddrs,
    ) -> Result<crate::http::HttpServer, ServeError> {
        crate::http::HttpServer::bind(self.build()?, address).await
    }

    /// The axum router (MCP at `/mcp`, REST under `/v1/tools`), to merge
    /// into an application that listens itself. The application decides
    /// where it listens: in open mode, keep it on loopback. `GET /health`
    /// is not in it (the application has its own); to serve the service's,
    /// build it and answer with [`Service::health`].
    #[cfg(feature = "http")]
    pub fn router(self) -> Result<axum::Router, ServeError> {
        Ok(self.build()?.router())
    }

    /// Serves MCP over stdin and stdout until stdin closes (see
    /// [`Service::serve_stdio`](crate::Service::serve_stdio) to keep the
    /// service, say to follow a catalog store).
    #[cfg(feature = "stdio")]
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        self.serve_on(tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// Serves MCP as over stdio, one message per line, on `input` and
    /// `output` (a child process's pipes, a socket) until `input` ends.
    #[cfg(feature = "stdio")]
    pub async fn serve_on(
        self,
        input: impl tokio::io::AsyncRead + Unpin,
        output: impl tokio::io::AsyncWrite + Unpin + Send + 'static,
    ) -> Result<(), ServeError> {
        crate::stdio::serve(self.build()?, input, output).await
    }
}

/// The catalog of `registry` under the configuration `source`, and the file
/// to watch, if any; nothing prepared, nothing watched yet.
pub(crate) fn load_catalog(
    registry: Registry,
    source: Source,
    transport: Arc<dyn Transport>,
) -> Result<(Catalog, Option<PathBuf>), ServeError> {
    let checked = |registry: Registry, text: &str, name: &str| {
        let config = Config::from_toml(text, name, &registry).map_err(ServeError::Config)?;
        Ok::<_, ServeError>(Catalog::from_config_with(
            registry,
            &config,
            transport.clone(),
        ))
    };
    Ok(match source {
        Source::Open => (Catalog::open_with(registry, transport), None),
        Source::File(path) => {
            let text = std::fs::read_to_string(&path).map_err(|error| ServeError::Read {
                path: path.clone(),
                error,
            })?;
            let name = path.display().to_string();
            (checked(registry, &text, &name)?, Some(path))
        }
        Source::Text { text, name } => (checked(registry, &text, &name)?, None),
        Source::Config(config) => (
            Catalog::from_config_with(registry, &config, transport),
            None,
        ),
    })
}

/// The transport of configured tools when the application names none.
fn default_transport(secrets: &Secrets) -> Arc<dyn Transport> {
    #[cfg(feature = "gateway")]
    return Arc::new(toolschema_gateway::HttpTransport::new(secrets.0.clone()));
    #[cfg(not(feature = "gateway"))]
    {
        let _ = secrets;
        Arc::new(toolschema_configured::NoTransport)
    }
}
