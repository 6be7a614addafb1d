//! Describing a tool allocates nothing: the descriptor and every schema node
//! are constants. A counting global allocator proves it for a whole walk of a
//! tool's model.

#![allow(missing_docs, unsafe_code, dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Deserialize;
use toolschema::model::{Node, Shape};
use toolschema::{Schema, Tool};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator and only counts calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller upholds `GlobalAlloc::dealloc`'s contract.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// A kind of line.
#[derive(Schema, Deserialize)]
enum Kind {
    Product { sku: String },
    Fee(u32),
    Discount,
}

/// A line.
#[derive(Schema, Deserialize)]
struct Line {
    kind: Kind,
    amounts: Vec<Option<u64>>,
    tags: std::collections::BTreeMap<String, String>,
}

/// Creates an invoice.
#[derive(Tool, Deserialize)]
#[tool(output = Line)]
struct CreateInvoice {
    #[tool(rename = "customerId", min_length = 1)]
    customer_id: String,
    lines: Vec<Line>,
    note: Option<String>,
}

/// Visits every node reachable from `node`, returning how many.
fn walk(node: &Node) -> usize {
    1 + match node {
        Node::Optional(inner) => walk(inner),
        Node::Array(array) => walk(&array.items),
        Node::Map(map) => walk(&map.values),
        Node::Tuple(items) | Node::AnyOf(items) => items.iter().map(|n| walk(n)).sum(),
        Node::Object(object) => object
            .fields
            .iter()
            .map(|f| walk(&f.schema) + f.exposed.len().min(1))
            .sum(),
        Node::Enum(enumeration) => enumeration
            .variants
            .iter()
            .map(|v| match &v.shape {
                Shape::Unit => 0,
                Shape::Newtype(f) => walk(f),
                Shape::Tuple(items) => items.iter().map(|f| walk(f)).sum(),
                Shape::Struct(fields) => fields.iter().map(|f| walk(&f.schema)).sum(),
            })
            .sum(),
        _ => 0,
    }
}

#[test]
fn describing_a_tool_allocates_nothing() {
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    let tool = <CreateInvoice as Tool>::TOOL;
    let visited = walk(&tool.input) + tool.output.as_ref().map_or(0, |f| walk(f));
    let name_len = tool.name.len() + tool.description.len();
    let after = ALLOCATIONS.load(Ordering::SeqCst);
    assert!(visited > 15, "the walk reached only {visited} nodes");
    assert!(name_len > 0);
    assert_eq!(
        after - before,
        0,
        "describing the tool allocated {} times",
        after - before
    );

    // The counter is live: rendering does allocate.
    let json = toolschema::render::render_tool(tool).to_compact_string();
    assert!(ALLOCATIONS.load(Ordering::SeqCst) > after);
    assert!(json.contains("\"customerId\""));
}
