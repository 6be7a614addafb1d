//! The published catalog configuration of toolschema in PostgreSQL.
//!
//! A file is the way to run one process; a store is the way to run several
//! replicas behind a load balancer and change what they serve while they
//! serve it. The store holds the whole configuration as records (tenants,
//! client applications with their key hashes and token client ids,
//! toolsets, mapping versions and their statuses, downstreams and tools
//! from configuration, the server's details), in tables created and
//! upgraded by [`Store::migrate`].
//!
//! - Every change is an [`Action`] of the publish workflow (draft, propose,
//!   publish, deprecate; activate a toolset; assign a toolset; rotate a key;
//!   put or delete a record), applied in one transaction: the result must
//!   pass the very checks a configuration file passes, or nothing is
//!   written and every problem is reported at its record and field. A change
//!   bumps the revision, is written to the audit trail (who, when, what
//!   changed) and notifies the replicas.
//! - A replica [`follow`](Store::follow)s the store: it listens for changes,
//!   then loads the whole configuration, and loads it again after every
//!   reconnection (notifications sent while it was away are not replayed).
//!   While the database is unreachable it keeps serving the last good
//!   snapshot, and its [`FollowerHealth`] says so.
//!
//! ```no_run
//! # async fn run() -> Result<(), toolschema_store::StoreError> {
//! use toolschema_store::{Action, Store};
//!
//! let store = Store::new("postgresql://toolschema@db.internal/catalog")?;
//! store.migrate().await?;
//! let registry = toolschema_runtime::call::Registry::new();
//! let applied = store
//!     .apply(
//!         "alice",
//!         Action::Publish {
//!             tool: "billing.refund".into(),
//!             version: 2,
//!         },
//!         &registry,
//!     )
//!     .await?;
//! println!("revision {}: {}: {}", applied.revision, applied.done.target, applied.done.summary);
//! # Ok(())
//! # }
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]
mod action;
#[cfg(feature = "admin-http")]
pub mod admin;
mod changes;
mod db;
mod follow;
mod gate;
mod link;
mod operators;
mod records;
mod workflow;

use core::fmt;

use serde::Serialize;
use serde_json::Value;
use tokio_postgres::Client;
use toolschema_catalog::{Config, hash_api_key};
use toolschema_runtime::call::Registry;

pub use action::{Action, Done, Refused};
pub use db::CHANNEL;
pub use follow::{Follower, FollowerHealth, REPLICA_NAME};
pub use gate::Compatibility;
pub use records::{Body, Kind, Problem, Problems, Records, SETTINGS, Version};
// The one grammar of record identifiers, the configuration's.
pub use toolschema_config::is_record_id;
pub use workflow::{ActionKind, Argument, Given, Shape};

mod apply;
mod error;
pub use apply::Applied;
use apply::{apply_to, consistent, gated, read_with, write};
pub use error::StoreError;

mod embedded {
    refinery::embed_migrations!("migrations");
}

/// A PostgreSQL database holding a catalog configuration.
#[derive(Clone)]
pub struct Store {
    config: tokio_postgres::Config,
    /// The URL without its password, for messages.
    shown: String,
    /// TLS, when the URL asks for it (`sslmode=require`).
    tls: Option<std::sync::Arc<rustls::ClientConfig>>,
    /// The records of the last revision this store (or a clone) applied
    /// an action to, and their checked configuration: the next action
    /// starts from them when the revision is still the store's, instead of
    /// reading and checking every record again.
    kept: std::sync::Arc<std::sync::Mutex<Option<Kept>>>,
    /// The connection the last action was applied on, kept open for the
    /// next.
    idle: std::sync::Arc<std::sync::Mutex<Option<Client>>>,
    /// How often a replica following this store checks it besides its
    /// notifications ([`with_check_interval`](Self::with_check_interval)).
    check_every: core::time::Duration,
}

/// The records of a revision as the admin side applied them.
struct Kept {
    revision: i64,
    /// The registered tools they were checked against.
    registered: Vec<(String, u32)>,
    records: Records,
    config: Option<std::sync::Arc<Config>>,
}

/// The registered tools of `registry`, by name and version.
fn registered(registry: &Registry) -> Vec<(String, u32)> {
    registry
        .tools()
        .map(|def| (def.name.to_string(), def.version))
        .collect()
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store")
            .field("database", &self.shown)
            .finish()
    }
}

