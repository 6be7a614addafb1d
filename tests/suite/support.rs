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
