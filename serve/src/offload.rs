//! Large requests' synchronous work off the async workers: a request
//! larger than [`LARGE_REQUEST`] is parsed, and a call's arguments read
//! against the schema, on Tokio's blocking threads, at most a few at once,
//! so that a megabyte of hostile arguments does not hold up the small
//! requests that share a worker with it.

use core::future::Future;
use core::pin::Pin;
use std::sync::Arc;

use tokio::sync::Semaphore;
use toolschema_runtime::call::Offload;

/// A request of more bytes than this is read off the async workers.
pub(crate) const LARGE_REQUEST: usize = 64 << 10;

/// Tokio's blocking threads, at most one per core at once for this work.
#[derive(Debug)]
pub(crate) struct Blocking {
    slots: Arc<Semaphore>,
}

impl Default for Blocking {
    fn default() -> Blocking {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Blocking {
            slots: Arc::new(Semaphore::new(cores.max(2))),
        }
    }
}

impl Blocking {
    /// Runs `work` on a blocking thread, as [`Offload::run`] does, and
    /// gives back what it made (`None` when it could not run: the runtime
    /// is shutting down).
    #[cfg(feature = "http")]
    pub(crate) async fn run_for<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Option<T> {
        let slot = self.slots.clone().acquire_owned().await.ok()?;
        tokio::task::spawn_blocking(move || {
            let _slot = slot;
            work()
        })
        .await
        .ok()
    }
}

impl Offload for Blocking {
    fn run(&self, work: Box<dyn FnOnce() + Send>) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        let slots = self.slots.clone();
        Box::pin(async move {
            let Ok(slot) = slots.acquire_owned().await else {
                return;
            };
            let _ = tokio::task::spawn_blocking(move || {
                let _slot = slot;
                work();
            })
            .await;
        })
    }
}
