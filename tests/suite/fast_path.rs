//! The one-pass parse agrees with the full path: on random valid arguments
//! and on random corruptions of them, `InputValidator::parse` (which tries
//! the one pass first, then lists violations from its plan) gives exactly
//! what the full path gives (the value, or every violation with its path,
//! rule and sentence, in the same order, and the same count left out), and
//! the one pass does vouch for valid arguments.

use proptest::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use toolschema::Tool;
use toolschema::ToolDef;
use toolschema::model::{Direction, Ref};
use toolschema::validate::{ArgumentErrors, InputValidator, Limits, Rule};
use toolschema::validate::{Names, rename};

use crate::calls::PlaceOrder;
use crate::corpus::{FieldAttributes, Tree};
use crate::properties::place_order;

fn exposed<T: Tool + Serialize>(value: &T) -> Value {
    let mut json = serde_json::to_value(value).expect("serialize");
    rename(&T::TOOL.input, &mut json, Names::Exposed, Direction::Input);
    json
}

/// The full path alone: validate, map names, deserialize.
fn slow<T: Tool + DeserializeOwned>(
    validator: &InputValidator,
    text: &str,
) -> Result<T, ArgumentErrors> {
    let value = validator.check_str(text)?;
    serde_json::from_value(value).map_err(|_| validator.unreadable())
}

fn agree<T: Tool + DeserializeOwned + PartialEq + std::fmt::Debug>(
    text: &str,
) -> Result<(), TestCaseError> {
    // The default limits, and a cap of two violations listed, so that
    // which ones are kept and how many are left out is compared too.
    let capped = Limits {
        max_violations: 2,
        ..Limits::default()
    };
    for limits in [Limits::default(), capped] {
        let validator = InputValidator::new(T::TOOL, limits);
        let both = validator.parse::<T>(text);
        let full = slow::<T>(&validator, text);
        prop_assert_eq!(&both, &full, "for {}", text);
        if validator.fast_path_accepts::<T>(text) {
            prop_assert!(
                full.is_ok(),
                "the one pass accepted what the full path refuses: {}",
                text
            );
        }
        // The same arguments already parsed, as they arrive inside a request.
        if let Ok(value) = serde_json::from_str::<Value>(text) {
            if validator.fast_path_accepts_value::<T>(&value) {
                prop_assert!(
                    full.is_ok(),
                    "the one pass over a value accepted what the full path refuses: {}",
                    text
                );
            }
            let read = validator.read::<T>(value);
            prop_assert_eq!(&read, &full, "for the value of {}", text);
        }
        // The same arguments where they stand in a message, followed by
        // the rest of it: the same verdict, and their end found.
        let value = text.trim_matches([' ', '\t', '\n', '\r']);
        if serde_json::from_str::<serde::de::IgnoredAny>(value).is_ok() {
            let message = format!("{value}, \"more\": [1, {{}}]}}}}");
            if let Some((leading, used)) = validator.parse_leading::<T>(&message) {
                prop_assert_eq!(&leading, &both, "for {} in a message", text);
                prop_assert_eq!(used, value.len(), "the end of {}", text);
            }
        }
    }
    Ok(())
}

fn any_json() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        prop_oneof![
            Just(0u64),
            Just(1),
            Just(99),
            Just(100),
            Just(255),
            Just(256),
            Just(u64::MAX)
        ]
        .prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        Just(json!(1.5)),
        Just(json!(2.0)),
        "[a-z@.]{0,45}".prop_map(Value::from),
        Just(json!("ada@example.com")),
        Just(json!("standard")),
        Just(json!([])),
        Just(json!(["a", "b"])),
        Just(json!({})),
        Just(json!({"sku": "A", "quantity": 1, "unit_price_cents": 1})),
        Just(json!({"sku": "", "quantity": 0, "unit_price_cents": -1, "x": 1})),
        Just(json!({"streetAddress": 5, "postalCode": null, "leaveAtDoor": "yes"})),
        Just(json!([{"sku": 1}, null, "a"])),
    ]
}

