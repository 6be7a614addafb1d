//! `toolschema`: serve a governed tool catalog over MCP (Streamable HTTP or
//! stdio) and REST, list what a client sees, check a configuration, export
//! `server.json`.
//!
//! The binary is the serving library's command line (`serve`, `list`,
//! `check`, `export`, `diff`: `Server::run_command`) with a catalog store's
//! options added. An operator's configuration (`--config FILE` or a
//! catalog store) brings its own tools: configured tools calling REST and
//! SOAP APIs. The demo's Rust tools (`examples/demo`) are served only when
//! asked for: with no configuration given (then with the embedded demo
//! configuration, `examples/catalog.toml`: two tenants, three clients,
//! every discovery mode), in open mode, or with `--demo`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Arg, ArgAction, ArgMatches, FromArgMatches, Subcommand, value_parser};
use toolschema::Registry;
use toolschema::catalog::{Config, hash_api_key};
use toolschema::serve::Server;
use toolschema_configured::SoapVersion;
use toolschema_import::{
    ImportOptions, Imported, import_openapi, import_wsdl_file, parse_document,
};
use toolschema_serve::cli::{
    Commands, announce, command_line_error, exit, log_to_stderr, runtime, say, summary,
};

mod admin;
mod telemetry;

/// The binary's allocator. A reload checks and builds the whole catalog
/// from many small values: with mimalloc a 10,000-tool catalog's check
/// takes about 60% of the time it takes with the system's allocator
/// (benches/README.md, "The catalog store"). A service that embeds the
/// library chooses its own.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The Rust tools the binary serves: the demo's when asked for, else none
/// (an operator's configuration brings configured tools).
fn registry(demo: bool) -> Registry {
    if demo {
        toolschema_demo::registry()
    } else {
        Registry::new()
    }
}

/// The binary's own commands, beside the service's (`serve`, `list`,
/// `check`, `export`, which every service built on the library has).
#[derive(Subcommand)]
enum Own {
    /// Print the hash to configure for an API key.
    HashKey {
        /// The key.
        key: String,
    },
    /// Write configured tools (draft versions) from an API description.
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
        /// Make a change that may break a tool's clients, accepting the
        /// report of that digest (printed when the change was refused); repeat for several.
        #[arg(long, global = true, value_name = "DIGEST")]
        accept: Vec<String>,
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
    /// Read a WSDL 1.1 document (literal SOAP operations, document or rpc style).
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
        /// A SOAP header part that is a credential, and the secret (an
        /// environment variable) it is sent from: `PART=VARIABLE`; repeat
        /// for several. Parts named like a token, password, secret, key or
        /// user name are credentials anyway (their secret named after the
        /// downstream and the part); other header parts are arguments.
        #[arg(long, value_name = "PART=VARIABLE", value_parser = part_and_secret)]
        soap_header_secret: Vec<(String, String)>,
        /// Add the tools to this configuration, which is written back only
        /// if the result passes `check` (else printed to standard output).
        #[arg(long)]
        into: Option<PathBuf>,
    },
}

/// The demo configuration's name in messages.
const EMBEDDED: &str = "examples/catalog.toml (embedded)";

/// The keys of the embedded demo configuration, told when it is served.
const DEMO_KEYS: &str = "demo keys: demo-acme-finance-key, demo-acme-assistant-key, demo-acme-analyst-key, demo-globex-support-key";

/// The `--database-url` a command may take beside the service's options.
fn database_url() -> Arg {
    Arg::new("database_url")
        .long("database-url")
        .value_name("URL")
        .conflicts_with("config")
}

