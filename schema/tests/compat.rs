//! The compatibility rules, case by case: an old schema, a new one, a
//! direction, and the changes expected (rule, level, pointer).

use serde_json::{Value, json};
use toolschema_schema::compat::{Direction, Level, compare};

use Direction::{Input, Output};
use Level::{Breaking, Info, Unknown, Warning};

/// An object schema with `properties` and `required`, closed.
fn object(properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// One property `p` of schema `schema`, required.
fn one(schema: Value) -> Value {
    object(json!({"p": schema}), &["p"])
}

struct Case {
    name: &'static str,
    direction: Direction,
    old: Value,
    new: Value,
    expected: &'static [(&'static str, Level, &'static str)],
}

fn cases() -> Vec<Case> {
    let case = |name, direction, old, new, expected| Case {
        name,
        direction,
        old,
        new,
        expected,
    };
    vec![
        case(
            "nothing changed",
            Input,
            one(json!({"type": "string"})),
            one(json!({"type": "string"})),
            &[],
        ),
        // Required properties.
        case(
            "a new required property",
            Input,
            object(json!({"a": {"type": "string"}}), &["a"]),
            object(
                json!({"a": {"type": "string"}, "b": {"type": "string"}}),
                &["a", "b"],
            ),
            &[
                ("required-property-added", Breaking, "/required/b"),
                ("property-added", Info, "/properties/b"),
            ],
        ),
        case(
            "an optional property made required",
            Input,
            object(json!({"a": {"type": "string"}}), &[]),
            object(json!({"a": {"type": "string"}}), &["a"]),
            &[("required-added", Breaking, "/required/a")],
        ),
        case(
            "a required property made optional",
            Input,
            object(json!({"a": {"type": "string"}}), &["a"]),
            object(json!({"a": {"type": "string"}}), &[]),
            &[("required-removed", Info, "/required/a")],
        ),
        case(
            "a result made optional",
            Output,
            object(json!({"a": {"type": "string"}}), &["a"]),
            object(json!({"a": {"type": "string"}}), &[]),
            &[("required-removed", Breaking, "/required/a")],
        ),
        case(
            "a result made required",
            Output,
            object(json!({"a": {"type": "string"}}), &[]),
            object(json!({"a": {"type": "string"}}), &["a"]),
            &[("required-added", Info, "/required/a")],
        ),
        case(
            "a new optional argument on a closed object",
            Input,
            object(json!({"a": {"type": "string"}}), &[]),
            object(
                json!({"a": {"type": "string"}, "b": {"type": "integer"}}),
                &[],
            ),
            &[("property-added", Info, "/properties/b")],
        ),
        case(
            "a new optional result on a closed object",
            Output,
            object(json!({"a": {"type": "string"}}), &[]),
            object(
                json!({"a": {"type": "string"}, "b": {"type": "integer"}}),
                &[],
            ),
            &[("property-added", Breaking, "/properties/b")],
        ),
        case(
            "a new constrained property on an open object",
            Input,
            json!({"type": "object", "properties": {}}),
            json!({"type": "object", "properties": {"b": {"type": "integer"}}}),
            &[("property-constrained", Breaking, "/properties/b")],
        ),
        case(
            "a property removed from a closed object",
            Input,
            object(
                json!({"a": {"type": "string"}, "b": {"type": "string"}}),
                &[],
            ),
            object(json!({"a": {"type": "string"}}), &[]),
            &[("property-removed", Breaking, "/properties/b")],
        ),
        case(
            "a property removed from an open object",
            Input,
            json!({"type": "object", "properties": {"b": {"type": "string"}}}),
            json!({"type": "object", "properties": {}}),
            &[("property-removed", Warning, "/properties/b")],
        ),
        case(
            "a result removed from an open object",
            Output,
            json!({"type": "object", "properties": {"b": {"type": "string"}}}),
            json!({"type": "object", "properties": {}}),
            &[("property-removed", Breaking, "/properties/b")],
        ),
        case(
            "an argument renamed",
            Input,
            object(json!({"city": {"type": "string"}}), &["city"]),
            object(json!({"town": {"type": "string"}}), &["town"]),
            &[("property-renamed", Breaking, "/properties/city")],
        ),
        case(
            "a result renamed",
            Output,
            object(json!({"city": {"type": "string"}}), &["city"]),
            object(json!({"town": {"type": "string"}}), &["town"]),
            &[("property-renamed", Breaking, "/properties/city")],
        ),
        // Additional properties.
        case(
            "additional properties closed",
            Input,
            json!({"type": "object"}),
            json!({"type": "object", "additionalProperties": false}),
            &[(
                "additional-properties-closed",
                Breaking,
                "/additionalProperties",
            )],
        ),
        case(
            "additional properties opened",
            Input,
            json!({"type": "object", "additionalProperties": false}),
            json!({"type": "object"}),
            &[(
                "additional-properties-opened",
                Info,
                "/additionalProperties",
            )],
        ),
        case(
            "additional results opened",
            Output,
            json!({"type": "object", "additionalProperties": false}),
            json!({"type": "object"}),
            &[(
                "additional-properties-opened",
                Breaking,
                "/additionalProperties",
            )],
        ),
        case(
            "a map's values narrowed",
            Input,
            json!({"type": "object", "additionalProperties": {"type": "number"}}),
            json!({"type": "object", "additionalProperties": {"type": "integer"}}),
            &[("type-narrowed", Breaking, "/additionalProperties/type")],
        ),
        // Types.
        case(
            "a type narrowed",
            Input,
            one(json!({"type": "number"})),
            one(json!({"type": "integer"})),
            &[("type-narrowed", Breaking, "/properties/p/type")],
        ),
        case(
            "a type widened",
            Input,
            one(json!({"type": "integer"})),
            one(json!({"type": "number"})),
            &[("type-widened", Info, "/properties/p/type")],
        ),
        case(
            "a result's type widened",
            Output,
            one(json!({"type": "integer"})),
            one(json!({"type": "number"})),
            &[("type-widened", Breaking, "/properties/p/type")],
        ),
        case(
            "a type replaced",
            Input,
            one(json!({"type": "string"})),
            one(json!({"type": "boolean"})),
            &[
                ("type-narrowed", Breaking, "/properties/p/type"),
                ("type-widened", Info, "/properties/p/type"),
            ],
        ),
        case(
            "a result made nullable",
            Output,
            one(json!({"type": "string"})),
            one(json!({"type": ["string", "null"]})),
            &[("nullable-added", Breaking, "/properties/p/type")],
        ),
        case(
            "an argument made nullable",
            Input,
            one(json!({"type": "string"})),
            one(json!({"type": ["string", "null"]})),
            &[("nullable-added", Info, "/properties/p/type")],
        ),
        case(
            "an argument no longer nullable",
            Input,
            one(json!({"type": ["string", "null"]})),
            one(json!({"type": "string"})),
            &[("nullable-removed", Breaking, "/properties/p/type")],
        ),
        case(
            "a type given where any was allowed",
            Input,
            one(json!({})),
            one(json!({"type": "string"})),
            &[("type-narrowed", Breaking, "/properties/p/type")],
        ),
        // Enums and constants.
        case(
            "an enum value removed",
            Input,
            one(json!({"type": "string", "enum": ["a", "b"]})),
            one(json!({"type": "string", "enum": ["a"]})),
            &[("enum-value-removed", Breaking, "/properties/p/enum")],
        ),
        case(
            "an enum value added",
            Input,
            one(json!({"type": "string", "enum": ["a"]})),
            one(json!({"type": "string", "enum": ["a", "b"]})),
            &[("enum-value-added", Info, "/properties/p/enum")],
        ),
        case(
            "a result's enum value added",
            Output,
            one(json!({"type": "string", "enum": ["a"]})),
            one(json!({"type": "string", "enum": ["a", "b"]})),
            &[("enum-value-added", Breaking, "/properties/p/enum")],
        ),
        case(
            "an enum added",
            Input,
            one(json!({"type": "string"})),
            one(json!({"type": "string", "enum": ["a"]})),
            &[("enum-added", Breaking, "/properties/p/enum")],
        ),
        case(
            "an enum lifted",
            Input,
            one(json!({"type": "string", "enum": ["a"]})),
            one(json!({"type": "string"})),
            &[("enum-removed", Info, "/properties/p/enum")],
        ),
        case(
            "a result's enum lifted",
            Output,
            one(json!({"type": "string", "enum": ["a"]})),
            one(json!({"type": "string"})),
            &[("enum-removed", Breaking, "/properties/p/enum")],
        ),
        case(
            "a const added",
            Input,
            one(json!({"type": "integer"})),
            one(json!({"type": "integer", "const": 2})),
            &[("const-added", Breaking, "/properties/p/const")],
        ),
        case(
            "a const lifted from a result",
            Output,
            one(json!({"const": 2})),
            one(json!({})),
            &[("const-removed", Breaking, "/properties/p/const")],
        ),
        case(
            "a const changed",
            Input,
            one(json!({"const": 1})),
            one(json!({"const": 2})),
            &[("const-changed", Breaking, "/properties/p/const")],
        ),
        case(
            "a result's const changed",
            Output,
            one(json!({"const": 1})),
            one(json!({"const": 2})),
            &[("const-changed", Breaking, "/properties/p/const")],
        ),
        // Bounds.
        case(
            "a minimum raised",
            Input,
            one(json!({"type": "integer", "minimum": 1})),
            one(json!({"type": "integer", "minimum": 5})),
            &[("bound-tightened", Breaking, "/properties/p/minimum")],
        ),
        case(
            "a maximum raised",
            Input,
            one(json!({"type": "integer", "maximum": 1})),
            one(json!({"type": "integer", "maximum": 5})),
            &[("bound-loosened", Info, "/properties/p/maximum")],
        ),
        case(
            "a result's maximum raised",
            Output,
            one(json!({"type": "integer", "maximum": 1})),
            one(json!({"type": "integer", "maximum": 5})),
            &[("bound-loosened", Breaking, "/properties/p/maximum")],
        ),
        case(
            "a length bound added",
            Input,
            one(json!({"type": "string"})),
            one(json!({"type": "string", "maxLength": 10})),
            &[("bound-added", Breaking, "/properties/p/maxLength")],
        ),
        case(
            "a length bound removed from a result",
            Output,
            one(json!({"type": "string", "maxLength": 10})),
            one(json!({"type": "string"})),
            &[("bound-removed", Breaking, "/properties/p/maxLength")],
        ),
        case(
            "a multiple loosened",
            Input,
            one(json!({"type": "integer", "multipleOf": 4})),
            one(json!({"type": "integer", "multipleOf": 2})),
            &[("bound-loosened", Info, "/properties/p/multipleOf")],
        ),
        case(
            "a multiple replaced",
            Input,
            one(json!({"type": "integer", "multipleOf": 2})),
            one(json!({"type": "integer", "multipleOf": 3})),
            &[("multiple-changed", Breaking, "/properties/p/multipleOf")],
        ),
        case(
            "items made unique",
            Input,
            one(json!({"type": "array", "items": {"type": "string"}})),
            one(json!({"type": "array", "items": {"type": "string"}, "uniqueItems": true})),
            &[("bound-added", Breaking, "/properties/p/uniqueItems")],
        ),
        // Patterns and formats.
        case(
            "a pattern added",
            Input,
            one(json!({"type": "string"})),
            one(json!({"type": "string", "pattern": "^[a-z]+$"})),
            &[("pattern-added", Breaking, "/properties/p/pattern")],
        ),
        case(
            "a pattern changed",
            Output,
            one(json!({"type": "string", "pattern": "^a"})),
            one(json!({"type": "string", "pattern": "^b"})),
            &[("pattern-changed", Breaking, "/properties/p/pattern")],
        ),
        case(
            "a pattern removed",
            Input,
            one(json!({"type": "string", "pattern": "^a"})),
            one(json!({"type": "string"})),
            &[("pattern-removed", Info, "/properties/p/pattern")],
        ),
        case(
            "a format added",
            Input,
            one(json!({"type": "string"})),
            one(json!({"type": "string", "format": "date"})),
            &[("format-added", Breaking, "/properties/p/format")],
        ),
        // Arrays, nesting, references.
        case(
            "an array's items narrowed",
            Input,
            one(json!({"type": "array", "items": {"type": "number"}})),
            one(json!({"type": "array", "items": {"type": "integer"}})),
            &[("type-narrowed", Breaking, "/properties/p/items/type")],
        ),
        case(
            "a nested required property",
            Input,
            one(object(json!({"x": {"type": "string"}}), &[])),
            one(object(json!({"x": {"type": "string"}}), &["x"])),
            &[("required-added", Breaking, "/properties/p/required/x")],
        ),
        case(
            "a referenced definition narrowed",
            Input,
            json!({"$defs": {"D": {"type": "number"}}, "type": "object", "properties": {"p": {"$ref": "#/$defs/D"}}}),
            json!({"$defs": {"D": {"type": "integer"}}, "type": "object", "properties": {"p": {"$ref": "#/$defs/D"}}}),
            &[("type-narrowed", Breaking, "/properties/p/type")],
        ),
        case(
            "a recursive definition unchanged but re-described",
            Input,
            json!({"$defs": {"N": {"type": "object", "description": "a node", "properties": {"next": {"$ref": "#/$defs/N"}}}}, "$ref": "#/$defs/N"}),
            json!({"$defs": {"N": {"type": "object", "description": "one node", "properties": {"next": {"$ref": "#/$defs/N"}}}}, "$ref": "#/$defs/N"}),
            &[("annotation-changed", Info, "/description")],
        ),
        case(
            "a reference that does not resolve",
            Input,
            one(json!({"$ref": "#/$defs/Gone"})),
            one(json!({"type": "string"})),
            &[("reference-unresolved", Unknown, "/properties/p")],
        ),
        // Unions.
        case(
            "a union branch added to an argument",
            Input,
            one(json!({"anyOf": [{"type": "string"}]})),
            one(json!({"anyOf": [{"type": "string"}, {"type": "integer"}]})),
            &[("union-changed", Info, "/properties/p/anyOf")],
        ),
        case(
            "a union branch removed from an argument",
            Input,
            one(json!({"anyOf": [{"type": "string"}, {"type": "integer"}]})),
            one(json!({"anyOf": [{"type": "string"}]})),
            &[("union-changed", Unknown, "/properties/p/anyOf")],
        ),
        case(
            "a union branch added to a result",
            Output,
            one(json!({"anyOf": [{"type": "string"}]})),
            one(json!({"anyOf": [{"type": "string"}, {"type": "integer"}]})),
            &[("union-changed", Unknown, "/properties/p/anyOf")],
        ),
        case(
            "a oneOf changed",
            Input,
            one(json!({"oneOf": [{"type": "string"}]})),
            one(json!({"oneOf": [{"type": "string"}, {"type": "integer"}]})),
            &[("union-changed", Unknown, "/properties/p")],
        ),
        // Annotations and keywords not read.
        case(
            "a description changed",
            Input,
            one(json!({"type": "string", "description": "a"})),
            one(json!({"type": "string", "description": "b"})),
            &[("annotation-changed", Info, "/properties/p/description")],
        ),
        case(
            "a keyword the comparison does not read",
            Input,
            one(json!({"type": "array", "contains": {"type": "string"}})),
            one(json!({"type": "array", "contains": {"type": "integer"}})),
            &[("keyword-changed", Unknown, "/properties/p/contains")],
        ),
    ]
}

#[test]
fn every_rule_reports_its_change_where_it_is() {
    let mut failures = Vec::new();
    let cases = cases();
    for case in &cases {
        let report = compare(&case.old, &case.new, case.direction);
        let mut got: Vec<(&str, Level, &str)> = report
            .changes()
            .iter()
            .map(|c| (c.rule, c.level, c.pointer.as_str()))
            .collect();
        let mut expected = case.expected.to_vec();
        got.sort_by(|a, b| a.2.cmp(b.2).then(a.0.cmp(b.0)));
        expected.sort_by(|a, b| a.2.cmp(b.2).then(a.0.cmp(b.0)));
        if got != expected {
            failures.push(format!("{}: expected {expected:?}, got {got:?}", case.name));
        }
        let breaks = expected
            .iter()
            .any(|(_, level, _)| matches!(level, Breaking | Unknown));
        if report.breaks() != breaks {
            failures.push(format!("{}: breaks() is {}", case.name, report.breaks()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn a_report_lists_breaking_changes_first_and_says_them() {
    let old = object(json!({"a": {"type": "string", "description": "x"}}), &[]);
    let new = object(
        json!({"a": {"type": "integer", "description": "y"}}),
        &["a"],
    );
    let report = compare(&old, &new, Input);
    let levels: Vec<Level> = report.changes().iter().map(|c| c.level).collect();
    let mut sorted = levels.clone();
    sorted.sort();
    assert_eq!(levels, sorted, "most serious first");
    assert_eq!(
        report.changes()[0].to_string(),
        "breaking type-narrowed at /properties/a/type: \"string\" -> \"integer\""
    );
}
