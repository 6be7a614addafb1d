use serde::Deserialize;
use toolschema::serve::Server;
use toolschema::{Context, Handler, Tool, ToolError, ToolResult};

/// The state `Reserve` reads.
struct Inventory;

/// Another application's state.
struct Billing;

/// Reserves an item.
#[derive(Tool, Deserialize)]
#[tool(state = Inventory)]
struct Reserve {
    sku: String,
}

impl Handler for Reserve {
    async fn call(self, _ctx: Context<Inventory>) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::text(self.sku))
    }
}

fn main() {
    let _ = Server::new("billing", "1").state(Billing).tool::<Reserve>();
}
