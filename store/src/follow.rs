//! A replica following the store: listening for changes, loading the whole
//! configuration after subscribing and after every reconnection, catching
//! up on each change from the change log's entries since its revision, and
//! keeping the last good snapshot while the database is away.

use core::time::Duration;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use serde::Serialize;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_postgres::Client;
use toolschema_catalog::{Catalog, ChangeSet, Config};

use crate::link::{self, Event};
use crate::records::Records;
use crate::{CHANNEL, Store, StoreError, consistent, db};

/// What a replica knows of its store, for a health endpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FollowerHealth {
    /// Whether it is connected and listening for changes now.
    pub connected: bool,
    /// The revision it serves.
    pub revision: i64,
    /// Since when (seconds since the Unix epoch) it has been disconnected,
    /// while it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disconnected_since: Option<u64>,
    /// A newer revision this replica refused (its configuration does not
    /// pass this replica's checks, say for a tool it does not have): the
    /// last good one keeps serving.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused_revision: Option<i64>,
    /// Why the last connection or load failed, or why the stored
    /// configuration was refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// How many times it read every record: on each connection, and when
    /// the change log lacked a revision it needed.
    pub full_reads: u64,
    /// How many times it caught up by reading only the change log's
    /// entries since its own revision.
    pub change_reads: u64,
    /// How many of those changes it applied as changes: only the records
    /// they wrote checked, and only the tools, toolsets and clients they
    /// touched built again (the others were checked whole: a setting or a
    /// downstream changed, or something was refused).
    pub patches: u64,
    /// How many times its periodic check found that what it serves is not
    /// what the store's tables hold (their digests differed), and it read
    /// every record. Left out while none.
    #[serde(skip_serializing_if = "is_zero")]
    pub diverged: u64,
}

fn is_zero(count: &u64) -> bool {
    *count == 0
}

/// The `application_name` of a replica's connection, unless its URL gives
/// one; once it serves a revision, `toolschema-replica@<revision>`, so that
/// `pg_stat_activity` (and the console's replicas page) tells which
/// revision each replica serves.
pub const REPLICA_NAME: &str = "toolschema-replica";

/// How often a connected replica also reads the revision itself, in case a
/// notification was lost, and how long it waits between reconnections.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timing {
    check_every: Duration,
    retry_first: Duration,
    retry_most: Duration,
}

/// How often a connected replica checks the store unless told otherwise.
pub(crate) const CHECK_EVERY: Duration = Duration::from_secs(30);

impl Timing {
    fn checking_every(check_every: Duration) -> Timing {
        Timing {
            check_every,
            retry_first: Duration::from_millis(100),
            retry_most: Duration::from_secs(5),
        }
    }
}

/// A replica following its store (see [`Store::follow`]): it stops when
/// dropped.
///
/// It listens on the store's channel, then loads the whole configuration
/// (so nothing committed in between is missed), and after each notification
/// catches up when the revision moved: from the change log's entries since
/// its own revision when the log has them all, else by reading every
/// record again; each load builds a snapshot and
/// swaps it in as a file reload does, and clients whose lists changed are
/// told. When the connection drops it reconnects (after 0.1 s, doubling up
/// to 5 s) and loads in full, since notifications are not replayed. Until
/// then, and whenever the stored configuration does not pass this replica's
/// checks (its tools differ from the admin's), the last good snapshot keeps
/// serving.
#[derive(Debug)]
pub struct Follower {
    health: Arc<Mutex<FollowerHealth>>,
    task: JoinHandle<()>,
}

impl Drop for Follower {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Follower {
    pub(crate) fn start(
        store: Store,
        catalog: Arc<Catalog>,
        revision: i64,
        records: Option<Records>,
    ) -> Follower {
        let health = Arc::new(Mutex::new(FollowerHealth {
            connected: false,
            revision,
            disconnected_since: Some(now()),
            refused_revision: None,
            problem: None,
            full_reads: 0,
            change_reads: 0,
            patches: 0,
            diverged: 0,
        }));
        // The records the catalog was built from, when given: the first
        // connection catches up from them instead of reading every record.
        let held = records.map(|records| Held {
            revision,
            records,
            hashes: None,
            config: catalog.snapshot().config().cloned(),
        });
        let timing = Timing::checking_every(store.check_every);
        let task = tokio::spawn(follow(store, catalog, health.clone(), timing, held));
        Follower { health, task }
    }

