//! A lone string as a representation `jsonschema` validates: the one pass
//! judges a string's format and pattern where it reads it, borrowed from
//! the call's text, without first copying it into a `serde_json::Value`.

use std::borrow::Cow;
use std::convert::Infallible;
use std::marker::PhantomData;

use jsonschema::JsonType;
use jsonschema::json::{Array, Json, Node, NodeIdentity, Object};
use serde_json::Value;

/// Values that are one string each.
pub(crate) struct Lone;

/// The one string of a [`Lone`] value.
#[derive(Clone, Copy)]
pub(crate) struct LoneString<'a>(pub(crate) &'a str);

impl Json for Lone {
    type Node<'a> = LoneString<'a>;
    type PreparedKey = ();
    type StringBuffer = ();
    const ACYCLIC: bool = true;

    fn prepare_key(_: &str) {}

    fn with_string_node<T>(_: &mut (), string: &str, f: impl FnOnce(LoneString<'_>) -> T) -> T {
        f(LoneString(string))
    }
}

/// The members or items of a string: there are none.
pub(crate) struct Nothing<'a>(Infallible, PhantomData<&'a str>);

impl<'a> Node<'a, Lone> for LoneString<'a> {
    type Object = Nothing<'a>;
    type Array = Nothing<'a>;
    type Number = serde_json::Number;

    fn as_object(&self) -> Option<Nothing<'a>> {
        None
    }

    fn as_array(&self) -> Option<Nothing<'a>> {
        None
    }

    fn as_string(&self) -> Option<Cow<'a, str>> {
        Some(Cow::Borrowed(self.0))
    }

    fn as_number(&self) -> Option<serde_json::Number> {
        None
    }

    fn as_boolean(&self) -> Option<bool> {
        None
    }

    fn is_null(&self) -> bool {
        false
    }

    fn json_type(&self) -> JsonType {
        JsonType::String
    }

    fn to_value(&self) -> Cow<'a, Value> {
        Cow::Owned(Value::String(self.0.to_owned()))
    }

    fn identity(&self) -> Option<NodeIdentity> {
        None
    }
}

impl<'a> Object<'a, Lone> for Nothing<'a> {
    type Node = LoneString<'a>;
    type MemberName = &'a str;
    type MembersIter = core::iter::Empty<(&'a str, LoneString<'a>)>;

    fn len(&self) -> usize {
        match self.0 {}
    }

    fn get(&self, _: &()) -> Option<LoneString<'a>> {
        match self.0 {}
    }

    fn members(&self) -> Self::MembersIter {
        match self.0 {}
    }
}

impl<'a> Array<'a, Lone> for Nothing<'a> {
    type Node = LoneString<'a>;
    type ElementsIter = core::iter::Empty<LoneString<'a>>;

    fn len(&self) -> usize {
        match self.0 {}
    }

    fn elements(&self) -> Self::ElementsIter {
        match self.0 {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{Lone, LoneString};
    use crate::validate::{validator_for, validator_of};

    /// A string judged alone gets the verdict it gets as a `Value`, for
    /// the formats and patterns the one pass meets (a translated ECMA
    /// class, a backreference, a lookahead, Unicode).
    #[test]
    fn a_lone_string_is_judged_as_the_same_string_in_a_value() {
        let schemas = [
            json!({"type": "string", "format": "email"}),
            json!({"type": "string", "format": "hostname"}),
            json!({"type": "string", "format": "date-time"}),
            json!({"type": "string", "format": "uuid"}),
            json!({"type": "string", "format": "ipv4"}),
            json!({"type": "string", "pattern": "^[A-Z]{2}$"}),
            json!({"type": "string", "pattern": "^\\d+$"}),
            json!({"type": "string", "pattern": "^(a+)\\1$"}),
            json!({"type": "string", "pattern": "^(?=.*x).{3}$", "format": "email"}),
        ];
        let texts = [
            "",
            "US",
            "us",
            "USA",
            "123",
            "١٢٣",
            "aaaa",
            "aaa",
            "axb",
            "x@y.z",
            "ada@example.com",
            "localhost.",
            "-bad.host",
            "2026-12-06T19:00:00Z",
            "2026-13-06T19:00:00Z",
            "0c1e55aa-0000-4000-8000-000000000001",
            "10.0.0.1",
            "10.0.0.256",
            "é@x.io",
        ];
        for schema in &schemas {
            let alone = validator_for::<Lone>(schema).expect("compiles alone");
            let whole = validator_of(schema).expect("compiles");
            for text in texts {
                assert_eq!(
                    alone.is_valid(LoneString(text)),
                    whole.is_valid(&Value::String(text.to_owned())),
                    "{schema} on {text:?}"
                );
            }
        }
    }
}
