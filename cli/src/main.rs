//! `toolschema`: serve a governed tool catalog over MCP (Streamable HTTP or
//! stdio) and REST, list what a client sees, check a configuration, export
//! `server.json`.
//!
//! The binary serves the demo tools (`examples/demo`) through the serving
//! library (`toolschema::serve`), as any service would serve its own.
//! Without `--config` it uses the embedded demo configuration
//! (`examples/catalog.toml`: two tenants, three clients, all three
//! discovery modes).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use toolschema::catalog::gateway::SoapVersion;
use toolschema::catalog::import::{
    ImportOptions, Imported, import_openapi, import_wsdl, parse_document,
};
use toolschema::catalog::{Catalog, Config, hash_api_key};
use toolschema::export::{Scope, Verdict, export, verify_file};
use toolschema::project::Revision;
use toolschema::serve::Server;

mod admin;
mod stats;
mod telemetry;

#[derive(Parser)]
#[command(
    name = "toolschema",
    version,
    about = "Serve, check and export governed MCP tool catalogs"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the catalog: MCP at /mcp and REST at /v1/tools over HTTP, or MCP over stdio.
    Serve {
        /// The catalog configuration (TOML); the embedded demo when absent.
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
        /// Open mode: no configuration, every demo tool in Full mode for
        /// anyone, no API key (loopback addresses only).
        #[arg(long, conflicts_with_all = ["config", "database_url"])]
        open: bool,
        /// Serve the configuration of this catalog store (PostgreSQL), and
        /// follow its changes live (else TOOLSCHEMA_DATABASE_URL).
        #[arg(long, conflicts_with = "config")]
        database_url: Option<String>,
        /// With a catalog store: serve its admin REST API on this address
        /// (operators' keys only; see `toolschema admin add-operator`).
        #[arg(long)]
        admin_bind: Option<SocketAddr>,
    },
    /// Print a client's tools/list result, or what lists cost in tokens.
    List {
        /// The client application.
        #[arg(long, required_unless_present = "all_clients")]
        client: Option<String>,
        /// The catalog configuration; the embedded demo when absent.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Print what the client's list costs (tools, bytes, tokens per
        /// mode, and against Full mode) instead of the list.
        #[arg(long)]
        stats: bool,
        /// Print what every client's list costs, one line each.
        #[arg(long, conflicts_with = "client")]
        all_clients: bool,
    },
    /// Check a configuration, or a catalog store's, and print every problem.
    Check {
        /// The catalog configuration (else the catalog store of
        /// --database-url or TOOLSCHEMA_DATABASE_URL).
        config: Option<PathBuf>,
        /// Check this catalog store's configuration instead.
        #[arg(long, conflicts_with = "config")]
        database_url: Option<String>,
    },
    /// Print the catalog as server.json, or check a committed one.
    Export {
        /// The catalog configuration; the embedded demo when absent.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Export the configuration of this catalog store instead.
        #[arg(long, conflicts_with = "config")]
        database_url: Option<String>,
        /// Export what this client application sees.
        #[arg(long)]
        client: Option<String>,
        /// Compare with this committed file instead of printing (TOOLSCHEMA_BLESS=1 rewrites it).
        #[arg(long)]
        check: Option<PathBuf>,
    },
    /// Print the hash to configure for an API key.
    HashKey {
        /// The key.
        key: String,
    },
    /// Write gateway tools (draft versions) from an API description.
    Import {
        #[command(subcommand)]
        source: ImportSource,
        /// Add the drafts to this catalog store (else TOOLSCHEMA_DATABASE_URL
        /// is not read: the tools are printed or added to `--into`).
        #[arg(long, global = true)]
        database_url: Option<String>,
    },
    /// Change a catalog store's configuration: the publish workflow, checked and audited.
    Admin {
        /// The catalog store (else TOOLSCHEMA_DATABASE_URL).
        #[arg(long, global = true)]
        database_url: Option<String>,
        /// Who acts, as the audit trail shows it (default `cli:$USER`).
        #[arg(long, global = true)]
        actor: Option<String>,
        #[command(subcommand)]
        command: admin::Admin,
    },
}

