//! The example billing service's tool catalog.
//!
//! `cargo run --example billing` prints the billing tools as MCP `Tool`
//! objects (Full mode), keys in declaration order. The tools, their
//! handlers and the demo configuration live in `examples/demo/`.

use toolschema::Tool;
use toolschema::render::render_tool;
use toolschema::render::{Json, Object};
use toolschema_demo::{GetInvoice, ListInvoices, RefundV1, VoidInvoice};

fn main() {
    let tools = [
        GetInvoice::TOOL,
        ListInvoices::TOOL,
        VoidInvoice::TOOL,
        RefundV1::TOOL,
    ]
    .into_iter()
    .map(render_tool)
    .collect();
    let mut catalog = Object::new();
    catalog.insert("tools", Json::Array(tools));
    println!("{}", Json::Object(catalog).to_pretty_string());
}
