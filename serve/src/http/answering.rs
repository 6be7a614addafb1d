//! A call answered on its request's own task, not a task of its own.
//!
//! Most calls answer without streaming a notification first: for them a
//! task per call (its allocation, its scheduling, its join) buys nothing.
//! The call's future is polled where the request is, and two things a
//! task of its own gave are kept by hand:
//!
//! - a panic in the handler is the call's failure (the request answers
//!   500), not the connection's;
//! - a client that goes away does not cancel the call (MCP asks a client
//!   to cancel with `notifications/cancelled`, not by disconnecting): a
//!   call still running when its request is dropped goes on, to its end,
//!   on a task of its own.

use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::mcp::Answer;

/// A handler that panicked: the call has no answer.
#[derive(Debug)]
pub(super) struct Panicked;

type Call = Pin<Box<dyn Future<Output = Answer> + Send>>;

/// A call's answer, computed by polling it here (see the module's docs).
pub(super) struct Answering {
    call: Option<Call>,
}

impl Answering {
    pub(super) fn new(call: impl Future<Output = Answer> + Send + 'static) -> Answering {
        Answering {
            call: Some(Box::pin(call)),
        }
    }
}

impl Future for Answering {
    type Output = Result<Answer, Panicked>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let Some(call) = self.call.as_mut() else {
            return Poll::Ready(Err(Panicked));
        };
        // What a panic leaves behind is never polled again: the call is
        // dropped, and the answer is the panic.
        match catch_unwind(AssertUnwindSafe(|| call.as_mut().poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(answer)) => {
                self.call = None;
                Poll::Ready(Ok(answer))
            }
            Err(_) => {
                self.call = None;
                Poll::Ready(Err(Panicked))
            }
        }
    }
}

impl Drop for Answering {
    fn drop(&mut self) {
        // Dropped unfinished: the request is gone, the call is not.
        if let Some(call) = self.call.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(call);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use tokio::sync::oneshot;

    fn answer() -> Answer {
        Answer::Reply(crate::mcp::Reply::from(String::from("{}")))
    }

    #[tokio::test]
    async fn a_call_answers_where_it_is_polled() {
        let answered = Answering::new(async { answer() }).await;
        assert!(matches!(answered, Ok(Answer::Reply(_))));
    }

    #[tokio::test]
    async fn a_panic_is_the_calls_failure() {
        let answered = Answering::new(async { panic!("a handler's defect") }).await;
        assert!(matches!(answered, Err(Panicked)));
    }

    #[tokio::test]
    async fn a_call_dropped_unfinished_runs_to_its_end() {
        let (go, wait) = oneshot::channel::<()>();
        let (done, finished) = oneshot::channel::<()>();
        let ran = Arc::new(AtomicBool::new(false));
        let flag = ran.clone();
        let mut answering = Answering::new(async move {
            let _ = wait.await;
            flag.store(true, Ordering::SeqCst);
            let _ = done.send(());
            answer()
        });
        // Polled once, left pending, then dropped as a request is when
        // its client goes away.
        let polled = futures_poll_once(&mut answering).await;
        assert!(polled.is_pending());
        drop(answering);
        assert!(!ran.load(Ordering::SeqCst));
        go.send(()).expect("the call still waits");
        finished.await.expect("the call ran to its end");
        assert!(ran.load(Ordering::SeqCst));
    }

    async fn futures_poll_once(answering: &mut Answering) -> Poll<Result<Answer, Panicked>> {
        core::future::poll_fn(|cx| Poll::Ready(Pin::new(&mut *answering).poll(cx))).await
    }
}
