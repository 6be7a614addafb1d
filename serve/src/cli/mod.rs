//! A service's own command line (feature `cli`): `serve`, `list`, `check`
//! and `export` over the service's own tools, from one call.
//!
//! ```no_run
//! # use toolschema_serve::Server;
//! fn main() -> std::process::ExitCode {
//!     Server::new("io.github.acme/warehouse", "1.4.0")
//!         .description("Stock levels and reservations")
//!         // .state(…).tool::<Reserve>() …
//!         .main()
//! }
//! ```
//!
//! The binary then answers:
//!
//! - `serve [--bind ADDR | --stdio] [--config FILE] [--client ID] [--allow-host HOST]`
//! - `list [--config FILE] [--client ID] [--stats | --all-clients]`
//! - `check [FILE]`
//! - `export [--config FILE] [--client ID] [--check FILE]`
//! - `diff --tool NAME [--from N] --to N [--config FILE]`, or
//!   `diff [--old FILE] --new FILE` (`--json`, `--fail-on-breaking`)
//!
//! A binary with commands of its own adds them to [`Commands`] (a clap
//! subcommand: `#[command(flatten)]`, or [`clap::Subcommand::augment_subcommands`]
//! for the builder) and hands the service's ones to [`Server::run_command`].

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{FromArgMatches, Subcommand};
use toolschema_catalog::Config;
use toolschema_catalog::export::{Scope, Verdict, verify_file};
use toolschema_catalog::versions;
use toolschema_runtime::project::ProtocolRevision;

use std::sync::Arc;

use toolschema_catalog::Snapshot;

use crate::server::{Server, Source, load_catalog};
use crate::service::export_catalog;

/// `list --stats` and `--all-clients`: what client lists cost the model,
/// in bytes and tokens (the catalog's tables).
#[cfg(feature = "tokens")]
mod stats {
    pub(crate) use toolschema_catalog::cost::{
        client_table as client, clients_table as all_clients, log_lists as log,
    };
}
#[cfg(not(feature = "tokens"))]
#[path = "no_stats.rs"]
mod stats;

/// The service's commands.
#[derive(Debug, Clone, Subcommand)]
// The program describes itself: this text is for rustdoc only.
#[command(about = None, long_about = None)]
#[non_exhaustive]
pub enum Commands {
    /// Serve the tools: MCP at /mcp and REST at /v1/tools over HTTP, or MCP over stdio.
    Serve {
        /// The catalog configuration (TOML) to serve, watched for changes;
        /// else the one given in code, or open mode.
        #[arg(long)]
        config: Option<PathBuf>,
        /// The address to listen on.
        #[arg(long, default_value = "127.0.0.1:8080")]
        bind: SocketAddr,
        /// Speak MCP over stdin and stdout instead of HTTP.
        #[arg(long)]
        stdio: bool,
        /// The client application served over stdio (else TOOLSCHEMA_CLIENT).
        #[arg(long)]
        client: Option<String>,
        /// Host names accepted in the Host and Origin headers, besides loopback.
        #[arg(long = "allow-host")]
        allow_hosts: Vec<String>,
    },
    /// Print a client's tools/list result, or what lists cost in tokens.
    List {
        /// The client application (without a configuration, everyone sees
        /// the same list).
        #[arg(long)]
        client: Option<String>,
        /// The catalog configuration; else the one given in code.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Print what the list costs (tools, bytes, tokens per mode, and
        /// against Full mode) instead of the list.
        #[arg(long)]
        stats: bool,
        /// Print what every client's list costs, one line each.
        #[arg(long, conflicts_with = "client")]
        all_clients: bool,
    },
    /// Check the tools and a configuration, and print every problem.
    Check {
        /// The catalog configuration; else the one given in code.
        config: Option<PathBuf>,
    },
    /// Print the catalog as server.json, or check a committed one.
    Export {
        /// The catalog configuration; else the one given in code.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Export what this client application sees.
        #[arg(long)]
        client: Option<String>,
        /// Compare with this committed file instead of printing
        /// (TOOLSCHEMA_BLESS=1 rewrites it).
        #[arg(long)]
        check: Option<PathBuf>,
    },
    /// Report what a change does to the clients of the catalog in force:
    /// two versions of a tool, or two configurations.
    Diff {
        /// Compare two versions of this tool (with `--to`).
        #[arg(long, requires = "to", conflicts_with_all = ["old", "new"])]
        tool: Option<String>,
        /// The version clients have now; else the one served.
        #[arg(long, requires = "tool")]
        from: Option<u32>,
        /// The version that would replace it (a draft, say).
        #[arg(long, requires = "tool")]
        to: Option<u32>,
        /// The configuration the versions are in; else the one given in code.
        #[arg(long, conflicts_with_all = ["old", "new"])]
        config: Option<PathBuf>,
        /// The configuration in force (with `--new`); else the one given in code.
        #[arg(long, requires = "new")]
        old: Option<PathBuf>,
        /// The configuration that would replace it: every client's tools
        /// are compared.
        #[arg(long, required_unless_present = "tool")]
        new: Option<PathBuf>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Fail (exit status 1) when a change may break a client: a
        /// breaking change, or one the comparison cannot decide.
        #[arg(long)]
        fail_on_breaking: bool,
    },
}

