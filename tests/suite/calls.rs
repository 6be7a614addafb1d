//! The call path: arguments validated against the advertised schema (every
//! violation, by exposed path), mapped to source names and read by serde;
//! handlers run by the registry; results mapped and checked.

#![allow(dead_code)]

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolschema::call::{
    CallError, Content, Context, Handler, Registry, RegistryError, ToolError, ToolResult,
    parse_args,
};
use toolschema::validate::{InputValidator, Limits, Rule};
use toolschema::{Schema, Tool};

use crate::corpus::{ContainerAttributes, Evaluate, FieldAttributes};

/// Places an order.
#[derive(Tool, Serialize, Deserialize, Debug, PartialEq, Clone)]
#[tool(name = "shop.place-order", rename_all = "camelCase", output = OrderReceipt)]
pub struct PlaceOrder {
    /// Who the order is for.
    #[tool(min_length = 1, max_length = 40)]
    pub customer_name: String,
    /// Where the confirmation goes.
    #[tool(format = "email")]
    pub contact_email: String,
    /// What is ordered.
    #[tool(min_items = 1, max_items = 20)]
    pub line_items: Vec<OrderLine>,
    /// Where to deliver; pickup if absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delivery: Option<Delivery>,
    /// Wrap it as a gift.
    #[serde(default)]
    pub gift_wrap: bool,
    /// How fast.
    pub priority: Priority,
}

/// One product of an order.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct OrderLine {
    /// The product's stock-keeping unit.
    #[tool(rename = "sku")]
    pub product_code: String,
    /// How many.
    #[tool(minimum = 1, maximum = 99)]
    pub quantity: u8,
    /// The price of one.
    pub unit_price_cents: u32,
}

/// A delivery address.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq, Clone)]
#[tool(rename_all = "camelCase")]
pub struct Delivery {
    pub street_address: String,
    pub postal_code: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leave_at_door: Option<bool>,
}

/// How fast an order ships.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    Standard,
    Express,
}

/// Proof of an order.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
#[tool(rename_all = "camelCase")]
pub struct OrderReceipt {
    pub order_number: u64,
    pub total_cents: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tracking_url: Option<String>,
}

impl Handler for PlaceOrder {
    async fn call(self, _ctx: Context) -> Result<OrderReceipt, ToolError> {
        if self.customer_name == "nobody" {
            return Err(ToolError::new("There is no customer called nobody."));
        }
        let total = self
            .line_items
            .iter()
            .map(|l| u64::from(l.quantity) * u64::from(l.unit_price_cents))
            .sum();
        Ok(OrderReceipt {
            order_number: 7,
            total_cents: total,
            tracking_url: self.delivery.map(|_| "https://track.example/7".into()),
        })
    }
}

/// A tool whose handler breaks its own output schema.
#[derive(Tool, Deserialize)]
#[tool(name = "shop.broken", output = Link)]
pub struct Broken {
    pub anything: Option<String>,
}

/// A link; the types allow values its schema refuses.
#[derive(Schema, Serialize)]
pub struct Link {
    #[tool(format = "uri")]
    pub href: String,
    #[tool(maximum = 10)]
    pub hops: u8,
}

impl Handler for Broken {
    async fn call(self, _ctx: Context) -> Result<Link, ToolError> {
        Ok(Link {
            href: "not a link".into(),
            hops: 11,
        })
    }
}

/// Runs a future whose handlers never wait.
pub use toolschema_test_support::block_on;

pub fn valid_order() -> Value {
    json!({
        "customerName": "Ada",
        "contactEmail": "ada@example.com",
        "lineItems": [{"sku": "A-1", "quantity": 2, "unit_price_cents": 500}],
        "priority": "standard"
    })
}

/// `valid_order()` with `pointer` set to `value` (or removed if `None`).
fn order_with(pointer: &str, value: Option<Value>) -> Value {
    let mut order = valid_order();
    let (parent, key) = pointer.rsplit_once('/').expect("pointer");
    let parent = order.pointer_mut(parent).expect("parent exists");
    match (parent, value) {
        (Value::Object(map), Some(value)) => {
            map.insert(key.to_owned(), value);
        }
        (Value::Object(map), None) => {
            map.remove(key);
        }
        (Value::Array(items), Some(value)) => items[key.parse::<usize>().expect("index")] = value,
        _ => panic!("bad pointer {pointer}"),
    }
    order
}

type Expected = &'static [(&'static str, Rule)];

