//! The fixture server of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`), built with the derives and the
//! serving library: each of the suite's fixture tools is an ordinary tool.
//! `.ci/run` starts it and runs the suite against it in every protocol
//! version.
//!
//! `cargo run --example conformance -- 127.0.0.1:3000`, then
//! `npx @modelcontextprotocol/conformance server --url http://127.0.0.1:3000/mcp`.

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::json;
use toolschema::call::{Elicitation, Question, Registry, RegistryError};
use toolschema::catalog::Catalog;
use toolschema::serve::Server;
use toolschema::{Content, Context, Handler, LogLevel, Schema, Tool, ToolError, ToolResult};

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

/// Asks the client's model.
#[derive(Tool, Deserialize)]
#[tool(name = "test_sampling")]
struct Sampling {
    /// The prompt for the model.
    prompt: String,
}

impl Handler for Sampling {
    async fn call(self, ctx: Context) -> Result<ToolResult, ToolError> {
        let answer = ctx.sample("sampling", &self.prompt, 100).await?;
        Ok(ToolResult::text(format!("LLM response: {answer}")))
    }
}

/// Asks the user for a name and an e-mail address.
#[derive(Tool, Deserialize)]
#[tool(name = "test_elicitation")]
struct Elicit {
    /// What to show the user.
    message: String,
}

/// What `test_elicitation` asks the user for.
#[derive(Schema, Deserialize, Serialize)]
struct Contact {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

impl Handler for Elicit {
    async fn call(self, ctx: Context) -> Result<ToolResult, ToolError> {
        let answer = ctx.elicit::<Contact>("contact", &self.message).await?;
        Ok(ToolResult::text(format!(
            "User response: {}",
            describe(&answer)
        )))
    }
}

/// Asks the user with defaults for every primitive type (SEP-1034).
#[derive(Tool, Deserialize)]
#[tool(name = "test_elicitation_sep1034_defaults")]
struct ElicitDefaults {}

impl Handler for ElicitDefaults {
    async fn call(self, ctx: Context) -> Result<ToolResult, ToolError> {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "score": {"type": "number", "default": 95.5},
                "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
                "verified": {"type": "boolean", "default": true}
            }
        });
        let answer = ctx
            .elicit_with("defaults", "Confirm your details", schema)
            .await?;
        Ok(ToolResult::text(format!(
            "Elicitation completed: {}",
            describe(&answer)
        )))
    }
}

/// Asks the user with every kind of enum (SEP-1330).
#[derive(Tool, Deserialize)]
#[tool(name = "test_elicitation_sep1330_enums")]
struct ElicitEnums {}

impl Handler for ElicitEnums {
    async fn call(self, ctx: Context) -> Result<ToolResult, ToolError> {
        let schema = json!({
            "type": "object",
            "properties": {
                "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
                "titledSingle": {"type": "string", "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"},
                    {"const": "value3", "title": "Third Option"}
                ]},
                "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
                "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                "titledMulti": {"type": "array", "items": {"anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"}
                ]}}
            }
        });
        let answer = ctx
            .elicit_with("enums", "Choose your options", schema)
            .await?;
        Ok(ToolResult::text(format!(
            "Elicitation completed: {}",
            describe(&answer)
        )))
    }
}

/// `action=…, content=…` of an elicitation.
fn describe<T: Serialize>(answer: &Elicitation<T>) -> String {
    match answer {
        Elicitation::Accept(content) => format!(
            "action=accept, content={}",
            serde_json::to_string(content).unwrap_or_default()
        ),
        Elicitation::Decline => "action=decline, content={}".to_owned(),
        Elicitation::Cancel => "action=cancel, content={}".to_owned(),
    }
}

/// Needs the client's model, which a client without `sampling` cannot lend.
#[derive(Tool, Deserialize)]
#[tool(name = "test_missing_capability")]
struct MissingCapability {}

impl Handler for MissingCapability {
    async fn call(self, ctx: Context) -> Result<ToolResult, ToolError> {
        let answer = ctx.sample("needs-sampling", "Say hello", 20).await?;
        Ok(ToolResult::text(answer))
    }
}

/// Asks the user in the middle of a call (2026-07-28: an input-required
/// result, never a request on the response stream).
#[derive(Tool, Deserialize)]
#[tool(name = "test_streaming_elicitation")]
struct StreamingElicitation {}

impl Handler for StreamingElicitation {
    async fn call(self, ctx: Context) -> Result<ToolResult, ToolError> {
        let answer = ctx
            .elicit::<Name>("user_name", "What is your name?")
            .await?;
        Ok(ToolResult::text(format!("Answered: {}", describe(&answer))))
    }
}

/// A name, asked of the user.
#[derive(Schema, Deserialize, Serialize)]
struct Name {
    /// The name.
    name: String,
}

/// Asks for the user's name, then greets them.
#[derive(Tool, Deserialize)]
#[tool(name = "test_input_required_result_elicitation")]
struct InputElicitation {}

