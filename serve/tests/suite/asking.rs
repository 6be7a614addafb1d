//! A tool asks the client while it runs, with one API for both eras: in
//! the handshake era a request to the client answered in the same call
//! (stdio and HTTP), in 2026-07-28 an input-required result answered in the
//! next call, whose sealed requestState any replica with the same secret
//! can continue and no client can alter.

use std::net::SocketAddr;
use std::sync::mpsc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolschema::call::Elicitation;
use toolschema::{Context, Handler, Schema, Tool, ToolError, ToolResult};
use toolschema_serve::Server;
use toolschema_test_support::{assert_conforms, post_mcp, post_mcp_all};

use crate::common;

/// A name, asked of the user.
#[derive(Schema, Deserialize, Serialize)]
struct Name {
    /// Your name.
    name: String,
}

/// Greets the user by the name they give, and asks the model for a
/// compliment.
#[derive(Tool, Deserialize)]
#[tool(name = "greet.ask")]
struct Greet {}

impl Handler for Greet {
    async fn call(self, ctx: Context) -> Result<ToolResult, ToolError> {
        let Elicitation::Accept(Name { name }) =
            ctx.elicit::<Name>("who", "What is your name?").await?
        else {
            return Ok(ToolResult::text("Hello, whoever you are."));
        };
        let compliment = ctx
            .sample("compliment", &format!("Compliment {name}"), 30)
            .await?;
        Ok(ToolResult::text(format!("Hello, {name}! {compliment}")))
    }
}

fn server(secret: &str) -> Server {
    Server::new("greeter", "1")
        .tool::<Greet>()
        .state_secret(secret.as_bytes().to_vec())
}

const V: &str = "2026-07-28";

fn stateless_call(id: u64, params: Value, capabilities: Value) -> Value {
    let mut params = params;
    params["name"] = json!("greet.ask");
    params["arguments"] = json!({});
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientCapabilities": capabilities
    });
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

const HEADERS: [(&str, &str); 3] = [
    ("MCP-Protocol-Version", V),
    ("Mcp-Method", "tools/call"),
    ("Mcp-Name", "greet.ask"),
];

fn both() -> Value {
    json!({"elicitation": {}, "sampling": {}})
}

#[test]
fn in_2026_the_questions_end_a_round_and_the_answers_begin_the_next() {
    let (address, _stop) = common::spawn(server("shared secret"));
    // Round 1: the first question.
    let (status, first) = post_mcp(address, &HEADERS, &stateless_call(1, json!({}), both()));
    assert_eq!(status, 200);
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first:#}");
    assert_conforms(V, "InputRequiredResult", result);
    assert_eq!(
        result["inputRequests"]["who"]["method"],
        "elicitation/create"
    );
    assert_eq!(
        result["inputRequests"]["who"]["params"]["requestedSchema"]["properties"]["name"]["type"],
        "string",
        "the requested schema is the derived one"
    );
    let state = result["requestState"].as_str().expect("a sealed state");

    // Round 2: the name, and an extra key, which is ignored; the second
    // question comes.
    let answers = json!({"who": {"action": "accept", "content": {"name": "Ada"}}, "noise": 1});
    let (_, second) = post_mcp(
        address,
        &HEADERS,
        &stateless_call(
            2,
            json!({"inputResponses": answers, "requestState": state}),
            both(),
        ),
    );
    let result = &second["result"];
    assert_eq!(result["resultType"], "input_required", "{second:#}");
    let requests: Vec<&String> = result["inputRequests"]
        .as_object()
        .expect("requests")
        .keys()
        .collect();
    assert_eq!(requests, ["compliment"], "the name is not asked again");
    let state = result["requestState"].as_str().expect("the state grows");

    // Round 3: the model's answer; the call completes with both.
    let answers = json!({"compliment": {"role": "assistant", "content": {"type": "text", "text": "Lovely code."}, "model": "m"}});
    let (_, done) = post_mcp(
        address,
        &HEADERS,
        &stateless_call(
            3,
            json!({"inputResponses": answers, "requestState": state}),
            both(),
        ),
    );
    assert_eq!(done["result"]["resultType"], "complete", "{done:#}");
    assert_eq!(
        done["result"]["content"][0]["text"],
        "Hello, Ada! Lovely code."
    );

    // An altered state is refused, not believed.
    let mut forged = state.to_owned();
    forged.replace_range(5..6, if &forged[5..6] == "A" { "B" } else { "A" });
    let (status, refused) = post_mcp(
        address,
        &HEADERS,
        &stateless_call(
            4,
            json!({"inputResponses": answers, "requestState": forged}),
            both(),
        ),
    );
    assert_eq!(
        (status, refused["error"]["code"].as_i64()),
        (400, Some(-32602))
    );
    assert_eq!(refused["id"], 4);
}