    /// What the replica knows of its store now.
    pub fn health(&self) -> FollowerHealth {
        update(&self.health, |h| h.clone())
    }

    /// A shared handle on the health, for a probe that outlives borrows.
    pub fn health_handle(&self) -> impl Fn() -> FollowerHealth + Send + Sync + 'static {
        let health = self.health.clone();
        move || update(&health, |h| h.clone())
    }
}

async fn follow(
    store: Store,
    catalog: Arc<Catalog>,
    health: Arc<Mutex<FollowerHealth>>,
    timing: Timing,
    mut held: Option<Held>,
) {
    // Whatever ends this task (a panic included), its health says it no
    // longer follows.
    let _stopped = Stopped(health.clone());
    let mut wait = timing.retry_first;
    loop {
        // Each connection runs as a task of its own: one that panics (a row
        // it cannot read, a bug) ends that connection, not the following;
        // the next one reads every record.
        let mut run = Session(tokio::spawn({
            let (store, catalog, health, held) =
                (store.clone(), catalog.clone(), health.clone(), held.take());
            async move { session(&store, &catalog, &health, timing, held).await }
        }));
        let ended = match (&mut run.0).await {
            Ok(ended) => ended,
            Err(join) => {
                let why = match join.try_into_panic() {
                    Ok(panic) => panic
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                        .unwrap_or_else(|| "a panic".to_owned()),
                    Err(_) => "cancelled".to_owned(),
                };
                tracing::error!(
                    database = %store.database(),
                    reason = %why,
                    "following the catalog store failed; it starts again, reading every record"
                );
                Err(StoreError::Refused(crate::Refused::Conflict(format!(
                    "following stopped on an unexpected failure ({why}); starting again, reading every record"
                ))))
            }
        };
        match ended {
            // Connected for a while, then lost: retry soon.
            Ok(lost) => {
                tracing::warn!(
                    database = %store.database(),
                    reason = %lost,
                    "catalog store connection lost; the last good configuration keeps serving"
                );
                disconnected(&health, lost);
                wait = timing.retry_first;
            }
            Err(error) => {
                let first = update(&health, |h| h.connected || h.problem.is_none());
                if first {
                    tracing::warn!(
                        database = %store.database(),
                        %error,
                        "catalog store unreachable; the last good configuration keeps serving"
                    );
                }
                disconnected(&health, error.to_string());
            }
        }
        tokio::time::sleep(wait).await;
        wait = (wait * 2).min(timing.retry_most);
    }
}

/// One connection: listen, load, then follow notifications until the
/// connection is lost (`Ok(why)`), or fail to start (`Err`). It catches up
/// from `held`, the records of a revision it was handed, when it has them
/// (the first connection of a replica that has just loaded them); a
/// reconnection reads every record, since the notifications sent while it
/// was away are lost.
/// A connection's task, ended with the following that runs it (a dropped
/// follower leaves no connection behind).
struct Session(JoinHandle<Result<String, StoreError>>);

