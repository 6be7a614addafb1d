//! Work spread over the machine's cores. A replica's cold load checks and
//! renders every configured tool, each on its own: 100,000 of them are
//! seconds on one core. (For toolschema's own crates: the configuration's
//! checks, the snapshot build and the store's records use it.)

use core::num::NonZeroUsize;
use std::sync::OnceLock;

/// The fewest items worth a thread of their own: below it, spawning costs
/// more than it saves.
const PER_THREAD: usize = 256;

/// How many threads the machine runs at once (1 if it cannot say).
fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, NonZeroUsize::get))
}

/// `work` applied to each of `items`, the results in the items' order: on
/// the calling thread when the items are few or the machine has one core,
/// else in one run of items per core, each on a thread of its own (the
/// first on the caller's). A panic in `work` is the caller's.
pub fn map<T: Send, U: Send>(items: Vec<T>, work: impl Fn(T) -> U + Sync) -> Vec<U> {
    let threads = cores().min(items.len() / PER_THREAD).max(1);
    if threads == 1 {
        return items.into_iter().map(work).collect();
    }
    let size = items.len().div_ceil(threads);
    let mut runs = Vec::with_capacity(threads);
    let mut rest = items;
    while rest.len() > size {
        let tail = rest.split_off(size);
        runs.push(rest);
        rest = tail;
    }
    runs.push(rest);
    let work = &work;
    std::thread::scope(|scope| {
        let mut runs = runs.into_iter();
        let first = runs.next().unwrap_or_default();
        let others: Vec<_> = runs
            .map(|run| scope.spawn(move || run.into_iter().map(work).collect::<Vec<U>>()))
            .collect();
        let mut out: Vec<U> = first.into_iter().map(work).collect();
        for other in others {
            match other.join() {
                Ok(results) => out.extend(results),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_items_order_however_many_there_are() {
        for n in [0, 1, PER_THREAD - 1, PER_THREAD * 2, PER_THREAD * 7 + 3] {
            let items: Vec<usize> = (0..n).collect();
            let doubled = map(items, |i| i * 2);
            assert_eq!(
                doubled,
                (0..n).map(|i| i * 2).collect::<Vec<_>>(),
                "{n} items"
            );
        }
    }

    #[test]
    fn a_panic_in_the_work_reaches_the_caller() {
        let items: Vec<usize> = (0..PER_THREAD * 4).collect();
        let caught = std::panic::catch_unwind(|| {
            map(items, |i| {
                assert!(i != PER_THREAD * 3, "item {i}");
                i
            })
        });
        assert!(caught.is_err());
    }
}
