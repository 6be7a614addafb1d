//! A governed gateway: the demo catalog (`examples/catalog.toml`) decides
//! which client application sees which tools, in which mode and version.
//!
//! `cargo run --example gateway` prints each client's tool names and modes,
//! then calls a tool as one client and shows that another cannot see it.

use toolschema::project::Mode;

fn block_on<F: core::future::Future>(future: F) -> F::Output {
    let mut future = core::pin::pin!(future);
    let mut cx = core::task::Context::from_waker(core::task::Waker::noop());
    loop {
        if let core::task::Poll::Ready(value) = future.as_mut().poll(&mut cx) {
            return value;
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let catalog = toolschema_demo::catalog();
    let snapshot = catalog.snapshot();
    for client in ["acme-finance", "acme-assistant", "globex-support"] {
        let view = snapshot.client(client).ok_or("demo client missing")?;
        println!(
            "{client} (tenant {}, profile {}):",
            view.tenant(),
            view.profile().name()
        );
        for name in view.names() {
            let mode = view.mode_of(name).map_or("meta-tool", Mode::name);
            println!("  {name:28} {mode}");
        }
    }
    let arguments = serde_json::json!({"customer": "cust-42", "limit": 5});
    let page = block_on(snapshot.call("acme-finance", "billing.list-invoices", arguments.clone()))?;
    println!(
        "\nacme-finance lists invoices:\n{}",
        serde_json::to_string_pretty(&page.structured())?
    );
    match block_on(snapshot.call("globex-support", "billing.list-invoices", arguments)) {
        Ok(_) => println!("globex-support could call it (unexpected)"),
        Err(refused) => println!("\nglobex-support is refused: {refused}"),
    }
    Ok(())
}
