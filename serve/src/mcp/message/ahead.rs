//! A request of the usual shape read in one pass over its text, a
//! `tools/call`'s arguments read into the tool's type where they stand.
//!
//! The envelope's serde reader keeps `params.arguments` as text, which
//! means scanning every byte of the arguments to find their end before the
//! tool reads them again. Here the members of the envelope and of its
//! `params` are walked one by one, each value read by serde_json where it
//! stands; when the arguments of a `tools/call` are met with the tool's
//! name already read, the tool's own reader reads them, once, and says
//! where they ended.
//!
//! Only the usual shape is read this way: `jsonrpc`, `id`, `method` and
//! `params` once each, an object of params, an id that is a string or an
//! integer, keys without escapes. Anything else (a notification, a
//! response, a member twice, an unknown member, nesting near serde_json's
//! limit, text that is not JSON) is not read here at all: the envelope's
//! reader reads the message from the start and says what it says today.

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use toolschema_runtime::call::ReadArguments;
use toolschema_runtime::validate::depth;

use super::{Id, Request, Sent};

/// Reads the arguments of a call of a tool (its name, then the text they
/// start), as [`Incoming::parse_for`](super::Incoming::parse_for) is given.
pub(super) type ReadAhead<'r> = &'r dyn Fn(&str, &str) -> Option<(ReadArguments, usize)>;

/// Deepest a value of `params` may nest: serde_json reads a tree 127
/// levels deep, and the envelope and `params` take two of them. (The
/// `arguments` are kept as text, which serde_json reads at any depth.)
const PARAM_DEPTH: usize = 125;

/// The request `text` holds, if it has the usual shape.
pub(super) fn request(text: &str, read: ReadAhead<'_>) -> Option<Request> {
    let mut walk = Walk { text, at: 0 };
    walk.eat(b'{')?;
    let (mut version, mut id, mut method, mut params) = (false, None, None, None);
    loop {
        match walk.key()? {
            "jsonrpc" if !version => {
                let raw: &RawValue = walk.value()?;
                version = raw.get() == "\"2.0\"";
                if !version {
                    return None;
                }
            }
            "id" if id.is_none() => {
                let raw: &RawValue = walk.value()?;
                id = Some(Id::is_valid(raw).then(|| Id(raw.to_owned()))?);
            }
            "method" if method.is_none() => method = Some(walk.value::<String>()?),
            "params" if params.is_none() => {
                let calls = method.as_deref() == Some("tools/call");
                params = Some(walk.params(calls, read)?);
            }
            _ => return None,
        }
        if !walk.more()? {
            break;
        }
    }
    walk.skip_space();
    if walk.at != text.len() || !version {
        return None;
    }
    let (params, arguments) = params.unwrap_or_default();
    Some(Request {
        id: id?,
        method: method?,
        params,
        arguments,
    })
}

/// Where a reading stands in the text.
struct Walk<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Walk<'a> {
    fn skip_space(&mut self) {
        let bytes = self.text.as_bytes();
        while bytes
            .get(self.at)
            .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.text.as_bytes().get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    /// A member's key and its colon; only a key without escapes.
    fn key(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let rest = &self.text.as_bytes()[self.at..];
        let length = rest
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
        if rest[length] != b'"' {
            return None;
        }
        let key = self.text.get(self.at..self.at + length)?;
        self.at += length + 1;
        self.eat(b':')?;
        Some(key)
    }

    /// The value that stands here, read by serde_json.
    fn value<T: Deserialize<'a>>(&mut self) -> Option<T> {
        self.skip_space();
        let mut de = serde_json::Deserializer::from_str(self.text.get(self.at..)?);
        let value = T::deserialize(&mut de).ok()?;
        self.at += de.into_iter::<IgnoredAny>().byte_offset();
        Some(value)
    }

    /// After a member: `true` after a comma, `false` at the object's end.
    fn more(&mut self) -> Option<bool> {
        let more = match self.peek()? {
            b',' => true,
            b'}' => false,
            _ => return None,
        };
        self.at += 1;
        Some(more)
    }

    /// The params object: its members as values, but for `arguments`,
    /// read by the tool when `calls` (a `tools/call`) and the name came
    /// first, else kept as text.
    fn params(
        &mut self,
        calls: bool,
        read: ReadAhead<'_>,
    ) -> Option<(Map<String, Value>, Option<Sent>)> {
        self.eat(b'{')?;
        let (mut params, mut arguments) = (Map::new(), None);
        if self.peek()? == b'}' {
            self.at += 1;
            return Some((params, None));
        }
        loop {
            match self.key()? {
                "arguments" if arguments.is_none() => {
                    arguments = Some(self.arguments(calls, params.get("name"), read)?);
                }
                "arguments" => return None,
                key => {
                    let value: Value = self.value()?;
                    if depth(&value) > PARAM_DEPTH {
                        return None;
                    }
                    if params.insert(key.to_owned(), value).is_some() {
                        return None;
                    }
                }
            }
            if !self.more()? {
                return Some((params, arguments));
            }
        }
    }

    fn arguments(
        &mut self,
        calls: bool,
        name: Option<&Value>,
        read: ReadAhead<'_>,
    ) -> Option<Sent> {
        self.skip_space();
        let start = self.at;
        let rest = self.text.get(start..)?;
        if calls
            && let Some(Value::String(name)) = name
            && !rest.starts_with('n')
            && let Some((read, used)) = read(name, rest)
        {
            let text = rest.get(..used)?.into();
            self.at += used;
            return Some(Sent::Read { text, read });
        }
        // Text for the call to read (or refuse) as usual.
        let raw: &RawValue = self.value()?;
        Some(Sent::Text(raw.to_owned()))
    }
}