impl Handler for InputElicitation {
    async fn call(self, ctx: Context) -> Result<ToolResult, ToolError> {
        match ctx
            .elicit::<Name>("user_name", "What is your name?")
            .await?
        {
            Elicitation::Accept(answer) => Ok(ToolResult::text(format!("Hello, {}!", answer.name))),
            _ => Ok(ToolResult::text("Hello, stranger!")),
        }
    }
}

/// Asks the client's model for a capital.
#[derive(Tool, Deserialize)]
#[tool(name = "test_input_required_result_sampling")]
struct InputSampling {}

impl Handler for InputSampling {
    async fn call(self, ctx: Context) -> Result<ToolResult, ToolError> {
        let answer = ctx
            .sample("capital_question", "What is the capital of France?", 100)
            .await?;
        Ok(ToolResult::text(format!("The model says: {answer}")))
    }
}

/// Asks the client for its roots.
#[derive(Tool, Deserialize)]
#[tool(name = "test_input_required_result_list_roots")]
struct InputRoots {}

impl Handler for InputRoots {
    async fn call(self, ctx: Context) -> Result<ToolResult, ToolError> {
        let roots = ctx.list_roots("client_roots").await?;
        let uris: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
        Ok(ToolResult::text(format!("Roots: {}", uris.join(", "))))
    }
}

/// A confirmation, asked of the user.
#[derive(Schema, Deserialize)]
struct Confirm {
    /// Whether to go ahead.
    ok: bool,
}

/// Asks for a confirmation; the sealed state comes back with the answer.
#[derive(Tool, Deserialize)]
#[tool(name = "test_input_required_result_request_state")]
struct InputState {}

impl Handler for InputState {
    async fn call(self, ctx: Context) -> Result<ToolResult, ToolError> {
        let ok = matches!(
            ctx.elicit::<Confirm>("confirm", "Please confirm").await?,
            Elicitation::Accept(Confirm { ok: true })
        );
        // Reaching here with an answer means the requestState was checked.
        Ok(ToolResult::text(format!("state-ok, confirmed: {ok}")))
    }
}

/// Asks three questions in one round.
#[derive(Tool, Deserialize)]
#[tool(name = "test_input_required_result_multiple_inputs")]
struct InputMultiple {}

impl Handler for InputMultiple {
    async fn call(self, ctx: Context) -> Result<ToolResult, ToolError> {
        let answers = ctx
            .ask_all(vec![
                Question::elicit_for::<Name>("user_name", "What is your name?"),
                Question::sample("greeting", "Generate a greeting", 50),
                Question::list_roots("client_roots"),
            ])
            .await?;
        Ok(ToolResult::text(format!("Got {} answers.", answers.len())))
    }
}

/// A colour, asked of the user.
#[derive(Schema, Deserialize)]
struct Colour {
    /// The colour.
    color: String,
}

/// Asks two questions, one round after the other.
#[derive(Tool, Deserialize)]
#[tool(name = "test_input_required_result_multi_round")]
struct InputMultiRound {}

impl Handler for InputMultiRound {
    async fn call(self, ctx: Context) -> Result<ToolResult, ToolError> {
        let Elicitation::Accept(name) = ctx
            .elicit::<Name>("step1", "Step 1: What is your name?")
            .await?
        else {
            return Ok(ToolResult::text("No name given."));
        };
        let Elicitation::Accept(colour) = ctx
            .elicit::<Colour>("step2", "Step 2: What is your favorite color?")
            .await?
        else {
            return Ok(ToolResult::text("No colour given."));
        };
        Ok(ToolResult::text(format!(
            "{} likes {}.",
            name.name, colour.color
        )))
    }
}

/// Asks a question whose sealed state the suite alters.
#[derive(Tool, Deserialize)]
#[tool(name = "test_input_required_result_tampered_state")]
struct InputTampered {}

impl Handler for InputTampered {
    async fn call(self, ctx: Context) -> Result<ToolResult, ToolError> {
        let ok = matches!(
            ctx.elicit::<Confirm>("confirm", "Please confirm").await?,
            Elicitation::Accept(Confirm { ok: true })
        );
        Ok(ToolResult::text(format!("confirmed: {ok}")))
    }
}

/// Asks only what the client can answer.
#[derive(Tool, Deserialize)]
#[tool(name = "test_input_required_result_capabilities")]
struct InputCapabilities {}

impl Handler for InputCapabilities {
    async fn call(self, ctx: Context) -> Result<ToolResult, ToolError> {
        let mut questions = Vec::new();
        if ctx.supports("elicitation") != Some(false) {
            questions.push(Question::elicit_for::<Name>(
                "user_name",
                "What is your name?",
            ));
        }
        if ctx.supports("sampling") != Some(false) {
            questions.push(Question::sample("greeting", "Generate a greeting", 50));
        }
        if ctx.supports("roots") != Some(false) {
            questions.push(Question::list_roots("client_roots"));
        }
        let answers = ctx.ask_all(questions).await?;
        Ok(ToolResult::text(format!("Got {} answers.", answers.len())))
    }
}

/// Tells the weather of a region; the region also travels in the
/// `Mcp-Param-Region` header, for routing.
#[derive(Tool, Deserialize)]
#[tool(name = "test_custom_headers", annotations(read_only))]
struct CustomHeaders {
    /// The region.
    #[tool(header = "Region")]
    region: String,
}

