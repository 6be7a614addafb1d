//! The service author's test client (DESIGN §12): tools called by name with
//! JSON in process, as a client would (validation against the advertised
//! schema, exposed names, the output check, the catalog's visibility),
//! progress and logs captured, questions to the user answered by a script;
//! and a handler called directly with a `Context` built for the test.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolschema::call::{Context, Elicitation, Handler, LogLevel, ToolError, ToolResult};
use toolschema::{Schema, Tool};
use toolschema_serve::Server;
use toolschema_testing::{TestClient, TestError};

/// A counter the service's tools share.
#[derive(Default)]
struct Counter(AtomicU32);

/// The count after a step.
#[derive(Schema, Serialize)]
struct Count {
    /// The count.
    value: u32,
}

/// Counts up by a step, reporting progress and logging.
#[derive(Tool, Deserialize)]
#[tool(name = "count.up", state = Counter, output = Count, rename_all = "camelCase")]
struct CountUp {
    /// By how much.
    #[tool(minimum = 1, maximum = 10)]
    step_by: u32,
}

impl Handler for CountUp {
    async fn call(self, ctx: Context<Counter>) -> Result<Count, ToolError> {
        ctx.log(LogLevel::Debug, "counting");
        for step in 1..=self.step_by {
            ctx.progress(f64::from(step), Some(f64::from(self.step_by)));
        }
        let value = ctx.state().0.fetch_add(self.step_by, Ordering::SeqCst) + self.step_by;
        Ok(Count { value })
    }
}

/// The answer a user gives.
#[derive(Schema, Deserialize)]
struct Confirmation {
    /// Whether to go on.
    sure: bool,
}

/// Resets the counter, once the user confirms and the model agrees.
#[derive(Tool, Deserialize)]
#[tool(name = "count.reset", state = Counter)]
struct Reset {}

impl Handler for Reset {
    async fn call(self, ctx: Context<Counter>) -> Result<ToolResult, ToolError> {
        let sure = match ctx
            .elicit::<Confirmation>("sure", "Reset the counter?")
            .await?
        {
            Elicitation::Accept(answer) => answer.sure,
            _ => false,
        };
        if !sure {
            return Ok(ToolResult::text("kept"));
        }
        let verdict = ctx
            .sample("verdict", "Should the counter be reset?", 20)
            .await?;
        ctx.state().0.store(0, Ordering::SeqCst);
        Ok(ToolResult::text(format!("reset ({verdict})")))
    }
}

/// Says who called.
#[derive(Tool, Deserialize)]
#[tool(name = "who")]
struct Who {}

impl Handler for Who {
    async fn call(self, ctx: Context) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::text(format!(
            "{} of {}",
            ctx.client().unwrap_or("nobody"),
            ctx.tenant().unwrap_or("no tenant")
        )))
    }
}

