//! A client for a service's own tests: it speaks MCP to the service in
//! process, over the in-memory pipe of
//! [`Service::connect`](toolschema_serve::Service::connect), so that a
//! call goes exactly the way a real client's does (the protocol core, the
//! catalog's visibility, validation against the advertised schema, name
//! mapping, the output check), and it records what the tool sends while
//! it runs (progress, logs) and answers the questions it asks (a script
//! per kind of question).
//!
//! Most services reach it as `toolschema::serve::TestClient`; its tests
//! are in `toolschema-serve`'s suite, which builds tools with the derives.

use std::sync::Arc;

use serde_json::{Map, Value, json};
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};
use tokio::sync::Mutex;

use toolschema_serve::{ServeError, Service};

/// Answers one kind of question a tool asks (the request's `params` in,
/// the `result` out).
type Script = Arc<dyn Fn(&Value) -> Value + Send + Sync>;

/// A client of a [`Service`] for its tests, in process and without a
/// network: each call is an MCP `tools/call` from the client application it
/// was made for.
///
/// ```
/// # use serde::{Deserialize, Serialize};
/// # use toolschema_runtime::call::{Context, Handler, ToolError, ToolResult};
/// # use toolschema_runtime::model::*;
/// # #[derive(Deserialize)] struct Ping {}
/// # impl Schema for Ping { const SCHEMA: &'static Node = &Node::Object(ObjectNode {
/// #     info: TypeInfo { name: Ref::Static("Ping"), type_name: Ref::Lazy(core::any::type_name::<Ping>), title: None, description: None },
/// #     fields: Ref::Static(&[]), additional: Additional::Deny }); }
/// # impl Tool for Ping {
/// #     const TOOL: &'static ToolDef = &ToolDef { name: Ref::Static("ping"), title: None, description: Ref::Static("Pings."),
/// #         version: 1, input: Ref::Lazy(schema_of::<Ping>), output: None, annotations: Annotations::NONE, icons: Ref::Static(&[]), internal: false };
/// #     type Output = ToolResult;
/// #     type State = ();
/// # }
/// # impl<S: Send + Sync + 'static> toolschema_runtime::call::RunsWith<S> for Ping {
/// #     fn state_from(_: &std::sync::Arc<S>) -> std::sync::Arc<()> { std::sync::Arc::new(()) }
/// # }
/// # impl Handler for Ping {
/// #     async fn call(self, ctx: Context) -> Result<ToolResult, ToolError> {
/// #         ctx.progress(1.0, Some(1.0));
/// #         Ok(ToolResult::text("pong"))
/// #     }
/// # }
/// use toolschema_serve::Server;
/// use toolschema_testing::TestClient;
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let service = Server::new("pinger", "1").tool::<Ping>().build().unwrap();
/// let client = TestClient::new(service).await.unwrap();
/// let called = client.call("ping", serde_json::json!({})).await.unwrap();
/// assert_eq!(called.text(), "pong");
/// assert_eq!(called.progress().len(), 1);
/// assert!(client.call("ping", serde_json::json!({"extra": 1})).await.unwrap().is_error());
/// # });
/// ```
pub struct TestClient {
    connection: Mutex<Connection>,
    elicitation: Option<Script>,
    sampling: Option<Script>,
    roots: Option<Value>,
}

impl core::fmt::Debug for TestClient {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TestClient").finish_non_exhaustive()
    }
}

/// The client's end of the pipe.
struct Connection {
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    writer: WriteHalf<DuplexStream>,
    next_id: u64,
    /// Whether `initialize` was sent (the capabilities it declares depend
    /// on the scripts, set before the first request).
    initialized: bool,
}

/// A tool call's outcome as the client saw it: the `CallToolResult`, and
/// what the tool sent while it ran.
#[derive(Debug, Clone)]
pub struct Called {
    result: Value,
    progress: Vec<Value>,
    logs: Vec<Value>,
}

impl Called {
    /// The `CallToolResult` as sent.
    pub fn result(&self) -> &Value {
        &self.result
    }

