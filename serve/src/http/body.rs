//! Replies as response bodies that hand the snapshot's bytes to the network
//! as they are, without copying them.

use core::convert::Infallible;
use core::pin::Pin;
use core::task::{Context, Poll};
use std::collections::VecDeque;
use std::sync::Arc;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use bytes::Bytes;

use crate::mcp::{Reply, Trace};

/// A reply as a JSON response, recorded in `trace` as it leaves: a
/// message of `version`, in answer to `method` (none for a message that
/// could not be read).
pub(super) fn reply_response(
    trace: &Trace,
    answers: (&str, Option<&str>),
    reply: Reply,
) -> Response {
    trace.record(answers.0, answers.1, &reply);
    let status = reply.status();
    let chunks: VecDeque<Bytes> = reply
        .into_chunks()
        .map(|chunk| match chunk {
            Ok((text, range)) => Bytes::from_owner(Shared(text, range)),
            Err(owned) => Bytes::from(owned),
        })
        .collect();
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    let mut response = Response::new(axum::body::Body::new(Chunks(chunks)));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// A range of a snapshot's text, as bytes.
struct Shared(Arc<str>, core::ops::Range<usize>);

impl AsRef<[u8]> for Shared {
    fn as_ref(&self) -> &[u8] {
        &self.0.as_bytes()[self.1.clone()]
    }
}

/// A body of chunks known in advance, so that its length is exact.
struct Chunks(VecDeque<Bytes>);

impl http_body::Body for Chunks {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Infallible>>> {
        Poll::Ready(
            self.0
                .pop_front()
                .map(|chunk| Ok(http_body::Frame::data(chunk))),
        )
    }

    fn is_end_stream(&self) -> bool {
        self.0.is_empty()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.0.iter().map(|c| c.len() as u64).sum())
    }
}
