//! Reloading a configuration of gateway tools many times does not grow
//! memory: each configuration's descriptors (built at run time, with shared
//! parts) are freed with the last snapshot that uses them. A counting
//! global allocator measures the bytes alive; this binary holds this one
//! test, so nothing else allocates meanwhile.

#![allow(missing_docs, unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

use toolschema::call::Registry;
use toolschema::catalog::Catalog;
use toolschema::model::Ref;

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: forwards to the system allocator and only counts bytes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::SeqCst);
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::SeqCst);
        // SAFETY: the caller upholds `GlobalAlloc::dealloc`'s contract.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const CATALOG: &str = include_str!("../examples/rest-gateway/catalog.toml");

#[test]
fn a_thousand_reloads_of_gateway_tools_leave_memory_where_it_was() {
    let catalog = Catalog::from_toml(Registry::new(), CATALOG, "catalog.toml")
        .unwrap_or_else(|errors| panic!("{errors}"));
    // A second text, so that every reload really changes the lists.
    let other = CATALOG.replace("Returns one note by its id.", "Returns a note by its id.");
    let reload = |n: usize| {
        for i in 0..n {
            let text = if i % 2 == 0 { other.as_str() } else { CATALOG };
            catalog.reload_toml(text, "catalog.toml").expect("valid");
        }
    };
    // Warm up whatever is built once for the process.
    reload(20);
    let before = LIVE.load(Ordering::SeqCst);
    reload(1_000);
    let after = LIVE.load(Ordering::SeqCst);
    let snapshot = catalog.snapshot();
    let view = snapshot.client("pet-assistant").expect("client");
    assert!(
        matches!(view.def_of("notes.get"), Some(Ref::Shared(_))),
        "the reloads built configured descriptors"
    );
    let grown = after - before;
    println!("live bytes: {before} before, {after} after 1,000 reloads ({grown:+})");
    assert!(
        grown.abs() < 16 * 1024,
        "1,000 reloads changed the bytes alive by {grown} ({before} -> {after})"
    );
}
