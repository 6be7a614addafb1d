//! How a running tool's questions reach the client: as requests answered
//! in the same call (the handshake era), or as the questions of an
//! input-required result answered in the next call (2026-07-28).

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::sync::oneshot;
use toolschema_runtime::call::{AskError, Question};

use super::message::ClientResponse;

/// How long a request to the client waits for its answer.
const ANSWER_WITHIN: Duration = Duration::from_secs(600);

/// What a client answered: a result, or its error object.
type Outcome = Result<Value, Value>;

/// The server's requests to clients that wait for an answer, by client
/// application and request id: a client can answer only its own.
#[derive(Debug, Default)]
pub struct Pending {
    waiting: Mutex<HashMap<(String, String), oneshot::Sender<Outcome>>>,
    next: AtomicU64,
}

impl Pending {
    /// A fresh request id for `client`, and where its answer arrives.
    fn open(&self, client: &str) -> (String, oneshot::Receiver<Outcome>) {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let id = format!("\"toolschema-{n}\"");
        let (send, receive) = oneshot::channel();
        if let Ok(mut waiting) = self.waiting.lock() {
            waiting.insert((client.to_owned(), id.clone()), send);
        }
        (id, receive)
    }

    fn forget(&self, client: &str, id: &str) {
        if let Ok(mut waiting) = self.waiting.lock() {
            waiting.remove(&(client.to_owned(), id.to_owned()));
        }
    }

    /// Hands `client`'s response to the call waiting for it; `false` when
    /// no call of this client waits for that id.
    pub fn answer(&self, client: &str, response: ClientResponse) -> bool {
        let waiting = self
            .waiting
            .lock()
            .ok()
            .and_then(|mut waiting| waiting.remove(&(client.to_owned(), response.id)));
        match waiting {
            Some(send) => send.send(response.outcome).is_ok(),
            None => false,
        }
    }

    /// Asks `client` over `outbox` and waits for its answer.
    pub(crate) async fn ask(
        &self,
        client: &str,
        outbox: &super::trace::Outbox,
        question: &Question,
    ) -> Result<Value, AskError> {
        let (id, answer) = self.open(client);
        let request = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"{}","params":{}}}"#,
            question.method(),
            question.params()
        );
        if !outbox.send(request) {
            self.forget(client, &id);
            return Err(AskError::Unavailable);
        }
        let outcome = tokio::time::timeout(ANSWER_WITHIN, answer).await;
        self.forget(client, &id);
        match outcome {
            Ok(Ok(Ok(result))) => Ok(result),
            Ok(Ok(Err(error))) => Err(AskError::Refused {
                message: error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("no message")
                    .to_owned(),
            }),
            Ok(Err(_)) | Err(_) => Err(AskError::Refused {
                message: "no answer came".to_owned(),
            }),
        }
    }
}

/// One round of a 2026-07-28 call: the answers it came with, and the
/// questions it ends with.
#[derive(Debug, Default)]
pub(crate) struct Round {
    answers: Map<String, Value>,
    asked: Mutex<Vec<Question>>,
    missing: Mutex<Option<&'static str>>,
}

impl Round {
    pub(crate) fn new(answers: Map<String, Value>) -> Round {
        Round {
            answers,
            ..Round::default()
        }
    }

    /// The answer to `question` if the call came with a well-formed one;
    /// else the question is asked at the end of this round.
    pub(crate) fn ask(&self, question: &Question) -> Result<Value, AskError> {
        match self.answers.get(question.key()) {
            Some(answer) if answers(question, answer) => Ok(answer.clone()),
            _ => {
                if let Ok(mut asked) = self.asked.lock()
                    && !asked.iter().any(|q| q.key() == question.key())
                {
                    asked.push(question.clone());
                }
                Err(AskError::InputRequired)
            }
        }
    }

    /// Records that the client lacks `capability`.
    pub(crate) fn lacks(&self, capability: &'static str) {
        if let Ok(mut missing) = self.missing.lock() {
            missing.get_or_insert(capability);
        }
    }

    /// The capability the call needed and the client lacks, if any.
    pub(crate) fn missing(&self) -> Option<&'static str> {
        self.missing.lock().ok().and_then(|missing| *missing)
    }

    /// The questions this round ends with.
    pub(crate) fn asked(&self) -> Vec<Question> {
        self.asked
            .lock()
            .map(|asked| asked.clone())
            .unwrap_or_default()
    }

    /// Every answer the call has had, this round's included.
    pub(crate) fn answers(&self) -> &Map<String, Value> {
        &self.answers
    }
}

/// Whether `answer` has the shape of a result of `question`'s request; one
/// that does not is asked again.
fn answers(question: &Question, answer: &Value) -> bool {
    match question.method() {
        "elicitation/create" => answer.get("action").is_some_and(Value::is_string),
        "sampling/createMessage" => answer.get("content").is_some(),
        "roots/list" => answer.get("roots").is_some_and(Value::is_array),
        _ => answer.is_object(),
    }
}

/// The `inputRequests` of an input-required result.
pub(crate) fn input_requests(questions: &[Question]) -> Value {
    let mut requests = Map::new();
    for question in questions {
        requests.insert(
            question.key().to_owned(),
            json!({"method": question.method(), "params": question.params()}),
        );
    }
    Value::Object(requests)
}
