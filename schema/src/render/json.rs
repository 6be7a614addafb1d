//! A small JSON tree that keeps the order of object keys.
//!
//! Rendered schemas are built as [`Json`] so that properties stay in
//! declaration order whatever features `serde_json` is built with. It
//! serializes with serde, so it turns into a compact or pretty string, or a
//! [`serde_json::Value`], with one implementation.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use crate::model::{Literal, Number, Ref, Text};

/// A JSON value whose objects keep their keys in insertion order.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number.
    Number(Number),
    /// A string.
    String(Text),
    /// An array.
    Array(Vec<Json>),
    /// An object.
    Object(Object),
}

/// A JSON object whose keys keep their insertion order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Object {
    entries: Vec<(Text, Json)>,
}

impl Object {
    /// An empty object.
    pub fn new() -> Object {
        Object::default()
    }

    /// Sets `key` to `value`: in place if the key is present, else at the end.
    pub fn insert(&mut self, key: impl Into<Text>, value: impl Into<Json>) {
        let key = key.into();
        let value = value.into();
        // The key is read once; each entry's is compared as bytes.
        let wanted: &str = &key;
        match self
            .entries
            .iter()
            .position(|(k, _)| k.len() == wanted.len() && **k == *wanted)
        {
            Some(at) => self.entries[at].1 = value,
            None => self.entries.push((key, value)),
        }
    }

    /// The object of `entries`, as inserting them one by one makes it (a
    /// key given twice keeps its first place and its last value), in time
    /// linear in their number.
    pub(crate) fn from_entries(entries: Vec<(Text, Json)>) -> Object {
        // Few keys: comparing them is cheaper than hashing.
        if entries.len() <= 16 {
            let mut object = Object::new();
            for (key, value) in entries {
                object.insert(key, value);
            }
            return object;
        }
        // For each entry, the last one with its key (itself if unique),
        // or `None` when an earlier one has it.
        let last: Vec<Option<usize>> = {
            let mut latest: std::collections::HashMap<&str, usize> =
                std::collections::HashMap::with_capacity(entries.len());
            for (i, (key, _)) in entries.iter().enumerate() {
                latest.insert(key, i);
            }
            let mut placed = std::collections::HashSet::with_capacity(latest.len());
            entries
                .iter()
                .map(|(key, _)| placed.insert(&**key).then(|| latest[&**key]))
                .collect()
        };
        if last.iter().enumerate().all(|(i, last)| *last == Some(i)) {
            return Object { entries };
        }
        let mut slots: Vec<Option<(Text, Json)>> = entries.into_iter().map(Some).collect();
        let mut kept = Vec::with_capacity(slots.len());
        for (i, last) in last.into_iter().enumerate() {
            let Some(last) = last else { continue };
            let key = slots[i].as_ref().map(|(key, _)| key.clone());
            if let (Some(key), Some((_, value))) = (key, slots[last].take()) {
                kept.push((key, value));
            }
        }
        Object { entries: kept }
    }

    /// The entries, taken out.
    pub fn into_entries(self) -> Vec<(Text, Json)> {
        self.entries
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&Json> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The value of `key`, to change.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        self.entries
            .iter_mut()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    /// The values in order, to change.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Json> {
        self.entries.iter_mut().map(|(_, v)| v)
    }

    /// The entries in order, values to change.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&str, &mut Json)> {
        self.entries
            .iter_mut()
            .map(|entry| (entry.0.as_ref(), &mut entry.1))
    }

    /// Replaces the entry `from` by `to: value`, in the same position.
    pub(crate) fn rename_key(&mut self, from: &str, to: &'static str, value: Json) {
        match self.entries.iter_mut().find(|(k, _)| k == from) {
            Some(entry) => *entry = (Ref::Static(to), value),
            None => self.insert(to, value),
        }
    }

    /// Removes `key` and returns its value.
    pub fn remove(&mut self, key: &str) -> Option<Json> {
        let index = self.entries.iter().position(|(k, _)| k == key)?;
        Some(self.entries.remove(index).1)
    }

    /// The entries in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &Json)> {
        self.entries.iter().map(|(k, v)| (k.as_ref(), v))
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the object has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl FromIterator<(Text, Json)> for Object {
    /// The object of the entries, as inserting them one by one makes it.
    fn from_iter<I: IntoIterator<Item = (Text, Json)>>(entries: I) -> Object {
        Object::from_entries(entries.into_iter().collect())
    }
}