/// The command line: the service's commands, with a catalog store's
/// options and `--demo` added, and the binary's own commands.
fn command() -> clap::Command {
    let command = Commands::augment_subcommands(clap::Command::new("toolschema"));
    Own::augment_subcommands(command)
        .version(env!("CARGO_PKG_VERSION"))
        .arg(
            Arg::new("demo")
                .long("demo")
                .global(true)
                .action(ArgAction::SetTrue)
                .help("Serve (or check against) the demo's Rust tools beside the configuration's; they are served anyway when no configuration is given"),
        )
        .about("Serve, check and export governed MCP tool catalogs")
        .subcommand_required(true)
        .arg_required_else_help(true)
        .mut_subcommand("serve", |serve| {
            serve
                .arg(
                    Arg::new("open")
                        .long("open")
                        .action(ArgAction::SetTrue)
                        .conflicts_with_all(["config", "database_url"])
                        .help("Open mode: no configuration, every demo tool in Full mode for anyone, no API key (loopback addresses only)"),
                )
                .arg(database_url().help(
                    "Serve the configuration of this catalog store (PostgreSQL), and follow its changes live (else TOOLSCHEMA_DATABASE_URL)",
                ))
                .arg(
                    Arg::new("admin_bind")
                        .long("admin-bind")
                        .value_name("ADDRESS")
                        .value_parser(value_parser!(SocketAddr))
                        .help("With a catalog store: serve its admin REST API on this address (operators' keys only; see `toolschema admin add-operator`)"),
                )
        })
        .mut_subcommand("check", |check| {
            check.arg(database_url().help(
                "Check this catalog store's configuration instead (else TOOLSCHEMA_DATABASE_URL, when no file is named)",
            ))
        })
        .mut_subcommand("export", |export| {
            export.arg(database_url().help("Export the configuration of this catalog store instead"))
        })
        .mut_subcommand("diff", |diff| {
            diff.arg(
                database_url()
                    .conflicts_with("old")
                    .help("Compare with the configuration of this catalog store: its versions (with --tool), or what --new changes for its clients"),
            )
        })
}

/// The service the binary is, described for `serverInfo`: with the demo's
/// tools, or with none of its own.
fn service(demo: bool) -> Server {
    let server = Server::new("toolschema", env!("CARGO_PKG_VERSION"));
    if demo {
        server
            .title("toolschema demo catalog")
            .registry(registry(true))
    } else {
        server
    }
}

/// The configuration file a service command reads, if any; else it reads
/// the embedded demo configuration, or a catalog store's.
fn configuration_file(command: &Commands) -> Option<&PathBuf> {
    match command {
        Commands::Serve { config, .. }
        | Commands::List { config, .. }
        | Commands::Check { config }
        | Commands::Export { config, .. } => config.as_ref(),
        Commands::Diff { config, old, .. } => config.as_ref().or(old.as_ref()),
        _ => None,
    }
}

fn main() -> ExitCode {
    huge_pages_off();
    exit(run(&command().get_matches()))
}

/// Turns transparent huge pages off for this process, unless the
/// environment says otherwise (`MIMALLOC_ALLOW_THP`, which mimalloc also
/// reads). mimalloc asks for them, and on a host whose memory is
/// fragmented (a database's bulk write just filled the page cache) the
/// kernel compacts memory on the first faults: a replica of 100,000 tools
/// took 4.2 s to start instead of 1.9. Without them every start took about
/// 2.5 s, and serving was as fast (benches/README.md, "Platform scale").
fn huge_pages_off() {
    #[cfg(target_os = "linux")]
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        // SAFETY: `prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0)` reads no memory
        // of ours and changes only this process's huge page policy; a
        // failure (an old kernel) leaves the policy as it was.
        #[allow(unsafe_code)]
        let _ = unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1 as libc::c_ulong, 0, 0, 0) };
    }
}