fn server() -> Server<Counter> {
    Server::new("counter", "1")
        .tool::<Who>()
        .state(Counter::default())
        .tool::<CountUp>()
        .tool::<Reset>()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_goes_the_way_a_clients_does_and_its_progress_and_logs_are_kept() {
    let client = TestClient::new(server().build().expect("builds"))
        .await
        .expect("a client");
    let names: Vec<String> = client
        .list()
        .await
        .expect("lists")
        .iter()
        .map(|tool| tool["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(names, ["count.reset", "count.up", "who"]);
    // Exposed names in, the output checked, the structured result out.
    let called = client
        .call("count.up", json!({"stepBy": 3}))
        .await
        .expect("calls");
    assert!(!called.is_error(), "{:?}", called.result());
    assert_eq!(called.structured(), Some(&json!({"value": 3})));
    assert_eq!(called.progress().len(), 3);
    assert_eq!(called.progress()[2]["progress"], 3.0);
    assert_eq!(called.logs()[0]["level"], "debug");
    assert_eq!(called.logs()[0]["data"], "counting");
    // The state persists between calls.
    let again = client
        .call("count.up", json!({"stepBy": 2}))
        .await
        .expect("calls");
    assert_eq!(again.structured(), Some(&json!({"value": 5})));
    // The source name is not an argument; a bound holds.
    let refused = client
        .call("count.up", json!({"step_by": 2}))
        .await
        .expect("answers");
    assert!(refused.is_error());
    assert!(refused.text().contains("/step_by"), "{}", refused.text());
    let refused = client
        .call("count.up", json!({"stepBy": 11}))
        .await
        .expect("answers");
    assert!(
        refused.is_error() && refused.text().contains("/stepBy"),
        "{}",
        refused.text()
    );
    // An unknown tool is a JSON-RPC error.
    let unknown = client
        .call("count.down", json!({}))
        .await
        .expect_err("unknown");
    assert!(
        matches!(unknown, TestError::Rpc { code: -32602, .. }),
        "{unknown}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn questions_to_the_user_and_the_model_are_answered_by_the_tests_scripts() {
    let service = server().build().expect("builds");
    let client = TestClient::new(service)
        .await
        .expect("a client")
        .on_elicitation(|params| {
            assert_eq!(params["message"], "Reset the counter?");
            json!({"action": "accept", "content": {"sure": true}})
        })
        .on_sampling(|_| {
            json!({"role": "assistant", "content": {"type": "text", "text": "yes"}, "model": "test"})
        });
    client
        .call("count.up", json!({"stepBy": 4}))
        .await
        .expect("calls");
    let reset = client.call("count.reset", json!({})).await.expect("calls");
    assert_eq!(reset.text(), "reset (yes)", "{:?}", reset.result());
    let after = client
        .call("count.up", json!({"stepBy": 1}))
        .await
        .expect("calls");
    assert_eq!(after.structured(), Some(&json!({"value": 1})));
    // A client that declines.
    let declining = TestClient::new(server().build().expect("builds"))
        .await
        .expect("a client")
        .on_elicitation(|_| json!({"action": "decline"}));
    assert_eq!(
        declining
            .call("count.reset", json!({}))
            .await
            .expect("calls")
            .text(),
        "kept"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_of_a_governed_catalog_sees_and_calls_its_own_tools() {
    let catalog = r#"
[[tenant]]
id = "acme"

[[client]]
id = "clerk"
tenant = "acme"
toolsets = ["basic"]

[[toolset]]
id = "basic"
tenant = "acme"
tools = ["who", "count.up"]
"#;
    let service = server()
        .catalog_toml(catalog, "catalog.toml")
        .build()
        .expect("builds");
    let clerk = TestClient::as_client(service.clone(), "clerk")
        .await
        .expect("a client");
    let names: Vec<Value> = clerk
        .list()
        .await
        .expect("lists")
        .iter()
        .map(|tool| tool["name"].clone())
        .collect();
    assert_eq!(names, [json!("count.up"), json!("who")]);
    assert_eq!(
        clerk.call("who", json!({})).await.expect("calls").text(),
        "clerk of acme"
    );
    let hidden = clerk
        .call("count.reset", json!({}))
        .await
        .expect_err("not its tool");
    assert!(
        matches!(hidden, TestError::Rpc { code: -32602, .. }),
        "{hidden}"
    );
    let stranger = TestClient::as_client(service, "stranger").await;
    assert!(
        stranger.is_err(),
        "an unknown client application is refused"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_handler_is_called_directly_with_a_context_built_for_the_test() {
    let counter = Arc::new(Counter::default());
    let ctx = Context::for_test("count.up").with_state(counter.clone());
    let count = CountUp { step_by: 2 }.call(ctx).await.expect("counts");
    assert_eq!(count.value, 2);
    assert_eq!(counter.0.load(Ordering::SeqCst), 2);
    let who = Who {}
        .call(Context::for_test_as("who", "acme", "clerk"))
        .await
        .expect("answers");
    assert_eq!(who.content_json()[0]["text"], "clerk of acme");
    // Without a client behind it, a question is unavailable.
    let reset = Reset {}
        .call(Context::for_test("count.reset").with_state(counter))
        .await;
    assert!(reset.is_err());
}
