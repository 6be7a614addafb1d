//! An rmcp server whose tools are derived by toolschema, driven by rmcp's
//! own client over an in-memory connection: what it lists, what it answers,
//! and every kind of refusal, each naming its field.

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::{ServiceExt, tool, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolschema::{Schema, Tool};
use toolschema_rmcp::{Args, Refused, answer, input_schema, output_schema};

/// Adds a note to the notebook.
#[derive(Tool, Deserialize)]
#[tool(name = "notes.add", output = Added)]
struct AddNote {
    /// The note's title.
    #[tool(min_length = 1, max_length = 40)]
    title: String,
    /// Where it goes in the list, from 1.
    #[tool(minimum = 1, maximum = 50)]
    position: u32,
    /// Tags, at most three.
    #[serde(default)]
    #[tool(max_items = 3)]
    tags: Vec<String>,
}

/// What was added.
#[derive(Schema, Serialize)]
struct Added {
    /// The note's title, as stored.
    title: String,
    /// Its place in the list.
    position: u32,
    /// How many tags it has.
    tag_count: u32,
}

#[derive(Clone)]
struct Notebook;

#[tool_router(server_handler)]
impl Notebook {
    #[tool(
        name = "notes.add",
        description = "Adds a note to the notebook.",
        input_schema = input_schema::<AddNote>(),
        output_schema = output_schema::<AddNote>().expect("an output")
    )]
    async fn add(&self, args: Args<AddNote>) -> Result<CallToolResult, Refused> {
        let note = args.into_inner()?;
        answer::<AddNote>(Added {
            title: note.title,
            position: note.position,
            tag_count: u32::try_from(note.tags.len()).unwrap_or(u32::MAX),
        })
    }
}

/// A client connected to a notebook server over an in-memory pipe.
async fn connected() -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    let (server_side, client_side) = tokio::io::duplex(64 * 1024);
    let notebook = Notebook;
    tokio::spawn(async move {
        let running = notebook
            .serve(tokio::io::split(server_side))
            .await
            .expect("the server starts");
        let _ = running.waiting().await;
    });
    ().serve(tokio::io::split(client_side))
        .await
        .expect("the client connects")
}

async fn call(
    client: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
    arguments: Value,
) -> CallToolResult {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object")
    };
    let params = CallToolRequestParams::new("notes.add").with_arguments(arguments);
    client.call_tool(params).await.expect("a tool result")
}

fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.clone()))
        .collect()
}

#[tokio::test]
async fn the_listing_is_the_derived_schema_and_every_bad_call_is_refused_at_its_field() {
    let client = connected().await;
    let listed = client.list_all_tools().await.expect("tools");
    assert_eq!(listed.len(), 1);
    let schema = Value::Object((*listed[0].input_schema).clone());
    assert_eq!(schema["properties"]["title"]["maxLength"], 40);
    assert_eq!(schema["properties"]["position"]["maximum"], 50);
    assert_eq!(schema["properties"]["tags"]["maxItems"], 3);
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(schema["required"], json!(["title", "position"]));
    let output = listed[0].output_schema.as_ref().expect("an output schema");
    assert_eq!(output["properties"]["tag_count"]["type"], "integer");

    let valid = call(
        &client,
        json!({"title": "Groceries", "position": 2, "tags": ["home"]}),
    )
    .await;
    assert_ne!(valid.is_error, Some(true), "{}", text_of(&valid));
    assert_eq!(
        valid.structured_content,
        Some(json!({"title": "Groceries", "position": 2, "tag_count": 1}))
    );
    // A refusal is the text toolschema's own server sends for the same
    // arguments.
    let bad = json!({"title": "", "position": 99});
    let own = toolschema::call::parse_args::<AddNote>(&bad.to_string())
        .err()
        .expect("refused");
    assert_eq!(
        text_of(&call(&client, bad).await),
        format!("The arguments for `notes.add` were refused: {own}")
    );

    // Each breaks one rule; the method's body never runs for them.
    let refused = [
        (json!({"title": "x".repeat(41), "position": 1}), "/title"),
        (json!({"title": "", "position": 1}), "/title"),
        (json!({"title": "a", "position": 0}), "/position"),
        (json!({"title": "a", "position": 51}), "/position"),
        (
            json!({"title": "a", "position": 1, "tags": ["1", "2", "3", "4"]}),
            "/tags",
        ),
        (
            json!({"title": "a", "position": 1, "colour": "red"}),
            "colour",
        ),
        (json!({"position": 1}), "title"),
        (json!({"title": 7, "position": 1}), "/title"),
        (json!({"title": "a", "position": "first"}), "/position"),
    ];
    for (arguments, field) in refused {
        let shown = arguments.to_string();
        let result = call(&client, arguments).await;
        assert_eq!(result.is_error, Some(true), "accepted {shown}");
        assert!(result.structured_content.is_none(), "{shown}");
        let text = text_of(&result);
        assert!(
            text.starts_with("The arguments for `notes.add` were refused:"),
            "{shown}: {text}"
        );
        assert!(text.contains(field), "{shown}: {field} not named in {text}");
    }
    client.cancel().await.expect("closes");
}

/// Says hello.
#[derive(Tool, Deserialize)]
#[tool(name = "hello")]
struct Hello {
    /// Whom to greet.
    name: String,
}

#[test]
fn a_tool_without_an_output_schema_answers_with_its_content_alone() {
    let hello: Hello = toolschema::call::read_args(json!({"name": "Ada"})).expect("reads");
    let answered = answer::<Hello>(toolschema::call::ToolResult::text(format!(
        "Hello, {}!",
        hello.name
    )))
    .expect("answered");
    assert_eq!(answered.structured_content, None);
    assert_ne!(answered.is_error, Some(true));
    assert_eq!(text_of(&answered), "Hello, Ada!");
}