/// One bad payload and exactly what it breaks.
pub struct Case {
    pub tool: fn(&str) -> Result<(), toolschema::ArgumentErrors>,
    pub payload: String,
    pub expected: Expected,
}

fn order(payload: Value, expected: Expected) -> Case {
    Case {
        tool: |text| parse_args::<PlaceOrder>(text).map(drop),
        payload: payload.to_string(),
        expected,
    }
}

fn raw(payload: &str, expected: Expected) -> Case {
    Case {
        tool: |text| parse_args::<PlaceOrder>(text).map(drop),
        payload: payload.to_owned(),
        expected,
    }
}

fn field_attributes(changes: Value, expected: Expected) -> Case {
    let mut payload = json!({
        "userId": 1, "note": "n", "email": "a@b.co", "offset": 0, "percent": 50.0,
        "slug": "abc", "tags": ["t"], "reason": "r"
    });
    for (k, v) in changes.as_object().expect("object") {
        if v.is_string() && v == "<absent>" {
            payload.as_object_mut().expect("object").remove(k);
        } else {
            payload[k] = v.clone();
        }
    }
    Case {
        tool: |text| parse_args::<FieldAttributes>(text).map(drop),
        payload: payload.to_string(),
        expected,
    }
}

pub fn cases() -> Vec<Case> {
    [
        customer_and_line_cases(),
        order_option_cases(),
        payload_cases(),
        attribute_cases(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Orders with a bad name, contact or line.
fn customer_and_line_cases() -> Vec<Case> {
    use Rule::*;
    let long_name = "x".repeat(41);
    let many_lines: Vec<Value> = (0..21)
        .map(|_| json!({"sku": "A", "quantity": 1, "unit_price_cents": 1}))
        .collect();
    vec![
        order(
            order_with("/customerName", None),
            &[("/customerName", Required)],
        ),
        order(
            order_with("/customerName", Some(json!(5))),
            &[("/customerName", Type)],
        ),
        order(
            order_with("/customerName", Some(json!(""))),
            &[("/customerName", MinLength)],
        ),
        order(
            order_with("/customerName", Some(json!(long_name))),
            &[("/customerName", MaxLength)],
        ),
        order(
            order_with("/customerName", Some(Value::Null)),
            &[("/customerName", Type)],
        ),
        order(
            order_with("/contactEmail", Some(json!("nope"))),
            &[("/contactEmail", Format)],
        ),
        order(
            order_with("/contactEmail", Some(json!(["a@b.co"]))),
            &[("/contactEmail", Type)],
        ),
        order(
            order_with("/lineItems", Some(json!([]))),
            &[("/lineItems", MinItems)],
        ),
        order(
            order_with("/lineItems", Some(json!(many_lines))),
            &[("/lineItems", MaxItems)],
        ),
        order(
            order_with("/lineItems", Some(json!("A-1"))),
            &[("/lineItems", Type)],
        ),
        order(
            order_with("/lineItems/0/sku", None),
            &[("/lineItems/0/sku", Required)],
        ),
        order(
            order_with("/lineItems/0/quantity", Some(json!(0))),
            &[("/lineItems/0/quantity", Minimum)],
        ),
        order(
            order_with("/lineItems/0/quantity", Some(json!(100))),
            &[("/lineItems/0/quantity", Maximum)],
        ),
        order(
            order_with("/lineItems/0/quantity", Some(json!(1.5))),
            &[("/lineItems/0/quantity", Type)],
        ),
        order(
            order_with("/lineItems/0/quantity", Some(json!(-1))),
            &[("/lineItems/0/quantity", Minimum)],
        ),
        order(
            order_with(
                "/lineItems/0/unit_price_cents",
                Some(json!(4_294_967_296u64)),
            ),
            &[("/lineItems/0/unit_price_cents", Maximum)],
        ),
        order(
            order_with("/lineItems/0/unit_price_cents", Some(json!("500"))),
            &[("/lineItems/0/unit_price_cents", Type)],
        ),
        order(
            order_with("/lineItems/0", Some(json!(7))),
            &[("/lineItems/0", Type)],
        ),
        order(
            order_with("/lineItems/0/colour", Some(json!("red"))),
            &[("/lineItems/0/colour", UnknownProperty)],
        ),
    ]
}

/// Orders with a bad priority, coupon, gift wrap or delivery, and orders
/// breaking several rules at once.
fn order_option_cases() -> Vec<Case> {
    use Rule::*;
    vec![
        order(
            order_with("/priority", Some(json!("urgent"))),
            &[("/priority", Enum)],
        ),
        order(
            order_with("/priority", Some(json!("Standard"))),
            &[("/priority", Enum)],
        ),
        order(order_with("/priority", None), &[("/priority", Required)]),
        order(
            order_with("/coupon", Some(json!("FREE"))),
            &[("/coupon", UnknownProperty)],
        ),
        order(
            order_with("/giftWrap", Some(json!("true"))),
            &[("/giftWrap", Type)],
        ),
        order(
            order_with("/delivery", Some(json!({"streetAddress": "1 Main St"}))),
            &[("/delivery/postalCode", Required)],
        ),
        order(
            order_with(
                "/delivery",
                Some(json!({"streetAddress": "s", "postalCode": "p", "leaveAtDoor": "yes"})),
            ),
            &[("/delivery/leaveAtDoor", Type)],
        ),
        order(
            order_with("/delivery", Some(json!("home"))),
            &[("/delivery", Type)],
        ),
        order(
            json!({"contactEmail": "bad", "lineItems": [{"sku": "A", "quantity": 0, "unit_price_cents": 1}], "priority": "standard"}),
            &[
                ("/customerName", Required),
                ("/contactEmail", Format),
                ("/lineItems/0/quantity", Minimum),
            ],
        ),
        order(
            json!({
                "customerName": "Ada", "contactEmail": "a@b.co", "priority": "express",
                "lineItems": [
                    {"sku": "A", "quantity": 1, "unit_price_cents": 1},
                    {"sku": "B", "quantity": 120, "unit_price_cents": -3}
                ]
            }),
            &[
                ("/lineItems/1/quantity", Maximum),
                ("/lineItems/1/unit_price_cents", Minimum),
            ],
        ),
    ]
}

/// Payloads that are not an object, not JSON, too deep or too large.
fn payload_cases() -> Vec<Case> {
    use Rule::*;
    vec![
        raw("[]", &[("", NotAnObject)]),
        raw("\"order\"", &[("", NotAnObject)]),
        raw("null", &[("", NotAnObject)]),
        raw("42", &[("", NotAnObject)]),
        raw("{\"customerName\": ", &[("", InvalidJson)]),
        raw("", &[("", InvalidJson)]),
        raw(
            &format!(
                "{{\"customerName\": {}1{}}}",
                "[".repeat(70),
                "]".repeat(70)
            ),
            &[("", TooDeep)],
        ),
        raw(
            &format!("{{\"customerName\": \"{}\"}}", "x".repeat(1 << 20)),
            &[("", TooLarge)],
        ),
    ]
}

/// What field and container attributes refuse, and a recursive enum.
fn attribute_cases() -> Vec<Case> {
    use Rule::*;
    vec![
        field_attributes(json!({"userId": "x"}), &[("/userId", Type)]),
        field_attributes(
            json!({"slug": "AB"}),
            &[("/slug", MinLength), ("/slug", Pattern)],
        ),
        field_attributes(json!({"offset": 11}), &[("/offset", Maximum)]),
        field_attributes(json!({"percent": 0.1}), &[("/percent", Minimum)]),
        field_attributes(
            json!({"tags": ["a", "b", "c", "d", "e", "f"]}),
            &[("/tags", MaxItems)],
        ),
        field_attributes(json!({"reason": null}), &[("/reason", Type)]),
        field_attributes(json!({"reason": "<absent>"}), &[("/reason", Required)]),
        field_attributes(json!({"email": "at-example.com"}), &[("/email", Format)]),
        Case {
            tool: |text| parse_args::<Evaluate>(text).map(drop),
            // An unknown tag: the tags there are, at the tag.
            payload: json!({"expression": {"op": "pow"}}).to_string(),
            expected: &[("/expression/op", Enum)],
        },
        Case {
            tool: |text| parse_args::<Evaluate>(text).map(drop),
            payload: json!({"expression": {"op": "literal", "value": 1}, "explain": "yes"})
                .to_string(),
            expected: &[("/explain", Type)],
        },
        Case {
            tool: |text| parse_args::<ContainerAttributes>(text).map(drop),
            payload: json!({"documentId": "x", "keepForDays": 70000}).to_string(),
            expected: &[("/documentId", Format), ("/keepForDays", Maximum)],
        },
    ]
}

#[test]
fn bad_payloads_report_exactly_their_violations() {
    let cases = cases();
    assert!(cases.len() >= 40, "only {} cases", cases.len());
    for case in cases {
        let errors = match (case.tool)(&case.payload) {
            Ok(()) => panic!("accepted {}", preview(&case.payload)),
            Err(errors) => errors,
        };
        let mut found: Vec<(String, Rule)> = errors
            .iter()
            .map(|v| (v.path().to_owned(), v.rule()))
            .collect();
        let mut expected: Vec<(String, Rule)> = case
            .expected
            .iter()
            .map(|(p, r)| (p.to_string(), *r))
            .collect();
        found.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then(format!("{:?}", a.1).cmp(&format!("{:?}", b.1)))
        });
        expected.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then(format!("{:?}", a.1).cmp(&format!("{:?}", b.1)))
        });
        assert_eq!(found, expected, "for {}: {errors}", preview(&case.payload));
        for violation in errors.iter() {
            let message = violation.message();
            assert!(message.ends_with('.'), "not a sentence: {message}");
            if !violation.path().is_empty() {
                assert!(
                    message.contains(violation.path()),
                    "{message} does not name {}",
                    violation.path()
                );
            }
        }
    }
}

