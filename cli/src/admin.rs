//! `toolschema admin …`: the publish workflow on a catalog store, the same
//! actions as the admin REST API, each checked, written in one transaction
//! and audited under the actor's name.

use std::path::{Path, PathBuf};

use clap::{Arg, ArgMatches, Command, FromArgMatches, Subcommand, value_parser};
use toolschema::Registry;
use toolschema::catalog::Config;
use toolschema_store::{Action, ActionKind, Argument, Body, Given, Records, Shape, Store};

use crate::say;

/// The environment variable that names the catalog store.
pub(crate) const DATABASE_URL: &str = "TOOLSCHEMA_DATABASE_URL";

#[derive(Subcommand)]
pub(crate) enum Admin {
    /// Create the store's tables, or upgrade them to this version's schema.
    Migrate,
    /// Print the stored configuration as a configuration file.
    Show,
    /// An action of the publish workflow (the store's one list of them:
    /// draft, propose, publish, deprecate, activate, deactivate, assign,
    /// unassign, rotate-key, put, delete, setting, replace, import).
    #[command(flatten)]
    Workflow(Workflow),
    /// Add an operator of the admin API; prints its key once.
    AddOperator {
        /// The operator's name, as the audit trail shows it.
        name: String,
    },
    /// Remove an operator of the admin API: its key stops working.
    RemoveOperator {
        /// The operator's name.
        name: String,
    },
    /// Give an operator of the admin API a new key; prints it once. The old
    /// key stops working, and the console sessions logged in with it end.
    RotateOperator {
        /// The operator's name.
        name: String,
    },
    /// Print the newest entries of the audit trail.
    Audit {
        /// How many.
        #[arg(long, default_value_t = 20)]
        limit: i64,
    },
}

/// The store named by `--database-url` or `TOOLSCHEMA_DATABASE_URL`.
pub(crate) fn store(url: Option<String>) -> Result<Store, String> {
    let url = url
        .or_else(|| std::env::var(DATABASE_URL).ok())
        .filter(|url| !url.trim().is_empty())
        .ok_or_else(|| format!("name the catalog store: --database-url URL or {DATABASE_URL}"))?;
    Store::new(&url).map_err(|e| e.to_string())
}

/// A runtime for one command.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))
}

/// The store's configuration, checked as it loads (against the demo's
/// tools with `--demo`).
pub(crate) fn config(store: &Store, demo: bool) -> Result<Config, String> {
    let (_, config) = runtime()?.block_on(load_config(store, demo))?;
    Ok(config)
}

/// The store's revision and configuration, checked against the tools the
/// binary serves. A configuration refused only for naming the demo's tools
/// says so: its operator may have meant `--demo`.
pub(crate) async fn load_config(store: &Store, demo: bool) -> Result<(i64, Config), String> {
    match store.load_config(&crate::registry(demo)).await {
        Ok(loaded) => Ok(loaded),
        Err(error) if !demo && store.load_config(&crate::registry(true)).await.is_ok() => {
            Err(format!(
                "{error}\nthe store's configuration names the demo's tools, which this binary serves only with --demo"
            ))
        }
        Err(error) => Err(error.to_string()),
    }
}

/// Who the CLI acts as: `--actor`, else `cli:` and the user's name.
fn actor(given: Option<String>) -> String {
    given.unwrap_or_else(|| {
        let user = std::env::var("USER")
            .or_else(|_| std::env::var("LOGNAME"))
            .unwrap_or_else(|_| "unknown".to_owned());
        format!("cli:{user}")
    })
}

