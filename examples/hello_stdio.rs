//! A Rust service serving its own tool over stdio, as MCP clients launch
//! local servers: one JSON-RPC message per line on stdin, replies on stdout.
//! Open mode: no catalog configuration, every tool for the one client.
//!
//! `cargo run --example hello_stdio`, then type
//! `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`.

use std::process::ExitCode;

use serde::{Deserialize, Serialize};
use toolschema::serve::Server;
use toolschema::{Context, Handler, Schema, Tool, ToolError};

/// How many words a text has.
#[derive(Schema, Serialize)]
struct WordCount {
    /// The number of words, separated by whitespace.
    words: u64,
}

/// Counts the words of a text.
#[derive(Tool, Deserialize)]
#[tool(name = "text.count-words", output = WordCount, annotations(read_only))]
struct CountWords {
    /// The text to count.
    #[tool(max_length = 100000)]
    text: String,
}

impl Handler for CountWords {
    async fn call(self, _ctx: Context) -> Result<WordCount, ToolError> {
        Ok(WordCount {
            words: self.text.split_whitespace().count() as u64,
        })
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let served = Server::new("words", "1.0.0")
        .tool::<CountWords>()
        .serve_stdio()
        .await;
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