impl Json {
    /// The compact JSON text.
    ///
    /// ```
    /// use toolschema_schema::render::{Json, Object};
    ///
    /// let mut object = Object::new();
    /// object.insert("b", 1u64);
    /// object.insert("a", true);
    /// assert_eq!(Json::Object(object).to_compact_string(), r#"{"b":1,"a":true}"#);
    /// ```
    pub fn to_compact_string(&self) -> String {
        // Serializing this tree to a string cannot fail: keys are strings and
        // there is no I/O.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The JSON text, indented by two spaces.
    pub fn to_pretty_string(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The same value as a [`serde_json::Value`] (key order then follows
    /// `serde_json`'s map).
    pub fn to_value(&self) -> serde_json::Value {
        match self {
            Json::Null => serde_json::Value::Null,
            Json::Bool(b) => serde_json::Value::Bool(*b),
            Json::Number(Number::Int(n)) => (*n).into(),
            Json::Number(Number::UInt(n)) => (*n).into(),
            Json::Number(Number::Float(n)) => (*n).into(),
            Json::String(s) => serde_json::Value::String(s.to_string()),
            Json::Array(items) => items.iter().map(Json::to_value).collect(),
            Json::Object(object) => serde_json::Value::Object(
                object
                    .iter()
                    .map(|(k, v)| (k.to_owned(), v.to_value()))
                    .collect(),
            ),
        }
    }

    /// The object inside, if this is an object.
    pub fn as_object_mut(&mut self) -> Option<&mut Object> {
        match self {
            Json::Object(object) => Some(object),
            _ => None,
        }
    }

    /// The object inside, if this is an object.
    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Json::Object(object) => Some(object),
            _ => None,
        }
    }
}

impl From<bool> for Json {
    fn from(b: bool) -> Json {
        Json::Bool(b)
    }
}

impl From<u64> for Json {
    fn from(n: u64) -> Json {
        Json::Number(Number::UInt(n))
    }
}

impl From<Number> for Json {
    fn from(n: Number) -> Json {
        Json::Number(n)
    }
}

impl From<&'static str> for Json {
    fn from(s: &'static str) -> Json {
        Json::String(Ref::Static(s))
    }
}

impl From<String> for Json {
    fn from(s: String) -> Json {
        Json::String(Text::from(s))
    }
}

impl From<Text> for Json {
    fn from(s: Text) -> Json {
        Json::String(s)
    }
}

impl From<&Text> for Json {
    fn from(s: &Text) -> Json {
        Json::String(s.clone())
    }
}

impl From<Object> for Json {
    fn from(object: Object) -> Json {
        Json::Object(object)
    }
}

impl From<Vec<Json>> for Json {
    fn from(items: Vec<Json>) -> Json {
        Json::Array(items)
    }
}

impl From<&Literal> for Json {
    fn from(literal: &Literal) -> Json {
        match literal {
            Literal::Null => Json::Null,
            Literal::Bool(b) => Json::Bool(*b),
            Literal::Number(n) => Json::Number(*n),
            Literal::Str(s) => Json::String(s.clone()),
        }
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => serializer.serialize_unit(),
            Json::Bool(b) => serializer.serialize_bool(*b),
            Json::Number(Number::Int(n)) => serializer.serialize_i64(*n),
            Json::Number(Number::UInt(n)) => serializer.serialize_u64(*n),
            Json::Number(Number::Float(n)) => serializer.serialize_f64(*n),
            Json::String(s) => serializer.serialize_str(s),
            Json::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(object) => {
                let mut map = serializer.serialize_map(Some(object.len()))?;
                for (key, value) in object.iter() {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}

impl Json {
    /// Parses JSON text, keeping the order of object keys as written.
    ///
    /// ```
    /// use toolschema_schema::render::Json;
    /// let json = Json::parse(r#"{"b": 1, "a": [true, null, "x", -2.5]}"#).unwrap();
    /// assert_eq!(json.to_compact_string(), r#"{"b":1,"a":[true,null,"x",-2.5]}"#);
    /// ```
    pub fn parse(text: &str) -> Result<Json, serde_json::Error> {
        serde_json::from_str(text)
    }
}

impl<'de> serde::Deserialize<'de> for Json {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Json, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

/// Builds a [`Json`] as serde reads it, object keys in order.
struct JsonVisitor;

impl<'de> serde::de::Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
        Ok(Json::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Json, E> {
        Ok(Json::Number(Number::Int(n)))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Json, E> {
        Ok(Json::Number(Number::UInt(n)))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Json, E> {
        Ok(Json::Number(Number::Float(n)))
    }

    fn visit_str<E>(self, s: &str) -> Result<Json, E> {
        Ok(Json::String(Text::from(s.to_owned())))
    }

    fn visit_string<E>(self, s: String) -> Result<Json, E> {
        Ok(Json::String(Text::from(s)))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut entries = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Json>()? {
            entries.push((Text::from(key), value));
        }
        Ok(Json::Object(Object::from_entries(entries)))
    }
}

#[cfg(test)]
mod tests {
    use super::{Json, Object};

    #[test]
    fn a_parsed_object_is_the_object_its_entries_insert() {
        for count in [3, 40] {
            let mut text = String::from("{");
            let mut inserted = Object::new();
            for i in 0..count {
                // Every fifth key again, with a new value.
                let key = if i % 5 == 4 { i - 3 } else { i };
                text.push_str(&format!("\"k{key}\":{i},"));
                inserted.insert(format!("k{key}"), i as u64);
            }
            text.push_str("\"k0\":\"last\"}");
            inserted.insert("k0", Json::String("last".into()));
            let parsed = Json::parse(&text).expect("JSON");
            assert_eq!(parsed, Json::Object(inserted), "{count} entries");
        }
    }
}
