//! `tools/list`: a client's pre-serialized tool entries, in pages a cursor
//! continues, sent as parts of the snapshot's own text.

use serde_json::{Map, Value};
use toolschema_catalog::ClientView;
use toolschema_runtime::project::ProtocolRevision;

use super::message::{cursor, parse_cursor};
use super::{Era, Id, Protocol, Reply, code, refusal};

impl Protocol {
    /// `tools/list`: the client's pre-serialized entries, paged, sent as
    /// parts of the snapshot's own text.
    pub(super) fn list(
        &self,
        id: &Id,
        era: Era,
        revision: ProtocolRevision,
        client: &ClientView,
        params: &Map<String, Value>,
    ) -> Reply {
        let entries = client.entries(revision);
        let start = match params.get("cursor") {
            None | Some(Value::Null) => 0,
            Some(Value::String(text)) => match parse_cursor(text) {
                Some((fingerprint, offset))
                    if fingerprint == client.fingerprint(revision) && offset <= entries.len() =>
                {
                    offset
                }
                _ => {
                    return refusal(
                        era,
                        id,
                        code::INVALID_PARAMS,
                        "Invalid cursor: it is not from this tool list (the list may have changed); list again without a cursor",
                        None,
                    );
                }
            },
            Some(_) => {
                return refusal(
                    era,
                    id,
                    code::INVALID_PARAMS,
                    "Invalid params: cursor must be a string",
                    None,
                );
            }
        };
        let end = (start + self.page_size).min(entries.len());
        let mut reply = Reply::default();
        let mut head = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"#);
        if era == Era::Stateless {
            head.push_str(r#""resultType":"complete","#);
        }
        if start == 0 && end == entries.len() {
            // The whole list: the pre-serialized `{"tools":[...]}`, unbraced.
            reply.push(head);
            let list = client.list_json(revision);
            reply.share(list, 1..list.len() - 1);
        } else {
            head.push_str(r#""tools":["#);
            reply.push(head);
            for (i, entry) in entries[start..end].iter().enumerate() {
                if i > 0 {
                    reply.push(",");
                }
                reply.share(entry, 0..entry.len());
            }
            reply.push("]");
        }
        let mut tail = String::new();
        if end < entries.len() {
            tail.push_str(&format!(
                r#","nextCursor":"{}""#,
                cursor(client.fingerprint(revision), end)
            ));
        }
        if era == Era::Stateless {
            tail.push_str(&format!(
                r#","ttlMs":{},"cacheScope":"private""#,
                self.list_ttl_ms
            ));
        }
        tail.push_str("}}");
        reply.push(tail);
        reply
    }
}
