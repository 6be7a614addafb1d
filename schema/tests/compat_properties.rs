//! The comparison is sound: whenever it finds nothing breaking between two
//! schemas, an independent validator (the `jsonschema` crate) agrees on
//! every value tried. For inputs, every value the old schema accepts, the
//! new one accepts; for outputs, every value the new one allows, the old
//! one allowed. Old schemas are generated, new ones are old ones edited a
//! few times, and values are drawn from the same small vocabulary so that
//! many are accepted.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{Map, Value, json};
use toolschema_schema::compat::{Direction, compare};

const NAMES: [&str; 3] = ["a", "b", "c"];

/// A schema for one property.
fn leaf() -> impl Strategy<Value = Value> {
    let kind = prop_oneof![
        Just("string"),
        Just("integer"),
        Just("number"),
        Just("boolean"),
        Just("null")
    ];
    let simple = prop_oneof![
        Just(json!({})),
        (kind.clone(), any::<bool>()).prop_map(|(kind, nullable)| {
            match nullable && kind != "null" {
                true => json!({"type": [kind, "null"]}),
                false => json!({"type": kind}),
            }
        }),
        (
            proptest::option::of(-2i64..4),
            proptest::option::of(3i64..10)
        )
            .prop_map(|(min, max)| {
                let mut schema = json!({"type": "integer"});
                if let Some(min) = min {
                    schema["minimum"] = min.into();
                }
                if let Some(max) = max {
                    schema["maximum"] = max.into();
                }
                schema
            }),
        (proptest::option::of(0u64..3), proptest::option::of(1u64..6)).prop_map(|(min, max)| {
            let mut schema = json!({"type": "string"});
            if let Some(min) = min {
                schema["minLength"] = min.into();
            }
            if let Some(max) = max {
                schema["maxLength"] = max.into();
            }
            schema
        }),
        proptest::sample::subsequence(vec!["a", "ab", "b"], 1..=3)
            .prop_map(|words| json!({"type": "string", "enum": words})),
        prop_oneof![Just(json!("a")), Just(json!(1)), Just(json!(true))]
            .prop_map(|value| json!({"const": value})),
    ];
    prop_oneof![
        4 => simple.clone(),
        1 => (simple.clone(), simple.clone()).prop_map(|(a, b)| json!({"anyOf": [a, b]})),
        1 => (simple, proptest::option::of(1u64..3)).prop_map(|(items, max)| {
            let mut schema = json!({"type": "array", "items": items});
            if let Some(max) = max {
                schema["maxItems"] = max.into();
            }
            schema
        }),
    ]
}

/// An object schema over `NAMES`, its properties `leaf`s or (once) an
/// object of leaves.
fn object(depth: u32) -> BoxedStrategy<Value> {
    let property = if depth == 0 {
        leaf().boxed()
    } else {
        prop_oneof![4 => leaf(), 1 => object(depth - 1)].boxed()
    };
    (
        proptest::collection::vec(proptest::option::of(property), 3),
        proptest::collection::vec(any::<bool>(), 3),
        any::<bool>(),
    )
        .prop_map(|(properties, required, closed)| {
            let mut props = Map::new();
            let mut names = Vec::new();
            for ((name, schema), required) in NAMES.iter().zip(properties).zip(required) {
                if let Some(schema) = schema {
                    if required {
                        names.push(json!(name));
                    }
                    props.insert((*name).to_owned(), schema);
                }
            }
            let mut schema = json!({"type": "object", "properties": props, "required": names});
            if closed {
                schema["additionalProperties"] = json!(false);
            }
            schema
        })
        .boxed()
}

