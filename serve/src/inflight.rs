//! Requests in flight, by client application and request id, so that a
//! client's `notifications/cancelled` reaches the call it names.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use toolschema_runtime::call::Cancellation;

/// The cancellations of the requests running now, by a ticket each.
#[derive(Debug, Default)]
pub(crate) struct Inflight {
    running: Mutex<HashMap<u64, Entry>>,
    tickets: AtomicU64,
}

/// A running request: whose, which, and its cancellation.
#[derive(Debug)]
struct Entry {
    client: String,
    id: String,
    cancellation: Cancellation,
}

impl Inflight {
    /// Records a request of `client` with id `id` (JSON text) until the
    /// returned guard is dropped; its cancellation fires if the client
    /// cancels it meanwhile.
    pub(crate) fn start(self: &Arc<Self>, client: &str, id: &str) -> Running {
        let ticket = self.tickets.fetch_add(1, Ordering::Relaxed);
        let cancellation = Cancellation::new();
        if let Ok(mut running) = self.running.lock() {
            let entry = Entry {
                client: client.to_owned(),
                id: id.to_owned(),
                cancellation: cancellation.clone(),
            };
            running.insert(ticket, entry);
        }
        Running {
            inflight: self.clone(),
            ticket,
            cancellation,
        }
    }

    /// Cancels `client`'s request `id`, if it is running; a client can
    /// reach only its own requests. (Cancelling is rare: the running
    /// requests are looked through.)
    pub(crate) fn cancel(&self, client: &str, id: &str) {
        if let Ok(running) = self.running.lock() {
            running
                .values()
                .filter(|entry| entry.client == client && entry.id == id)
                .for_each(|entry| entry.cancellation.cancel());
        }
    }
}

impl Inflight {
    /// Cancels every running request (the connection is closing).
    #[cfg(feature = "stdio")]
    pub(crate) fn cancel_all(&self) {
        if let Ok(running) = self.running.lock() {
            running
                .values()
                .for_each(|entry| entry.cancellation.cancel());
        }
    }
}

/// A running request; dropping it forgets it.
#[derive(Debug)]
pub(crate) struct Running {
    inflight: Arc<Inflight>,
    ticket: u64,
    cancellation: Cancellation,
}

impl Running {
    pub(crate) fn cancellation(&self) -> &Cancellation {
        &self.cancellation
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Ok(mut running) = self.inflight.running.lock() {
            running.remove(&self.ticket);
        }
    }
}