/// An action, and the compatibility reports its operator accepts: a
/// change that may break a tool's clients is applied only when each such
/// report's [digest](Compatibility::digest) is named here. An [`Action`]
/// is a change that accepts none.
///
/// ```
/// use toolschema_store::{Action, Change};
///
/// let publish = Action::Publish { tool: "billing.refund".into(), version: 2 };
/// let change = publish.clone().accepting(["5f0c9a1e2b3d4c6f"]);
/// assert_eq!(change.accept, ["5f0c9a1e2b3d4c6f"]);
/// assert_eq!(Change::from(publish).accept, Vec::<String>::new());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// What to do.
    pub action: Action,
    /// The digests of the reports accepted.
    pub accept: Vec<String>,
}

impl From<Action> for Change {
    fn from(action: Action) -> Change {
        Change {
            action,
            accept: Vec::new(),
        }
    }
}

impl Action {
    /// This action, accepting the compatibility reports of `digests`.
    pub fn accepting<S: Into<String>>(self, digests: impl IntoIterator<Item = S>) -> Change {
        Change {
            action: self,
            accept: digests.into_iter().map(Into::into).collect(),
        }
    }
}

/// The stored configuration at one revision, checked.
#[derive(Debug)]
pub struct Loaded {
    /// The revision: how many changes the store has seen.
    pub revision: i64,
    /// The records.
    pub records: Records,
    /// The records checked and built into a configuration.
    pub config: Config,
}

/// One entry of the audit trail.
#[derive(Debug, Clone, Serialize)]
pub struct AuditEntry {
    /// Its number, increasing.
    pub id: i64,
    /// When, as RFC 3339 in UTC.
    pub at: String,
    /// Who: an operator's name, or `cli:<user>`.
    pub actor: String,
    /// The action.
    pub action: String,
    /// What it was about.
    pub target: String,
    /// The revision it made.
    pub revision: i64,
    /// What changed: the summary, and the records before and after.
    pub detail: Value,
}

/// A replica's connection to the store ([`Store::replicas`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReplicaConnection {
    /// The address it connects from (`local` over a Unix socket).
    pub address: String,
    /// When the connection was opened, as RFC 3339 in UTC.
    pub since: String,
    /// What the connection is doing (`idle` while it waits for a change).
    pub state: String,
    /// The revision it serves (`None` until it has loaded one).
    pub revision: Option<i64>,
}

/// Which audit entries to read ([`Store::audit_page`]): each filter, when
/// given, must equal the entry's field; `before` and `after` are entry ids
/// (a page older than one, or newer); at most `limit` entries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditQuery {
    /// Who: an operator's name, or `cli:<user>`.
    pub actor: Option<String>,
    /// The action (`publish`, `activate`, ...).
    pub action: Option<String>,
    /// What it was about (a tool, a toolset, a client).
    pub target: Option<String>,
    /// Only entries of this day or later (`YYYY-MM-DD`, UTC).
    pub since: Option<String>,
    /// Only entries of this day or earlier (`YYYY-MM-DD`, UTC).
    pub until: Option<String>,
    /// Only entries older than this one.
    pub before: Option<i64>,
    /// Only entries newer than this one.
    pub after: Option<i64>,
    /// The most entries read.
    pub limit: i64,
}

