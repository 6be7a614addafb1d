//! Change notices and shutdown, once for every transport: each reload that
//! changes some clients' lists reaches the streams of those clients, and a
//! shutdown ends every stream.

use std::sync::Arc;

use tokio::sync::{broadcast, watch};
use toolschema_catalog::{Catalog, ChangeSet};

/// The notices of one catalog, for any number of listeners.
#[derive(Debug)]
pub(crate) struct Notices {
    changes: broadcast::Sender<Arc<ChangeSet>>,
    closing: watch::Sender<bool>,
}

/// What a listener hears next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Notice {
    /// The client's tool list changed.
    ListChanged,
    /// The server is shutting down: the stream ends.
    Closing,
    /// A reload took away what the listener's client authenticated with
    /// (its key, its client application): the stream ends.
    Revoked,
}

/// Whether a listener's client still stands after a reload.
pub(crate) type Standing = Box<dyn Fn() -> bool + Send>;

impl Notices {
    /// The notices of `catalog`: a thread forwards its change sets for as
    /// long as the catalog lives.
    pub(crate) fn new(catalog: &Catalog) -> Notices {
        let (changes, _) = broadcast::channel(64);
        let (closing, _) = watch::channel(false);
        let reloads = catalog.subscribe();
        let forward = changes.clone();
        std::thread::spawn(move || {
            while let Ok(change) = reloads.recv() {
                // Sending fails only when no stream is listening, which is fine.
                let _ = forward.send(Arc::new(change));
            }
        });
        Notices { changes, closing }
    }

    /// What `client` hears from now on; after each reload `standing`, if
    /// given, tells whether it still may.
    pub(crate) fn listen(&self, client: &str, standing: Option<Standing>) -> Listener {
        Listener {
            client: client.to_owned(),
            standing,
            changes: self.changes.subscribe(),
            closing: self.closing.subscribe(),
        }
    }

    /// Ends every stream, open now or opened later.
    pub(crate) fn close(&self) {
        self.closing.send_replace(true);
    }
}

/// One client's notices.
pub(crate) struct Listener {
    client: String,
    standing: Option<Standing>,
    changes: broadcast::Receiver<Arc<ChangeSet>>,
    closing: watch::Receiver<bool>,
}

impl core::fmt::Debug for Listener {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Listener")
            .field("client", &self.client)
            .finish_non_exhaustive()
    }
}

impl Listener {
    /// The next notice for this client; `Closing` once the server shuts
    /// down (or the catalog is gone).
    pub(crate) async fn next(&mut self) -> Notice {
        loop {
            tokio::select! {
                change = self.changes.recv() => match change {
                    Ok(_) if self.standing.as_ref().is_some_and(|standing| !standing()) => {
                        return Notice::Revoked;
                    }
                    Ok(change) if change.clients.contains(&self.client) => {
                        return Notice::ListChanged;
                    }
                    Ok(_) => {}
                    // Notices were missed: the list may have changed.
                    Err(broadcast::error::RecvError::Lagged(_)) => return Notice::ListChanged,
                    Err(broadcast::error::RecvError::Closed) => return Notice::Closing,
                },
                closing = self.closing.wait_for(|closing| *closing) => {
                    let _ = closing;
                    return Notice::Closing;
                }
            }
        }
    }
}