impl<S: Send + Sync + 'static> Server<S> {
    /// Runs the command line of the program (`serve`, `list`, `check`,
    /// `export`) over this server's tools and configuration, and tells how
    /// it went: return it from `main`. Errors are printed to standard error.
    ///
    /// `--help` describes the program by the server's description, and
    /// `--version` says the server's version.
    pub fn main(self) -> ExitCode {
        let program = std::env::args()
            .next()
            .as_deref()
            .map(std::path::Path::new)
            .and_then(std::path::Path::file_stem)
            .map(|stem| stem.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.identity.name().to_owned());
        let mut command = Commands::augment_subcommands(clap::Command::new(program))
            .version(self.identity.version().to_owned())
            .subcommand_required(true)
            .arg_required_else_help(true);
        if let Some(description) = self.identity.description() {
            command = command.about(description.to_owned());
        }
        let matches = command.get_matches();
        match Commands::from_arg_matches(&matches) {
            Ok(command) => exit(self.run_command(command)),
            Err(error) => error.exit(),
        }
    }

    /// Runs one of the service's commands (see [`Commands`]); what went
    /// wrong is a message for the user.
    pub fn run_command(self, command: Commands) -> Result<(), String> {
        match command {
            Commands::Serve {
                config,
                bind,
                stdio,
                client,
                allow_hosts,
            } => {
                let mut server = match config {
                    Some(path) => self.catalog_file(path),
                    None => self,
                };
                for host in allow_hosts {
                    server = server.allow_host(host);
                }
                if let Some(client) = client.or_else(|| std::env::var("TOOLSCHEMA_CLIENT").ok()) {
                    server = server.stdio_client(client);
                }
                server.serve_command(bind, stdio)
            }
            Commands::List {
                client,
                config,
                stats,
                all_clients,
            } => {
                let snapshot = self.with_config(config)?.snapshot()?;
                let client = match (client, snapshot.is_governed()) {
                    (Some(client), _) => client,
                    (None, false) => "anyone".to_owned(),
                    (None, true) if all_clients => String::new(),
                    (None, true) => {
                        return Err(
                            "name a client (`--client ID`) or ask for `--all-clients`".to_owned()
                        );
                    }
                };
                if all_clients {
                    return say(stats::all_clients(&snapshot)?);
                }
                if stats {
                    return say(stats::client(&snapshot, &client)?);
                }
                let list = snapshot
                    .discover(&client, ProtocolRevision::LATEST)
                    .map_err(|_| format!("there is no client application `{client}`"))?;
                say(list)
            }
            Commands::Check { config } => {
                let server = self.with_config(config)?;
                match server.checked_config()? {
                    None => say(format_args!(
                        "{}: ok ({} tools, no configuration: open mode)",
                        server.identity.name(),
                        server.registry.tools().count()
                    )),
                    Some((name, checked)) => say(summary(&name, &checked)),
                }
            }
            command @ Commands::Diff { .. } => self.diff(command),
            Commands::Export {
                config,
                client,
                check,
            } => {
                let server = self.with_config(config)?;
                let identity = server.identity.clone();
                let snapshot = server.snapshot()?;
                let scope = match &client {
                    Some(id) => Scope::Client(id),
                    None => Scope::Catalog,
                };
                let document =
                    export_catalog(&snapshot, &identity, scope).map_err(|e| e.to_string())?;
                match check {
                    None => say(document.trim_end_matches('\n')),
                    Some(path) => match verify_file(&path, &document).map_err(|e| e.to_string())? {
                        Verdict::Fresh => say(format_args!("{} is up to date", path.display())),
                        Verdict::Blessed => say(format_args!("{} rewritten", path.display())),
                    },
                }
            }
        }
    }

    /// The tools checked, then the configuration in force checked against
    /// them, with its name for messages; `None` in open mode. Nothing is
    /// built (no client's list).
    fn checked_config(&self) -> Result<Option<(String, Config)>, String> {
        if !self.refused.is_empty() {
            return Err(crate::ServeError::Tools(self.refused.clone()).to_string());
        }
        let (text, name) = match &self.catalog {
            Source::Open => return Ok(None),
            Source::Config(config) => {
                return Ok(Some(("the configuration".to_owned(), (**config).clone())));
            }
            Source::File(path) => (
                std::fs::read_to_string(path)
                    .map_err(|e| format!("cannot read {}: {e}", path.display()))?,
                path.display().to_string(),
            ),
            Source::Text { text, name } => (text.clone(), name.clone()),
        };
        let checked = Config::from_toml(&text, &name, &self.registry).map_err(|e| e.to_string())?;
        Ok(Some((name, checked)))
    }

    /// `diff`: two versions of a tool, or the catalog in force against a
    /// new configuration.
    fn diff(self, command: Commands) -> Result<(), String> {
        let Commands::Diff {
            tool,
            from,
            to,
            config,
            old,
            new,
            json,
            fail_on_breaking,
        } = command
        else {
            return Err("not a diff".to_owned());
        };
        let diff = match (tool, to, new) {
            (Some(tool), Some(to), _) => {
                let server = self.with_config(config)?;
                let checked = server.checked_config()?;
                let config = checked.as_ref().map(|(_, config)| config);
                versions::diff_versions(config, &server.registry, &tool, from, to)?
            }
            (_, _, Some(new_path)) => {
                let text = std::fs::read_to_string(&new_path)
                    .map_err(|e| format!("cannot read {}: {e}", new_path.display()))?;
                let (registry, transport) = (self.registry.extended(), self.transport_in_force());
                let old_name = match (&old, &self.catalog) {
                    (Some(path), _) => path.display().to_string(),
                    (None, Source::File(path)) => path.display().to_string(),
                    (None, Source::Text { name, .. }) => name.clone(),
                    (None, Source::Config(_)) => "the configuration in force".to_owned(),
                    (None, Source::Open) => "open mode".to_owned(),
                };
                let before = self.with_config(old)?.snapshot()?;
                let new_name = new_path.display().to_string();
                let source = Source::Text {
                    text,
                    name: new_name.clone(),
                };
                let (after, _) =
                    load_catalog(registry, source, transport).map_err(|e| e.to_string())?;
                versions::diff_catalogs((&old_name, &before), (&new_name, &after.snapshot()))
            }
            _ => {
                return Err(
                    "name a tool and versions (--tool, --to) or a configuration (--new)".to_owned(),
                );
            }
        };
        match json {
            true => say(diff.json)?,
            false => say(diff.text.trim_end())?,
        }
        match fail_on_breaking && diff.breaks {
            true => Err("a change may break clients (--fail-on-breaking)".to_owned()),
            false => Ok(()),
        }
    }

    /// The server reading `config` (checked once, not watched) instead of
    /// the configuration given in code, if a file is named.
    fn with_config(self, config: Option<PathBuf>) -> Result<Server<S>, String> {
        let Some(path) = config else {
            return Ok(self);
        };
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Ok(self.catalog_toml(text, path.display().to_string()))
    }

    /// The catalog's snapshot for a one-shot command: the tools checked and
    /// the configuration loaded, without compiling validators or watching
    /// the file as serving does.
    fn snapshot(self) -> Result<Arc<Snapshot>, String> {
        if !self.refused.is_empty() {
            return Err(crate::ServeError::Tools(self.refused).to_string());
        }
        let transport = self.transport_in_force();
        let (catalog, _) =
            load_catalog(self.registry, self.catalog, transport).map_err(|e| e.to_string())?;
        Ok(catalog.snapshot())
    }

    /// `serve`: over stdio, or over HTTP with a banner saying where.
    fn serve_command(self, bind: SocketAddr, stdio: bool) -> Result<(), String> {
        log_to_stderr();
        let name = self.identity.name().to_owned();
        runtime()?.block_on(async move {
            if stdio {
                return self.serve_stdio().await.map_err(command_line_error);
            }
            let http = self.bind_http(bind).await.map_err(|e| e.to_string())?;
            announce(&http, &name);
            http.run().await.map_err(|e| e.to_string())
        })
    }
}

