//! `subscriptions/listen` (2026-07-28): a long-lived stream of
//! notifications, opened by the transport rather than answered once.

use serde_json::{Map, Value, json};

use super::id::Id;

/// A `subscriptions/listen` request.
#[derive(Debug, Clone, PartialEq)]
pub struct Subscription {
    /// The request id, which every notification on the stream carries.
    id: Id,
    /// Whether the client asked for `notifications/tools/list_changed`.
    tools: bool,
}

impl Subscription {
    pub(crate) fn new(id: Id, params: &Map<String, Value>) -> Subscription {
        let tools = params
            .get("notifications")
            .and_then(|n| n.get("toolsListChanged"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        Subscription { id, tools }
    }

    /// The request id.
    pub fn id(&self) -> &Id {
        &self.id
    }

    /// Whether the client asked for tool list changes.
    pub fn wants_tools(&self) -> bool {
        self.tools
    }

    fn meta(&self) -> Value {
        json!({"io.modelcontextprotocol/subscriptionId": self.id.raw()})
    }

    /// The acknowledgment that opens the stream: the notification types the
    /// server honors (tool list changes only; it offers nothing else).
    pub fn acknowledgement(&self) -> String {
        let mut honored = Map::new();
        if self.tools {
            honored.insert("toolsListChanged".into(), json!(true));
        }
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/subscriptions/acknowledged",
            "params": {"notifications": honored, "_meta": self.meta()},
        })
        .to_string()
    }

    /// The response that ends the subscription gracefully (the server is
    /// shutting down): a `SubscriptionsListenResult` answering the listen
    /// request, after which the stream closes.
    ///
    /// ```
    /// use toolschema_serve::mcp::{Answer, Backchannel, Headers, Identity, Incoming, Protocol, Session};
    /// # let catalog = toolschema_catalog::Catalog::open(Default::default());
    /// # let snapshot = catalog.snapshot();
    /// # let client = snapshot.client("*").unwrap();
    ///
    /// let listen = br#"{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    /// let Incoming::Request(request) = Incoming::parse(listen) else { panic!() };
    /// let protocol = Protocol::new(Identity::new("doc", "1"));
    /// # fn block_on<F: core::future::Future>(f: F) -> F::Output {
    /// #     let mut f = core::pin::pin!(f);
    /// #     let mut cx = core::task::Context::from_waker(core::task::Waker::noop());
    /// #     loop { if let core::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; } }
    /// # }
    /// let answer = block_on(protocol.handle(&snapshot, client, &mut Session::default(), request, &Headers::NONE, &Backchannel::none()));
    /// let Answer::Stream(subscription) = answer else { panic!() };
    /// let end: serde_json::Value = serde_json::from_str(&subscription.ended()).unwrap();
    /// assert_eq!(end["id"], 7);
    /// assert_eq!(end["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 7);
    /// ```
    pub fn ended(&self) -> String {
        super::reply::success(
            &self.id,
            json!({"resultType": "complete", "_meta": self.meta()}),
        )
    }

    /// The notification that the client's tool list changed, on this stream;
    /// `None` when the client did not ask for it.
    pub fn tools_changed(&self) -> Option<String> {
        self.tools.then(|| {
            json!({
                "jsonrpc": "2.0",
                "method": "notifications/tools/list_changed",
                "params": {"_meta": self.meta()},
            })
            .to_string()
        })
    }
}