impl Drop for Session {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Marks the health as not following when the following task ends.
struct Stopped(Arc<Mutex<FollowerHealth>>);

impl Drop for Stopped {
    fn drop(&mut self) {
        update(&self.0, |h| {
            h.connected = false;
            if h.disconnected_since.is_none() {
                h.disconnected_since = Some(now());
            }
            h.problem
                .get_or_insert_with(|| "the replica no longer follows the catalog store".into());
        });
    }
}

async fn session(
    store: &Store,
    catalog: &Arc<Catalog>,
    health: &Arc<Mutex<FollowerHealth>>,
    timing: Timing,
    held: Option<Held>,
) -> Result<String, StoreError> {
    let mut config = store.config.clone();
    config
        .keepalives(true)
        .keepalives_idle(Duration::from_secs(10))
        .keepalives_interval(Duration::from_secs(5))
        .keepalives_retries(3)
        .connect_timeout(Duration::from_secs(5));
    // Named, so that an operator tells replicas apart in pg_stat_activity
    // (unless the URL names them).
    let named = config.get_application_name().is_none();
    if named {
        config.application_name(REPLICA_NAME);
    }
    let (events, mut received) = mpsc::unbounded_channel();
    // The connection ends when this session drops its client.
    let mut client = link::open(&config, store.tls.as_ref(), Some(events))
        .await
        .map_err(|error| StoreError::Connect {
            database: store.database().to_owned(),
            error,
        })?;
    client.batch_execute(&format!("LISTEN {CHANNEL}")).await?;
    let was_away = update(health, |h| {
        h.disconnected_since.is_some() && h.problem.is_some()
    });
    // The records of the revision read last: what the change log's entries
    // apply to. Listening began before this first read, so nothing
    // committed after it goes unheard.
    let mut held = held;
    load(&mut client, catalog, health, &mut held, Load::Reconnected).await?;
    let mut announced = None;
    if named {
        announce(&client, health, &mut announced).await?;
    }
    update(health, |h| {
        h.connected = true;
        h.disconnected_since = None;
    });
    if was_away {
        tracing::info!(database = %store.database(), "catalog store reached again; following its changes");
    }
    let mut check = tokio::time::interval(timing.check_every);
    check.reset();
    loop {
        tokio::select! {
            event = received.recv() => match event {
                Some(Event::Notified) => {
                    // Several commits may have been announced: one load
                    // serves them all.
                    while let Ok(Event::Notified) = received.try_recv() {}
                    load(&mut client, catalog, health, &mut held, Load::Notified).await?;
                    if named {
                        announce(&client, health, &mut announced).await?;
                    }
                }
                Some(Event::Lost(why)) => return Ok(why),
                None => return Ok("the connection's driver ended".into()),
            },
            _ = check.tick() => {
                load(&mut client, catalog, health, &mut held, Load::Check).await?;
                if named {
                    announce(&client, health, &mut announced).await?;
                }
            }
        }
    }
}

/// Names the connection after the revision the replica serves
/// (`toolschema-replica@12`) when it moved since it was `announced`.
async fn announce(
    client: &Client,
    health: &Arc<Mutex<FollowerHealth>>,
    announced: &mut Option<i64>,
) -> Result<(), StoreError> {
    let serving = update(health, |h| h.revision);
    if *announced != Some(serving) {
        client
            .execute(
                "SELECT set_config('application_name', $1, false)",
                &[&format!("{REPLICA_NAME}@{serving}")],
            )
            .await?;
        *announced = Some(serving);
    }
    Ok(())
}

/// The records of a revision, their rows' hashes (when read with them),
/// and the configuration checked from them when it passed this replica's
/// checks.
struct Held {
    revision: i64,
    records: Records,
    hashes: Option<db::RowHashes>,
    config: Option<Arc<Config>>,
}

/// Why a replica loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Load {
    /// A new connection: notifications may have been missed.
    Reconnected,
    /// A change was announced.
    Notified,
    /// The periodic check: the revision, and what is served against the
    /// store's tables (their digest).
    Check,
}

/// A configuration served, and the change since the records it was
/// checked from, as the tables hold its records now.
struct After {
    previous: Arc<Config>,
    delta: toolschema_config::Delta,
}

/// Reads the store's revision and, when it is neither the one served nor
/// one refused before, loads the configuration and swaps its snapshot in.
/// The records come from the tables' rows that the change log's entries
/// since the `held` revision name when it has them all, else from a full
/// read. The periodic check also compares the digest of what is served
/// with the tables', and reads every record when they differ.
async fn load(
    client: &mut Client,
    catalog: &Arc<Catalog>,
    health: &Arc<Mutex<FollowerHealth>>,
    held: &mut Option<Held>,
    why: Load,
) -> Result<(), StoreError> {
    let (serving, refused) = update(health, |h| (h.revision, h.refused_revision));
    let Some(read) = read_since(client, health, held, why).await? else {
        return Ok(());
    };
    let Read {
        revision,
        records,
        hashes,
        previous,
        after,
    } = read;
    // Read again at the revision served, and the same: nothing to build.
    let unchanged = previous
        .as_ref()
        .is_none_or(|previous| *previous == records);
    if (revision == serving && unchanged) || Some(revision) == refused {
        // Served already, or refused. The configuration served is the
        // catalog's (checked when it was loaded): the next change is
        // checked against it only where it touched it. After a refused one,
        // the next change is checked whole.
        if why == Load::Reconnected && refused.is_none() {
            update(health, |h| h.problem = None);
        }
        let config = match Some(revision) == refused {
            true => None,
            false => catalog.snapshot().config().cloned(),
        };
        *held = Some(Held {
            revision,
            records,
            hashes,
            config,
        });
        return Ok(());
    }
    let started = std::time::Instant::now();
    let checked = check_and_swap(catalog, health, held, (revision, records, hashes), after).await;
    settle(health, revision, started, checked)
}

