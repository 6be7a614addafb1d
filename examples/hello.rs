//! A Rust service serving its own tools: two derived tools with handlers,
//! over Streamable HTTP, in open mode (no catalog configuration: every tool
//! listed in Full mode, no API key, loopback addresses only).
//!
//! `cargo run --example hello` serves MCP at http://127.0.0.1:8080/mcp;
//! give another address as the first argument.

use std::process::ExitCode;

use serde::{Deserialize, Serialize};
use toolschema::serve::Server;
use toolschema::{Context, Handler, Schema, Tool, ToolError};

/// A greeting.
#[derive(Schema, Serialize)]
struct Greeting {
    /// The greeting's text.
    text: String,
}

/// Greets someone by name.
#[derive(Tool, Deserialize)]
#[tool(name = "hello.greet", output = Greeting, annotations(read_only))]
struct Greet {
    /// Who to greet.
    #[tool(min_length = 1, max_length = 64)]
    name: String,
}

impl Handler for Greet {
    async fn call(self, _ctx: Context) -> Result<Greeting, ToolError> {
        Ok(Greeting {
            text: format!("Hello, {}!", self.name),
        })
    }
}

/// A sum.
#[derive(Schema, Serialize)]
struct Sum {
    /// The two numbers added.
    value: i64,
}

/// Adds two whole numbers.
#[derive(Tool, Deserialize)]
#[tool(name = "hello.add", output = Sum, annotations(read_only))]
struct Add {
    /// The first number.
    a: i32,
    /// The second number.
    b: i32,
}

impl Handler for Add {
    async fn call(self, _ctx: Context) -> Result<Sum, ToolError> {
        Ok(Sum {
            value: i64::from(self.a) + i64::from(self.b),
        })
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let address = std::env::args().nth(1);
    let address = address.as_deref().unwrap_or("127.0.0.1:8080");
    let server = Server::new("hello", "1.0.0")
        .tool::<Greet>()
        .tool::<Add>()
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
