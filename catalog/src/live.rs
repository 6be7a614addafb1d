//! The live catalog: the current snapshot, swapped atomically when the
//! configuration changes, with change notices for the clients whose lists
//! changed.

use core::fmt;
use core::time::Duration;
use std::collections::{BTreeSet, VecDeque};
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use arc_swap::ArcSwap;

use super::snapshot::Snapshot;
use toolschema_config::{Config, ConfigErrors, Touched};
use toolschema_configured::{NoTransport, Transport};
use toolschema_runtime::call::Registry;

/// The clients whose tool lists a reload changed (added, removed, or with
/// different bytes).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ChangeSet {
    /// Client ids, in byte order.
    pub clients: BTreeSet<String>,
}

impl ChangeSet {
    /// Whether no client's list changed.
    pub fn is_empty(&self) -> bool {
        self.clients.is_empty()
    }
}

/// The current snapshot of a catalog. Reading it takes no lock; a reload
/// builds the next snapshot off the request path and swaps it in whole.
pub struct Catalog {
    registry: Arc<Registry>,
    /// What configured tools call their downstreams through.
    transport: Arc<dyn Transport>,
    current: ArcSwap<Snapshot>,
    subscribers: Mutex<Vec<Sender<ChangeSet>>>,
    /// The snapshots a reload replaced, newest first, so that a pagination
    /// cursor stays valid for the snapshot it came from.
    recent: Mutex<VecDeque<Arc<Snapshot>>>,
}

/// How many replaced snapshots are kept for pagination cursors.
const RECENT: usize = 4;

impl fmt::Debug for Catalog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Catalog")
            .field("current", &self.current.load())
            .finish_non_exhaustive()
    }
}

impl Catalog {
    /// A catalog without configuration: every registered tool, in Full
    /// mode, for everyone.
    pub fn open(registry: Registry) -> Catalog {
        Catalog::open_with(registry, Arc::new(NoTransport))
    }

    /// A catalog without configuration yet, whose configured tools will
    /// call their downstreams through `transport` (see [`Catalog::reload`]).
    pub fn open_with(registry: Registry, transport: Arc<dyn Transport>) -> Catalog {
        let registry = Arc::new(registry);
        let snapshot = Snapshot::open(registry.clone());
        Catalog::serving(registry, transport, snapshot)
    }

    /// A catalog governed by a TOML configuration (`file` names it in
    /// errors), without transport for configured tools.
    pub fn from_toml(registry: Registry, text: &str, file: &str) -> Result<Catalog, ConfigErrors> {
        let config = Config::from_toml(text, file, &registry)?;
        Ok(Catalog::from_config(registry, &config))
    }

    /// A catalog governed by a TOML configuration (as
    /// [`Catalog::from_toml`]), whose configured tools call their
    /// downstreams through `transport`.
    pub fn from_toml_with(
        registry: Registry,
        text: &str,
        file: &str,
        transport: Arc<dyn Transport>,
    ) -> Result<Catalog, ConfigErrors> {
        let config = Config::from_toml(text, file, &registry)?;
        Ok(Catalog::from_config_with(registry, &config, transport))
    }

    /// A catalog governed by `config`, which was checked against the same
    /// tools as `registry` holds ([`Config::from_toml`] with an equal
    /// registry), without transport for configured tools.
    pub fn from_config(registry: Registry, config: &Config) -> Catalog {
        Catalog::from_config_with(registry, config, Arc::new(NoTransport))
    }

    /// A catalog governed by `config` (as [`Catalog::from_config`]), whose
    /// configured tools call their downstreams through `transport`.
    pub fn from_config_with(
        registry: Registry,
        config: &Config,
        transport: Arc<dyn Transport>,
    ) -> Catalog {
        let registry = Arc::new(registry);
        let snapshot = Snapshot::build_with(registry.clone(), config, &*transport);
        Catalog::serving(registry, transport, snapshot)
    }