/// What a load read: the records at `revision`, with their rows' hashes;
/// the records held before, when they were read again to compare them; and
/// the change from the configuration served, when it can be checked as one.
struct Read {
    revision: i64,
    records: Records,
    hashes: Option<db::RowHashes>,
    previous: Option<Records>,
    after: Option<After>,
}

/// The records since the `held` revision, from the change log when it
/// names every change since, else in full; `None` when the revision held
/// is the store's and (for the periodic check) what is held matches the
/// tables' digest.
async fn read_since(
    client: &mut Client,
    health: &Arc<Mutex<FollowerHealth>>,
    held: &mut Option<Held>,
    why: Load,
) -> Result<Option<Read>, StoreError> {
    let (revision, digest) = match why {
        Load::Check => {
            let (revision, digest) = db::digest(client).await?;
            (revision, Some(digest))
        }
        _ => {
            let row = client
                .query_one("SELECT revision FROM catalog_revision", &[])
                .await?;
            (row.try_get(0)?, None)
        }
    };
    // Whether a full read at the revision served must be compared with
    // what is served (the tables no longer match it, or it is not known
    // whether they do).
    let mut verify = false;
    if let Some(current) = held.as_ref().filter(|h| h.revision == revision) {
        match (digest, &current.hashes) {
            (None, _) => return Ok(None),
            (Some(digest), Some(hashes)) if hashes.total() == digest => return Ok(None),
            (Some(_), Some(_)) => {
                tracing::warn!(
                    revision,
                    "what this replica serves differs from the catalog store's tables at the same revision; reading every record"
                );
                update(health, |h| h.diverged += 1);
                verify = true;
            }
            // Records handed over without their hashes, as the store
            // held them at this revision (`Store::follow_from`): their
            // rows' hashes are read (not their bodies, nor checked and
            // built again: seconds of work at 100,000 tools), for the
            // digest to be compared with from now on.
            (Some(digest), None) => {
                let transaction = consistent(client).await?;
                let (read_at, hashes) = db::hashes(&transaction).await?;
                transaction.commit().await?;
                if read_at == revision && hashes.total() == digest {
                    if let Some(current) = held.as_mut() {
                        current.hashes = Some(hashes);
                    }
                    return Ok(None);
                }
                // The store moved on meanwhile: the next load catches up.
                verify = read_at == revision;
                if !verify {
                    return Ok(None);
                }
            }
        }
    }
    let full = |(revision, records, hashes)| Read {
        revision,
        records,
        hashes,
        previous: None,
        after: None,
    };
    let read = match held.take() {
        Some(from) if verify => Read {
            previous: Some(from.records),
            ..full(full_read(client, health).await?)
        },
        Some(mut from) => match changes_with(client, from.revision, &from.records).await {
            Ok(Some((revision, (delta, row_hashes)))) => {
                // The rows the entries name, as the tables hold them: the
                // change log says which rows changed, the tables what
                // they hold.
                from.records.apply_delta(&delta);
                let mut hashes = from.hashes;
                if let Some(hashes) = &mut hashes {
                    for (key, hash) in row_hashes {
                        hashes.set(key, hash);
                    }
                }
                // The configuration the change is applied to.
                let after = from.config.map(|previous| After { previous, delta });
                update(health, |h| h.change_reads += 1);
                Read {
                    after,
                    ..full((revision, from.records, hashes))
                }
            }
            Ok(None) => full(full_read(client, health).await?),
            // A store not yet migrated to the change log: read in full.
            Err(StoreError::Database(error))
                if error.code() == Some(&tokio_postgres::error::SqlState::UNDEFINED_TABLE) =>
            {
                full(full_read(client, health).await?)
            }
            Err(error) => return Err(error),
        },
        None => full(full_read(client, health).await?),
    };
    Ok(Some(read))
}

