//! A service whose tools share its state: a warehouse's stock, behind an
//! `Arc`, given once to the server. `stock.add` changes it and the next
//! call of `stock.level` sees the change; a second server in the same
//! process would have a stock of its own.
//!
//! `cargo run --example stateful` serves MCP at http://127.0.0.1:8080/mcp;
//! give another address as the first argument.

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

#[tokio::main]
async fn main() -> ExitCode {
    let address = std::env::args().nth(1);
    let address = address.as_deref().unwrap_or("127.0.0.1:8080");
    let server = Server::new("warehouse", "1.0.0")
        .state(Warehouse::default())
        .tool::<AddStock>()
        .tool::<StockLevel>()
        .bind_http(address)
        .await;
    let served = match server {
        Ok(server) => {
            println!("serving MCP at http://{}/mcp", server.local_addr());
            server.run().await
        }
        Err(error) => Err(error),
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