impl Store {
    /// A store at `url` (`postgresql://user:password@host:port/database`,
    /// or the key=value form). Nothing is connected yet.
    ///
    /// `sslmode=require` (or libpq's `verify-ca`, `verify-full`) connects
    /// over TLS, verifying the server's certificate and host name against
    /// the platform's root certificates and those of `sslrootcert=FILE` (a
    /// PEM file); without it the connection is plain TCP.
    ///
    /// ```
    /// let store = toolschema_store::Store::new("postgresql://app:secret@localhost/catalog").unwrap();
    /// assert!(!format!("{store:?}").contains("secret"));
    /// assert!(toolschema_store::Store::new("postgresql://[").is_err());
    /// ```
    pub fn new(url: &str) -> Result<Store, StoreError> {
        let (url, root) = link::libpq_url(url);
        let config: tokio_postgres::Config = url
            .parse()
            .map_err(|error: tokio_postgres::Error| StoreError::Url(error.to_string()))?;
        let tls = match link::wants_tls(&config) {
            true => Some(link::tls(root.as_ref()).map_err(StoreError::Url)?),
            false => None,
        };
        let ports = config.get_ports();
        let hosts: Vec<String> = config
            .get_hosts()
            .iter()
            .enumerate()
            .map(|(i, host)| {
                let port = ports.get(i).or(ports.first()).copied().unwrap_or(5432);
                match host {
                    tokio_postgres::config::Host::Tcp(name) => format!("{name}:{port}"),
                    tokio_postgres::config::Host::Unix(path) => {
                        format!("{}:{port}", path.display())
                    }
                }
            })
            .collect();
        let shown = format!(
            "postgresql://{}@{}/{}",
            config.get_user().unwrap_or(""),
            hosts.join(","),
            config.get_dbname().unwrap_or("")
        );
        Ok(Store {
            config,
            shown,
            tls,
            kept: std::sync::Arc::default(),
            idle: std::sync::Arc::default(),
            check_every: follow::CHECK_EVERY,
        })
    }

    /// This store, whose following replicas check it every `every` besides
    /// its notifications (30 s unless set): its revision, in case a
    /// notification was lost, and the digest of its tables against what
    /// the replica serves, reading every record when they differ (a row
    /// changed by hand, a change-log entry that does not match the
    /// tables). The digest is computed by the database over every row.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let store = toolschema_store::Store::new("postgresql://app@localhost/catalog")
    ///     .unwrap()
    ///     .with_check_interval(Duration::from_secs(5));
    /// # drop(store);
    /// ```
    pub fn with_check_interval(mut self, every: core::time::Duration) -> Store {
        self.check_every = every.max(core::time::Duration::from_millis(10));
        self
    }

    /// The database, without its password.
    pub fn database(&self) -> &str {
        &self.shown
    }

    /// A new connection, driven on the current Tokio runtime.
    pub(crate) async fn connect(&self) -> Result<Client, StoreError> {
        link::open(&self.config, self.tls.as_ref(), None)
            .await
            .map_err(|error| StoreError::Connect {
                database: self.shown.clone(),
                error,
            })
    }

    /// Creates the store's tables, or upgrades them to this version's
    /// schema; returns how many migrations were applied (0 when up to
    /// date). Safe to run from several replicas at once.
    pub async fn migrate(&self) -> Result<usize, StoreError> {
        let mut client = self.connect().await?;
        // One migrator at a time, whoever else starts now.
        client
            .execute("SELECT pg_advisory_lock(7318005426)", &[])
            .await?;
        let report = embedded::migrations::runner()
            .run_async(&mut client)
            .await
            .map_err(|error| StoreError::Migrate(error.to_string()));
        client
            .execute("SELECT pg_advisory_unlock(7318005426)", &[])
            .await?;
        Ok(report?.applied_migrations().len())
    }

    /// The stored configuration, read in one consistent snapshot and checked
    /// against `registry`.
    pub async fn load(&self, registry: &Registry) -> Result<Loaded, StoreError> {
        let (revision, records) = read_with(&mut self.connect().await?).await?;
        let config = records.check(registry).map_err(StoreError::Invalid)?;
        Ok(Loaded {
            revision,
            records,
            config,
        })
    }

    /// The stored configuration, checked, and its revision, for a replica
    /// that serves it and then follows with [`follow`](Self::follow): the
    /// records are not kept but moved into the check
    /// ([`Records::into_config`]), so a replica's start never holds them
    /// and their checked configuration together (at 100,000 configured
    /// tools, 350 MiB less to touch before serving; the follower reads
    /// them again once serving).
    pub async fn load_config(&self, registry: &Registry) -> Result<(i64, Config), StoreError> {
        let (revision, records) = read_with(&mut self.connect().await?).await?;
        let config = records.into_config(registry).map_err(StoreError::Invalid)?;
        Ok((revision, config))
    }

    /// Whether a connection to the store is encrypted (the server's own
    /// word: `pg_stat_ssl` of this connection).
    pub async fn uses_tls(&self) -> Result<bool, StoreError> {
        let client = self.connect().await?;
        let row = client
            .query_one(
                "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
                &[],
            )
            .await?;
        Ok(row.get(0))
    }