/// Checks the records read (as the change `after` where there is one) and
/// swaps their snapshot in, off the runtime's workers: checking and
/// building are CPU work (most of a second at 10,000 tools checked whole),
/// and serving goes on meanwhile. What was checked is `held` for the next
/// change; the clients whose lists changed, or the problems.
async fn check_and_swap(
    catalog: &Arc<Catalog>,
    health: &Arc<Mutex<FollowerHealth>>,
    held: &mut Option<Held>,
    (revision, records, hashes): (i64, Records, Option<db::RowHashes>),
    after: Option<After>,
) -> Result<ChangeSet, StoreError> {
    let swap = Arc::clone(catalog);
    let joined = tokio::task::spawn_blocking(move || {
        let checked = match &after {
            Some(after) => records.check_change(swap.registry(), &after.previous, &after.delta),
            None => records.check(swap.registry()).map(|config| (config, None)),
        };
        let patched = matches!(checked, Ok((_, Some(_))));
        let checked = checked.map(|(config, touched)| {
            let config = Arc::new(config);
            let changes = swap.reload_shared(config.clone(), touched.as_ref());
            (config, changes)
        });
        (records, checked, patched)
    })
    .await;
    match joined {
        Ok((records, checked, patched)) => {
            if patched {
                update(health, |h| h.patches += 1);
            }
            *held = Some(Held {
                revision,
                records,
                hashes,
                config: checked.as_ref().ok().map(|(config, _)| config.clone()),
            });
            checked
                .map(|(_, changes)| changes)
                .map_err(StoreError::Invalid)
        }
        // Nothing held: the next change is read in full.
        Err(error) => Err(StoreError::Invalid(crate::Problems(vec![crate::Problem {
            record: "catalog".into(),
            field: String::new(),
            message: format!("checking the stored configuration failed: {error}"),
        }]))),
    }
}

/// Logs a load's outcome and keeps it in the replica's health: the revision
/// served, or the one refused and why (the last good configuration keeps
/// serving).
fn settle(
    health: &Arc<Mutex<FollowerHealth>>,
    revision: i64,
    started: std::time::Instant,
    checked: Result<ChangeSet, StoreError>,
) -> Result<(), StoreError> {
    match checked {
        Ok(changes) => {
            tracing::info!(
                revision,
                changed = changes.clients.len(),
                took_ms = started.elapsed().as_secs_f64() * 1e3,
                "catalog store configuration loaded"
            );
            update(health, |h| {
                h.revision = revision;
                h.refused_revision = None;
                h.problem = None;
            });
            Ok(())
        }
        Err(StoreError::Invalid(problems)) => {
            tracing::error!(
                revision,
                "the catalog store's configuration was refused; the last good one keeps serving\n{problems}"
            );
            update(health, |h| {
                h.refused_revision = Some(revision);
                h.problem = Some(problems.to_string());
            });
            Ok(())
        }
        Err(error) => Err(error),
    }
}

/// Every record, their revision and their rows' hashes, in one consistent
/// snapshot.
async fn full_read(
    client: &mut Client,
    health: &Arc<Mutex<FollowerHealth>>,
) -> Result<(i64, Records, Option<db::RowHashes>), StoreError> {
    let transaction = consistent(client).await?;
    let (revision, records, hashes) = db::read_hashed(&transaction).await?;
    transaction.commit().await?;
    update(health, |h| h.full_reads += 1);
    Ok((revision, records, Some(hashes)))
}

/// The rows the change log's entries name, as the tables hold them, and
/// their hashes.
type Rows = (toolschema_config::Delta, Vec<(db::RowKey, Option<i64>)>);

/// The store's revision, the change log's entries after `since` up to it,
/// and the rows they name as the tables hold them, read in one consistent
/// snapshot; `None` when the log lacks an entry.
async fn changes_with(
    client: &mut Client,
    since: i64,
    held: &Records,
) -> Result<Option<(i64, Rows)>, StoreError> {
    let transaction = consistent(client).await?;
    let revision: i64 = transaction
        .query_one("SELECT revision FROM catalog_revision", &[])
        .await?
        .get(0);
    let Some(changes) = db::changes_since(&transaction, since, revision).await? else {
        transaction.commit().await?;
        return Ok(None);
    };
    let rows = db::rows_of(&transaction, &changes, held).await?;
    transaction.commit().await?;
    Ok(Some((revision, rows)))
}

fn disconnected(health: &Arc<Mutex<FollowerHealth>>, why: String) {
    update(health, |h| {
        if h.connected || h.disconnected_since.is_none() {
            h.disconnected_since = Some(now());
        }
        h.connected = false;
        h.problem = Some(why);
    });
}

fn update<T>(
    health: &Arc<Mutex<FollowerHealth>>,
    change: impl FnOnce(&mut FollowerHealth) -> T,
) -> T {
    match health.lock() {
        Ok(mut health) => change(&mut health),
        Err(poisoned) => change(&mut poisoned.into_inner()),
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
