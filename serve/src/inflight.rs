//! Requests in flight, by client application and request id, so that a
//! client's `notifications/cancelled` reaches the call it names.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use toolschema_runtime::call::Cancellation;

/// The cancellations of the requests running now.
#[derive(Debug, Default)]
pub(crate) struct Inflight {
    running: Mutex<HashMap<(String, String), Cancellation>>,
}

impl Inflight {
    /// Records a request of `client` with id `id` (JSON text) until the
    /// returned guard is dropped; its cancellation fires if the client
    /// cancels it meanwhile.
    pub(crate) fn start(self: &Arc<Self>, client: &str, id: &str) -> Running {
        let key = (client.to_owned(), id.to_owned());
        let cancellation = Cancellation::new();
        if let Ok(mut running) = self.running.lock() {
            running.insert(key.clone(), cancellation.clone());
        }
        Running {
            inflight: self.clone(),
            key,
            cancellation,
        }
    }

    /// Cancels `client`'s request `id`, if it is running; a client can
    /// reach only its own requests.
    pub(crate) fn cancel(&self, client: &str, id: &str) {
        let found = self
            .running
            .lock()
            .ok()
            .and_then(|running| running.get(&(client.to_owned(), id.to_owned())).cloned());
        if let Some(cancellation) = found {
            cancellation.cancel();
        }
    }
}

impl Inflight {
    /// Cancels every running request (the connection is closing).
    #[cfg(feature = "stdio")]
    pub(crate) fn cancel_all(&self) {
        if let Ok(running) = self.running.lock() {
            running.values().for_each(Cancellation::cancel);
        }
    }
}

/// A running request; dropping it forgets it.
#[derive(Debug)]
pub(crate) struct Running {
    inflight: Arc<Inflight>,
    key: (String, String),
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
            running.remove(&self.key);
        }
    }
}