    /// The stored records and their revision, unchecked (read in one
    /// consistent snapshot).
    pub async fn read(&self) -> Result<(i64, Records), StoreError> {
        read_with(&mut self.connect().await?).await
    }

    /// What publishing version `version` of `tool` would change for the
    /// clients of the version served now (a draft's report before it is
    /// published); `None` when no version is served, or it is the one
    /// served. A version the tool does not have is [`StoreError::Refused`].
    pub async fn compatibility(
        &self,
        tool: &str,
        version: u32,
        registry: &Registry,
    ) -> Result<Option<Compatibility>, StoreError> {
        let (_, records) = self.read().await?;
        if records
            .versions_of(tool)
            .all(|(number, _)| number != version)
            && registry.get(tool, version).is_none()
        {
            // The mapping's versions with their statuses, else the
            // versions registered.
            let mut known: Vec<String> = records
                .versions_of(tool)
                .map(|(number, v)| format!("{number} ({})", v.status.name()))
                .collect();
            if known.is_empty() {
                known = registry.versions(tool).map(|n| n.to_string()).collect();
            }
            return Err(StoreError::Refused(Refused::NotFound(
                match known.is_empty() {
                    true => format!("there is no tool `{tool}`"),
                    false => format!(
                        "`{tool}` has no version {version}; it has {}",
                        known.join(", ")
                    ),
                },
            )));
        }
        let config = records.check(registry).map_err(StoreError::Invalid)?;
        let mut baseline = gate::Served::of(&records, registry, tool);
        if baseline.is_none() {
            baseline = self.served_last(tool).await?;
        }
        Ok(gate::draft_report(
            tool, version, baseline, &config, registry,
        ))
    }

    /// What `tool`'s clients were served last, as the compatibility gate
    /// keeps it (for a tool nothing is served of now).
    pub(crate) async fn served_last(&self, tool: &str) -> Result<Option<gate::Served>, StoreError> {
        let client = self.connect().await?;
        Ok(gate::kept(&client, &[tool.to_owned()])
            .await?
            .pop()
            .map(|(_, served)| served))
    }

    /// The current revision: how many changes the store has seen.
    pub async fn revision(&self) -> Result<i64, StoreError> {
        let client = self.connect().await?;
        let row = client
            .query_one("SELECT revision FROM catalog_revision", &[])
            .await?;
        Ok(row.get(0))
    }

    /// Applies `action` for `actor` in one transaction: the result is
    /// checked against `registry` as a configuration file is, then written
    /// with a new revision, audited and announced to the replicas. Nothing
    /// is written when the action is refused or the result has problems.
    ///
    /// An action on some records (all but a replacement and an import)
    /// starts from the records this store applied the last action to,
    /// when no other has been applied since (else it reads them all), and
    /// is checked as a change where it can be
    /// ([`Config::apply`]): at 100,000 tools, a publish is
    /// milliseconds of work rather than seconds.
    pub async fn apply(
        &self,
        actor: &str,
        change: impl Into<Change>,
        registry: &Registry,
    ) -> Result<Applied, StoreError> {
        let change = change.into();
        // The connection of the last action, while it is open: a new one
        // is a new database process each time.
        let idle = self
            .idle
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take()
            .filter(|client| !client.is_closed());
        let mut client = match idle {
            Some(client) => client,
            None => self.connect().await?,
        };
        let applied = self.apply_on(&mut client, actor, change, registry).await;
        if !client.is_closed() {
            *self
                .idle
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(client);
        }
        applied
    }

