//! The runtime's own JSON tree ([`Json`]) read by `jsonschema` where it
//! stands: a large result (a gateway tool's mapped answer) is checked
//! against its output schema without first becoming a
//! `serde_json::Value`, which takes several times the memory of its text.

use std::borrow::Cow;

use jsonschema::JsonType;
use jsonschema::json::{Array, Json as Representation, Node, NodeIdentity, Object};
use serde_json::Value;

use crate::model::{Number, Text};
use crate::render::{Json, Object as Members};

/// [`Json`] as a representation `jsonschema` validates.
pub(crate) struct Tree;

impl Representation for Tree {
    type Node<'a> = &'a Json;
    type PreparedKey = String;
    type StringBuffer = Option<Json>;

    // Objects are vectors: for a few keys, scanning beats anything else.
    const KEYS_PER_LOOKUP: usize = 4;
    // A tree owns its children: no node is its own descendant.
    const ACYCLIC: bool = true;

    fn prepare_key(key: &str) -> String {
        key.to_owned()
    }

    fn with_string_node<T>(
        buffer: &mut Option<Json>,
        string: &str,
        f: impl FnOnce(&Json) -> T,
    ) -> T {
        let node = buffer.insert(Json::String(Text::from(string.to_owned())));
        f(node)
    }
}

/// A number as `serde_json` has it (what `jsonschema` compares bounds with).
fn number(number: Number) -> Option<serde_json::Number> {
    match number {
        Number::Int(n) => Some(n.into()),
        Number::UInt(n) => Some(n.into()),
        Number::Float(n) => serde_json::Number::from_f64(n),
    }
}

impl<'a> Node<'a, Tree> for &'a Json {
    type Object = &'a Members;
    type Array = &'a [Json];
    type Number = serde_json::Number;

    fn as_object(&self) -> Option<&'a Members> {
        match self {
            Json::Object(members) => Some(members),
            _ => None,
        }
    }

    fn as_array(&self) -> Option<&'a [Json]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    fn as_string(&self) -> Option<Cow<'a, str>> {
        match self {
            Json::String(text) => Some(Cow::Borrowed(&**text)),
            _ => None,
        }
    }

    fn as_number(&self) -> Option<serde_json::Number> {
        match self {
            Json::Number(n) => number(*n),
            _ => None,
        }
    }

    fn as_boolean(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }

    fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }

    fn json_type(&self) -> JsonType {
        match self {
            Json::Null => JsonType::Null,
            Json::Bool(_) => JsonType::Boolean,
            Json::Number(_) => JsonType::Number,
            Json::String(_) => JsonType::String,
            Json::Array(_) => JsonType::Array,
            Json::Object(_) => JsonType::Object,
        }
    }

    fn to_value(&self) -> Cow<'a, Value> {
        Cow::Owned(Json::to_value(self))
    }

    fn identity(&self) -> Option<NodeIdentity> {
        Some(NodeIdentity::new(std::ptr::from_ref::<Json>(self) as usize))
    }
}

impl<'a> Object<'a, Tree> for &'a Members {
    type Node = &'a Json;
    type MemberName = &'a str;
    type MembersIter = Box<dyn Iterator<Item = (&'a str, &'a Json)> + 'a>;

    fn len(&self) -> usize {
        Members::len(self)
    }

    fn get(&self, key: &String) -> Option<&'a Json> {
        Members::get(self, key)
    }

    fn members(&self) -> Self::MembersIter {
        Box::new(Members::iter(self))
    }
}

impl<'a> Array<'a, Tree> for &'a [Json] {
    type Node = &'a Json;
    type ElementsIter = std::slice::Iter<'a, Json>;

    fn len(&self) -> usize {
        <[Json]>::len(self)
    }

    fn elements(&self) -> std::slice::Iter<'a, Json> {
        (*self).iter()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::Tree;
    use crate::render::Json;

    /// The tree and `serde_json` agree on every rule of a schema that has
    /// one of most kinds.
    #[test]
    fn a_tree_is_valid_exactly_when_its_value_is() {
        let schema = json!({
            "type": "object",
            "required": ["n", "tags"],
            "properties": {
                "n": {"type": "integer", "minimum": 1, "maximum": 10},
                "x": {"type": "number", "exclusiveMaximum": 2.5},
                "email": {"type": "string", "format": "email", "maxLength": 12},
                "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "uniqueItems": true},
                "kind": {"const": "order"},
                "inner": {"type": "object", "additionalProperties": false, "properties": {"ok": {"type": "boolean"}}}
            },
            "additionalProperties": false
        });
        let tree = jsonschema::options_for::<Tree>()
            .build(&schema)
            .expect("compiles");
        let plain = jsonschema::validator_for(&schema).expect("compiles");
        for value in [
            json!({"n": 3, "tags": []}),
            json!({"n": 3, "tags": ["a", "b"], "x": 2.4, "email": "a@b.example", "kind": "order", "inner": {"ok": true}}),
            json!({"n": 0, "tags": []}),
            json!({"n": 3.5, "tags": []}),
            json!({"n": 3, "tags": ["a", "a"]}),
            json!({"n": 3, "tags": ["c"]}),
            json!({"n": 3, "tags": [], "x": 2.5}),
            json!({"n": 3, "tags": [], "email": "not an email"}),
            json!({"n": 3, "tags": [], "email": "longer@b.example"}),
            json!({"n": 3, "tags": [], "kind": "refund"}),
            json!({"n": 3, "tags": [], "inner": {"ok": 1}}),
            json!({"n": 3, "tags": [], "inner": {"other": 1}}),
            json!({"tags": []}),
            json!({"n": 3, "tags": [], "extra": null}),
        ] {
            let text = value.to_string();
            let parsed = Json::parse(&text).expect("JSON");
            assert_eq!(tree.is_valid(&parsed), plain.is_valid(&value), "{text}");
            let errors = |found: Vec<String>| found.len();
            assert_eq!(
                errors(tree.iter_errors(&parsed).map(|e| e.to_string()).collect()),
                errors(plain.iter_errors(&value).map(|e| e.to_string()).collect()),
                "{text}"
            );
        }
    }
}