#[derive(Subcommand)]
enum ImportSource {
    /// Read an OpenAPI 3.0 or 3.1 document (JSON or YAML).
    Openapi {
        /// The document.
        file: PathBuf,
        /// The operationIds to import, comma-separated; all when absent.
        #[arg(long, value_delimiter = ',')]
        operations: Vec<String>,
        /// The id of the downstream written for the API.
        #[arg(long, default_value = "api")]
        downstream: String,
        /// The API's base URL (else the document's first server).
        #[arg(long)]
        base_url: Option<String>,
        /// Put before every tool name (for example `petstore.`).
        #[arg(long, default_value = "")]
        prefix: String,
        /// Add the tools to this configuration, which is written back only
        /// if the result passes `check` (else printed to standard output).
        #[arg(long)]
        into: Option<PathBuf>,
    },
    /// Read a WSDL 1.1 document (document/literal SOAP operations).
    Wsdl {
        /// The document.
        file: PathBuf,
        /// The operation names to import, comma-separated; all when absent.
        #[arg(long, value_delimiter = ',')]
        operations: Vec<String>,
        /// The id of the downstream written for the service.
        #[arg(long, default_value = "soap")]
        downstream: String,
        /// The service's URL (else the port's address).
        #[arg(long)]
        base_url: Option<String>,
        /// Put before every tool name (for example `insurance.`).
        #[arg(long, default_value = "")]
        prefix: String,
        /// The SOAP version of the port to read, 1.1 or 1.2 (else the
        /// first SOAP 1.1 port).
        #[arg(long)]
        soap_version: Option<String>,
        /// Add the tools to this configuration, which is written back only
        /// if the result passes `check` (else printed to standard output).
        #[arg(long)]
        into: Option<PathBuf>,
    },
}

/// The demo configuration's name in messages.
const EMBEDDED: &str = "examples/catalog.toml (embedded)";

/// Loads the catalog over the demo tools.
fn load(config: Option<&PathBuf>) -> Result<Catalog, String> {
    let registry = toolschema_demo::registry();
    match config {
        None => Catalog::from_toml(registry, toolschema_demo::CATALOG_TOML, EMBEDDED)
            .map_err(|e| e.to_string()),
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            Catalog::from_toml(registry, &text, &path.display().to_string())
                .map_err(|e| e.to_string())
        }
    }
}