fn run(matches: &ArgMatches) -> Result<(), String> {
    let Some((name, options)) = matches.subcommand() else {
        return Err("name a command (see --help)".to_owned());
    };
    let asked = options.get_flag("demo");
    if Own::has_subcommand(name) {
        return run_own(
            Own::from_arg_matches(matches).map_err(|e| e.to_string())?,
            asked,
        );
    }
    let command = Commands::from_arg_matches(matches).map_err(|e| e.to_string())?;
    let given_url = options
        .try_get_one::<String>("database_url")
        .ok()
        .flatten()
        .cloned();
    let open = options.try_get_one::<bool>("open").ok().flatten() == Some(&true);
    // A file or a store is the operator's configuration; the demo's tools
    // come with it only when asked for.
    let own = configuration_file(&command).is_some();
    let result = match &command {
        Commands::Serve {
            config,
            bind,
            stdio,
            client,
            ..
        } => {
            // The store is read from the environment too, unless a file or
            // open mode is asked for.
            let database_url = given_url.or_else(|| {
                (config.is_none() && !open)
                    .then(|| std::env::var(admin::DATABASE_URL).ok())
                    .flatten()
                    .filter(|url| !url.trim().is_empty())
            });
            let demo = asked || open || (!own && database_url.is_none());
            let admin_bind = options.get_one::<SocketAddr>("admin_bind").copied();
            let mut server = service(demo);
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
            }
            let served = match database_url {
                Some(url) => {
                    let client = client
                        .clone()
                        .or_else(|| std::env::var("TOOLSCHEMA_CLIENT").ok());
                    let store = Serving {
                        bind: *bind,
                        stdio: *stdio,
                        client,
                        admin_bind,
                        demo,
                    };
                    serve_store(server, url, store, &command)
                }
                None if admin_bind.is_some() => Err(
                    "--admin-bind serves a catalog store's admin API: give --database-url too"
                        .to_owned(),
                ),
                None => {
                    if config.is_none() && !open {
                        server = server.catalog_toml(toolschema_demo::CATALOG_TOML, EMBEDDED);
                        if !*stdio {
                            eprintln!("{DEMO_KEYS}");
                        }
                    }
                    server.run_command(command.clone())
                }
            };
            if let Some(exporting) = exporting {
                exporting.shutdown();
            }
            served
        }
        Commands::Check { config, .. } => {
            let database_url = given_url.or_else(|| {
                config
                    .is_none()
                    .then(|| std::env::var(admin::DATABASE_URL).ok())
                    .flatten()
                    .filter(|url| !url.trim().is_empty())
            });
            match database_url {
                Some(url) => check_store(url, asked),
                None => with_demo_config(asked || !own).run_command(command.clone()),
            }
        }
        Commands::Export { .. } | Commands::Diff { .. } => match given_url {
            Some(url) => {
                let config = admin::config(&admin::store(Some(url))?, asked)?;
                service(asked)
                    .catalog_config(config)
                    .run_command(command.clone())
            }
            None => with_demo_config(asked || !own).run_command(command.clone()),
        },
        _ => with_demo_config(asked || !own).run_command(command.clone()),
    };
    result.map_err(|error| names_the_demo(error, asked, &command))
}

/// The service over the demo's tools with the embedded demo configuration
/// (a `--config` given to the command replaces it), or with neither.
fn with_demo_config(demo: bool) -> Server {
    if demo {
        service(true).catalog_toml(toolschema_demo::CATALOG_TOML, EMBEDDED)
    } else {
        service(false)
    }
}

/// A refused configuration file that the demo's tools would make whole
/// says so: its author may have meant `--demo`.
fn names_the_demo(error: String, asked: bool, command: &Commands) -> String {
    let file = configuration_file(command).or(match command {
        Commands::Diff { new, .. } => new.as_ref(),
        _ => None,
    });
    // Refused without the demo's tools and whole with them (an error of
    // another kind, say a port in use, gets no hint).
    let wants_demo = |path: &PathBuf| {
        std::fs::read_to_string(path).is_ok_and(|text| {
            let name = path.display().to_string();
            Config::from_toml(&text, &name, &registry(false)).is_err()
                && Config::from_toml(&text, &name, &registry(true)).is_ok()
        })
    };
    match file {
        Some(path) if !asked && wants_demo(path) => format!(
            "{error}\n{} names the demo's tools, which this binary serves only with --demo",
            path.display()
        ),
        _ => error,
    }
}

/// `check --database-url`: the store's configuration, checked as it loads.
fn check_store(url: String, demo: bool) -> Result<(), String> {
    let store = admin::store(Some(url))?;
    let checked = admin::config(&store, demo)?;
    say(summary(store.database(), &checked))
}

/// How `serve --database-url` serves the store's configuration.
struct Serving {
    /// The HTTP address (unless over stdio).
    bind: SocketAddr,
    /// MCP over stdin and stdout instead of HTTP.
    stdio: bool,
    /// The client application served over stdio.
    client: Option<String>,
    /// Where the store's admin API listens, if it is served.
    admin_bind: Option<SocketAddr>,
    /// The demo's tools are served (the store's configuration names them).
    demo: bool,
}