/// Several corruptions, one after the other.
fn corrupt_all(json: Value, corruptions: Vec<(usize, usize, Value)>) -> Value {
    corruptions
        .into_iter()
        .fold(json, |json, (choice, key, value)| {
            corrupt(json, choice, key, value)
        })
}

fn corruptions() -> impl Strategy<Value = Vec<(usize, usize, Value)>> {
    prop::collection::vec((0usize..8, 0usize..16, any_json()), 1..6)
}

/// A corruption of a valid argument object: set, drop or add a key, at the
/// top, inside the first line item or inside the delivery address, or put
/// the discovery hint where it does not belong.
fn corrupt(mut json: Value, choice: usize, key: usize, value: Value) -> Value {
    let object = json.as_object_mut().expect("object");
    let keys: Vec<String> = object.keys().cloned().collect();
    match choice % 8 {
        0 => {}
        1 if !keys.is_empty() => {
            object.insert(keys[key % keys.len()].clone(), value);
        }
        2 if !keys.is_empty() => {
            object.remove(&keys[key % keys.len()]);
        }
        1 | 2 => {}
        3 => {
            object.insert("surprise".into(), value);
        }
        4 => {
            if let Some(Value::Object(line)) =
                object.get_mut("lineItems").and_then(|l| l.get_mut(0))
            {
                let line_keys: Vec<String> = line.keys().cloned().collect();
                if !line_keys.is_empty() {
                    line.insert(line_keys[key % line_keys.len()].clone(), value);
                }
            }
        }
        5 => {
            object.insert("_schema_discovery".into(), value);
        }
        6 => {
            // The hint is a property of the arguments object only.
            if let Some(Value::Object(line)) =
                object.get_mut("lineItems").and_then(|l| l.get_mut(0))
            {
                line.insert("_schema_discovery".into(), value);
            }
        }
        _ => {
            // Inside the delivery address, if there is one.
            if let Some(Value::Object(delivery)) = object.get_mut("delivery") {
                let names = ["streetAddress", "postalCode", "leaveAtDoor", "door"];
                delivery.insert(names[key % names.len()].into(), value);
            }
        }
    }
    json
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

    #[test]
    fn orders_agree(order in place_order(), corruptions in corruptions()) {
        let text = corrupt_all(exposed(&order), corruptions).to_string();
        agree::<PlaceOrder>(&text)?;
    }

    #[test]
    fn field_attributes_agree(corruptions in corruptions()) {
        let base = json!({
            "userId": 7, "note": "n", "page_size": 10, "verbose": true, "email": "ada@example.com",
            "offset": -3, "percent": 12.5, "slug": "abc-1", "tags": ["x"], "reason": "because"
        });
        let text = corrupt_all(base, corruptions).to_string();
        agree::<FieldAttributes>(&text)?;
    }
}