/// Writes `text` and a newline to standard output. A reader that has
/// stopped reading (`toolschema list | head`) is not an error: the output
/// it wanted has gone, and there is nothing else to say.
fn say(text: impl std::fmt::Display) -> Result<(), String> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write to standard output: {error}"))
        }
        _ => Ok(()),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Serve {
            config,
            bind,
            stdio,
            client,
            allow_hosts,
            open,
            database_url,
            admin_bind,
        } => {
            tracing_subscriber::fmt()
                .with_writer(std::io::stderr)
                .with_ansi(false)
                .init();
            let database_url = database_url.or_else(|| {
                (config.is_none() && !open)
                    .then(|| std::env::var(admin::DATABASE_URL).ok())
                    .flatten()
                    .filter(|url| !url.trim().is_empty())
            });
            let store = database_url
                .map(|url| admin::store(Some(url)))
                .transpose()?;
            if admin_bind.is_some() && store.is_none() {
                return Err(
                    "--admin-bind serves a catalog store's admin API: give --database-url too"
                        .to_owned(),
                );
            }
            let mut server = Server::new("toolschema", env!("CARGO_PKG_VERSION"))
                .title("toolschema demo catalog")
                .registry(toolschema_demo::registry());
            server = match &config {
                Some(path) => server.catalog_file(path),
                None if open || store.is_some() => server,
                None => server.catalog_toml(toolschema_demo::CATALOG_TOML, EMBEDDED),
            };
            for host in allow_hosts {
                server = server.allow_host(host);
            }
            if let Some(client) = client.or_else(|| std::env::var("TOOLSCHEMA_CLIENT").ok()) {
                server = server.stdio_client(client);
            }
            if let Some(trace) = std::env::var_os("TOOLSCHEMA_TRACE") {
                server = server.trace_file(trace);
            }
            // Replicas given the same secret continue each other's calls.
            if let Ok(secret) = std::env::var("TOOLSCHEMA_STATE_KEY") {
                server = server.state_secret(secret);
            }
            let exporting = telemetry::from_environment()?;
            if let Some(exporting) = &exporting {
                server = server.telemetry(exporting.telemetry());
                tracing::info!("exporting traces and metrics by OTLP");
            }
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .map_err(|e| format!("cannot start the runtime: {e}"))?;
            let served = runtime.block_on(async move {
                let mut revision = 0;
                if let Some(store) = &store {
                    let loaded = store
                        .load(&toolschema_demo::registry())
                        .await
                        .map_err(|e| e.to_string())?;
                    tracing::info!(database = %store.database(), revision = loaded.revision, "catalog store loaded");
                    revision = loaded.revision;
                    server = server.catalog_config(loaded.config);
                }
                if stdio {
                    let service = std::sync::Arc::new(server.build().map_err(|e| e.to_string())?);
                    let _following = store
                        .as_ref()
                        .map(|store| store.follow(service.catalog().clone(), revision));
                    return service.serve_stdio().await.map_err(|e| e.to_string());
                }
                let http = server.bind_http(bind).await.map_err(|e| e.to_string())?;
                let local = http.local_addr();
                let _following = match &store {
                    Some(store) => Some(admin::follow(store, &http, revision, admin_bind).await?),
                    None => None,
                };
                // What each client's list costs, logged once the server is
                // up (loading the tokenizer takes a moment).
                let catalog = http.service().catalog().clone();
                std::thread::spawn(move || stats::log(&catalog.snapshot()));
                let keys = match (&config, open) {
                    (_, true) => " (open mode: no key needed)",
                    (None, false) if _following.is_some() => "",
                    (None, false) => {
                        " (demo keys: demo-acme-finance-key, demo-acme-assistant-key, demo-acme-analyst-key, demo-globex-support-key)"
                    }
                    (Some(_), false) => "",
                };
                // One write, so that a reader never sees half the address.
                let banner = format!(
                    "toolschema is serving on http://{local}\n  MCP (Streamable HTTP): http://{local}/mcp\n  REST: http://{local}/v1/tools\n  authenticate with `Authorization: Bearer <key>` or `X-API-Key: <key>`{keys}\n"
                );
                let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), banner.as_bytes());
                http.run().await.map_err(|e| e.to_string())
            });
            drop(runtime);
            if let Some(exporting) = exporting {
                exporting.shutdown();
            }
            served
        }
        Command::List {
            client,
            config,
            stats,
            all_clients,
        } => {
            let catalog = load(config.as_ref())?;
            let snapshot = catalog.snapshot();
            match client {
                Some(client) if !stats => {
                    let list = snapshot
                        .discover(&client, Revision::LATEST)
                        .map_err(|_| format!("there is no client application `{client}`"))?;
                    say(list)
                }
                Some(client) => say(stats::client(&snapshot, &client)?),
                None if all_clients => say(stats::all_clients(&snapshot)?),
                None => Err("name a client (`--client ID`) or ask for `--all-clients`".to_owned()),
            }
        }
        Command::Check {
            config,
            database_url,
        } => {
            let registry = toolschema_demo::registry();
            let (checked, name) = match config {
                Some(config) => {
                    let text = std::fs::read_to_string(&config)
                        .map_err(|e| format!("cannot read {}: {e}", config.display()))?;
                    let name = config.display().to_string();
                    (
                        Config::from_toml(&text, &name, &registry).map_err(|e| e.to_string()),
                        name,
                    )
                }
                None => {
                    let store = admin::store(database_url)?;
                    let loaded = admin::runtime()?.block_on(store.load(&registry));
                    (
                        loaded
                            .map(|loaded| loaded.config)
                            .map_err(|e| e.to_string()),
                        store.database().to_owned(),
                    )
                }
            };
            match checked {
                Ok(checked) => say(format_args!(
                    "{}: ok ({} tenants, {} toolsets, {} client applications, {} gateway tools)",
                    name,
                    checked.tenants().count(),
                    checked.toolsets().count(),
                    checked.clients().count(),
                    checked.gateway_tools().len()
                )),
                Err(errors) => Err(errors),
            }
        }
        Command::Export {
            config,
            database_url,
            client,
            check,
        } => {
            let catalog = match database_url {
                Some(url) => admin::catalog(&admin::store(Some(url))?)?,
                None => load(config.as_ref())?,
            };
            let scope = match &client {
                Some(id) => Scope::Client(id),
                None => Scope::Catalog,
            };
            let document = export(&catalog.snapshot(), scope).map_err(|e| e.to_string())?;
            match check {
                None => say(document.trim_end_matches('\n')),
                Some(path) => match verify_file(&path, &document).map_err(|e| e.to_string())? {
                    Verdict::Fresh => say(format_args!("{} is up to date", path.display())),
                    Verdict::Blessed => say(format_args!("{} rewritten", path.display())),
                },
            }
        }
        Command::HashKey { key } => say(hash_api_key(&key)),
        Command::Admin {
            database_url,
            actor,
            command,
        } => admin::run(database_url, actor, command),
        Command::Import {
            source:
                ImportSource::Openapi {
                    file,
                    operations,
                    downstream,
                    base_url,
                    prefix,
                    into,
                },
            database_url,
        } => {
            let text = std::fs::read_to_string(&file)
                .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            let document = parse_document(&text).map_err(|e| format!("{}: {e}", file.display()))?;
            let options = ImportOptions {
                operations,
                downstream,
                base_url,
                prefix,
                soap_version: None,
            };
            let imported = import_openapi(&document, &options)
                .map_err(|e| format!("{}: {e}", file.display()))?;
            write_imported(&imported, into.as_ref(), database_url)
        }
        Command::Import {
            source:
                ImportSource::Wsdl {
                    file,
                    operations,
                    downstream,
                    base_url,
                    prefix,
                    soap_version,
                    into,
                },
            database_url,
        } => {
            let soap_version = match soap_version.as_deref() {
                None => None,
                Some(word) => Some(
                    SoapVersion::from_name(word)
                        .ok_or_else(|| format!("unknown SOAP version `{word}`; use 1.1 or 1.2"))?,
                ),
            };
            let document =
                std::fs::read(&file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            let options = ImportOptions {
                operations,
                downstream,
                base_url,
                prefix,
                soap_version,
            };
            let imported =
                import_wsdl(&document, &options).map_err(|e| format!("{}: {e}", file.display()))?;
            write_imported(&imported, into.as_ref(), database_url)
        }
    }
}

