//! Any bytes as one MCP message to the protocol core, over the demo
//! catalog as a client with reduced-mode tools: no panic, every reply is
//! JSON, and a request's reply carries its id as sent. The message is read
//! as the transports read it (a call's arguments into the tool's type as
//! they are met), and that reading is held to the envelope reader's own.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use toolschema::catalog::Catalog;
use toolschema_serve::mcp::{
    Answer, Backchannel, Headers, Identity, Incoming, Protocol, Reply, Session,
};

struct World {
    runtime: tokio::runtime::Runtime,
    catalog: Catalog,
    protocol: Protocol,
}

fn world() -> &'static World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(|| World {
        runtime: tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime"),
        catalog: toolschema_demo::catalog(),
        protocol: Protocol::new(Identity::new("fuzz", "1")),
    })
}

fn is_json(reply: &Reply) -> String {
    let text = reply.to_string();
    // Syntax only: an id echoed as sent may be an integer of any length,
    // which is JSON, though no f64 holds it.
    if let Err(error) = serde_json::from_str::<serde::de::IgnoredAny>(&text) {
        panic!("a reply that is not JSON ({error}): {text}");
    }
    text
}

/// What [`Incoming::parse`] (the envelope's reader alone) reads from the
/// same bytes: the same request, or the same refusal.
fn same_as_the_envelope_reads(data: &[u8], read: &Incoming) {
    match (read, &Incoming::parse(data)) {
        (Incoming::Request(read), Incoming::Request(parsed)) => {
            assert_eq!(read.id(), parsed.id());
            assert_eq!(read.method(), parsed.method());
            assert_eq!(read.params(), parsed.params());
            assert_eq!(read.arguments(), parsed.arguments());
        }
        (Incoming::Malformed(read), Incoming::Malformed(parsed)) => {
            assert_eq!(read.to_string(), parsed.to_string());
        }
        (read, parsed) => assert_eq!(format!("{read:?}"), format!("{parsed:?}")),
    }
}

fuzz_target!(|data: &[u8]| {
    let world = world();
    let snapshot = world.catalog.snapshot();
    let Some(client) = snapshot.client("acme-assistant").cloned() else {
        return;
    };
    let incoming = Incoming::parse_for(data, &snapshot, &client);
    same_as_the_envelope_reads(data, &incoming);
    match incoming {
        Incoming::Request(request) => {
            let id = request.id().as_json().to_owned();
            let mut session = Session::default();
            let answer = world.runtime.block_on(world.protocol.handle(
                &snapshot,
                &client,
                &mut session,
                request,
                &Headers::NONE,
                &Backchannel::none(),
            ));
            if let Answer::Reply(reply) = answer {
                let text = is_json(&reply);
                assert!(
                    text.contains(&format!("\"id\":{id}")),
                    "the reply lost the id {id}: {text}"
                );
            }
        }
        Incoming::Malformed(reply) => {
            is_json(&reply);
        }
        _ => {}
    }
});
