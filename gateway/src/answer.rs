//! A REST downstream's answer mapped as it is read: the source paths of
//! the result fields (and of the arrays their items come through) make a
//! tree of places, each with what the mapping does there (write a field's
//! value; make an array or an object in the result), and the answer's JSON
//! is read once, in document order, doing it. Nothing of the answer is
//! kept but the values the result shows, so a large answer costs the
//! memory of the result, not of itself (a `serde_json::Value` of a whole
//! answer is some fourteen times its text, and the result was a second
//! copy).
//!
//! The result equals [`Operation::result`](super::Operation::result) over
//! the parsed answer: the configuration's checks give every exposed place
//! one shape (a leaf or a container of one kind), so making containers is
//! idempotent and every leaf has its own place, and the order the work is
//! done in changes nothing (a property test holds the two to it).

use core::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use toolschema_configured::{FieldPath, Operation, ResultMap, container_pairs};
use toolschema_runtime::model::Text;
use toolschema_runtime::render::{Json, Object};

/// The places of an answer a mapping reads, and what it does at each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reader {
    /// The document first.
    places: Vec<Place>,
    /// Each result field's exposed path, by the number [`Place::fields`]
    /// gives.
    exposed: Vec<FieldPath>,
}

/// One place: a value the mapping reaches.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Place {
    /// The fields whose source path ends here (the value is read whole).
    fields: Vec<usize>,
    /// When the value is an array: the exposed arrays made for it.
    arrays: Vec<FieldPath>,
    /// When the value is an object: the exposed objects made for it (an
    /// item of an array the results come through).
    objects: Vec<FieldPath>,
    /// The members followed, when the value is an object (each name made
    /// once, shared by every object read).
    members: Vec<(Text, usize)>,
    /// Where each item goes, when the value is an array the mapping goes
    /// into.
    items: Option<usize>,
}

impl Reader {
    /// How a REST answer is read for `operation`'s results: their source
    /// paths, and the arrays their items come through. Made once per
    /// version, when a transport takes it on.
    pub(crate) fn of(operation: &Operation) -> Reader {
        let results = operation.results();
        let containers = container_pairs(results.iter().map(|r| (&r.source, &r.exposed)));
        Reader::new(results, &containers)
    }

    /// The reader of `results`, whose items come through the arrays of
    /// `containers` (source, exposed).
    pub(crate) fn new(results: &[ResultMap], containers: &[(FieldPath, FieldPath)]) -> Reader {
        let mut reader = Reader {
            places: vec![Place::default()],
            exposed: results.iter().map(|r| r.exposed.clone()).collect(),
        };
        for (i, field) in results.iter().enumerate() {
            let at = reader.place_of(field.source.steps());
            reader.places[at].fields.push(i);
            if field.source.ends_in_array() && field.exposed.ends_in_array() {
                let array = reader.array_place_of(field.source.steps());
                reader.places[array].arrays.push(field.exposed.clone());
            }
        }
        for (from, to) in containers {
            let array = reader.array_place_of(from.steps());
            reader.places[array].arrays.push(to.clone());
            let items = reader.place_of(from.steps());
            reader.places[items].objects.push(to.clone());
        }
        reader
    }

    /// The place `steps` end at, made if new.
    fn place_of(&mut self, steps: &[toolschema_configured::Step]) -> usize {
        let mut at = 0;
        for step in steps {
            if !step.name.is_empty() {
                at = self.member(at, &step.name);
            }
            if step.each {
                at = self.items(at);
            }
        }
        at
    }

    /// The place of the array a path ending with `[]` goes into last.
    fn array_place_of(&mut self, steps: &[toolschema_configured::Step]) -> usize {
        let Some((last, init)) = steps.split_last() else {
            return 0;
        };
        let at = self.place_of(init);
        match last.name.is_empty() {
            true => at,
            false => self.member(at, &last.name),
        }
    }

    fn member(&mut self, at: usize, name: &str) -> usize {
        if let Some((_, next)) = self.places[at].members.iter().find(|(n, _)| **n == *name) {
            return *next;
        }
        let next = self.places.len();
        self.places.push(Place::default());
        self.places[at]
            .members
            .push((Text::from(name.to_owned()), next));
        next
    }

    fn items(&mut self, at: usize) -> usize {
        if let Some(next) = self.places[at].items {
            return next;
        }
        let next = self.places.len();
        self.places.push(Place::default());
        self.places[at].items = Some(next);
        next
    }

