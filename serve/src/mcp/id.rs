//! Request ids.

use core::fmt;

use serde_json::value::RawValue;

/// A request id, kept exactly as the client wrote it (a string or an
/// integer), so that the reply echoes it byte for byte.
#[derive(Debug, Clone)]
pub struct Id(pub(super) Box<RawValue>);

impl Id {
    /// The id as JSON text.
    pub fn as_json(&self) -> &str {
        self.0.get()
    }

    pub(crate) fn raw(&self) -> &RawValue {
        &self.0
    }

    /// Whether the text is a JSON string or an integer (MCP's rule: never
    /// `null`, never a fraction).
    pub(crate) fn is_valid(raw: &RawValue) -> bool {
        let text = raw.get();
        text.starts_with('"')
            || (!text.is_empty()
                && text
                    .bytes()
                    .enumerate()
                    .all(|(i, b)| b.is_ascii_digit() || (i == 0 && b == b'-')))
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_json())
    }
}

impl PartialEq for Id {
    fn eq(&self, other: &Id) -> bool {
        self.as_json() == other.as_json()
    }
}