    fn serving(
        registry: Arc<Registry>,
        transport: Arc<dyn Transport>,
        snapshot: Snapshot,
    ) -> Catalog {
        Catalog {
            registry,
            transport,
            current: ArcSwap::from_pointee(snapshot),
            subscribers: Mutex::new(Vec::new()),
            recent: Mutex::new(VecDeque::new()),
        }
    }

    /// The current snapshot. Holding it keeps it alive, unchanged, however
    /// many reloads happen meanwhile.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.current.load_full()
    }

    /// The snapshot, current or recently replaced, in which `client`'s list
    /// has `fingerprint`: where a pagination cursor of that list is read.
    pub fn snapshot_with_list(&self, client: &str, fingerprint: u64) -> Option<Arc<Snapshot>> {
        let matches = |snapshot: &Arc<Snapshot>| {
            snapshot
                .client(client)
                .is_some_and(|view| view.has_list(fingerprint))
        };
        let current = self.snapshot();
        if matches(&current) {
            return Some(current);
        }
        let recent = self.recent.lock().ok()?;
        recent.iter().find(|snapshot| matches(snapshot)).cloned()
    }

    /// The registry behind the catalog.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// Receives a [`ChangeSet`] after every reload: the clients whose lists
    /// changed (none, when only keys or server details changed).
    pub fn subscribe(&self) -> Receiver<ChangeSet> {
        let (sender, receiver) = mpsc::channel();
        if let Ok(mut subscribers) = self.subscribers.lock() {
            subscribers.push(sender);
        }
        receiver
    }

    /// Builds a snapshot from a new configuration and swaps it in. An invalid
    /// configuration changes nothing: the current snapshot keeps serving.
    pub fn reload_toml(&self, text: &str, file: &str) -> Result<ChangeSet, ConfigErrors> {
        let config = Config::from_toml(text, file, &self.registry)?;
        Ok(self.reload(&config))
    }

    /// Builds a snapshot from a configuration checked against this
    /// catalog's registry (as [`Config::from_toml`] does) and swaps it in;
    /// returns the clients whose lists changed, who are also told.
    pub fn reload(&self, config: &Config) -> ChangeSet {
        self.reload_shared(Arc::new(config.clone()), None)
    }

    /// [`reload`](Self::reload) with a configuration the new snapshot
    /// keeps without a copy ([`Snapshot::config`]); `touched`, when
    /// `config` is the current one's after a change ([`Config::apply`]),
    /// what that change touched. What did not change since the current
    /// snapshot is shared with it ([`Snapshot::rebuild`]).
    pub fn reload_shared(&self, config: Arc<Config>, touched: Option<&Touched>) -> ChangeSet {
        let next = Arc::new(Snapshot::rebuild(
            &self.current.load(),
            self.registry.clone(),
            config,
            touched,
            &*self.transport,
        ));
        let previous = self.current.swap(next.clone());
        let changes = changes(&previous, &next);
        if let Ok(mut recent) = self.recent.lock() {
            recent.push_front(previous);
            recent.truncate(RECENT);
        }
        // Every reload is told, even one that changed no list: what it
        // changed may be who is let in (a key revoked).
        if let Ok(mut subscribers) = self.subscribers.lock() {
            subscribers.retain(|s| s.send(changes.clone()).is_ok());
        }
        changes
    }

    /// Compiles validators on a background thread: those of every tool
    /// version some client can call now, then those a reload newly exposes,
    /// so that calls find them ready (a call that comes first compiles its
    /// own, as without this). The thread ends when the catalog is dropped.
    pub fn prepare_in_background(self: &Arc<Self>) {
        let catalog = Arc::downgrade(self);
        let changes = self.subscribe();
        std::thread::spawn(move || {
            // Everything served at first; after each reload, what the
            // clients whose lists changed are served.
            let mut changed: Option<ChangeSet> = None;
            loop {
                let Some(catalog) = catalog.upgrade() else {
                    return;
                };
                let snapshot = catalog.snapshot();
                let prepared = match &changed {
                    None => snapshot.prepare(),
                    Some(set) => snapshot.prepare_for(set.clients.iter().map(String::as_str)),
                };
                tracing::debug!(prepared, "validators compiled");
                drop((snapshot, catalog));
                // Ends when the catalog, and with it the sender, is dropped.
                match changes.recv() {
                    Ok(set) => changed = Some(set),
                    Err(_) => return,
                }
            }
        });
    }

    /// Watches a configuration file, polling every `interval`, and reloads
    /// when its content has changed and then stayed the same for `settle`:
    /// a file being written (an editor's save, a slow copy, a truncation
    /// before a write) is not read half-done. Publishing by renaming a
    /// complete file over the watched one is atomic and needs no settling.
    /// A refused configuration (invalid, empty) is logged with `tracing`
    /// and the last good snapshot keeps serving, as it does while the file
    /// is missing (logged once). Watching stops when the returned [`Watch`]
    /// is dropped.
    pub fn watch(
        self: &Arc<Self>,
        path: impl Into<PathBuf>,
        interval: Duration,
        settle: Duration,
    ) -> Watch {
        let path = path.into();
        let catalog = Arc::clone(self);
        let (stop, stopped) = mpsc::channel::<()>();
        let mut state = WatchState {
            applied: std::fs::read(&path).ok(),
            pending: None,
            missing: false,
        };
        let thread = std::thread::spawn(move || {
            let file = path.display().to_string();
            loop {
                match stopped.recv_timeout(interval) {
                    Err(RecvTimeoutError::Timeout) => {}
                    Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
                }
                let Some(content) = state.poll(std::fs::read(&path), settle, &file) else {
                    continue;
                };
                let text = String::from_utf8_lossy(&content);
                match catalog.reload_toml(&text, &file) {
                    Ok(changes) => tracing::info!(
                        file = %file,
                        changed = changes.clients.len(),
                        "configuration reloaded"
                    ),
                    Err(errors) => tracing::error!(
                        file = %file,
                        "configuration refused; the last good one keeps serving\n{errors}"
                    ),
                }
                state.applied = Some(content);
            }
        });
        Watch {
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

/// What a watch has seen of its file.
struct WatchState {
    /// The content last loaded (or refused).
    applied: Option<Vec<u8>>,
    /// New content, and since when it has not changed.
    pending: Option<(Vec<u8>, Instant)>,
    /// Whether the file could not be read at the last poll.
    missing: bool,
}

impl WatchState {
    /// The content to load now, if the file changed and has settled.
    fn poll(
        &mut self,
        read: std::io::Result<Vec<u8>>,
        settle: Duration,
        file: &str,
    ) -> Option<Vec<u8>> {
        let content = match read {
            Ok(content) => content,
            Err(error) => {
                if !self.missing {
                    tracing::warn!(
                        file = %file,
                        %error,
                        "configuration file cannot be read (deleted?); the last good configuration keeps serving"
                    );
                }
                self.missing = true;
                self.pending = None;
                return None;
            }
        };
        if std::mem::take(&mut self.missing) {
            tracing::info!(file = %file, "configuration file is back");
        }
        if self.applied.as_deref() == Some(content.as_slice()) {
            self.pending = None;
            return None;
        }
        match &self.pending {
            Some((seen, since)) if *seen == content => {
                if since.elapsed() < settle {
                    return None;
                }
            }
            _ => {
                self.pending = Some((content, Instant::now()));
                if !settle.is_zero() {
                    return None;
                }
            }
        }
        self.pending.take().map(|(content, _)| content)
    }
}

/// The clients whose lists differ between two snapshots.
fn changes(before: &Snapshot, after: &Snapshot) -> ChangeSet {
    ChangeSet {
        clients: after.clients_changed_since(before),
    }
}

/// A running file watch; dropping it stops the watch.
#[derive(Debug)]
pub struct Watch {
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