fn preview(text: &str) -> String {
    text.chars().take(120).collect()
}

#[test]
fn arguments_are_mapped_to_source_names_through_nesting_and_arrays() {
    let mut payload = valid_order();
    payload["delivery"] =
        json!({"streetAddress": "1 Main St", "postalCode": "12345", "leaveAtDoor": true});
    payload["lineItems"] = json!([
        {"sku": "A-1", "quantity": 2, "unit_price_cents": 500},
        {"sku": "B-2", "quantity": 1, "unit_price_cents": 250}
    ]);
    let order: PlaceOrder = parse_args(&payload.to_string()).expect("valid");
    assert_eq!(order.customer_name, "Ada");
    assert_eq!(order.line_items[1].product_code, "B-2");
    assert_eq!(
        order.delivery.as_ref().map(|d| d.postal_code.as_str()),
        Some("12345")
    );
    assert_eq!(order.delivery.and_then(|d| d.leave_at_door), Some(true));
    assert!(!order.gift_wrap);
}

#[test]
fn hint_and_nulls_for_optional_fields_are_absent() {
    let mut payload = valid_order();
    payload["_schema_discovery"] = json!("I fetched the schema");
    payload["delivery"] = Value::Null;
    payload["giftWrap"] = Value::Null;
    let order: PlaceOrder = parse_args(&payload.to_string()).expect("valid");
    assert_eq!(order.delivery, None);
    assert!(!order.gift_wrap);
    // Source names are not accepted: the client sees exposed names only.
    let mut by_source = valid_order();
    by_source["customer_name"] = by_source["customerName"].take();
    by_source
        .as_object_mut()
        .expect("object")
        .remove("customerName");
    let errors =
        parse_args::<PlaceOrder>(&by_source.to_string()).expect_err("source names refused");
    let paths: Vec<&str> = errors.iter().map(|v| v.path()).collect();
    assert_eq!(paths.len(), 2);
    assert!(paths.contains(&"/customerName") && paths.contains(&"/customer_name"));
}

