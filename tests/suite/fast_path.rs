//! The one-pass parse agrees with the full path: on random valid arguments
//! and on random corruptions of them, `InputValidator::parse` (which tries
//! the one pass first) gives exactly what the full path gives, and the one
//! pass does vouch for valid arguments.

use proptest::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use toolschema::Tool;
use toolschema::ToolDef;
use toolschema::model::{Direction, Ref};
use toolschema::validate::{InputValidator, Limits, Rule};
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
fn slow<T: Tool + DeserializeOwned>(validator: &InputValidator, text: &str) -> Option<T> {
    let value = validator.check_str(text).ok()?;
    serde_json::from_value(value).ok()
}

fn agree<T: Tool + DeserializeOwned + PartialEq + std::fmt::Debug>(
    text: &str,
) -> Result<(), TestCaseError> {
    let validator = InputValidator::new(T::TOOL, Limits::default());
    let both = validator.parse::<T>(text).ok();
    let full = slow::<T>(&validator, text);
    prop_assert_eq!(&both, &full, "for {}", text);
    if validator.fast_path_accepts::<T>(text) {
        prop_assert!(
            full.is_some(),
            "the one pass accepted what the full path refuses: {}",
            text
        );
    }
    // The same arguments already parsed, as they arrive inside a request.
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        if validator.fast_path_accepts_value::<T>(&value) {
            prop_assert!(
                full.is_some(),
                "the one pass over a value accepted what the full path refuses: {}",
                text
            );
        }
        let read = validator.read::<T>(value).ok();
        prop_assert_eq!(&read, &full, "for the value of {}", text);
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
    ]
}

/// A corruption of a valid argument object: set, drop or add a key, at the
/// top or inside the first line item, or put the discovery hint where it
/// does not belong.
fn corrupt(mut json: Value, choice: usize, key: usize, value: Value) -> Value {
    let object = json.as_object_mut().expect("object");
    let keys: Vec<String> = object.keys().cloned().collect();
    match choice % 7 {
        0 => {}
        1 => {
            object.insert(keys[key % keys.len()].clone(), value);
        }
        2 => {
            object.remove(&keys[key % keys.len()]);
        }
        3 => {
            object.insert("surprise".into(), value);
        }
        4 => {
            if let Some(Value::Object(line)) =
                object.get_mut("lineItems").and_then(|l| l.get_mut(0))
            {
                let line_keys: Vec<String> = line.keys().cloned().collect();
                line.insert(line_keys[key % line_keys.len()].clone(), value);
            }
        }
        5 => {
            object.insert("_schema_discovery".into(), value);
        }
        _ => {
            // The hint is a property of the arguments object only.
            if let Some(Value::Object(line)) =
                object.get_mut("lineItems").and_then(|l| l.get_mut(0))
            {
                line.insert("_schema_discovery".into(), value);
            }
        }
    }
    json
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

    #[test]
    fn orders_agree(order in place_order(), choice in 0usize..7, key in 0usize..16, value in any_json()) {
        let text = corrupt(exposed(&order), choice, key, value).to_string();
        agree::<PlaceOrder>(&text)?;
    }

    #[test]
    fn field_attributes_agree(key in 0usize..16, value in any_json(), choice in 0usize..7) {
        let base = json!({
            "userId": 7, "note": "n", "page_size": 10, "verbose": true, "email": "ada@example.com",
            "offset": -3, "percent": 12.5, "slug": "abc-1", "tags": ["x"], "reason": "because"
        });
        let text = corrupt(base, choice, key, value).to_string();
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
