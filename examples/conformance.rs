//! The fixture server of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`), built with the derives and the
//! serving library: each of the suite's fixture tools is an ordinary tool.
//! `.ci/run` starts it and runs the suite against it in every protocol
//! version.
//!
//! `cargo run --example conformance -- 127.0.0.1:3000`, then
//! `npx @modelcontextprotocol/conformance server --url http://127.0.0.1:3000/mcp`.

use std::process::ExitCode;
use std::time::Duration;

use serde::Deserialize;
use toolschema::serve::Server;
use toolschema::{Content, Context, Handler, LogLevel, Tool, ToolError, ToolResult};

/// A 1×1 red pixel, as PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x08, 0xd7, 0x63, 0xf8, 0xcf, 0xc0, 0x00,
    0x00, 0x03, 0x01, 0x01, 0x00, 0x18, 0xdd, 0x8d, 0xb0, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

/// A WAV file of one silent sample (8 kHz, 8-bit mono).
const WAV: &[u8] = &[
    b'R', b'I', b'F', b'F', 37, 0, 0, 0, b'W', b'A', b'V', b'E', b'f', b'm', b't', b' ', 16, 0, 0,
    0, 1, 0, 1, 0, 0x40, 0x1f, 0, 0, 0x40, 0x1f, 0, 0, 1, 0, 8, 0, b'd', b'a', b't', b'a', 1, 0, 0,
    0, 0x80,
];

/// Returns a simple text response.
#[derive(Tool, Deserialize)]
#[tool(name = "test_simple_text", annotations(read_only))]
struct SimpleText {}

impl Handler for SimpleText {
    async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::text(
            "This is a simple text response for testing.",
        ))
    }
}

/// Returns an image.
#[derive(Tool, Deserialize)]
#[tool(name = "test_image_content", annotations(read_only))]
struct ImageContent {}

impl Handler for ImageContent {
    async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::new().with(Content::image(PNG, "image/png")))
    }
}

/// Returns audio.
#[derive(Tool, Deserialize)]
#[tool(name = "test_audio_content", annotations(read_only))]
struct AudioContent {}

impl Handler for AudioContent {
    async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::new().with(Content::audio(WAV, "audio/wav")))
    }
}

/// Returns an embedded resource.
#[derive(Tool, Deserialize)]
#[tool(name = "test_embedded_resource", annotations(read_only))]
struct EmbeddedResource {}

impl Handler for EmbeddedResource {
    async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::new().with(Content::resource_text(
            "test://embedded-resource",
            "text/plain",
            "This is an embedded resource content.",
        )))
    }
}

/// Returns text, an image and an embedded resource.
#[derive(Tool, Deserialize)]
#[tool(name = "test_multiple_content_types", annotations(read_only))]
struct MultipleContentTypes {}

impl Handler for MultipleContentTypes {
    async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::text("Multiple content types test:")
            .with(Content::image(PNG, "image/png"))
            .with(Content::resource_text(
                "test://mixed-content-resource",
                "application/json",
                r#"{"test":"data","value":123}"#,
            )))
    }
}

/// Always fails.
#[derive(Tool, Deserialize)]
#[tool(name = "test_error_handling")]
struct ErrorHandling {}

impl Handler for ErrorHandling {
    async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
        Err(ToolError::new(
            "This tool intentionally returns an error for testing",
        ))
    }
}

/// Reports progress: 0, 50 and 100 of 100.
#[derive(Tool, Deserialize)]
#[tool(name = "test_tool_with_progress")]
struct WithProgress {}

impl Handler for WithProgress {
    async fn call(self, ctx: Context) -> Result<ToolResult, ToolError> {
        for step in [0.0, 50.0, 100.0] {
            ctx.progress(step, Some(100.0));
            if step < 100.0 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
        Ok(ToolResult::text("Progress reported."))
    }
}

/// Logs three messages while it works.
#[derive(Tool, Deserialize)]
#[tool(name = "test_tool_with_logging")]
struct WithLogging {}

impl Handler for WithLogging {
    async fn call(self, ctx: Context) -> Result<ToolResult, ToolError> {
        log_three(&ctx).await;
        Ok(ToolResult::text("Logged three messages."))
    }
}

/// Logs, for the check that nothing is logged unless asked for.
#[derive(Tool, Deserialize)]
#[tool(name = "test_logging_tool")]
struct LoggingTool {}

impl Handler for LoggingTool {
    async fn call(self, ctx: Context) -> Result<ToolResult, ToolError> {
        log_three(&ctx).await;
        Ok(ToolResult::text("Logged, where the client asked for it."))
    }
}

async fn log_three(ctx: &Context) {
    ctx.log(LogLevel::Info, "Tool execution started");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool processing data");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool execution completed");
}

fn server() -> Server {
    Server::new("toolschema-conformance", env!("CARGO_PKG_VERSION"))
        .tool::<SimpleText>()
        .tool::<ImageContent>()
        .tool::<AudioContent>()
        .tool::<EmbeddedResource>()
        .tool::<MultipleContentTypes>()
        .tool::<ErrorHandling>()
        .tool::<WithProgress>()
        .tool::<WithLogging>()
        .tool::<LoggingTool>()
}

#[tokio::main]
async fn main() -> ExitCode {
    let address = std::env::args().nth(1);
    let address = address.as_deref().unwrap_or("127.0.0.1:3000");
    let served = match server().bind_http(address).await {
        Ok(http) => {
            println!("serving MCP at http://{}/mcp", http.local_addr());
            http.run().await
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