pub(crate) fn run(
    url: Option<String>,
    as_actor: Option<String>,
    accept: Vec<String>,
    command: Admin,
    demo: bool,
) -> Result<(), String> {
    let store = store(url)?;
    let registry = crate::registry(demo);
    let runtime = runtime()?;
    let action = match command {
        Admin::Migrate => {
            let applied = runtime
                .block_on(store.migrate())
                .map_err(|e| e.to_string())?;
            return say(format_args!(
                "{}: {applied} migration{} applied",
                store.database(),
                if applied == 1 { "" } else { "s" }
            ));
        }
        Admin::Show => {
            let (revision, records) = runtime.block_on(store.read()).map_err(|e| e.to_string())?;
            let rendered = records.render().map_err(|e| e.to_string())?;
            return say(format_args!(
                "# {} at revision {revision}\n{}",
                store.database(),
                rendered.trim_end()
            ));
        }
        Admin::AddOperator { name } => {
            let key = runtime
                .block_on(store.add_operator(&name))
                .map_err(|e| e.to_string())?;
            eprintln!("operator `{name}` added; its key (shown once, only its hash is stored):");
            return say(key);
        }
        Admin::RemoveOperator { name } => {
            runtime
                .block_on(store.remove_operator(&name))
                .map_err(|e| e.to_string())?;
            return say(format_args!(
                "operator `{name}` removed; its key no longer works"
            ));
        }
        Admin::RotateOperator { name } => {
            let key = runtime
                .block_on(store.rotate_operator(&name))
                .map_err(|e| e.to_string())?;
            eprintln!(
                "operator `{name}` has a new key (shown once, only its hash is stored); the old one no longer works:"
            );
            return say(key);
        }
        Admin::Audit { limit } => {
            let entries = runtime
                .block_on(store.audit(limit.clamp(1, 10_000)))
                .map_err(|e| e.to_string())?;
            for entry in entries.iter().rev() {
                say(format_args!(
                    "{} r{} {} {} {}: {}",
                    entry.at,
                    entry.revision,
                    entry.actor,
                    entry.action,
                    entry.target,
                    entry.detail["summary"].as_str().unwrap_or("")
                ))?;
            }
            return Ok(());
        }
        Admin::Workflow(workflow) => workflow.action(&registry)?,
    };
    let applied = runtime
        .block_on(store.apply(&actor(as_actor), action.accepting(accept), &registry))
        .map_err(|e| e.to_string())?;
    let mut line = format!(
        "revision {}: {}: {}",
        applied.revision, applied.done.target, applied.done.summary
    );
    for report in &applied.compatibility {
        line.push_str(&format!("\n{report}"));
    }
    match applied.done.api_key {
        Some(key) => {
            eprintln!("{line}\nthe new key (shown once, only its hash is stored):");
            say(key)
        }
        None => say(line),
    }
}

/// Adds imported records to the store, every version a draft.
pub(crate) fn import(url: Option<String>, toml: &str, demo: bool) -> Result<(), String> {
    let store = store(url)?;
    let registry = crate::registry(demo);
    let records = Records::read_toml(toml, "(imported)").map_err(|e| e.to_string())?;
    let applied = runtime()?
        .block_on(store.apply(
            &actor(None),
            Action::Import {
                records: Box::new(records),
            },
            &registry,
        ))
        .map_err(|e| e.to_string())?;
    say(format_args!(
        "revision {}: {}",
        applied.revision, applied.done.summary
    ))
}

/// A version's definition from a file: a JSON object, or a TOML table.
fn read_definition(path: &Path) -> Result<Body, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if let Ok(serde_json::Value::Object(body)) = serde_json::from_str(&text) {
        return Ok(body);
    }
    let table: toml::Table = toml::from_str(&text).map_err(|e| {
        format!(
            "{}: neither a JSON object nor a TOML table: {}",
            path.display(),
            e.message()
        )
    })?;
    match serde_json::to_value(table) {
        Ok(serde_json::Value::Object(body)) => Ok(body),
        _ => Err(format!("{}: not a table", path.display())),
    }
}

/// Follows `store` for the server `http` serves (built from the store's
/// `revision`), reports it on `/health`, and serves the admin API on
/// `admin_bind` if given. The returned follower stops following when
/// dropped.
pub(crate) async fn follow(
    store: &Store,
    http: &toolschema::serve::HttpServer,
    revision: i64,
    admin_bind: Option<std::net::SocketAddr>,
) -> Result<toolschema::store::Follower, String> {
    let follower = store.follow(http.service().catalog().clone(), revision);
    let health = follower.health_handle();
    http.service().add_health_check("catalog_store", move || {
        let health = health();
        toolschema::serve::Health {
            degraded: !health.connected || health.refused_revision.is_some(),
            detail: serde_json::to_value(&health).unwrap_or_default(),
        }
    });
    if let Some(address) = admin_bind {
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .map_err(|e| format!("cannot listen on {address} for the admin API: {e}"))?;
        let local = listener
            .local_addr()
            .map_err(|e| format!("the admin API's address: {e}"))?;
        let (store, registry) = (store.clone(), http.service().catalog().registry().clone());
        let timeouts = http.service().http_timeouts();
        tokio::spawn(async move {
            let served = toolschema::store::admin::serve(
                listener,
                store,
                registry,
                timeouts,
                core::future::pending(),
            );
            if let Err(error) = served.await {
                tracing::error!(%error, "the admin API stopped");
            }
        });
        let _ = std::io::Write::write_all(
            &mut std::io::stderr().lock(),
            format!("admin API (operators' keys only): http://{local}/v1/\n").as_bytes(),
        );
    }
    Ok(follower)
}