    async fn apply_on(
        &self,
        client: &mut Client,
        actor: &str,
        Change { action, accept }: Change,
        registry: &Registry,
    ) -> Result<Applied, StoreError> {
        let transaction = client.transaction().await?;
        // The revision row's lock puts changes one after the other.
        let revision: i64 = transaction
            .query_one("SELECT revision FROM catalog_revision FOR UPDATE", &[])
            .await?
            .get(0);
        let tools = registered(registry);
        // Taken now, whatever its revision: records the action cannot
        // start from are let go before the commit, not after it.
        let kept = self.take_kept();
        let Some(scope) = action.scope() else {
            drop(kept);
            let (_, before) = db::read(&transaction).await?;
            let name = action.name();
            let (after, mut done, config, written) = apply::checking(|| {
                let mut after = before.clone();
                let done = action
                    .apply(&mut after, registry)
                    .map_err(StoreError::Refused)?;
                let config = after.check(registry).map_err(StoreError::Invalid)?;
                let written = changes::delta(&before, &after, &after);
                Ok::<_, StoreError>((after, done, config, written))
            })?;
            let baselines = gate::touched(&written, &before, &after)
                .into_iter()
                .map(|tool| gate::Baseline {
                    served: gate::Served::of(&before, registry, &tool),
                    tool,
                    kept: false,
                })
                .collect();
            let compatibility = gated(
                &transaction,
                baselines,
                (&after, &config),
                (&accept, None),
                &mut done,
                registry,
            )
            .await?;
            let applied = write(
                &transaction,
                revision,
                (actor, name, done),
                compatibility,
                (&before, &after, &written),
            )
            .await?;
            drop(before);
            transaction.commit().await?;
            self.keep(Kept {
                revision: applied.revision,
                registered: tools,
                records: after,
                config: Some(std::sync::Arc::new(config)),
            });
            return Ok(applied);
        };
        let kept = kept.filter(|kept| kept.revision == revision && kept.registered == tools);
        let (mut records, config) = match kept {
            Some(kept) => (kept.records, kept.config),
            None => (db::read(&transaction).await?.1, None),
        };
        let before = records.part(&scope);
        let applied = apply_to(
            &transaction,
            &mut records,
            config.as_deref(),
            (&before, &scope),
            (revision, actor, action, &accept),
            registry,
        )
        .await;
        let applied = match applied {
            Ok((applied, config)) => match transaction.commit().await {
                Ok(()) => Ok((applied, config)),
                Err(error) => Err(StoreError::from(error)),
            },
            Err(error) => Err(error),
        };
        match applied {
            Ok((applied, config)) => {
                self.keep(Kept {
                    revision: applied.revision,
                    registered: tools,
                    records,
                    config: Some(config),
                });
                Ok(applied)
            }
            Err(error) => {
                // Nothing was written: the records are those of `revision`
                // again.
                records.restore(&before, &scope);
                self.keep(Kept {
                    revision,
                    registered: tools,
                    records,
                    config,
                });
                Err(error)
            }
        }
    }

    /// The records kept, taken (an action applied meanwhile by a clone of
    /// this store finds none, and reads them).
    fn take_kept(&self) -> Option<Kept> {
        let mut kept = self
            .kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        kept.take()
    }

    /// Keeps `records` unless newer ones are kept.
    fn keep(&self, records: Kept) {
        let mut kept = self
            .kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if kept.as_ref().is_none_or(|k| k.revision <= records.revision) {
            *kept = Some(records);
        }
    }

    /// The newest `limit` entries of the audit trail, newest first.
    pub async fn audit(&self, limit: i64) -> Result<Vec<AuditEntry>, StoreError> {
        self.audit_page(&AuditQuery {
            limit,
            ..AuditQuery::default()
        })
        .await
    }

    /// The audit entries `query` selects, newest first: by who, what and
    /// on what, and one page of them (`before` an entry, or `after` one).
    pub async fn audit_page(&self, query: &AuditQuery) -> Result<Vec<AuditEntry>, StoreError> {
        let client = self.connect().await?;
        // A page after an entry is read oldest first, then turned around.
        let order = match query.after {
            Some(_) => "ASC",
            None => "DESC",
        };
        let rows = client
            .query(
                &format!(
                    "SELECT id, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), actor, action, target, revision, detail \
                     FROM audit \
                     WHERE ($1::text IS NULL OR actor = $1) AND ($2::text IS NULL OR action = $2) \
                       AND ($3::text IS NULL OR target = $3) AND ($4::bigint IS NULL OR id < $4) \
                       AND ($5::bigint IS NULL OR id > $5) \
                       AND ($7::text IS NULL OR at >= ($7::text)::date::timestamp AT TIME ZONE 'UTC') \
                       AND ($8::text IS NULL OR at < (($8::text)::date + 1)::timestamp AT TIME ZONE 'UTC') \
                     ORDER BY id {order} LIMIT $6"
                ),
                &[
                    &query.actor,
                    &query.action,
                    &query.target,
                    &query.before,
                    &query.after,
                    &query.limit.max(0),
                    &query.since,
                    &query.until,
                ],
            )
            .await?;
        let mut entries: Vec<AuditEntry> = rows
            .into_iter()
            .map(|row| AuditEntry {
                id: row.get(0),
                at: row.get(1),
                actor: row.get(2),
                action: row.get(3),
                target: row.get(4),
                revision: row.get(5),
                detail: row.get(6),
            })
            .collect();
        if query.after.is_some() {
            entries.reverse();
        }
        Ok(entries)
    }

