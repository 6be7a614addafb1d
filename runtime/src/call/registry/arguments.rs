//! A call's arguments: as a transport hands them over, and as a call
//! takes them.

use core::fmt;
use std::sync::Arc;

use serde_json::Value;
use serde_json::value::RawValue;

use super::{Begin, Registered};
use crate::validate::ArgumentErrors;

/// Arguments as they arrive: parsed inside a request, as JSON text, or
/// read ahead into the tool's type (its handler, bound to them).
pub(super) enum Arguments<'a> {
    Parsed(Value),
    Text(&'a str),
    Read(Begin),
}

/// A call's arguments as a transport hands them over: a parsed tree, or
/// the JSON text the client sent, which a derived tool reads in one pass
/// into its type (no tree is built) and any other tool reads against its
/// schema. Either is checked by the same checks, with the same refusals.
///
/// ```
/// use serde_json::json;
/// use serde_json::value::RawValue;
/// use toolschema_runtime::call::CallArguments;
///
/// let parsed = CallArguments::from(json!({"id": 1}));
/// let sent: Box<RawValue> = serde_json::from_str(r#"{"id": 1}"#).unwrap();
/// let text = CallArguments::from(sent);
/// assert_eq!(parsed.into_value().unwrap(), text.into_value().unwrap());
/// ```
#[derive(Debug)]
pub enum CallArguments {
    /// Parsed into a tree.
    Parsed(Value),
    /// The JSON text of the arguments, as sent.
    Text(Box<RawValue>),
    /// Read already, where they stood in the message, into a derived
    /// tool's type ([`Registry::read_leading`](super::Registry::read_leading)).
    Read(ReadArguments),
}

impl CallArguments {
    /// The arguments as a tree (text is parsed; it was read as JSON
    /// already, so only a number beyond what a tree holds fails). Arguments
    /// read into a tool's type have no tree: they are refused.
    pub fn into_value(self) -> Result<Value, serde_json::Error> {
        match self {
            CallArguments::Parsed(value) => Ok(value),
            CallArguments::Text(text) => serde_json::from_str(text.get()),
            CallArguments::Read(read) => Err(serde::de::Error::custom(format_args!(
                "the arguments were read into the type of `{}` already",
                read.tool.def.name
            ))),
        }
    }
}

/// A call's arguments read ahead, where they stood in a message, into a
/// derived tool's type by [`Registry::read_leading`](super::Registry::read_leading): they call that tool
/// (that version, of that registry) and no other. A transport gets them
/// while it reads the message, so the arguments are read once, in one
/// pass, and never scanned as text first.
pub struct ReadArguments {
    pub(super) tool: Arc<Registered>,
    /// The handler bound to them, or why they are refused.
    pub(super) begin: Result<Begin, ArgumentErrors>,
}

impl fmt::Debug for ReadArguments {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadArguments")
            .field("tool", &self.tool.def.name)
            .field("version", &self.tool.def.version)
            .field("refused", &self.begin.as_ref().err())
            .finish_non_exhaustive()
    }
}

impl From<Value> for CallArguments {
    fn from(value: Value) -> CallArguments {
        CallArguments::Parsed(value)
    }
}

impl From<Box<RawValue>> for CallArguments {
    fn from(text: Box<RawValue>) -> CallArguments {
        CallArguments::Text(text)
    }
}