/// Strings near the edges of `email`: atoms and their specials, dots,
/// quotes, brackets, non-ASCII, hyphens in every place of a label, `xn--`,
/// labels and parts at and past their length limits.
fn email_like() -> impl Strategy<Value = String> {
    let local = prop_oneof![
        "[a-z0-9.+_!#~-]{0,8}",
        "\"[a-z @]{0,4}\"",
        "[a-zé.]{1,6}",
        Just("a".repeat(64)),
        Just("a".repeat(65)),
    ];
    let label = prop_oneof![
        "[a-z0-9-]{0,6}",
        "xn--[a-z0-9-]{0,6}",
        "[a-z]{2}--[a-z]{0,3}",
        Just("b".repeat(63)),
        Just("b".repeat(64)),
        Just("[127.0.0.1]".to_owned()),
        Just("é".to_owned()),
    ];
    let host = prop::collection::vec(label, 1..4).prop_map(|labels| labels.join("."));
    prop_oneof![
        (local, host).prop_map(|(local, host)| format!("{local}@{host}")),
        "[a-z@.\"-]{0,12}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3_000, ..ProptestConfig::default() })]

    /// The one pass vouches for plain addresses by hand; whatever it accepts
    /// the full path (jsonschema's `email` format) accepts too.
    #[test]
    fn email_checks_agree(email in email_like()) {
        let mut base = json!({
            "userId": 7, "note": "n", "page_size": 10, "verbose": true,
            "offset": -3, "percent": 12.5, "slug": "abc-1", "tags": ["x"], "reason": "because"
        });
        base["email"] = email.into();
        agree::<FieldAttributes>(&base.to_string())?;
    }
}

#[test]
fn the_hint_is_removed_only_from_the_arguments_object() {
    let validator = InputValidator::new(PlaceOrder::TOOL, Limits::default());
    let mut payload = crate::calls::valid_order();
    payload["lineItems"][0]["_schema_discovery"] = json!("seen");
    let errors = validator
        .parse::<PlaceOrder>(&payload.to_string())
        .expect_err("an unknown property of a line item");
    let paths: Vec<&str> = errors.iter().map(|v| v.path()).collect();
    assert_eq!(paths, ["/lineItems/0/_schema_discovery"]);
    // At the top it goes, whatever it holds, but not past the limits.
    let mut payload = crate::calls::valid_order();
    payload["_schema_discovery"] = json!({"any": ["thing"]});
    assert!(validator.parse::<PlaceOrder>(&payload.to_string()).is_ok());
    let deep = format!(
        r#"{{"_schema_discovery": {}1{}, {}"#,
        "[".repeat(70),
        "]".repeat(70),
        &crate::calls::valid_order().to_string()[1..]
    );
    let errors = validator.parse::<PlaceOrder>(&deep).expect_err("too deep");
    assert_eq!(
        errors.iter().map(|v| v.rule()).collect::<Vec<_>>(),
        [Rule::TooDeep]
    );
}

#[test]
fn nesting_limits_hold_for_bounded_and_recursive_types() {
    // The arguments of `PlaceOrder` nest three levels at most (object, list,
    // line item): under a limit of 2 even valid ones are refused.
    let strict = InputValidator::new(
        PlaceOrder::TOOL,
        Limits {
            max_bytes: 1 << 20,
            max_depth: 2,
            ..Limits::default()
        },
    );
    let valid = crate::calls::valid_order().to_string();
    let errors = strict.parse::<PlaceOrder>(&valid).expect_err("too deep");
    assert_eq!(
        errors.iter().map(|v| v.rule()).collect::<Vec<_>>(),
        [Rule::TooDeep]
    );

    // A type that contains itself nests without bound: the bytes are
    // scanned, and within the limit the one pass still vouches.
    static TREE: ToolDef = ToolDef {
        name: Ref::Static("tree"),
        title: None,
        description: Ref::Static("A tree."),
        version: 1,
        input: Ref::Lazy(toolschema::schema_of::<Tree>),
        output: None,
        annotations: toolschema::Annotations::NONE,
        icons: Ref::Static(&[]),
        internal: false,
    };
    let validator = InputValidator::new(&TREE, Limits::default());
    let tree = |depth: usize| {
        let mut text = String::new();
        for _ in 0..depth {
            text.push_str(r#"{"label": "x", "children": ["#);
        }
        text.push_str(r#"{"label": "leaf", "children": []}"#);
        text.push_str(&"]}".repeat(depth));
        text
    };
    let shallow = tree(10);
    assert!(validator.fast_path_accepts::<Tree>(&shallow));
    assert!(validator.parse::<Tree>(&shallow).is_ok());
    let errors = validator.parse::<Tree>(&tree(40)).expect_err("81 levels");
    assert_eq!(
        errors.iter().map(|v| v.rule()).collect::<Vec<_>>(),
        [Rule::TooDeep]
    );
    // The same for arguments already parsed.
    let parsed = |text: &str| serde_json::from_str::<Value>(text).expect("json");
    assert!(validator.fast_path_accepts_value::<Tree>(&parsed(&shallow)));
    let errors = validator
        .read::<Tree>(parsed(&tree(40)))
        .expect_err("81 levels");
    assert_eq!(
        errors.iter().map(|v| v.rule()).collect::<Vec<_>>(),
        [Rule::TooDeep]
    );
}

#[test]
fn the_one_pass_vouches_for_valid_arguments() {
    let validator = InputValidator::new(PlaceOrder::TOOL, Limits::default());
    let mut payload = crate::calls::valid_order();
    payload["delivery"] = json!({"streetAddress": "1 Main St", "postalCode": "12345"});
    payload["_schema_discovery"] = json!("seen");
    assert!(validator.fast_path_accepts::<PlaceOrder>(&payload.to_string()));
    let order: PlaceOrder = validator.parse(&payload.to_string()).expect("valid");
    assert_eq!(order.delivery.map(|d| d.postal_code), Some("12345".into()));
    // What it cannot vouch for goes down the full path, with every violation.
    payload["contactEmail"] = json!("not an email");
    payload["coupon"] = json!(1);
    assert!(!validator.fast_path_accepts::<PlaceOrder>(&payload.to_string()));
    let errors = validator
        .parse::<PlaceOrder>(&payload.to_string())
        .expect_err("invalid");
    assert_eq!(errors.len(), 2);
}

#[test]
fn a_property_name_with_escapes_is_read_by_the_full_path_alike() {
    let validator = InputValidator::new(PlaceOrder::TOOL, Limits::default());
    let payload = crate::calls::valid_order().to_string();
    let plain: PlaceOrder = validator.parse(&payload).expect("valid");
    // The same name written with an escape: the one pass reads names in
    // place and leaves it to the full path, which reads the same order.
    let escaped = payload.replacen("\"customerName\"", "\"customer\\u004eame\"", 1);
    assert_ne!(escaped, payload, "the name is in the payload");
    assert!(!validator.fast_path_accepts::<PlaceOrder>(&escaped));
    assert_eq!(validator.parse::<PlaceOrder>(&escaped), Ok(plain));
    // And an escaped name the tool does not have is refused by name.
    let unknown = payload.replacen("\"customerName\"", "\"customer\\u004eom\"", 1);
    let errors = validator
        .parse::<PlaceOrder>(&unknown)
        .expect_err("unknown");
    let rules: Vec<Rule> = errors.iter().map(|v| v.rule()).collect();
    assert!(rules.contains(&Rule::UnknownProperty), "{rules:?}");
}
#[test]
fn the_plan_lists_violations_where_it_can_speak_for_every_slot() {
    let validator = InputValidator::new(PlaceOrder::TOOL, Limits::default());
    let mut payload = crate::calls::valid_order();
    payload["contactEmail"] = json!("not an email");
    payload["customerName"] = json!("");
    payload["lineItems"][0]["quantity"] = json!(0);
    payload["lineItems"][0]["sku"] = json!(["a"]);
    payload["lineItems"][0]["colour"] = json!("red");
    payload["delivery"] = json!({"streetAddress": 5});
    payload["priority"] = json!("yesterday");
    let text = payload.to_string();
    assert!(validator.fast_path_lists(&text));
    let errors = validator.parse::<PlaceOrder>(&text).expect_err("invalid");
    let listed: Vec<(&str, Rule)> = errors.iter().map(|v| (v.path(), v.rule())).collect();
    assert_eq!(
        listed,
        [
            ("/contactEmail", Rule::Format),
            ("/customerName", Rule::MinLength),
            ("/delivery/postalCode", Rule::Required),
            ("/delivery/streetAddress", Rule::Type),
            ("/lineItems/0/colour", Rule::UnknownProperty),
            ("/lineItems/0/quantity", Rule::Minimum),
            ("/lineItems/0/sku", Rule::Type),
            ("/priority", Rule::Enum),
        ]
    );
    let full = slow::<PlaceOrder>(&validator, &text).expect_err("invalid");
    assert_eq!(errors, full);
    // What it cannot speak for goes to the full path: arguments that are
    // not an object, a repeated property, text that is not JSON.
    for text in [
        "[1]".to_owned(),
        r#"{"customerName": "", "customerName": "x"}"#.to_owned(),
        r#"{"customerName": 1"#.to_owned(),
        // A path longer than a report holds.
        format!(r#"{{"{}": 1, "x{}": 2}}"#, "n".repeat(300), "n".repeat(300)),
    ] {
        assert!(!validator.fast_path_lists(&text), "{text}");
        assert_eq!(
            validator.parse::<PlaceOrder>(&text),
            slow::<PlaceOrder>(&validator, &text)
        );
    }
}

#[test]
fn the_plan_lists_violations_of_refined_fields() {
    let validator = InputValidator::new(FieldAttributes::TOOL, Limits::default());
    let text = json!({
        "userId": -1, "note": null, "page_size": null, "email": "ada@", "offset": 11,
        "percent": 100, "slug": "AB", "tags": [], "reason": null, "trace_id": "t"
    })
    .to_string();
    assert!(validator.fast_path_lists(&text));
    let errors = validator
        .parse::<FieldAttributes>(&text)
        .expect_err("invalid");
    assert_eq!(
        errors,
        slow::<FieldAttributes>(&validator, &text).expect_err("invalid")
    );
    let rules: Vec<Rule> = errors.iter().map(|v| v.rule()).collect();
    assert_eq!(
        rules,
        [
            Rule::Format,
            Rule::Type,
            Rule::Maximum,
            Rule::Maximum,
            Rule::Type,
            Rule::MinLength,
            Rule::Pattern,
            Rule::MinItems,
            Rule::UnknownProperty,
            Rule::Minimum,
        ]
    );
}

/// Fuzzing found it: a number too large for a float (`1e550`) under an
/// unknown name.
#[test]
fn an_out_of_range_number_is_reported_as_the_full_path_reports_it() {
    for text in [
        "{\"i1e550}08d\":1e550}\r\r",
        "{\"invoice_id\":1e550}",
        "{\"x\":1e550}",
    ] {
        let validator = InputValidator::new(toolschema_demo::GetInvoice::TOOL, Limits::default());
        let both = validator.parse::<toolschema_demo::GetInvoice>(text);
        let full = slow::<toolschema_demo::GetInvoice>(&validator, text);
        assert_eq!(both.err(), full.err(), "for {text}");
    }
}

/// A tool whose hand-written reader asks for another property after the
/// object's end (serde's derives never do; a reader of one's own may).
#[derive(Tool, Debug, PartialEq)]
#[tool(name = "asks.twice")]
struct AsksTwice {
    /// A number.
    count: u8,
}

impl<'de> serde::Deserialize<'de> for AsksTwice {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> serde::de::Visitor<'de> for Fields {
            type Value = AsksTwice;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<AsksTwice, A::Error> {
                let mut count = None;
                while let Some(key) = map.next_key::<String>()? {
                    let value: u8 = map.next_value()?;
                    if key == "count" {
                        count = Some(value);
                    }
                }
                // Once more, past the end.
                assert!(map.next_key::<String>()?.is_none());
                let count = count.ok_or_else(|| serde::de::Error::missing_field("count"))?;
                Ok(AsksTwice { count })
            }
        }
        deserializer.deserialize_struct("AsksTwice", &["count"], Fields)
    }
}

#[test]
fn a_reader_that_asks_past_an_objects_end_is_read_once() {
    let validator = InputValidator::new(AsksTwice::TOOL, Limits::default());
    // The object is let go once: the one pass vouches, and the value read
    // is the full path's.
    assert!(validator.fast_path_accepts::<AsksTwice>(r#"{"count": 3}"#));
    assert_eq!(
        validator.parse::<AsksTwice>(r#"{"count": 3}"#),
        Ok(AsksTwice { count: 3 })
    );
    let refused = validator
        .parse::<AsksTwice>(r#"{"count": 300}"#)
        .expect_err("beyond u8");
    assert_eq!(refused.len(), 1);
}

/// A tool with an alias on one field: serde's field list (`FIELDS`) holds
/// the alias too.
#[derive(Tool, serde::Deserialize, Debug, PartialEq)]
#[tool(name = "aliased")]
struct Aliased {
    /// First.
    first: String,
    /// Mail.
    #[serde(alias = "mail")]
    email: String,
    /// A count.
    count: u8,
}

/// A tool of three fields, each named as its struct declares it.
#[derive(Tool, serde::Deserialize, Debug, PartialEq)]
#[tool(name = "declared", rename_all = "camelCase")]
struct Declared {
    /// First.
    first_name: String,
    /// Mail.
    email: String,
    /// A count.
    count: u8,
}

#[test]
fn serdes_field_visitor_is_told_each_member_whatever_order_it_comes_in() {
    // Serde's derive is told a member by its index where its field list
    // is the members' names in order; in any order of the properties,
    // each value lands in its own field.
    let validator = InputValidator::new(Declared::TOOL, Limits::default());
    let expected = Declared {
        first_name: "Ada".into(),
        email: "ada@example.com".into(),
        count: 3,
    };
    for text in [
        r#"{"firstName": "Ada", "email": "ada@example.com", "count": 3}"#,
        r#"{"count": 3, "email": "ada@example.com", "firstName": "Ada"}"#,
        r#"{"email": "ada@example.com", "count": 3, "firstName": "Ada"}"#,
    ] {
        assert!(validator.fast_path_accepts::<Declared>(text), "{text}");
        assert_eq!(validator.parse::<Declared>(text).as_ref(), Ok(&expected));
    }
    // With an alias the list is longer than the members: told by name.
    let validator = InputValidator::new(Aliased::TOOL, Limits::default());
    let text = r#"{"count": 3, "email": "ada@example.com", "first": "Ada"}"#;
    assert!(validator.fast_path_accepts::<Aliased>(text));
    assert_eq!(
        validator.parse::<Aliased>(text),
        Ok(Aliased {
            first: "Ada".into(),
            email: "ada@example.com".into(),
            count: 3,
        })
    );
}

/// A tool whose hand-written reader knows its fields by name only (an
/// identifier visitor with `visit_str` alone, as serde's guide writes one).
#[derive(Tool, Debug, PartialEq)]
#[tool(name = "named.only")]
struct NamedOnly {
    /// A count.
    count: u8,
    /// A label.
    label: String,
}

impl<'de> serde::Deserialize<'de> for NamedOnly {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        enum Field {
            Count,
            Label,
        }
        impl<'de> serde::Deserialize<'de> for Field {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct Names;
                impl serde::de::Visitor<'_> for Names {
                    type Value = Field;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str("`count` or `label`")
                    }
                    fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<Field, E> {
                        match name {
                            "count" => Ok(Field::Count),
                            "label" => Ok(Field::Label),
                            other => Err(E::unknown_field(other, &["count", "label"])),
                        }
                    }
                }
                deserializer.deserialize_identifier(Names)
            }
        }
        struct Fields;
        impl<'de> serde::de::Visitor<'de> for Fields {
            type Value = NamedOnly;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<NamedOnly, A::Error> {
                let (mut count, mut label) = (None, None);
                while let Some(field) = map.next_key::<Field>()? {
                    match field {
                        Field::Count => count = Some(map.next_value()?),
                        Field::Label => label = Some(map.next_value()?),
                    }
                }
                Ok(NamedOnly {
                    count: count.ok_or_else(|| serde::de::Error::missing_field("count"))?,
                    label: label.ok_or_else(|| serde::de::Error::missing_field("label"))?,
                })
            }
        }
        deserializer.deserialize_struct("NamedOnly", &["count", "label"], Fields)
    }
}

#[test]
fn a_reader_that_knows_its_fields_by_name_only_is_told_names() {
    let validator = InputValidator::new(NamedOnly::TOOL, Limits::default());
    let text = r#"{"label": "x", "count": 3}"#;
    let expected = NamedOnly {
        count: 3,
        label: "x".into(),
    };
    // Told an index first, the reader refuses it: that call is the full
    // path's, and the reader is told names from then on.
    assert!(!validator.fast_path_accepts::<NamedOnly>(text));
    assert!(validator.fast_path_accepts::<NamedOnly>(text));
    assert_eq!(validator.parse::<NamedOnly>(text).as_ref(), Ok(&expected));
    let refused = validator
        .parse::<NamedOnly>(r#"{"label": "x", "count": 300}"#)
        .expect_err("beyond u8");
    assert_eq!(refused.len(), 1);
}