/// An action of the publish workflow as a subcommand: the subcommands are
/// made from the store's list of actions ([`ActionKind::ALL`]), their
/// arguments from each action's.
#[derive(Debug, Clone)]
pub(crate) struct Workflow {
    kind: ActionKind,
    matches: ArgMatches,
}

impl FromArgMatches for Workflow {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Workflow, clap::Error> {
        let found = matches
            .subcommand()
            .and_then(|(name, sub)| Some((ActionKind::from_name(name)?, sub)));
        match found {
            Some((kind, sub)) => Ok(Workflow {
                kind,
                matches: sub.clone(),
            }),
            None => Err(clap::Error::new(clap::error::ErrorKind::InvalidSubcommand)),
        }
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Workflow::from_arg_matches(matches)?;
        Ok(())
    }
}

impl Subcommand for Workflow {
    fn augment_subcommands(command: Command) -> Command {
        command.subcommands(ActionKind::ALL.map(subcommand))
    }

    fn augment_subcommands_for_update(command: Command) -> Command {
        Workflow::augment_subcommands(command)
    }

    fn has_subcommand(name: &str) -> bool {
        name == "load" || (!name.contains('_') && ActionKind::from_name(name).is_some())
    }
}

/// The subcommand of an action: its name with `-` between words, its
/// summary, and its arguments (a version's or a record's fields as a
/// `--name FILE` option).
fn subcommand(kind: ActionKind) -> Command {
    let mut command =
        Command::new(kind.name().replace('_', "-")).about(kind.summary().trim_end_matches('.'));
    if kind == ActionKind::Replace {
        // The name this command had before the list of actions.
        command = command.visible_alias("load");
    }
    for argument in kind.arguments() {
        let arg = Arg::new(argument.name)
            .help(argument.help)
            .value_name(argument.name.to_uppercase());
        command = command.arg(match argument.shape {
            Shape::Number => arg.required(true).value_parser(value_parser!(u32)),
            Shape::OptionalName => arg.long(argument.name),
            Shape::Fields { required } => arg
                .long(argument.name)
                .value_name("FILE")
                .help(format!(
                    "{} A file: a JSON object or a TOML table.",
                    argument.help
                ))
                .required(required)
                .value_parser(value_parser!(PathBuf)),
            Shape::Configuration | Shape::Additions => arg
                .required(true)
                .value_name("FILE")
                .value_parser(value_parser!(PathBuf)),
            _ => arg.required(true),
        });
    }
    command
}

impl Workflow {
    /// The action, its files read (a configuration checked against the
    /// tools `registry` registers).
    fn action(self, registry: &Registry) -> Result<Action, String> {
        let Workflow { kind, matches } = self;
        Action::from_arguments(kind, |argument: &Argument| {
            let path = || matches.get_one::<PathBuf>(argument.name);
            Ok(match argument.shape {
                Shape::Number => matches
                    .get_one::<u32>(argument.name)
                    .copied()
                    .map(Given::Number),
                Shape::Fields { .. } => match path() {
                    Some(path) => Some(Given::Fields(read_definition(path)?)),
                    None => None,
                },
                Shape::Configuration | Shape::Additions => match path() {
                    Some(path) => Some(Given::Records(Box::new(read_records(
                        path,
                        argument.shape,
                        registry,
                    )?))),
                    None => None,
                },
                _ => matches
                    .get_one::<String>(argument.name)
                    .cloned()
                    .map(Given::Text),
            })
        })
    }
}

/// A configuration file's records: checked whole against `registry`
/// (a configuration), or read as records to add (additions).
fn read_records(path: &Path, shape: Shape, registry: &Registry) -> Result<Records, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let file = path.display().to_string();
    match shape {
        Shape::Configuration => {
            Records::from_toml(&text, &file, registry).map_err(|e| e.to_string())
        }
        _ => Records::read_toml(&text, &file).map_err(|e| e.to_string()),
    }
}
