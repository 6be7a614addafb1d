//! What client lists cost in tokens (DESIGN §10): the counts are of the
//! very bytes a client is sent, the Full-mode comparison is of the very
//! schemas `discover_tool_schema` returns, and a client already in Full
//! mode saves nothing.

use toolschema::project::{Mode, ProtocolRevision};
use toolschema_catalog::cost::{Shown, Tokenizer, client_cost};

#[test]
fn costs_are_of_the_bytes_clients_are_sent() {
    let catalog = toolschema_demo::catalog();
    let snapshot = catalog.snapshot();
    let tokenizer = Tokenizer::new().expect("the encoding ships with the crate");
    let mut seen_reduced = false;
    for view in snapshot.clients() {
        let client = view.id();
        for revision in ProtocolRevision::ALL {
            let cost = client_cost(&snapshot, client, revision, &tokenizer).expect("a client");
            let list = snapshot.discover(client, revision).expect("a client");
            assert_eq!(cost.list.bytes, list.len(), "{client}");
            assert_eq!(cost.list.tokens, tokenizer.count(&list), "{client}");
            // The parts are the list's entries: `{"tools":[` + entries
            // joined with commas + `]}`.
            let tools: usize = cost.parts.iter().map(|(_, part)| part.tools).sum();
            let bytes: usize = cost.parts.iter().map(|(_, part)| part.bytes).sum();
            assert_eq!(tools, cost.list.tools, "{client}");
            assert_eq!(
                bytes + "{\"tools\":[]}".len() + tools - 1,
                cost.list.bytes,
                "{client}"
            );
            // The Full list is made of what discover_tool_schema returns.
            let names: Vec<&str> = view.tools().map(|(def, _)| &*def.name).collect();
            let full: Vec<String> = names
                .iter()
                .map(|name| {
                    snapshot
                        .discover_schema(client, name, revision)
                        .expect("visible")
                        .to_string()
                })
                .collect();
            let full = format!("{{\"tools\":[{}]}}", full.join(","));
            assert_eq!(cost.full.bytes, full.len(), "{client}");
            assert_eq!(cost.full.tokens, tokenizer.count(&full), "{client}");
            let reduced = view.tools().any(|(_, mode)| mode != Mode::Full);
            if reduced {
                seen_reduced = true;
                assert!(
                    cost.parts
                        .iter()
                        .any(|(shown, _)| *shown == Shown::MetaTool),
                    "{client}: a reduced mode brings the meta-tool"
                );
                assert!(
                    cost.saving() > 0.0 && cost.saving() < 1.0,
                    "{client}: {cost:?}"
                );
            } else {
                assert_eq!((cost.full, cost.saving()), (cost.list, 0.0), "{client}");
            }
        }
    }
    assert!(seen_reduced, "the demo has clients in reduced modes");
    assert!(client_cost(&snapshot, "nobody", ProtocolRevision::LATEST, &tokenizer).is_none());
}
