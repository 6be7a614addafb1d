//! A service whose tools share its state: a warehouse's stock, behind an
//! `Arc`, given once to the server. `stock.add` changes it and the next
//! call of `stock.level` sees the change; a second server in the same
//! process would have a stock of its own.
//!
//! Its binary has the service's command line, from one call
//! (`Server::main`, feature `cli`; `tokens` for `list --stats`):
//!
//! - `cargo run --example stateful --features cli,tokens -- serve` serves MCP at
//!   http://127.0.0.1:8080/mcp (`--bind` another address, `--stdio`);
//! - `list --stats` prints what its tool list costs the model, in tokens;
//! - `export` prints its `server.json`, and `export --check
//!   examples/warehouse.server.json` fails with a diff when the committed
//!   file is stale (`TOOLSCHEMA_BLESS=1` rewrites it): CI runs that check.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use toolschema::serve::Server;
use toolschema::{Context, Handler, Schema, Tool, ToolError};

/// The service's state: how many of each item are in stock.
#[derive(Default)]
struct Warehouse {
    stock: Mutex<BTreeMap<String, u32>>,
}

impl Warehouse {
    /// Runs `work` on the stock.
    fn with_stock<T>(
        &self,
        work: impl FnOnce(&mut BTreeMap<String, u32>) -> T,
    ) -> Result<T, ToolError> {
        let mut stock = self
            .stock
            .lock()
            .map_err(|_| ToolError::new("the stock is unavailable; try again"))?;
        Ok(work(&mut stock))
    }
}

/// How many of an item are in stock.
#[derive(Schema, Serialize)]
struct Level {
    /// The item's stock-keeping unit.
    sku: String,
    /// How many are in stock now.
    quantity: u32,
}

/// Records that items arrived in the warehouse.
#[derive(Tool, Deserialize)]
#[tool(name = "stock.add", state = Warehouse, output = Level)]
struct AddStock {
    /// The item's stock-keeping unit.
    #[tool(min_length = 1)]
    sku: String,
    /// How many arrived.
    #[tool(minimum = 1)]
    quantity: u32,
}

impl Handler for AddStock {
    async fn call(self, ctx: Context<Warehouse>) -> Result<Level, ToolError> {
        let quantity = ctx.state().with_stock(|stock| {
            let held = stock.entry(self.sku.clone()).or_insert(0);
            *held = held.saturating_add(self.quantity);
            *held
        })?;
        Ok(Level {
            sku: self.sku,
            quantity,
        })
    }
}

/// Says how many of an item are in stock.
#[derive(Tool, Deserialize)]
#[tool(name = "stock.level", state = Warehouse, output = Level, annotations(read_only))]
struct StockLevel {
    /// The item's stock-keeping unit.
    sku: String,
}

impl Handler for StockLevel {
    async fn call(self, ctx: Context<Warehouse>) -> Result<Level, ToolError> {
        let quantity = ctx
            .state()
            .with_stock(|stock| stock.get(&self.sku).copied().unwrap_or(0))?;
        Ok(Level {
            sku: self.sku,
            quantity,
        })
    }
}

/// The service: its identity (a registry name, so that it exports as
/// `server.json`), its state, its tools.
fn warehouse() -> Server<Warehouse> {
    Server::new("dev.toolschema.examples/warehouse", "1.0.0")
        .title("Warehouse")
        .description("A warehouse's stock: record arrivals and read stock levels")
        .state(Warehouse::default())
        .tool::<AddStock>()
        .tool::<StockLevel>()
}

fn main() -> ExitCode {
    warehouse().main()
}
