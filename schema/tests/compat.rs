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
        // A definition that is itself a reference is followed to its end
        // (jsoncompat's `deep_ref` fixture).
        case(
            "a definition behind a reference to a reference narrowed",
            Input,
            json!({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"type": "string"}}, "$ref": "#/$defs/A"}),
            json!({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"type": "number"}}, "$ref": "#/$defs/A"}),
            &[
                ("type-narrowed", Breaking, "/type"),
                ("type-widened", Info, "/type"),
            ],
        ),
        case(
            "a result behind a reference to a reference widened",
            Output,
            json!({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"type": "integer"}}, "type": "object", "properties": {"p": {"$ref": "#/$defs/A"}}}),
            json!({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"type": "number"}}, "type": "object", "properties": {"p": {"$ref": "#/$defs/A"}}}),
            &[("type-widened", Breaking, "/properties/p/type")],
        ),
        case(
            "a chain of references that comes back on itself",
            Input,
            one(json!({"type": "string"})),
            json!({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}, "type": "object", "properties": {"p": {"$ref": "#/$defs/A"}}, "required": ["p"], "additionalProperties": false}),
            &[("reference-unresolved", Unknown, "/properties/p")],
        ),
        // Keywords beside a reference apply too: the walk follows the
        // reference alone, so where they differ it cannot tell.
        case(
            "a bound beside a reference lifted from a result",
            Output,
            json!({"$defs": {"S": {"type": "string"}}, "type": "object", "properties": {"p": {"$ref": "#/$defs/S", "maxLength": 3}}}),
            json!({"$defs": {"S": {"type": "string"}}, "type": "object", "properties": {"p": {"$ref": "#/$defs/S"}}}),
            &[("reference-siblings-changed", Unknown, "/properties/p")],
        ),
        case(
            "a bound added beside a reference in an argument",
            Input,
            json!({"$defs": {"S": {"type": "string"}}, "$ref": "#/$defs/S"}),
            json!({"$defs": {"S": {"type": "string"}}, "$ref": "#/$defs/S", "maxLength": 3}),
            &[("reference-siblings-changed", Unknown, "")],
        ),
        case(
            "a reference with a bound beside it replaced by its definition",
            Input,
            one(json!({"$ref": "#/$defs/S", "minLength": 1})),
            json!({"$defs": {"S": {"type": "string"}}, "type": "object", "properties": {"p": {"type": "string"}}, "required": ["p"], "additionalProperties": false}),
            &[("reference-siblings-changed", Unknown, "/properties/p")],
        ),
        case(
            "the same bound beside a reference whose definition narrowed",
            Input,
            json!({"$defs": {"S": {"type": ["string", "null"]}}, "$ref": "#/$defs/S", "maxLength": 3, "description": "old"}),
            json!({"$defs": {"S": {"type": "string"}}, "$ref": "#/$defs/S", "maxLength": 3, "description": "new"}),
            &[("nullable-removed", Breaking, "/type")],
        ),
        case(
            "a link of a chain of references with a bound of its own",
            Input,
            json!({"$defs": {"A": {"$ref": "#/$defs/B", "maxLength": 3}, "B": {"type": "string"}}, "$ref": "#/$defs/A"}),
            json!({"$defs": {"A": {"$ref": "#/$defs/B", "maxLength": 3}, "B": {"type": ["string", "number"]}}, "$ref": "#/$defs/A"}),
            &[("reference-siblings-unread", Unknown, "")],
        ),
        // Found on real inputs (the corpus trial's probes): each broke
        // a client while nothing was reported.
        case(
            "an unread keyword's same text over a definition that narrowed",
            Input,
            json!({"type": "object", "properties": {"a": {"allOf": [{"$ref": "#/$defs/A"}]}}, "$defs": {"A": {"type": "string"}}}),
            json!({"type": "object", "properties": {"a": {"allOf": [{"$ref": "#/$defs/A"}]}}, "$defs": {"A": {"type": "string", "maxLength": 3}}}),
            &[("keyword-changed", Unknown, "/properties/a/allOf")],
        ),
        case(
            "a union's same text over a definition that narrowed",
            Input,
            json!({"type": "object", "properties": {"a": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]}}, "$defs": {"A": {"type": "string"}}}),
            json!({"type": "object", "properties": {"a": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]}}, "$defs": {"A": {"type": "string", "maxLength": 3}}}),
            &[("union-changed", Unknown, "/properties/a/anyOf")],
        ),
        case(
            "a oneOf's same text over a definition that narrowed",
            Input,
            json!({"type": "object", "properties": {"a": {"oneOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]}}, "$defs": {"A": {"type": "string"}}}),
            json!({"type": "object", "properties": {"a": {"oneOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]}}, "$defs": {"A": {"type": "string", "maxLength": 3}}}),
            &[("union-changed", Unknown, "/properties/a")],
        ),
        case(
            "not over a definition that widened",
            Input,
            json!({"type": "string", "not": {"$ref": "#/$defs/A"}, "$defs": {"A": {"const": "x"}}}),
            json!({"type": "string", "not": {"$ref": "#/$defs/A"}, "$defs": {"A": {"enum": ["x", "y"]}}}),
            &[("keyword-changed", Unknown, "/not")],
        ),
        case(
            "prefixItems over a definition that narrowed",
            Input,
            json!({"type": "array", "prefixItems": [{"$ref": "#/$defs/A"}], "$defs": {"A": {"type": "string"}}}),
            json!({"type": "array", "prefixItems": [{"$ref": "#/$defs/A"}], "$defs": {"A": {"type": "string", "maxLength": 3}}}),
            &[("keyword-changed", Unknown, "/prefixItems")],
        ),
        case(
            "one reference met twice beside inline schemas",
            Input,
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"type": "string"}}}),
            json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string", "maxLength": 3}}}),
            &[("bound-added", Breaking, "/properties/b/maxLength")],
        ),
        case(
            "a property removed to a narrower additional schema",
            Input,
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "integer"}}),
            json!({"type": "object", "additionalProperties": {"type": "integer"}}),
            &[
                ("type-narrowed", Breaking, "/properties/a/type"),
                ("type-widened", Info, "/properties/a/type"),
            ],
        ),
        case(
            "a property removed under unevaluatedProperties false",
            Input,
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "unevaluatedProperties": false}),
            json!({"type": "object", "unevaluatedProperties": false}),
            &[("property-removed", Breaking, "/properties/a")],
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
        // Each bound, both ways.
        case(
            "an exclusive minimum added",
            Input,
            one(json!({"type": "number"})),
            one(json!({"type": "number", "exclusiveMinimum": 0})),
            &[("bound-added", Breaking, "/properties/p/exclusiveMinimum")],
        ),
        case(
            "an exclusive maximum lowered",
            Input,
            one(json!({"type": "number", "exclusiveMaximum": 9})),
            one(json!({"type": "number", "exclusiveMaximum": 5})),
            &[(
                "bound-tightened",
                Breaking,
                "/properties/p/exclusiveMaximum",
            )],
        ),
        case(
            "a result's exclusive maximum raised",
            Output,
            one(json!({"type": "number", "exclusiveMaximum": 5})),
            one(json!({"type": "number", "exclusiveMaximum": 9})),
            &[("bound-loosened", Breaking, "/properties/p/exclusiveMaximum")],
        ),
        case(
            "more items required",
            Input,
            one(json!({"type": "array", "minItems": 1})),
            one(json!({"type": "array", "minItems": 2})),
            &[("bound-tightened", Breaking, "/properties/p/minItems")],
        ),
        case(
            "fewer items returned",
            Output,
            one(json!({"type": "array", "maxItems": 5})),
            one(json!({"type": "array", "maxItems": 3})),
            &[("bound-tightened", Info, "/properties/p/maxItems")],
        ),
        case(
            "a least number of properties",
            Input,
            one(json!({"type": "object"})),
            one(json!({"type": "object", "minProperties": 1})),
            &[("bound-added", Breaking, "/properties/p/minProperties")],
        ),
        case(
            "a most number of properties lifted",
            Input,
            one(json!({"type": "object", "maxProperties": 3})),
            one(json!({"type": "object"})),
            &[("bound-removed", Info, "/properties/p/maxProperties")],
        ),
        case(
            "a least length lowered",
            Input,
            one(json!({"type": "string", "minLength": 3})),
            one(json!({"type": "string", "minLength": 1})),
            &[("bound-loosened", Info, "/properties/p/minLength")],
        ),
        case(
            "a result's least length raised",
            Output,
            one(json!({"type": "string", "minLength": 1})),
            one(json!({"type": "string", "minLength": 3})),
            &[("bound-tightened", Info, "/properties/p/minLength")],
        ),
        case(
            "a most length lowered",
            Input,
            one(json!({"type": "string", "maxLength": 10})),
            one(json!({"type": "string", "maxLength": 5})),
            &[("bound-tightened", Breaking, "/properties/p/maxLength")],
        ),
        case(
            "a multiple added",
            Input,
            one(json!({"type": "integer"})),
            one(json!({"type": "integer", "multipleOf": 5})),
            &[("bound-added", Breaking, "/properties/p/multipleOf")],
        ),
        case(
            "a result's multiple lifted",
            Output,
            one(json!({"type": "integer", "multipleOf": 5})),
            one(json!({"type": "integer"})),
            &[("bound-removed", Breaking, "/properties/p/multipleOf")],
        ),
        case(
            "a result's items no longer unique",
            Output,
            one(json!({"type": "array", "uniqueItems": true})),
            one(json!({"type": "array"})),
            &[("bound-removed", Breaking, "/properties/p/uniqueItems")],
        ),
        case(
            "items no longer unique",
            Input,
            one(json!({"type": "array", "uniqueItems": true})),
            one(json!({"type": "array", "uniqueItems": false})),
            &[("bound-removed", Info, "/properties/p/uniqueItems")],
        ),
        // Patterns and formats, the other ways.
        case(
            "a result's pattern lifted",
            Output,
            one(json!({"type": "string", "pattern": "^a"})),
            one(json!({"type": "string"})),
            &[("pattern-removed", Breaking, "/properties/p/pattern")],
        ),
        case(
            "a result's pattern added",
            Output,
            one(json!({"type": "string"})),
            one(json!({"type": "string", "pattern": "^a"})),
            &[("pattern-added", Info, "/properties/p/pattern")],
        ),
        case(
            "an argument's pattern changed",
            Input,
            one(json!({"type": "string", "pattern": "^a"})),
            one(json!({"type": "string", "pattern": "^[ab]"})),
            &[("pattern-changed", Breaking, "/properties/p/pattern")],
        ),
        case(
            "a format lifted",
            Input,
            one(json!({"type": "string", "format": "date"})),
            one(json!({"type": "string"})),
            &[("format-removed", Info, "/properties/p/format")],
        ),
        case(
            "a result's format lifted",
            Output,
            one(json!({"type": "string", "format": "date"})),
            one(json!({"type": "string"})),
            &[("format-removed", Breaking, "/properties/p/format")],
        ),
        case(
            "a format changed",
            Input,
            one(json!({"type": "string", "format": "date"})),
            one(json!({"type": "string", "format": "date-time"})),
            &[("format-changed", Breaking, "/properties/p/format")],
        ),
        // Values and types, the other ways.
        case(
            "a result's enum value removed",
            Output,
            one(json!({"enum": ["a", "b"]})),
            one(json!({"enum": ["a"]})),
            &[("enum-value-removed", Info, "/properties/p/enum")],
        ),
        case(
            "a result's enum added",
            Output,
            one(json!({"type": "string"})),
            one(json!({"type": "string", "enum": ["a"]})),
            &[("enum-added", Info, "/properties/p/enum")],
        ),
        case(
            "a result's const added",
            Output,
            one(json!({"type": "integer"})),
            one(json!({"type": "integer", "const": 1})),
            &[("const-added", Info, "/properties/p/const")],
        ),
        case(
            "an argument's const lifted",
            Input,
            one(json!({"const": 1})),
            one(json!({})),
            &[("const-removed", Info, "/properties/p/const")],
        ),
        case(
            "a result's type narrowed",
            Output,
            one(json!({"type": "number"})),
            one(json!({"type": "integer"})),
            &[("type-narrowed", Info, "/properties/p/type")],
        ),
        case(
            "a result no longer nullable",
            Output,
            one(json!({"type": ["string", "null"]})),
            one(json!({"type": "string"})),
            &[("nullable-removed", Info, "/properties/p/type")],
        ),
        case(
            "an argument's type lifted",
            Input,
            one(json!({"type": "string"})),
            one(json!({})),
            &[("type-widened", Info, "/properties/p/type")],
        ),
        case(
            "a result's type lifted",
            Output,
            one(json!({"type": "string"})),
            one(json!({})),
            &[("type-widened", Breaking, "/properties/p/type")],
        ),
        case(
            "one of two types dropped",
            Input,
            one(json!({"type": ["string", "integer"]})),
            one(json!({"type": "string"})),
            &[("type-narrowed", Breaking, "/properties/p/type")],
        ),
        // Objects, the other ways.
        case(
            "a new required result on a closed object",
            Output,
            object(json!({"a": {"type": "string"}}), &["a"]),
            object(
                json!({"a": {"type": "string"}, "b": {"type": "string"}}),
                &["a", "b"],
            ),
            &[
                ("property-added", Breaking, "/properties/b"),
                ("required-property-added", Info, "/required/b"),
            ],
        ),
        case(
            "a result removed from a closed object",
            Output,
            object(
                json!({"a": {"type": "string"}, "b": {"type": "string"}}),
                &[],
            ),
            object(json!({"a": {"type": "string"}}), &[]),
            &[("property-removed", Info, "/properties/b")],
        ),
        case(
            "a required result removed from a closed object",
            Output,
            object(
                json!({"a": {"type": "string"}, "b": {"type": "integer"}}),
                &["b"],
            ),
            object(json!({"a": {"type": "string"}}), &[]),
            &[
                ("property-removed", Info, "/properties/b"),
                ("required-removed", Breaking, "/required/b"),
            ],
        ),
        case(
            "results closed",
            Output,
            json!({"type": "object"}),
            json!({"type": "object", "additionalProperties": false}),
            &[(
                "additional-properties-closed",
                Info,
                "/additionalProperties",
            )],
        ),
        case(
            "a result map's values widened",
            Output,
            json!({"type": "object", "additionalProperties": {"type": "integer"}}),
            json!({"type": "object", "additionalProperties": {"type": "number"}}),
            &[("type-widened", Breaking, "/additionalProperties/type")],
        ),
        case(
            "an argument map's values widened",
            Input,
            json!({"type": "object", "additionalProperties": {"type": "integer"}}),
            json!({"type": "object", "additionalProperties": {"type": "number"}}),
            &[("type-widened", Info, "/additionalProperties/type")],
        ),
        case(
            "a named property where the map allowed it",
            Input,
            json!({"type": "object", "additionalProperties": {"type": "number"}}),
            json!({"type": "object", "properties": {"n": {"type": "integer"}}, "additionalProperties": {"type": "number"}}),
            &[("type-narrowed", Breaking, "/properties/n/type")],
        ),
        case(
            "a nested argument narrowed",
            Input,
            one(object(json!({"x": {"type": "number"}}), &["x"])),
            one(object(json!({"x": {"type": "integer"}}), &["x"])),
            &[("type-narrowed", Breaking, "/properties/p/properties/x/type")],
        ),
        case(
            "a nested result made optional",
            Output,
            one(object(json!({"x": {"type": "string"}}), &["x"])),
            one(object(json!({"x": {"type": "string"}}), &[])),
            &[("required-removed", Breaking, "/properties/p/required/x")],
        ),
        // Arrays.
        case(
            "a result's items widened",
            Output,
            one(json!({"type": "array", "items": {"type": "integer"}})),
            one(json!({"type": "array", "items": {"type": "number"}})),
            &[("type-widened", Breaking, "/properties/p/items/type")],
        ),
        case(
            "items given a schema",
            Input,
            one(json!({"type": "array"})),
            one(json!({"type": "array", "items": {"type": "string"}})),
            &[("schema-narrowed", Breaking, "/properties/p/items")],
        ),
        case(
            "a result's items schema lifted",
            Output,
            one(json!({"type": "array", "items": {"type": "string"}})),
            one(json!({"type": "array"})),
            &[("schema-widened", Breaking, "/properties/p/items")],
        ),
        // References and boolean schemas.
        case(
            "a referenced result widened",
            Output,
            json!({"$defs": {"D": {"type": "integer"}}, "type": "object", "properties": {"p": {"$ref": "#/$defs/D"}}}),
            json!({"$defs": {"D": {"type": "number"}}, "type": "object", "properties": {"p": {"$ref": "#/$defs/D"}}}),
            &[("type-widened", Breaking, "/properties/p/type")],
        ),
        case(
            "a definition renamed, unchanged",
            Input,
            json!({"$defs": {"A": {"type": "string"}}, "type": "object", "properties": {"p": {"$ref": "#/$defs/A"}}}),
            json!({"$defs": {"B": {"type": "string"}}, "type": "object", "properties": {"p": {"$ref": "#/$defs/B"}}}),
            &[],
        ),
        case(
            "nothing allowed, then anything",
            Input,
            one(json!(false)),
            one(json!(true)),
            &[("schema-widened", Info, "/properties/p")],
        ),
        case(
            "anything allowed, then nothing",
            Input,
            one(json!(true)),
            one(json!(false)),
            &[("schema-narrowed", Breaking, "/properties/p")],
        ),
        // Unions, the other ways.
        case(
            "a union of one branch unwrapped",
            Input,
            one(json!({"anyOf": [{"type": "string"}]})),
            one(json!({"type": "string"})),
            &[("union-changed", Info, "/properties/p/anyOf")],
        ),
        case(
            "a type made a union with null",
            Input,
            one(json!({"type": "string"})),
            one(json!({"anyOf": [{"type": "string"}, {"type": "null"}]})),
            &[
                ("type-widened", Info, "/properties/p/type"),
                ("union-changed", Info, "/properties/p/anyOf"),
            ],
        ),
        case(
            "a union's branch narrowed",
            Input,
            one(json!({"anyOf": [{"type": "number"}, {"type": "null"}]})),
            one(json!({"anyOf": [{"type": "integer"}, {"type": "null"}]})),
            &[("union-changed", Unknown, "/properties/p/anyOf")],
        ),
        case(
            "a result's union branch removed",
            Output,
            one(json!({"anyOf": [{"type": "string"}, {"type": "integer"}]})),
            one(json!({"anyOf": [{"type": "string"}]})),
            &[("union-changed", Info, "/properties/p/anyOf")],
        ),
        case(
            "a oneOf kept, a bound beside it raised",
            Input,
            one(json!({"oneOf": [{"type": "integer"}], "minimum": 1})),
            one(json!({"oneOf": [{"type": "integer"}], "minimum": 3})),
            &[("bound-tightened", Breaking, "/properties/p/minimum")],
        ),
        // More annotations and keywords.
        case(
            "a title changed",
            Input,
            one(json!({"type": "string", "title": "A"})),
            one(json!({"type": "string", "title": "B"})),
            &[("annotation-changed", Info, "/properties/p/title")],
        ),
        case(
            "a default changed",
            Input,
            one(json!({"type": "integer", "default": 1})),
            one(json!({"type": "integer", "default": 2})),
            &[("annotation-changed", Info, "/properties/p/default")],
        ),
        case(
            "an extension changed",
            Output,
            one(json!({"type": "string", "x-unit": "m"})),
            one(json!({"type": "string", "x-unit": "km"})),
            &[("annotation-changed", Info, "/properties/p/x-unit")],
        ),
        case(
            "dependent requirements changed",
            Input,
            json!({"type": "object", "dependentRequired": {"a": ["b"]}}),
            json!({"type": "object", "dependentRequired": {"a": ["c"]}}),
            &[("keyword-changed", Unknown, "/dependentRequired")],
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