#[test]
fn limits_are_configurable_and_each_has_its_own_error() {
    let strict = InputValidator::new(
        PlaceOrder::TOOL,
        Limits {
            max_bytes: 64,
            max_depth: 2,
            ..Limits::default()
        },
    );
    let big = strict
        .check_str(&valid_order().to_string())
        .expect_err("too large");
    assert_eq!(big.iter().next().map(|v| v.rule()), Some(Rule::TooLarge));
    assert!(big.to_string().contains("64"));
    let deep = strict.check_str(r#"{"a": [[1]]}"#).expect_err("too deep");
    assert_eq!(deep.iter().next().map(|v| v.rule()), Some(Rule::TooDeep));
    let deep_value = strict
        .check_value(json!({"a": [[1]]}))
        .expect_err("too deep");
    assert_eq!(
        deep_value.iter().next().map(|v| v.rule()),
        Some(Rule::TooDeep)
    );
    let roomy = InputValidator::new(PlaceOrder::TOOL, Limits::default());
    assert!(roomy.check_str(&valid_order().to_string()).is_ok());
}

fn registry() -> Registry {
    let mut registry = Registry::new();
    registry
        .register::<PlaceOrder>()
        .expect("first registration")
        .register::<Broken>()
        .expect("another tool");
    registry
}

#[test]
fn the_registry_runs_the_whole_path() {
    let registry = registry();
    let mut payload = valid_order();
    payload["delivery"] = json!({"streetAddress": "s", "postalCode": "p"});
    let result = block_on(registry.call("shop.place-order", payload)).expect("runs");
    let expected =
        json!({"orderNumber": 7, "totalCents": 1000, "trackingUrl": "https://track.example/7"});
    assert_eq!(result.structured(), Some(&expected));
    // The same JSON travels as text for clients that read only content.
    assert_eq!(result.content(), [Content::text(expected.to_string())]);
    let names: Vec<&str> = registry.tools().map(|t| &*t.name).collect();
    assert_eq!(names, ["shop.broken", "shop.place-order"]);
}

#[test]
fn failures_are_distinguishable() {
    let registry = registry();
    let unknown = block_on(registry.call("shop.refund", json!({})));
    assert!(matches!(unknown, Err(CallError::UnknownTool { ref name }) if name == "shop.refund"));

    let invalid = block_on(registry.call_str("shop.place-order", r#"{"customerName": 1}"#));
    let Err(CallError::InvalidArguments(errors)) = invalid else {
        panic!("expected invalid arguments, got {invalid:?}");
    };
    assert_eq!(errors.len(), 4, "{errors}");

    let mut nobody = valid_order();
    nobody["customerName"] = json!("nobody");
    let failed = block_on(registry.call("shop.place-order", nobody));
    assert!(matches!(failed, Err(CallError::Tool(ref e)) if e.message().contains("nobody")));

    let broken = block_on(registry.call("shop.broken", json!({})));
    let Err(CallError::InvalidOutput(errors)) = broken else {
        panic!("expected an output error, got {broken:?}");
    };
    let found: Vec<(&str, Rule)> = errors.iter().map(|v| (v.path(), v.rule())).collect();
    assert_eq!(found, [("/hops", Rule::Maximum), ("/href", Rule::Format)]);
    let text = CallError::InvalidOutput(errors).to_string();
    assert!(
        text.contains("server-side") && text.contains("shop.broken"),
        "{text}"
    );
}

#[test]
fn a_second_type_for_the_same_name_and_version_is_refused() {
    let mut registry = Registry::new();
    registry.register::<PlaceOrder>().expect("first");
    let again = registry
        .register::<PlaceOrder>()
        .map(|_| ())
        .expect_err("duplicate");
    assert!(again.to_string().contains("shop.place-order"));
}

/// Sizes, flattened two levels down.
#[derive(Schema, Deserialize)]
pub struct SizeFilter {
    pub size: u32,
}

/// A filter that flattens another.
#[derive(Schema, Deserialize)]
pub struct Filters {
    #[serde(flatten)]
    pub sizes: SizeFilter,
}

/// Which page, and its size.
#[derive(Schema, Deserialize)]
pub struct Paging {
    pub page: u32,
    pub size: u32,
}

/// Lists files: `size` arrives twice, once through two levels of
/// flattening, which the derive of this struct cannot see into.
#[derive(Tool, Deserialize)]
#[tool(name = "files.list")]
pub struct ListFiles {
    #[serde(flatten)]
    pub paging: Paging,
    #[serde(flatten)]
    pub filters: Filters,
}

impl Handler for ListFiles {
    async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::text("no files"))
    }
}

#[test]
fn the_registry_refuses_two_members_exposed_under_one_name() {
    let mut registry = Registry::new();
    let refused = registry
        .register::<ListFiles>()
        .map(drop)
        .expect_err("size twice");
    assert_eq!(
        refused,
        RegistryError::DuplicateProperty {
            name: "files.list".into(),
            type_name: "ListFiles".to_owned(),
            property: "size".to_owned(),
        }
    );
    assert!(refused.to_string().contains("`size`"));
    assert_eq!(registry.tools().count(), 0, "nothing half-registered");
    // Tools without such a clash register as before.
    assert!(registry.register::<PlaceOrder>().is_ok());
}

#[test]
fn whole_numbers_written_as_floats_are_read_and_huge_ones_refused_by_rule() {
    use toolschema_demo::ListInvoices;
    for (limit, read) in [("1.0", 1), ("1e2", 100), ("20.000", 20)] {
        let text = format!(r#"{{"customer": "cust-42", "limit": {limit}}}"#);
        let args: ListInvoices = parse_args(&text).unwrap_or_else(|e| panic!("{limit}: {e}"));
        assert_eq!(args.limit, read, "{limit}");
    }
    for limit in [
        "1.5",
        &"9".repeat(5000),
        "1e400",
        &format!("0.{}1", "0".repeat(5000)),
    ] {
        let text = format!(r#"{{"customer": "cust-42", "limit": {limit}}}"#);
        let errors = parse_args::<ListInvoices>(&text).expect_err("refused");
        let found: Vec<(&str, Rule)> = errors.iter().map(|v| (v.path(), v.rule())).collect();
        assert!(
            found
                .iter()
                .all(|(path, rule)| *path == "/limit" || *rule == Rule::InvalidJson),
            "{limit:.20}: {found:?} {errors}"
        );
        assert!(
            found.iter().all(|(_, rule)| *rule != Rule::Unreadable),
            "{limit:.20}: {errors}"
        );
        if found[0].1 == Rule::InvalidJson {
            assert!(errors.to_string().contains("too large to read"), "{errors}");
        }
    }
}

/// A tool built at run time gets its arguments as serde would read them:
/// under source names, whatever the client sent them as.
#[test]
fn a_dynamic_tool_gets_source_names() {
    use std::sync::{Arc, Mutex};
    use toolschema::call::{DynamicFuture, DynamicTool, Produced};

    struct Keep(Arc<Mutex<Option<Value>>>);
    impl DynamicTool for Keep {
        fn call(&self, arguments: Value, _ctx: Context) -> DynamicFuture {
            if let Ok(mut kept) = self.0.lock() {
                *kept = Some(arguments);
            }
            Box::pin(async { Ok(Produced::Content(ToolResult::text("kept"))) })
        }
    }

    let kept = Arc::new(Mutex::new(None));
    let mut registry = Registry::new();
    registry
        .register_dynamic(PlaceOrder::TOOL.into(), Arc::new(Keep(kept.clone())))
        .expect("registers");
    // What the call answers does not matter here (it has an output schema).
    let _ = block_on(registry.call("shop.place-order", valid_order()));
    let arguments = kept.lock().expect("kept").clone().expect("called");
    assert_eq!(arguments["customer_name"], "Ada", "{arguments}");
    assert!(arguments.get("customerName").is_none(), "{arguments}");
    assert!(
        arguments["line_items"][0].get("product_code").is_some(),
        "{arguments}"
    );
}

/// A tuple of nothing.
#[derive(Schema, Deserialize, Debug)]
pub struct Empty();

/// Takes an empty tuple struct.
#[derive(Tool, Deserialize, Debug)]
#[tool(name = "shop.nothing")]
pub struct TakesNothing {
    pub nothing: Empty,
}

impl Handler for TakesNothing {
    async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::text(format!("{:?}", self.nothing)))
    }
}

/// An empty tuple struct is the empty array: advertised without an empty
/// `prefixItems` (which JSON Schema forbids, and which no validator
/// compiles), read as serde reads it.
#[test]
fn an_empty_tuple_struct_is_the_empty_array() {
    let mut registry = Registry::new();
    registry.register::<TakesNothing>().expect("registers");
    let schema = toolschema::tool_json::<TakesNothing>();
    let nothing = &schema["inputSchema"]["properties"]["nothing"];
    assert_eq!(nothing["type"], "array", "{nothing}");
    assert_eq!(
        (&nothing["minItems"], &nothing["maxItems"]),
        (&json!(0), &json!(0))
    );
    assert!(nothing.get("prefixItems").is_none(), "{nothing}");
    let called = block_on(registry.call("shop.nothing", json!({"nothing": []}))).expect("runs");
    assert_eq!(called.content(), [Content::text("Empty")]);
    let refused = block_on(registry.call("shop.nothing", json!({"nothing": [1]})));
    assert!(
        matches!(refused, Err(CallError::InvalidArguments(_))),
        "{refused:?}"
    );
}

/// Takes single-precision numbers.
#[derive(Tool, Deserialize, Debug)]
#[tool(name = "lab.measure")]
pub struct Measure {
    #[tool(minimum = -1.0)]
    pub y: f32,
    pub big: f32,
}

impl Handler for Measure {
    async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::text(format!("{} {}", self.y, self.big)))
    }
}