/// `serve --database-url`: the store's configuration, followed live, with
/// its admin API if asked for.
fn serve_store(
    mut server: Server,
    url: String,
    serving: Serving,
    command: &Commands,
) -> Result<(), String> {
    let Serving {
        bind,
        stdio,
        client,
        admin_bind,
        demo,
    } = serving;
    log_to_stderr();
    let store = admin::store(Some(url))?;
    if let Some(client) = client {
        server = server.stdio_client(client);
    }
    if let Commands::Serve { allow_hosts, .. } = command {
        for host in allow_hosts {
            server = server.allow_host(host.clone());
        }
    }
    runtime()?.block_on(async move {
        // The records are not kept while the catalog is built: the
        // follower reads them again once serving.
        let (revision, config) = admin::load_config(&store, demo).await?;
        tracing::info!(database = %store.database(), revision, "catalog store loaded");
        server = server.catalog_config(config);
        if stdio {
            let service = server.build().map_err(|e| e.to_string())?;
            let _following = store.follow(service.catalog().clone(), revision);
            return service.serve_stdio().await.map_err(command_line_error);
        }
        let http = server.bind_http(bind).await.map_err(|e| e.to_string())?;
        let _following = admin::follow(&store, &http, revision, admin_bind).await?;
        announce(&http, "toolschema");
        http.run().await.map_err(|e| e.to_string())
    })
}

fn run_own(own: Own, demo: bool) -> Result<(), String> {
    match own {
        Own::HashKey { key } => say(hash_api_key(&key)),
        Own::Admin {
            database_url,
            actor,
            accept,
            command,
        } => admin::run(database_url, actor, accept, command, demo),
        Own::Import {
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
                soap_header_secrets: Vec::new(),
            };
            let imported = import_openapi(&document, &options)
                .map_err(|e| format!("{}: {e}", file.display()))?;
            // Not held while the result is checked (Graph beta's parsed
            // document is 288 MiB).
            drop((text, document));
            write_imported(&imported, into.as_ref(), database_url, demo)
        }
        Own::Import {
            source:
                ImportSource::Wsdl {
                    file,
                    operations,
                    downstream,
                    base_url,
                    prefix,
                    soap_version,
                    soap_header_secret,
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
            let options = ImportOptions {
                operations,
                downstream,
                base_url,
                prefix,
                soap_version,
                soap_header_secrets: soap_header_secret,
            };
            // The schema files it imports are read from beside it.
            let imported = import_wsdl_file(&file, &options)
                .map_err(|e| format!("{}: {e}", file.display()))?;
            write_imported(&imported, into.as_ref(), database_url, demo)
        }
    }
}

/// `PART=VARIABLE` of `--soap-header-secret`.
fn part_and_secret(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((part, variable)) if !part.is_empty() && !variable.is_empty() => {
            Ok((part.to_owned(), variable.to_owned()))
        }
        _ => Err(format!(
            "`{text}` is not PART=VARIABLE (the header part, then the environment variable holding its value)"
        )),
    }
}

/// Reports what an import skipped, then prints the tools, or adds them to
/// the configuration `into` if the whole still passes its checks.
fn write_imported(
    imported: &Imported,
    into: Option<&PathBuf>,
    database_url: Option<String>,
    demo: bool,
) -> Result<(), String> {
    for skipped in &imported.skipped {
        eprintln!("skipped {}: {}", skipped.operation, skipped.reason);
    }
    // What was left out of the tools written, or is to be read before
    // publishing (text that imitates prompt markup).
    for note in &imported.dropped {
        eprintln!("note {}: {}", note.operation, note.reason);
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
        return admin::import(database_url, &imported.toml, demo);
    }
    let Some(into) = into else {
        return say(imported.toml.trim_end());
    };
    let current = std::fs::read_to_string(into)
        .map_err(|e| format!("cannot read {}: {e}", into.display()))?;
    let combined = format!("{}\n\n{}", current.trim_end(), imported.toml);
    Config::from_toml(&combined, &into.display().to_string(), &registry(demo))
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
