//! Server-sent event streams: the handshake era's `GET /mcp` and the
//! 2026-07-28 `subscriptions/listen` stream, both fed by the notices.

use core::convert::Infallible;
use core::pin::Pin;
use core::task::{Context, Poll};
use std::sync::Arc;

use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use tokio::sync::mpsc;

use super::authenticated::Authenticated;
use crate::mcp::Outgoing;
use crate::notices::Notice;
use crate::service::Service;

/// What an event stream says besides change notices.
pub(super) struct Stream {
    /// Sent when the stream opens.
    pub(super) first: Option<String>,
    /// Sent when the server shuts down, before the stream closes.
    pub(super) last: Option<String>,
    /// The protocol version its messages belong to (for the trace).
    pub(super) version: &'static str,
}

/// A server-sent event stream for one client: `first`, then what `notice`
/// makes each time a reload changes that client's list, and `last` when the
/// server shuts down.
pub(super) fn events(
    service: &Arc<Service>,
    caller: &Authenticated,
    stream: Stream,
    notice: impl Fn() -> Option<String> + Send + 'static,
) -> Response {
    let Stream {
        first,
        last,
        version,
    } = stream;
    let (send, receive) = mpsc::unbounded_channel::<Outgoing>();
    if let Some(first) = first {
        let _ = send.send(Outgoing::message(version, first));
    }
    let client = caller.view.id().to_owned();
    let (catalog, credential) = (service.catalog.clone(), caller.credential.clone());
    let standing = {
        let client = client.clone();
        Box::new(move || credential.still_names(&catalog.snapshot(), &client))
    };
    let mut listener = service.notices.listen(&client, Some(standing));
    tokio::spawn(async move {
        loop {
            tokio::select! {
                heard = listener.next() => match heard {
                    Notice::ListChanged => {
                        if let Some(message) = notice()
                            && send.send(Outgoing::message(version, message)).is_err()
                        {
                            return;
                        }
                    }
                    // Its key no longer opens it: the stream ends, with no
                    // more word than a closed connection.
                    Notice::Revoked => return,
                    Notice::Closing => {
                        if let Some(last) = last {
                            let _ = send.send(Outgoing::reply(version, "subscriptions/listen", last));
                        }
                        // Dropping the sender ends the stream.
                        return;
                    }
                },
                // The client left.
                () = send.closed() => return,
            }
        }
    });
    messages(service, receive)
}

/// A server-sent event stream of the messages `receive` gets, until its
/// senders are gone: the one place messages leave as events, each recorded
/// in the service's trace as it goes.
pub(super) fn messages(
    service: &Arc<Service>,
    receive: mpsc::UnboundedReceiver<Outgoing>,
) -> Response {
    Sse::new(Messages {
        receive,
        service: service.clone(),
    })
    .keep_alive(KeepAlive::default())
    .into_response()
}

/// Messages as server-sent events.
struct Messages {
    receive: mpsc::UnboundedReceiver<Outgoing>,
    service: Arc<Service>,
}

impl futures_core::Stream for Messages {
    type Item = Result<Event, Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.receive.poll_recv(cx).map(|message| {
            message.map(|message| {
                let (version, answers) = (message.version, message.answers);
                self.service.trace.record(version, answers, &message.text);
                Ok(Event::default().event("message").data(message.text))
            })
        })
    }
}