/// What a serving error means on the command line: the flags to give, where
/// the library's message names the builder's methods.
pub fn command_line_error(error: crate::ServeError) -> String {
    match error {
        crate::ServeError::NoStdioClient => "serving over stdio with a catalog configuration needs the client application to serve: name it with --client ID (or TOOLSCHEMA_CLIENT), or configure a `keyless_client`".to_owned(),
        error => error.to_string(),
    }
}

/// Logs to standard error, without colours, as `serve` does. A program
/// that set up logging itself keeps its own.
pub fn log_to_stderr() {
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}

/// The multi-threaded runtime a command serves on.
pub fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))
}

/// Says where `http` serves on standard error (`NAME is serving on
/// http://ADDRESS`, then the MCP and REST addresses, in one write) and, with
/// the `tokens` feature, logs what each client's list costs once the
/// tokenizer has loaded (on a thread of its own).
pub fn announce(http: &crate::HttpServer, name: &str) {
    let local = http.local_addr();
    #[cfg(feature = "tokens")]
    {
        let catalog = http.service().catalog().clone();
        std::thread::spawn(move || stats::log(&catalog.snapshot()));
    }
    let keys = match http.service().is_open() {
        true => " (open mode: no key needed)",
        false => "",
    };
    // One write, so that a reader never sees half the address.
    let banner = format!(
        "{name} is serving on http://{local}\n  MCP (Streamable HTTP): http://{local}/mcp\n  REST: http://{local}/v1/tools\n  authenticate with `Authorization: Bearer <key>` or `X-API-Key: <key>`{keys}\n"
    );
    let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), banner.as_bytes());
}

pub use toolschema_catalog::check_summary as summary;

/// The exit code of a command's outcome, its error printed.
pub fn exit(outcome: Result<(), String>) -> ExitCode {
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Writes `text` and a newline to standard output. A reader that has
/// stopped reading (`list | head`) is not an error: the output it wanted has
/// gone, and there is nothing else to say.
pub fn say(text: impl std::fmt::Display) -> Result<(), String> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write to standard output: {error}"))
        }
        _ => Ok(()),
    }
}
