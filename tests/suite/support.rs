//! Small helpers the suite's modules share.

pub use toolschema_test_support::{tool_names, violations};

/// The demo catalog's tools, in list order.
pub const DEMO_TOOLS: [&str; 9] = [
    "billing.close-period",
    "billing.get-invoice",
    "billing.list-invoices",
    "billing.open-balances",
    "billing.refund",
    "billing.statement-chart",
    "billing.void-invoice",
    "support.open-ticket",
    "support.search-tickets",
];

/// Serves `router` on a loopback port of its own, in the background, and
/// returns the port: the downstream a gateway test calls.
pub async fn serve_on_loopback(router: axum::Router) -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    tokio::spawn(axum::serve(listener, router).into_future());
    port
}

/// The HTTP transport of configured tools, reading credentials from the
/// environment: what a server hands its catalog.
pub fn http() -> std::sync::Arc<toolschema_gateway::HttpTransport> {
    std::sync::Arc::new(toolschema_gateway::HttpTransport::from_environment())
}
