//! `toolschema admin …`: the publish workflow on a catalog store, the same
//! actions as the admin REST API, each checked, written in one transaction
//! and audited under the actor's name.

use std::path::{Path, PathBuf};

use clap::Subcommand;
use toolschema::catalog::Config;
use toolschema_store::{Action, Body, Records, Store};

use crate::say;

/// The environment variable that names the catalog store.
pub(crate) const DATABASE_URL: &str = "TOOLSCHEMA_DATABASE_URL";

#[derive(Subcommand)]
pub(crate) enum Admin {
    /// Create the store's tables, or upgrade them to this version's schema.
    Migrate,
    /// Replace the stored configuration with a configuration file's (checked first).
    Load {
        /// The catalog configuration (TOML).
        file: PathBuf,
    },
    /// Print the stored configuration as a configuration file.
    Show,
    /// Add a draft version of a tool's mapping.
    Draft {
        /// The tool's exposed name.
        tool: String,
        /// The new version's number.
        version: u32,
        /// A configured tool's version: a JSON object or TOML table of its
        /// fields (description, method, path, argument, result, ...).
        #[arg(long)]
        definition: Option<PathBuf>,
        /// For the first version of a new tool from configuration: the
        /// downstream it calls.
        #[arg(long)]
        downstream: Option<String>,
    },
    /// Put a draft version up for review.
    Propose {
        /// The tool.
        tool: String,
        /// The version.
        version: u32,
    },
    /// Serve a version (the highest published one is served). A version
    /// that may break the clients of the one served is refused with the
    /// report, unless its breaking changes are accepted.
    Publish {
        /// The tool.
        tool: String,
        /// The version.
        version: u32,
    },
    /// Withdraw a version (as the highest version, it hides the tool).
    Deprecate {
        /// The tool.
        tool: String,
        /// The version.
        version: u32,
    },
    /// Switch a toolset on.
    Activate {
        /// The toolset.
        toolset: String,
    },
    /// Switch a toolset off.
    Deactivate {
        /// The toolset.
        toolset: String,
    },
    /// Give a client application a toolset of its tenant.
    Assign {
        /// The client application.
        client: String,
        /// The toolset.
        toolset: String,
    },
    /// Take a toolset from a client application.
    Unassign {
        /// The client application.
        client: String,
        /// The toolset.
        toolset: String,
    },
    /// Give a client application a new API key, replacing its keys; prints the key once.
    RotateKey {
        /// The client application.
        client: String,
    },
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
        Admin::Load { file } => {
            let text = std::fs::read_to_string(&file)
                .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            let records = Records::from_toml(&text, &file.display().to_string(), &registry)
                .map_err(|e| e.to_string())?;
            Action::Replace {
                records: Box::new(records),
            }
        }
        Admin::Draft {
            tool,
            version,
            definition,
            downstream,
        } => Action::Draft {
            tool,
            version,
            definition: definition.as_deref().map(read_definition).transpose()?,
            downstream,
        },
        Admin::Propose { tool, version } => Action::Propose { tool, version },
        Admin::Publish { tool, version } => Action::Publish { tool, version },
        Admin::Deprecate { tool, version } => Action::Deprecate { tool, version },
        Admin::Activate { toolset } => Action::Activate { toolset },
        Admin::Deactivate { toolset } => Action::Deactivate { toolset },
        Admin::Assign { client, toolset } => Action::Assign { client, toolset },
        Admin::Unassign { client, toolset } => Action::Unassign { client, toolset },
        Admin::RotateKey { client } => Action::RotateKey { client },
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