    /// The result (exposed names) mapped from the answer `bytes` (JSON):
    /// `Err(None)` when it is not JSON, `Err(Some(i))` when result field
    /// `i` (the first so) found something else where its value goes.
    pub(crate) fn map(&self, bytes: &[u8]) -> Result<Json, Option<usize>> {
        let mut mapping = Mapping {
            reader: self,
            result: Json::Object(Object::new()),
            indices: Vec::new(),
            unplaced: None,
        };
        let mut de = serde_json::Deserializer::from_slice(bytes);
        At {
            mapping: &mut mapping,
            place: 0,
        }
        .deserialize(&mut de)
        .map_err(|_| None)?;
        de.end().map_err(|_| None)?;
        match mapping.unplaced {
            Some(field) => Err(Some(field)),
            None => Ok(mapping.result),
        }
    }
}

/// A mapping under way: the result so far, and where in the answer it is.
struct Mapping<'r> {
    reader: &'r Reader,
    result: Json,
    /// The index taken in each array on the way to the value being read.
    indices: Vec<usize>,
    /// The first result field whose value could not be placed.
    unplaced: Option<usize>,
}

impl Mapping<'_> {
    fn place(&self, at: usize) -> &Place {
        &self.reader.places[at]
    }

    /// An array stands at `at`: its exposed arrays are made.
    fn array(&mut self, at: usize) {
        for exposed in &self.reader.places[at].arrays {
            exposed.ensure_array(&mut self.result, &self.indices);
        }
    }

    /// An object stands at `at`: its exposed objects are made.
    fn object(&mut self, at: usize) {
        for exposed in &self.reader.places[at].objects {
            exposed.ensure_object(&mut self.result, &self.indices);
        }
    }

    /// `value` stands at `at`, whose fields end here: each is written.
    fn fields(&mut self, at: usize, value: &Json) {
        if matches!(value, Json::Null) {
            return;
        }
        for &field in &self.reader.places[at].fields {
            let exposed = &self.reader.exposed[field];
            if !exposed.set(&mut self.result, &self.indices, value.clone()) {
                self.unplaced = Some(self.unplaced.map_or(field, |first| first.min(field)));
            }
        }
    }

    /// The mapping below `at` done over a value read whole (a field ends
    /// there, and other paths go on into it): what reading it would do.
    fn replay(&mut self, at: usize, value: &Json) {
        match value {
            Json::Array(items) => {
                self.array(at);
                if let Some(next) = self.place(at).items {
                    for (i, item) in items.iter().enumerate() {
                        self.indices.push(i);
                        self.at_value(next, item);
                        self.indices.pop();
                    }
                }
            }
            Json::Object(object) => {
                self.object(at);
                let members = self.place(at).members.clone();
                for (name, next) in members {
                    if let Some(member) = object.get(&name) {
                        self.at_value(next, member);
                    }
                }
            }
            _ => {}
        }
    }

    /// `value`, read whole, at place `at`.
    fn at_value(&mut self, at: usize, value: &Json) {
        self.fields(at, value);
        self.replay(at, value);
    }
}

/// Reads the value at one place, doing the mapping's work there.
struct At<'m, 'r> {
    mapping: &'m mut Mapping<'r>,
    place: usize,
}

impl<'de> DeserializeSeed<'de> for At<'_, '_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        if self.mapping.place(self.place).fields.is_empty() {
            return deserializer.deserialize_any(self);
        }
        let value: Json = serde::Deserialize::deserialize(deserializer)?;
        self.mapping.at_value(self.place, &value);
        Ok(())
    }
}

impl<'de> Visitor<'de> for At<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    // A value that is neither an object nor an array, where the mapping
    // goes on past it, holds nothing it reads.
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let At { mapping, place } = self;
        mapping.array(place);
        let Some(items) = mapping.place(place).items else {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            return Ok(());
        };
        let mut index = 0;
        loop {
            mapping.indices.push(index);
            let item = seq.next_element_seed(At {
                mapping: &mut *mapping,
                place: items,
            });
            mapping.indices.pop();
            if item?.is_none() {
                return Ok(());
            }
            index += 1;
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let At { mapping, place } = self;
        mapping.object(place);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let next = mapping
                .place(place)
                .members
                .iter()
                .find(|(name, _)| **name == *key)
                .map(|(_, next)| *next);
            match next {
                Some(next) => map.next_value_seed(At {
                    mapping: &mut *mapping,
                    place: next,
                })?,
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Reader;
    use toolschema_configured::container_pairs;
    use toolschema_configured::{FieldPath, ResultMap};
    use toolschema_runtime::render::Json;

    fn results(pairs: &[(&str, &str)]) -> Vec<ResultMap> {
        pairs
            .iter()
            .map(|(exposed, source)| ResultMap {
                exposed: FieldPath::exposed(exposed).expect("a path"),
                source: FieldPath::source(source).expect("a path"),
            })
            .collect()
    }

    #[test]
    fn only_what_the_paths_reach_is_read_into_the_result() {
        let results = results(&[
            ("orders[].number", "[].id"),
            ("orders[].email", "[].customer.email"),
            ("orders[].skus[]", "[].lines[].sku"),
        ]);
        let containers = container_pairs(results.iter().map(|r| (&r.source, &r.exposed)));
        let reader = Reader::new(&results, &containers);
        let answer = br#"[{"id": 1, "note": "x", "customer": {"email": "a@b", "name": "A"},
            "lines": [{"sku": "S", "qty": 2}, 7]}, 3, {"id": {"deep": [1]}, "customer": "none", "lines": []}]"#;
        assert_eq!(
            reader.map(answer).expect("maps"),
            Json::parse(
                r#"{"orders": [{"number": 1, "email": "a@b", "skus": ["S"]}, null, {"number": {"deep": [1]}}]}"#
            )
            .expect("JSON")
        );
        assert_eq!(reader.map(b"[1, 2"), Err(None));
        assert_eq!(reader.map(b"[] trailing"), Err(None));
    }

    /// Tools whose results come from every kind of path: names, a
    /// document that is an array, arrays of objects and of values, arrays
    /// in arrays, a field read whole with others inside it.
    const TOOLS: &str = r#"