    /// The replicas connected to the store now, as PostgreSQL sees them:
    /// the connections named [`REPLICA_NAME`] (a replica following the
    /// store keeps one open), with the revision each serves.
    pub async fn replicas(&self) -> Result<Vec<ReplicaConnection>, StoreError> {
        let client = self.connect().await?;
        let rows = client
            .query(
                "SELECT coalesce(host(client_addr), 'local'), \
                        to_char(backend_start AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), \
                        coalesce(state, ''), application_name \
                 FROM pg_stat_activity \
                 WHERE datname = current_database() \
                   AND (application_name = $1 OR application_name LIKE $1 || '@%') \
                 ORDER BY backend_start",
                &[&REPLICA_NAME],
            )
            .await?;
        Ok(rows
            .into_iter()
            .map(|row| {
                let name: String = row.get(3);
                ReplicaConnection {
                    address: row.get(0),
                    since: row.get(1),
                    state: row.get(2),
                    revision: name
                        .strip_prefix(REPLICA_NAME)
                        .and_then(|rest| rest.strip_prefix('@'))
                        .and_then(|revision| revision.parse().ok()),
                }
            })
            .collect())
    }

    /// Adds an operator of the admin API called `name`, and returns its key
    /// (shown once; only its hash is stored).
    pub async fn add_operator(&self, name: &str) -> Result<String, StoreError> {
        let client = self.connect().await?;
        let key = action::new_api_key("tso_");
        let inserted = client
            .execute(
                "INSERT INTO operator (name, key_hash) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
                &[&name, &hash_api_key(&key)],
            )
            .await?;
        if inserted == 0 {
            return Err(StoreError::Refused(Refused::Conflict(format!(
                "operator `{name}` exists already"
            ))));
        }
        Ok(key)
    }

    /// Removes the operator `name`: its key stops working at once.
    pub async fn remove_operator(&self, name: &str) -> Result<(), StoreError> {
        let client = self.connect().await?;
        let removed = client
            .execute("DELETE FROM operator WHERE name = $1", &[&name])
            .await?;
        match removed {
            0 => Err(StoreError::Refused(Refused::NotFound(format!(
                "there is no operator `{name}`"
            )))),
            _ => Ok(()),
        }
    }

    /// The operator whose key is `key`, if any.
    pub async fn operator(&self, key: &str) -> Result<Option<String>, StoreError> {
        let client = self.connect().await?;
        let row = client
            .query_opt(
                "SELECT name FROM operator WHERE key_hash = $1",
                &[&hash_api_key(key)],
            )
            .await?;
        Ok(row.map(|row| row.get(0)))
    }

    /// Follows the store for `catalog`, which serves `revision` (the
    /// [`Loaded::revision`] it was built from): see [`Follower`]. Call it
    /// within a Tokio runtime; following runs on it until the follower is
    /// dropped.
    pub fn follow(
        &self,
        catalog: std::sync::Arc<toolschema_catalog::Catalog>,
        revision: i64,
    ) -> Follower {
        Follower::start(self.clone(), catalog, revision, None)
    }

    /// [`follow`](Self::follow), handing over the records `catalog` was
    /// built from ([`Loaded::records`], at `revision`): the follower's first
    /// connection catches up from them, through the change log, instead of
    /// reading every record again (at 100,000 tools, about half a second of
    /// work once serving). The records are taken for the store's at
    /// `revision`, as [`load`](Self::load) gives them: the first periodic
    /// check reads the rows' hashes only, and from then on a row that
    /// differs from them is found and every record read. The price is holding the records and their
    /// checked configuration together while the catalog is built;
    /// [`load_config`](Self::load_config) and [`follow`](Self::follow)
    /// do not (`toolschema serve` starts that way).
    pub fn follow_from(
        &self,
        catalog: std::sync::Arc<toolschema_catalog::Catalog>,
        revision: i64,
        records: Records,
    ) -> Follower {
        Follower::start(self.clone(), catalog, revision, Some(records))
    }
}
