//! Asking the client while a tool runs: the user (elicitation), the
//! client's model (sampling), the client's roots. One API for both
//! protocol eras: in the handshake era the question is a request to the
//! client and the answer comes back in the same call; in 2026-07-28 the
//! call ends with the questions (an input-required result) and the client
//! calls again with the answers, which the handler then finds.

use core::fmt;

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::model::{Direction, Schema};
use crate::render::render_schema;

/// One question for the client, named by a key that stays the same across
/// the rounds of a call (the handler asks it again when called with the
/// answers, and gets the answer).
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    key: String,
    method: &'static str,
    params: Value,
}

impl Question {
    /// Asks the user for a value of `requested_schema` (a flat object of
    /// primitive properties), showing `message`.
    pub fn elicit(key: impl Into<String>, message: &str, requested_schema: Value) -> Question {
        Question {
            key: key.into(),
            method: "elicitation/create",
            params: json!({"message": message, "requestedSchema": requested_schema}),
        }
    }

    /// Asks the user for a `T`, whose derived schema is the requested one.
    pub fn elicit_for<T: Schema + ?Sized>(key: impl Into<String>, message: &str) -> Question {
        let schema = render_schema(T::SCHEMA, Direction::Input).to_value();
        Question::elicit(key, message, schema)
    }

    /// Asks the client's model to answer `prompt` in at most `max_tokens`.
    pub fn sample(key: impl Into<String>, prompt: &str, max_tokens: u32) -> Question {
        Question::sample_with(
            key,
            json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
                "maxTokens": max_tokens,
            }),
        )
    }

    /// Asks the client's model with full `sampling/createMessage` params.
    pub fn sample_with(key: impl Into<String>, params: Value) -> Question {
        Question {
            key: key.into(),
            method: "sampling/createMessage",
            params,
        }
    }

    /// Asks the client for its roots.
    pub fn list_roots(key: impl Into<String>) -> Question {
        Question {
            key: key.into(),
            method: "roots/list",
            params: json!({}),
        }
    }

    /// The key.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The MCP method of the request to the client.
    pub fn method(&self) -> &'static str {
        self.method
    }

    /// Its params.
    pub fn params(&self) -> &Value {
        &self.params
    }

    /// The client capability the question needs.
    pub fn capability(&self) -> &'static str {
        match self.method {
            "elicitation/create" => "elicitation",
            "sampling/createMessage" => "sampling",
            _ => "roots",
        }
    }
}

/// Why a question got no answer.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AskError {
    /// 2026-07-28: the answer is not here yet; the call ends with the
    /// questions and the client calls again with the answers. A handler
    /// passes this on with `?`.
    InputRequired,
    /// The client did not declare the capability the question needs
    /// (`elicitation`, `sampling`, `roots`).
    Unsupported {
        /// The capability.
        capability: &'static str,
    },
    /// The client answered with an error.
    Refused {
        /// Its message.
        message: String,
    },
    /// The answer does not have the shape asked for.
    Unreadable {
        /// What was wrong.
        message: String,
    },
    /// Nothing can carry the question: the call did not come through a
    /// transport that can ask.
    Unavailable,
}

impl fmt::Display for AskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AskError::InputRequired => f.write_str("the client's input is required"),
            AskError::Unsupported { capability } => write!(
                f,
                "the client does not support `{capability}`, which this tool needs"
            ),
            AskError::Refused { message } => write!(f, "the client refused: {message}"),
            AskError::Unreadable { message } => {
                write!(f, "the client's answer cannot be read: {message}")
            }
            AskError::Unavailable => f.write_str("this call cannot ask the client anything"),
        }
    }
}

impl std::error::Error for AskError {}

/// What the user did with an elicitation.
#[derive(Debug, Clone, PartialEq)]
pub enum Elicitation<T> {
    /// Accepted, with the content asked for.
    Accept(T),
    /// Declined.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

impl Elicitation<Value> {
    /// Reads the accepted content as `T`.
    pub fn read<T: DeserializeOwned>(self) -> Result<Elicitation<T>, AskError> {
        Ok(match self {
            Elicitation::Accept(content) => {
                Elicitation::Accept(serde_json::from_value(content).map_err(|e| {
                    AskError::Unreadable {
                        message: e.to_string(),
                    }
                })?)
            }
            Elicitation::Decline => Elicitation::Decline,
            Elicitation::Cancel => Elicitation::Cancel,
        })
    }

    /// The elicitation of an `elicitation/create` result.
    pub(crate) fn from_result(result: Value) -> Result<Elicitation<Value>, AskError> {
        let action = result.get("action").and_then(Value::as_str);
        match action {
            Some("accept") => Ok(Elicitation::Accept(
                result.get("content").cloned().unwrap_or(Value::Null),
            )),
            Some("decline") => Ok(Elicitation::Decline),
            Some("cancel") => Ok(Elicitation::Cancel),
            _ => Err(AskError::Unreadable {
                message: format!("an elicitation result needs an action, not {result}"),
            }),
        }
    }
}

/// A root the client offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// Its URI (`file:///…`).
    pub uri: String,
    /// Its name, if given.
    pub name: Option<String>,
}

/// The text of a `sampling/createMessage` result.
pub(crate) fn sampled_text(result: &Value) -> Result<String, AskError> {
    let content = result.get("content");
    // A single block, or (2025-11-25) a list of them.
    let blocks: Vec<&Value> = match content {
        Some(Value::Array(blocks)) => blocks.iter().collect(),
        Some(block) => vec![block],
        None => Vec::new(),
    };
    let text: Vec<&str> = blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    if text.is_empty() {
        return Err(AskError::Unreadable {
            message: format!("a sampling result without text: {result}"),
        });
    }
    Ok(text.join("\n"))
}

/// The roots of a `roots/list` result.
pub(crate) fn roots(result: &Value) -> Result<Vec<Root>, AskError> {
    let Some(Value::Array(roots)) = result.get("roots") else {
        return Err(AskError::Unreadable {
            message: format!("a roots result without roots: {result}"),
        });
    };
    roots
        .iter()
        .map(|root| match root.get("uri").and_then(Value::as_str) {
            Some(uri) => Ok(Root {
                uri: uri.to_owned(),
                name: root.get("name").and_then(Value::as_str).map(str::to_owned),
            }),
            None => Err(AskError::Unreadable {
                message: format!("a root without a uri: {root}"),
            }),
        })
        .collect()
}