/// An edit of a top-level object schema.
#[derive(Debug, Clone)]
enum Edit {
    /// Property `name` given this schema (added or replaced).
    Set(usize, Value),
    /// Property `name` removed.
    Remove(usize),
    /// Property `name` required or not.
    Require(usize),
    /// `additionalProperties: false` added or removed.
    Close,
    /// A bound of property `name` moved by `by`.
    Nudge(usize, &'static str, i64),
}

fn edit() -> impl Strategy<Value = Edit> {
    let name = 0..NAMES.len();
    let bound = prop_oneof![
        Just("minimum"),
        Just("maximum"),
        Just("minLength"),
        Just("maxLength"),
        Just("maxItems")
    ];
    prop_oneof![
        (name.clone(), leaf()).prop_map(|(n, schema)| Edit::Set(n, schema)),
        name.clone().prop_map(Edit::Remove),
        name.clone().prop_map(Edit::Require),
        Just(Edit::Close),
        (name, bound, -2i64..=2).prop_map(|(n, bound, by)| Edit::Nudge(n, bound, by)),
    ]
}

fn apply(schema: &mut Value, edit: &Edit) {
    let Value::Object(top) = schema else { return };
    match edit {
        Edit::Set(n, leaf) => {
            if let Some(Value::Object(props)) = top.get_mut("properties") {
                props.insert(NAMES[*n].to_owned(), leaf.clone());
            }
        }
        Edit::Remove(n) => {
            if let Some(Value::Object(props)) = top.get_mut("properties") {
                props.remove(NAMES[*n]);
            }
        }
        Edit::Require(n) => {
            if let Some(Value::Array(required)) = top.get_mut("required") {
                let name = json!(NAMES[*n]);
                match required.iter().position(|r| *r == name) {
                    Some(at) => {
                        required.remove(at);
                    }
                    None => required.push(name),
                }
            }
        }
        Edit::Close => {
            if top.remove("additionalProperties").is_none() {
                top.insert("additionalProperties".into(), json!(false));
            }
        }
        Edit::Nudge(n, bound, by) => {
            let Some(Value::Object(props)) = top.get_mut("properties") else {
                return;
            };
            let Some(Value::Object(property)) = props.get_mut(NAMES[*n]) else {
                return;
            };
            // Only a bound there is moves (a new one comes with `Set`).
            let Some(now) = property.get(*bound).and_then(Value::as_i64) else {
                return;
            };
            let next = now + by;
            if next < 0 && (bound.ends_with("Length") || *bound == "maxItems") {
                property.remove(*bound);
            } else {
                property.insert((*bound).to_owned(), next.into());
            }
        }
    }
}

/// An old schema and the new one: the old edited one to three times.
fn pair() -> impl Strategy<Value = (Value, Value)> {
    (object(1), proptest::collection::vec(edit(), 1..=3)).prop_map(|(old, edits)| {
        let mut new = old.clone();
        for edit in &edits {
            apply(&mut new, edit);
        }
        (old, new)
    })
}

/// A value from the schemas' vocabulary.
fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..12).prop_map(Value::from),
        prop_oneof![Just(0.5), Just(2.5)].prop_map(Value::from),
        prop_oneof![Just(""), Just("a"), Just("ab"), Just("b"), Just("abcdef")]
            .prop_map(Value::from),
    ];
    leaf.prop_recursive(2, 12, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            proptest::collection::btree_map(
                prop_oneof![Just("a"), Just("b"), Just("c"), Just("z")],
                inner,
                0..4
            )
            .prop_map(|map| {
                Value::Object(map.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            }),
        ]
    })
}

fn accepts(schema: &Value, value: &Value) -> bool {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(schema)
        .expect("a generated schema compiles")
        .is_valid(value)
}

#[test]
fn nothing_breaking_means_no_value_is_lost_or_gained() {
    let mut runner = TestRunner::new(Config {
        cases: 1_500,
        ..Config::default()
    });
    let checked = [std::cell::Cell::new(0usize), std::cell::Cell::new(0usize)];
    let strategy = (pair(), proptest::collection::vec(value(), 60));
    runner
        .run(&strategy, |((old, new), values)| {
            for (i, direction) in [Direction::Input, Direction::Output].into_iter().enumerate() {
                let report = compare(&old, &new, direction);
                if report.breaks() {
                    continue;
                }
                // Inputs: what the old accepted, the new accepts. Outputs:
                // what the new allows, the old allowed.
                let (promised, kept) = match direction {
                    Direction::Input => (&old, &new),
                    Direction::Output => (&new, &old),
                };
                for value in &values {
                    if accepts(promised, value) {
                        checked[i].set(checked[i].get() + 1);
                        if !accepts(kept, value) {
                            return Err(TestCaseError::fail(format!(
                                "{direction:?}: reported compatible ({:?}), but {value} is lost\nold {old}\nnew {new}",
                                report.changes()
                            )));
                        }
                    }
                }
            }
            Ok(())
        })
        .unwrap_or_else(|error| panic!("{error}"));
    // Not vacuous: many values went through compatible pairs both ways.
    let checked = checked.map(std::cell::Cell::into_inner);
    assert!(checked[0] > 1_500 && checked[1] > 1_500, "{checked:?}");
}