[[downstream]]
id = "d"
base_url = "http://127.0.0.1:1"

[[gateway_tool]]
name = "t.list"
downstream = "d"
[[gateway_tool.version]]
version = 1
status = "published"
description = "Lists."
method = "GET"
path = "/x"
[[gateway_tool.version.result]]
name = "items"
type = "array"
[[gateway_tool.version.result]]
name = "items[].number"
source = "[].id"
type = "integer"
[[gateway_tool.version.result]]
name = "items[].email"
source = "[].customer.email"
type = "string"
[[gateway_tool.version.result]]
name = "items[].buyer"
source = "[].customer"
type = "object"
[[gateway_tool.version.result]]
name = "items[].skus[]"
source = "[].lines[].sku"
type = "string"
[[gateway_tool.version.result]]
name = "items[].tags[]"
source = "[].tags[]"
type = "string"

[[gateway_tool]]
name = "t.get"
downstream = "d"
[[gateway_tool.version]]
version = 1
status = "published"
description = "Gets."
method = "GET"
path = "/y"
[[gateway_tool.version.result]]
name = "total"
source = "meta.total"
type = "integer"
[[gateway_tool.version.result]]
name = "first"
source = "meta"
type = "object"
[[gateway_tool.version.result]]
name = "rows"
type = "array"
[[gateway_tool.version.result]]
name = "rows[].cells[]"
source = "lines[].tags[]"
type = "string"
[[gateway_tool.version.result]]
name = "rows[].code"
source = "lines[].sku"
type = "string"
"#;

    fn operations() -> Vec<toolschema_configured::Operation> {
        let text =
            format!("[[tenant]]\nid = \"t\"\n[[client]]\nid = \"c\"\ntenant = \"t\"\n{TOOLS}");
        let config = toolschema_config::Config::from_toml(
            &text,
            "t.toml",
            &toolschema_runtime::call::Registry::new(),
        )
        .unwrap_or_else(|errors| panic!("{errors}"));
        config
            .configured_tools()
            .iter()
            .map(|tool| tool.versions()[0].operation().clone())
            .collect()
    }

    /// Answers made of the names the tools read, and others, holding
    /// values of every kind in every place.
    fn answer() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i32>().prop_map(serde_json::Value::from),
            "[a-z@.]{0,6}".prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(5, 64, 6, |inner| {
            let key = prop_oneof![
                Just("id"),
                Just("customer"),
                Just("email"),
                Just("lines"),
                Just("sku"),
                Just("tags"),
                Just("meta"),
                Just("total"),
                Just("other")
            ];
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(serde_json::Value::from),
                prop::collection::vec((key, inner), 0..6).prop_map(|entries| {
                    serde_json::Value::Object(
                        entries
                            .into_iter()
                            .map(|(k, v)| (k.to_owned(), v))
                            .collect(),
                    )
                }),
            ]
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 3000, ..Default::default() })]

        /// Read as it streams, an answer maps to what the whole parsed
        /// answer maps to, failures included.
        #[test]
        fn the_streamed_result_is_the_parsed_result(answer in answer()) {
            let bytes = answer.to_string();
            for operation in operations() {
                let streamed = super::Reader::of(&operation).map(bytes.as_bytes());
                let parsed = crate::encode::result(&operation, &answer);
                match (streamed, parsed) {
                    (Ok(streamed), Ok(parsed)) => proptest::prop_assert_eq!(streamed.to_value(), parsed),
                    (Err(Some(field)), Err(crate::encode::MappingError::Unmappable { exposed })) => {
                        proptest::prop_assert_eq!(operation.results()[field].exposed.to_string(), exposed)
                    }
                    (streamed, parsed) => proptest::prop_assert!(false, "{streamed:?} against {parsed:?} for {bytes}"),
                }
            }
        }
    }
}