/// Reports what an import skipped, then prints the tools, or adds them to
/// the configuration `into` if the whole still passes its checks.
fn write_imported(
    imported: &Imported,
    into: Option<&PathBuf>,
    database_url: Option<String>,
) -> Result<(), String> {
    for skipped in &imported.skipped {
        eprintln!("skipped {}: {}", skipped.operation, skipped.reason);
    }
    eprintln!(
        "{} tools written as drafts: review them, add them to toolsets, and publish",
        imported.tools.len()
    );
    if database_url.is_some() {
        if into.is_some() {
            return Err(
                "add the tools to a file (--into) or to a store (--database-url), not both"
                    .to_owned(),
            );
        }
        return admin::import(database_url, &imported.toml);
    }
    let Some(into) = into else {
        return say(imported.toml.trim_end());
    };
    let current = std::fs::read_to_string(into)
        .map_err(|e| format!("cannot read {}: {e}", into.display()))?;
    let combined = format!("{}\n\n{}", current.trim_end(), imported.toml);
    let registry = toolschema_demo::registry();
    Config::from_toml(&combined, &into.display().to_string(), &registry)
        .map_err(|e| format!("the configuration with the imported tools does not pass its checks, so {} is unchanged:\n{e}", into.display()))?;
    // Written whole, then renamed: a reader never sees half a file.
    let partial = into.with_extension("toml.partial");
    std::fs::write(&partial, combined)
        .and_then(|()| std::fs::rename(&partial, into))
        .map_err(|e| format!("cannot write {}: {e}", into.display()))?;
    say(format_args!(
        "{}: {} gateway tools added",
        into.display(),
        imported.tools.len()
    ))
}