impl Handler for CustomHeaders {
    async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::text(format!("Sunny in {}.", self.region)))
    }
}

/// Tool with JSON Schema 2020-12 features
#[derive(Tool, Deserialize)]
#[tool(
    name = "json_schema_2020_12_tool",
    input_schema = "schemas/contact.json"
)]
struct JsonSchema202012 {
    name: Option<String>,
    phone: Option<String>,
    email: Option<String>,
}

impl Handler for JsonSchema202012 {
    async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
        let how = match (&self.phone, &self.email) {
            (Some(phone), _) => format!("by phone at {phone}"),
            (None, Some(email)) => format!("by email at {email}"),
            (None, None) => "somehow".to_owned(),
        };
        let name = self.name.as_deref().unwrap_or("them");
        Ok(ToolResult::text(format!("Will reach {name} {how}.")))
    }
}

/// A tool that is listed or not, as `test_trigger_tool_change` decides.
#[derive(Tool, Deserialize)]
#[tool(name = "test_tool_that_comes_and_goes", annotations(read_only))]
struct ComesAndGoes {}

impl Handler for ComesAndGoes {
    async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::text("Still here."))
    }
}

/// The live catalog, for `test_trigger_tool_change`.
static CATALOG: OnceLock<Arc<Catalog>> = OnceLock::new();

/// Whether `test_tool_that_comes_and_goes` is listed now.
static LISTED: AtomicBool = AtomicBool::new(true);

/// Changes the tool list: lists `test_tool_that_comes_and_goes` if it is
/// not, or stops listing it. Every client is told.
#[derive(Tool, Deserialize)]
#[tool(name = "test_trigger_tool_change")]
struct TriggerToolChange {}

impl Handler for TriggerToolChange {
    async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
        let catalog = CATALOG
            .get()
            .ok_or_else(|| ToolError::new("the catalog is not served yet"))?;
        let listed = !LISTED.fetch_xor(true, Ordering::SeqCst);
        catalog
            .reload_toml(&configuration(catalog.registry(), listed), "fixture.toml")
            .map_err(|errors| ToolError::new(errors.to_string()))?;
        Ok(ToolResult::text(if listed {
            "test_tool_that_comes_and_goes is listed."
        } else {
            "test_tool_that_comes_and_goes is no longer listed."
        }))
    }
}

fn registry() -> Result<Registry, RegistryError> {
    let mut registry = Registry::new();
    registry
        .register::<SimpleText>()?
        .register::<ImageContent>()?
        .register::<AudioContent>()?
        .register::<EmbeddedResource>()?
        .register::<MultipleContentTypes>()?
        .register::<ErrorHandling>()?
        .register::<WithProgress>()?
        .register::<WithLogging>()?
        .register::<LoggingTool>()?
        .register::<Sampling>()?
        .register::<Elicit>()?
        .register::<ElicitDefaults>()?
        .register::<ElicitEnums>()?
        .register::<MissingCapability>()?
        .register::<StreamingElicitation>()?
        .register::<InputElicitation>()?
        .register::<InputSampling>()?
        .register::<InputRoots>()?
        .register::<InputState>()?
        .register::<InputMultiple>()?
        .register::<InputMultiRound>()?
        .register::<InputTampered>()?
        .register::<InputCapabilities>()?
        .register::<CustomHeaders>()?
        .register::<JsonSchema202012>()?
        .register::<ComesAndGoes>()?
        .register::<TriggerToolChange>()?;
    Ok(registry)
}

/// The catalog the suite is served: every tool (`test_tool_that_comes_and_goes`
/// if `listed`) to one client application, the one a request without a key
/// is (the suite sends none).
fn configuration(registry: &Registry, listed: bool) -> String {
    let tools: Vec<String> = registry
        .tools()
        .map(|tool| &*tool.name)
        .filter(|name| listed || **name != *ComesAndGoes::TOOL.name)
        .map(|name| format!("{name:?}"))
        .collect();
    format!(
        "[catalog]\nkeyless_client = \"suite\"\n\n\
         [[tenant]]\nid = \"suite\"\n\n\
         [[toolset]]\nid = \"suite\"\ntenant = \"suite\"\ntools = [{}]\n\n\
         [[client]]\nid = \"suite\"\ntenant = \"suite\"\ntoolsets = [\"suite\"]\n",
        tools.join(", ")
    )
}

fn server() -> Result<Server, RegistryError> {
    let registry = registry()?;
    let configuration = configuration(&registry, true);
    Ok(
        Server::new("toolschema-conformance", env!("CARGO_PKG_VERSION"))
            .registry(registry)
            .catalog_toml(configuration, "fixture.toml"),
    )
}

#[tokio::main]
async fn main() -> ExitCode {
    let address = std::env::args().nth(1);
    let address = address.as_deref().unwrap_or("127.0.0.1:3000");
    let server = match server() {
        Ok(server) => server,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    let served = match server.bind_http(address).await {
        Ok(http) => {
            let _ = CATALOG.set(http.service().catalog().clone());
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
