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

/// One blocking slot held for a large request from its parse to the
/// reading of its arguments, both run in it one after the other: a large
/// request that waits for a slot holds only its bytes, never their parsed
/// tree (a tree held between the two while others parse is what made many
/// large requests at once cost many trees of memory). The slot is let go
/// once the arguments are read, or when the request is answered.
#[cfg(feature = "http")]
#[derive(Debug)]
pub(crate) struct Reserved {
    slots: Arc<Semaphore>,
    held: std::sync::Mutex<Option<tokio::sync::OwnedSemaphorePermit>>,
}

impl Blocking {
    /// A slot of this work held for one large request (`None`: the runtime
    /// is shutting down).
    #[cfg(feature = "http")]
    pub(crate) async fn reserve(&self) -> Option<Arc<Reserved>> {
        let permit = self.slots.clone().acquire_owned().await.ok()?;
        Some(Arc::new(Reserved {
            slots: self.slots.clone(),
            held: std::sync::Mutex::new(Some(permit)),
        }))
    }
}

#[cfg(feature = "http")]
impl Reserved {
    /// Runs `work` on a blocking thread in the slot held (which stays
    /// held), and gives back what it made (`None`: the runtime is shutting
    /// down).
    #[cfg(feature = "http")]
    pub(crate) async fn run_for<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Option<T> {
        tokio::task::spawn_blocking(work).await.ok()
    }
}

#[cfg(feature = "http")]
impl Offload for Reserved {
    /// Runs `work` in the slot held, then lets it go (a second run takes a
    /// slot as [`Blocking`] does).
    fn run(&self, work: Box<dyn FnOnce() + Send>) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        let held = self
            .held
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        let slots = self.slots.clone();
        Box::pin(async move {
            let slot = match held {
                Some(slot) => slot,
                None => match slots.acquire_owned().await {
                    Ok(slot) => slot,
                    Err(_) => return,
                },
            };
            let _ = tokio::task::spawn_blocking(move || {
                let _slot = slot;
                work();
            })
            .await;
        })
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

#[cfg(all(test, feature = "http"))]
mod tests {
    use super::{Blocking, Offload as _};

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_large_request_holds_its_slot_from_its_parse_to_its_arguments() {
        let blocking = Blocking::default();
        let slots = blocking.slots.available_permits();
        let first = blocking.reserve().await.expect("a slot");
        assert_eq!(blocking.slots.available_permits(), slots - 1);
        // Parsed in its slot: the slot stays held, so a request waiting
        // for one never holds a parsed tree.
        let parsed = first.run_for(|| 7).await;
        assert_eq!(parsed, Some(7));
        assert_eq!(blocking.slots.available_permits(), slots - 1);
        // Its arguments read in the same slot, which is then let go.
        first.run(Box::new(|| {})).await;
        assert_eq!(blocking.slots.available_permits(), slots);
        // A request answered before its arguments are read lets it go too.
        let second = blocking.reserve().await.expect("a slot");
        assert_eq!(blocking.slots.available_permits(), slots - 1);
        drop(second);
        assert_eq!(blocking.slots.available_permits(), slots);
        // A second run takes a slot of its own, and gives it back.
        first.run(Box::new(|| {})).await;
        assert_eq!(blocking.slots.available_permits(), slots);
    }
}
