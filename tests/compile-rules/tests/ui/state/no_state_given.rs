use serde::Deserialize;
use toolschema::{Context, Handler, Registry, Tool, ToolError, ToolResult};

/// The state `Reserve` reads.
struct Inventory;

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
    let mut registry = Registry::new();
    let _ = registry.register::<Reserve>();
}