    /// Whether the call failed as a tool error (`isError`): arguments that
    /// break the schema, or the tool's own failure.
    pub fn is_error(&self) -> bool {
        self.result.get("isError").and_then(Value::as_bool) == Some(true)
    }

    /// The structured result (`structuredContent`), for a tool with an
    /// output schema.
    pub fn structured(&self) -> Option<&Value> {
        self.result.get("structuredContent")
    }

    /// The text of the content blocks, joined by newlines.
    pub fn text(&self) -> String {
        self.result
            .get("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The progress notifications' `params`, in order.
    pub fn progress(&self) -> &[Value] {
        &self.progress
    }

    /// The log notifications' `params` (`level`, `data`, `logger`), in
    /// order.
    pub fn logs(&self) -> &[Value] {
        &self.logs
    }
}

/// Why a test client's request got no result: a JSON-RPC error (an unknown
/// or invisible tool, malformed arguments), or the service went away.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum TestError {
    /// The JSON-RPC error, with its code and message.
    Rpc {
        /// The code (-32602 for an unknown tool).
        code: i64,
        /// The message.
        message: String,
    },
    /// The service closed the connection.
    Closed,
}

impl core::fmt::Display for TestError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            TestError::Rpc { code, message } => write!(f, "error {code}: {message}"),
            TestError::Closed => f.write_str("the service closed the connection"),
        }
    }
}

impl std::error::Error for TestError {}

impl TestClient {
    /// A client of `service` in open mode, or as its keyless client
    /// application.
    pub async fn new(service: impl Into<Arc<Service>>) -> Result<TestClient, ServeError> {
        TestClient::start(&service.into(), None)
    }

    /// A client of `service` as the client application `client` of its
    /// catalog configuration: it sees and calls that client's tools only,
    /// in its modes and versions, and its handlers see its tenant and id.
    pub async fn as_client(
        service: impl Into<Arc<Service>>,
        client: &str,
    ) -> Result<TestClient, ServeError> {
        TestClient::start(&service.into(), Some(client))
    }

    fn start(service: &Arc<Service>, client: Option<&str>) -> Result<TestClient, ServeError> {
        let ours = service.connect(client)?;
        let (reader, writer) = tokio::io::split(ours);
        Ok(TestClient {
            connection: Mutex::new(Connection {
                lines: BufReader::new(reader).lines(),
                writer,
                next_id: 1,
                initialized: false,
            }),
            elicitation: None,
            sampling: None,
            roots: None,
        })
    }

    /// Answers the tools' elicitations (`elicitation/create`) with what
    /// `answer` makes of each request's `params` (say `{"action": "accept",
    /// "content": {...}}`), and declares the capability.
    pub fn on_elicitation(
        mut self,
        answer: impl Fn(&Value) -> Value + Send + Sync + 'static,
    ) -> TestClient {
        self.elicitation = Some(Arc::new(answer));
        self
    }

    /// Answers the tools' sampling requests (`sampling/createMessage`)
    /// with what `answer` makes of each (say `{"role": "assistant",
    /// "content": {"type": "text", "text": "…"}, "model": "test"}`), and
    /// declares the capability.
    pub fn on_sampling(
        mut self,
        answer: impl Fn(&Value) -> Value + Send + Sync + 'static,
    ) -> TestClient {
        self.sampling = Some(Arc::new(answer));
        self
    }

    /// Answers `roots/list` with `roots` (a list of `{"uri", "name"}`), and
    /// declares the capability.
    pub fn with_roots(mut self, roots: Value) -> TestClient {
        self.roots = Some(roots);
        self
    }

    /// The tools the client sees (`tools/list`): the `Tool` objects.
    pub async fn list(&self) -> Result<Vec<Value>, TestError> {
        let mut connection = self.connection.lock().await;
        let answer = self
            .request(
                &mut connection,
                "tools/list",
                json!({}),
                &mut Recorded::default(),
            )
            .await?;
        Ok(answer
            .get("tools")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default())
    }

