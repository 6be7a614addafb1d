//! Any string as a `tools/list` cursor, in lists of one tool a page: a page
//! of the list or -32602, and never another client's tools.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use toolschema::catalog::Catalog;
use toolschema_serve::mcp::{Answer, Backchannel, Headers, Identity, Incoming, Protocol, Session};

struct World {
    runtime: tokio::runtime::Runtime,
    catalog: Catalog,
    protocol: Protocol,
}

fuzz_target!(|data: &[u8]| {
    static WORLD: OnceLock<World> = OnceLock::new();
    let world = WORLD.get_or_init(|| World {
        runtime: tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime"),
        catalog: toolschema_demo::catalog(),
        protocol: Protocol::new(Identity::new("fuzz", "1")).with_page_size(1),
    });
    let cursor = String::from_utf8_lossy(data);
    let message =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"cursor": cursor}});
    let Incoming::Request(request) = Incoming::parse(message.to_string().as_bytes()) else {
        panic!("a tools/list request");
    };
    let snapshot = world.catalog.snapshot();
    let Some(client) = snapshot.client("globex-support").cloned() else {
        return;
    };
    let answer = world.runtime.block_on(world.protocol.handle(
        &snapshot,
        &client,
        &mut Session::default(),
        request,
        &Headers::NONE,
        &Backchannel::none(),
    ));
    let Answer::Reply(reply) = answer else {
        panic!("tools/list answers with a reply");
    };
    let reply: Value = serde_json::from_str(&reply.to_string()).expect("JSON");
    match (&reply["result"], &reply["error"]) {
        (Value::Object(result), Value::Null) => {
            for tool in result["tools"].as_array().expect("tools") {
                let name = tool["name"].as_str().unwrap_or_default();
                assert!(
                    name.starts_with("support.") || name == "discover_tool_schema",
                    "another client's tool: {name}"
                );
            }
        }
        (Value::Null, error) => assert_eq!(error["code"], -32602, "{reply}"),
        _ => panic!("neither a result nor an error: {reply}"),
    }
});