/// The text path (`call_str`, `parse_args`) and the parsed-value path
/// (`call`) judge an `f32` alike, by the number sent, as the advertised
/// schema does; and serde's own output of `f32::MAX` passes both.
#[test]
fn both_reads_of_an_f32_agree_with_the_schema() {
    let mut registry = Registry::new();
    registry.register::<Measure>().expect("registers");
    let schema = toolschema::tool_json::<Measure>();
    let validator =
        jsonschema::draft202012::new(&schema["inputSchema"]).expect("the advertised schema");
    let written = serde_json::to_string(&f32::MAX).expect("serde writes it");
    for (text, valid) in [
        (format!(r#"{{"y": 0, "big": {written}}}"#), true),
        (format!(r#"{{"y": 0, "big": -{written}}}"#), true),
        (r#"{"y": -1, "big": 0}"#.to_owned(), true),
        (r#"{"y": -1.00000001, "big": 0}"#.to_owned(), false),
        (r#"{"y": 0, "big": 3.41e38}"#.to_owned(), false),
    ] {
        let value: Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(validator.is_valid(&value), valid, "the schema on {text}");
        let as_text = block_on(registry.call_str("lab.measure", &text));
        let as_value = block_on(registry.call("lab.measure", value));
        assert_eq!(as_text.is_ok(), valid, "call_str on {text}: {as_text:?}");
        assert_eq!(as_value.is_ok(), valid, "call on {text}: {as_value:?}");
        assert_eq!(
            parse_args::<Measure>(&text).is_ok(),
            valid,
            "parse_args on {text}"
        );
    }
}

/// A whole number, or a fraction.
#[derive(Schema, Deserialize, Debug, PartialEq)]
#[serde(untagged)]
pub enum IntOrFloat {
    /// Whole.
    I(u8),
    /// Any.
    F(f64),
}

fn some_five() -> Option<u8> {
    Some(5)
}

/// Reads a number two ways and a field with a default of its own.
#[derive(Tool, Deserialize, Debug)]
#[tool(name = "lab.read")]
pub struct ReadAsSerde {
    pub n: IntOrFloat,
    #[serde(default = "some_five")]
    pub c: Option<u8>,
    pub count: u8,
}

impl Handler for ReadAsSerde {
    async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::text(format!(
            "{:?} {:?} {}",
            self.n, self.c, self.count
        )))
    }
}

/// Every route reads a value as one: an untagged variant as serde chooses
/// it (`1.0` is the float's), a `null` for a field with a default of its
/// own as absent (its default), whatever an unrelated field holds (`2.0`
/// sends the call down the full path, `2` does not).
#[test]
fn every_route_reads_a_value_alike() {
    let mut registry = Registry::new();
    registry.register::<ReadAsSerde>().expect("registers");
    for count in ["2", "2.0"] {
        for (arguments, read) in [
            (r#""n": 1.0"#, "F(1.0) Some(5) 2"),
            (r#""n": 1"#, "I(1) Some(5) 2"),
            (r#""n": 1.5, "c": null"#, "F(1.5) Some(5) 2"),
            (r#""n": 300, "c": 7"#, "F(300.0) Some(7) 2"),
        ] {
            let text = format!(r#"{{{arguments}, "count": {count}}}"#);
            let value: Value = serde_json::from_str(&text).expect("JSON");
            let as_text = block_on(registry.call_str("lab.read", &text)).expect("reads");
            let as_value = block_on(registry.call("lab.read", value)).expect("reads");
            assert_eq!(
                as_text.content(),
                [Content::text(read)],
                "call_str on {text}"
            );
            assert_eq!(as_value.content(), [Content::text(read)], "call on {text}");
        }
    }
    // serde alone reads the untagged number so too.
    let n: IntOrFloat = serde_json::from_str("1.0").expect("reads");
    assert_eq!(n, IntOrFloat::F(1.0));
}

/// Why one is away.
#[derive(Schema, Deserialize, Debug)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Reason {
    /// Resting.
    Tired,
    /// Anything else, said.
    Other { note: String },
}

/// Where one goes, adjacently tagged.
#[derive(Schema, Deserialize, Debug)]
#[serde(tag = "t", content = "c", rename_all = "lowercase")]
pub enum Trip {
    /// Home.
    Home,
    /// Elsewhere, and how many days.
    Away { days: u8 },
}

/// Asks for leave.
#[derive(Tool, Deserialize, Debug)]
#[tool(name = "hr.leave")]
pub struct Leave {
    pub reason: Reason,
    pub trip: Trip,
}

impl Handler for Leave {
    async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::text(format!(
            "{:?} {:?}",
            self.reason, self.trip
        )))
    }
}

/// A tagged enum's refusal says what to send: the variant the tag names is
/// judged (its missing field named), and a tag no variant has is told
/// with the tags there are.
#[test]
fn a_tagged_enum_is_judged_by_the_variant_its_tag_names() {
    let mut registry = Registry::new();
    registry.register::<Leave>().expect("registers");
    let refusal = |arguments: Value| match block_on(registry.call("hr.leave", arguments)) {
        Err(CallError::InvalidArguments(errors)) => errors.to_string(),
        other => panic!("refused, not {other:?}"),
    };
    let home = json!({"t": "home"});
    let said = refusal(json!({"reason": {"kind": "other"}, "trip": home}));
    assert!(said.contains("`/reason/note` is required"), "{said}");
    let said = refusal(json!({"reason": {"kind": "bored"}, "trip": home}));
    assert!(
        said.contains(r#"`/reason/kind` must be one of: "tired", "other"."#),
        "{said}"
    );
    let said = refusal(json!({"reason": {"kind": "tired"}, "trip": {"t": "away", "c": {}}}));
    assert!(said.contains("`/trip/c/days` is required"), "{said}");
    let said = refusal(json!({"reason": {"kind": "tired"}, "trip": {"t": "abroad"}}));
    assert!(said.contains("`/trip/t` must be one of"), "{said}");
    assert!(!said.contains("allowed forms"), "{said}");
}

/// A number beyond a 64-bit float and a lone surrogate escape are JSON no
/// value can be read from: refused at their field, saying what to send.
#[test]
fn unreadable_json_is_refused_at_its_field() {
    let mut registry = Registry::new();
    registry.register::<Leave>().expect("registers");
    for (text, path, said) in [
        (
            r#"{"reason": {"kind": "other", "note": "x"}, "trip": {"t": "away", "c": {"days": 1e400}}}"#,
            "/trip/c/days",
            "`/trip/c/days` holds a number too large to read",
        ),
        (
            r#"{"reason": {"kind": "other", "note": "\ud800"}, "trip": {"t": "home"}}"#,
            "/reason/note",
            "`/reason/note` holds an escape that is no character",
        ),
        (r#"[1e400]"#, "/0", "`/0` holds a number too large to read"),
    ] {
        let Err(CallError::InvalidArguments(errors)) =
            block_on(registry.call_str("hr.leave", text))
        else {
            panic!("{text} is refused");
        };
        let violation = errors.iter().next().expect("one");
        assert_eq!(
            (violation.path(), violation.rule()),
            (path, Rule::InvalidJson),
            "{text}: {violation}"
        );
        assert!(
            violation.message().starts_with(said),
            "{}",
            violation.message()
        );
    }
}

/// A refinement on a field whose type is a type parameter: the derive cannot
/// see the type, so registration checks it once the parameter is known.
#[derive(Schema, Deserialize, Debug)]
pub struct Gen<T> {
    /// At most 300.
    #[tool(maximum = 300)]
    pub t: T,
}

/// Counts that fit in a byte.
#[derive(Tool, Deserialize, Debug)]
#[tool(name = "gen.byte")]
pub struct GenByte {
    /// The count.
    pub g: Gen<u8>,
}

/// Counts that fit in two bytes.
#[derive(Tool, Deserialize, Debug)]
#[tool(name = "gen.short")]
pub struct GenShort {
    /// The count.
    pub g: Vec<Gen<u16>>,
}

/// Text, where `maximum` means nothing.
#[derive(Tool, Deserialize, Debug)]
#[tool(name = "gen.text")]
pub struct GenText {
    /// The text.
    pub g: Option<Gen<String>>,
}

impl Handler for GenByte {
    async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::text("ok"))
    }
}
impl Handler for GenShort {
    async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::text("ok"))
    }
}
impl Handler for GenText {
    async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::text("ok"))
    }
}

#[test]
fn a_refinement_on_a_type_parameter_is_checked_once_the_parameter_is_known() {
    let mut registry = Registry::new();
    let refused = registry
        .register::<GenByte>()
        .map(|_| ())
        .expect_err("maximum 300 on a u8 widens what it reads");
    let RegistryError::InvalidSchema { name, problem } = &refused else {
        panic!("{refused}");
    };
    assert_eq!(&**name, "gen.byte");
    assert!(problem.starts_with("`Gen.t`: "), "{problem}");
    assert!(problem.contains("maximum"), "{problem}");
    let refused = registry
        .register::<GenText>()
        .map(|_| ())
        .expect_err("maximum on a string");
    assert!(refused.to_string().contains("`Gen.t`"), "{refused}");
    assert!(refused.to_string().contains("numbers"), "{refused}");
    // The same attribute on a type that reads up to 65,535 narrows it.
    registry
        .register::<GenShort>()
        .expect("maximum 300 on a u16");
    let names: Vec<&str> = registry.tools().map(|t| &*t.name).collect();
    assert_eq!(names, ["gen.short"]);
}