    /// Calls `tool` with `arguments` (exposed names, as a client sends
    /// them), following its progress and logs and answering its questions
    /// with the scripts given.
    pub async fn call(&self, tool: &str, arguments: Value) -> Result<Called, TestError> {
        let mut connection = self.connection.lock().await;
        let mut recorded = Recorded::default();
        let token = connection.next_id;
        let params = json!({
            "name": tool,
            "arguments": arguments,
            "_meta": {"progressToken": token},
        });
        let result = self
            .request(&mut connection, "tools/call", params, &mut recorded)
            .await?;
        Ok(Called {
            result,
            progress: recorded.progress,
            logs: recorded.logs,
        })
    }

    /// Sends one request (after `initialize`, once) and reads until its
    /// answer, recording notifications and answering questions meanwhile.
    async fn request(
        &self,
        connection: &mut Connection,
        method: &str,
        params: Value,
        recorded: &mut Recorded,
    ) -> Result<Value, TestError> {
        if !connection.initialized {
            connection.initialized = true;
            let capabilities = self.capabilities();
            let init = json!({
                "protocolVersion": "2025-11-25",
                "capabilities": capabilities,
                "clientInfo": {"name": "toolschema-test-client", "version": env!("CARGO_PKG_VERSION")},
            });
            Box::pin(self.request(connection, "initialize", init, recorded)).await?;
            // Logs at every level reach the test.
            Box::pin(self.request(
                connection,
                "logging/setLevel",
                json!({"level": "debug"}),
                recorded,
            ))
            .await?;
        }
        let id = connection.next_id;
        connection.next_id += 1;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        connection.send(&message).await?;
        loop {
            let line = match connection.lines.next_line().await {
                Ok(Some(line)) => line,
                _ => return Err(TestError::Closed),
            };
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            match (
                message.get("method").and_then(Value::as_str),
                message.get("id"),
            ) {
                (Some(method), Some(asked)) => {
                    let response =
                        self.answer(method, message.get("params").unwrap_or(&Value::Null), asked);
                    connection.send(&response).await?;
                }
                (Some("notifications/progress"), None) => recorded
                    .progress
                    .push(message.get("params").cloned().unwrap_or_default()),
                (Some("notifications/message"), None) => recorded
                    .logs
                    .push(message.get("params").cloned().unwrap_or_default()),
                (Some(_), None) => {}
                (None, Some(answered)) if *answered == json!(id) => {
                    if let Some(error) = message.get("error") {
                        return Err(TestError::Rpc {
                            code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                            message: error
                                .get("message")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_owned(),
                        });
                    }
                    return Ok(message.get("result").cloned().unwrap_or_default());
                }
                (None, _) => {}
            }
        }
    }

    /// The capabilities the scripts given make the client declare.
    fn capabilities(&self) -> Value {
        let mut capabilities = Map::new();
        if self.elicitation.is_some() {
            capabilities.insert("elicitation".into(), json!({}));
        }
        if self.sampling.is_some() {
            capabilities.insert("sampling".into(), json!({}));
        }
        if self.roots.is_some() {
            capabilities.insert("roots".into(), json!({}));
        }
        Value::Object(capabilities)
    }

    /// The response to a request of the service's.
    fn answer(&self, method: &str, params: &Value, id: &Value) -> Value {
        let result = match method {
            "elicitation/create" => self.elicitation.as_ref().map(|script| script(params)),
            "sampling/createMessage" => self.sampling.as_ref().map(|script| script(params)),
            "roots/list" => self.roots.as_ref().map(|roots| json!({"roots": roots})),
            "ping" => Some(json!({})),
            _ => None,
        };
        match result {
            Some(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            None => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": format!("the test client does not answer {method}")}})
            }
        }
    }
}

impl Connection {
    async fn send(&mut self, message: &Value) -> Result<(), TestError> {
        let mut line = message.to_string();
        line.push('\n');
        self.writer
            .write_all(line.as_bytes())
            .await
            .map_err(|_| TestError::Closed)
    }
}

/// What a tool sent while it ran.
#[derive(Default)]
struct Recorded {
    progress: Vec<Value>,
    logs: Vec<Value>,
}