#[test]
fn another_replica_with_the_same_secret_continues_the_call() {
    let (first_replica, _a) = common::spawn(server("fleet secret"));
    let (second_replica, _b) = common::spawn(server("fleet secret"));
    let (stranger, _c) = common::spawn(server("another secret"));
    let (_, first) = post_mcp(
        first_replica,
        &HEADERS,
        &stateless_call(1, json!({}), both()),
    );
    let state = first["result"]["requestState"].clone();
    let answers = json!({"who": {"action": "decline"}});
    let next = |address: SocketAddr| {
        post_mcp(
            address,
            &HEADERS,
            &stateless_call(
                2,
                json!({"inputResponses": answers, "requestState": state}),
                both(),
            ),
        )
    };
    let (status, continued) = next(second_replica);
    assert_eq!(status, 200);
    assert_eq!(
        continued["result"]["content"][0]["text"],
        "Hello, whoever you are."
    );
    let (status, refused) = next(stranger);
    assert_eq!(
        (status, refused["error"]["code"].as_i64()),
        (400, Some(-32602))
    );
}

#[test]
fn a_capability_the_client_did_not_declare_is_a_bad_request() {
    let (address, _stop) = common::spawn(server("s"));
    let (status, refused) = post_mcp(
        address,
        &HEADERS,
        &stateless_call(5, json!({}), json!({"sampling": {}})),
    );
    assert_eq!(status, 400, "{refused:#}");
    assert_eq!(refused["error"]["code"], -32021);
    assert_eq!(
        refused["error"]["data"]["requiredCapabilities"],
        json!({"elicitation": {}})
    );
    assert_eq!(refused["id"], 5);
}

#[test]
fn in_the_handshake_era_over_http_the_question_rides_the_call_stream() {
    let (address, _stop) = common::spawn(server("s"));
    let (done, answered) = mpsc::channel();
    std::thread::spawn(move || {
        let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "greet.ask", "arguments": {}}});
        let answer = post_mcp_all(
            address,
            &[("Accept", "application/json, text/event-stream")],
            &call,
        );
        let _ = done.send(answer);
    });
    // The server's questions are answered by POSTs of their own; find
    // each on the call's stream by polling its answers as they come.
    let respond = |id: Value, result: Value| {
        let response = json!({"jsonrpc": "2.0", "id": id, "result": result});
        let (status, _) = post_mcp(address, &[], &response);
        assert_eq!(status, 202);
    };
    // The first question's id is the first the server hands out.
    std::thread::sleep(Duration::from_millis(200));
    respond(
        json!("toolschema-0"),
        json!({"action": "accept", "content": {"name": "Grace"}}),
    );
    std::thread::sleep(Duration::from_millis(200));
    respond(
        json!("toolschema-1"),
        json!({"role": "assistant", "content": {"type": "text", "text": "Sharp mind."}, "model": "m"}),
    );
    let answered = answered
        .recv_timeout(Duration::from_secs(10))
        .expect("the call ends");
    assert!(answered.streamed);
    let methods: Vec<&str> = answered
        .messages
        .iter()
        .map(|m| m["method"].as_str().unwrap_or("(reply)"))
        .collect();
    assert_eq!(
        methods,
        ["elicitation/create", "sampling/createMessage", "(reply)"]
    );
    assert_conforms("2025-11-25", "ElicitRequest", &answered.messages[0]);
    assert_conforms("2025-11-25", "CreateMessageRequest", &answered.messages[1]);
    assert_eq!(
        answered.messages[2]["result"]["content"][0]["text"],
        "Hello, Grace! Sharp mind."
    );
}

#[test]
fn in_the_handshake_era_over_stdio_a_refusal_is_the_tools_error() {
    use tokio::io::AsyncWriteExt;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let common::Pipe {
            mut lines,
            writer: mut client_write,
            serving,
        } = common::stdio_pipe(server("s"));
        let mut send = async |message: Value| {
            client_write
                .write_all(format!("{message}\n").as_bytes())
                .await
                .expect("write");
        };
        send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "greet.ask", "arguments": {}}})).await;
        let question: Value =
            serde_json::from_str(&lines.next_line().await.expect("read").expect("a line"))
                .expect("JSON");
        assert_eq!(question["method"], "elicitation/create");
        send(json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept", "content": {"name": "Lin"}}})).await;
        let question: Value =
            serde_json::from_str(&lines.next_line().await.expect("read").expect("a line"))
                .expect("JSON");
        assert_eq!(question["method"], "sampling/createMessage");
        send(json!({"jsonrpc": "2.0", "id": question["id"], "error": {"code": -1, "message": "User rejected sampling"}})).await;
        let reply: Value =
            serde_json::from_str(&lines.next_line().await.expect("read").expect("a line"))
                .expect("JSON");
        assert_eq!(reply["id"], 1);
        assert_eq!(reply["result"]["isError"], true);
        assert_eq!(
            reply["result"]["content"][0]["text"],
            "the client refused: User rejected sampling"
        );
        client_write.shutdown().await.expect("shut down");
        serving.await.expect("joins").expect("ends cleanly");
    });
}
