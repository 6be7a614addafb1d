//! Dialect profiles: every projection of every corpus tool, in every profile,
//! obeys its provider's rules (written down here as data, apart from the
//! implementation), stays a valid MCP `Tool`, and is snapshotted.

use crate::support::violations;
use serde_json::{Value, json};
use toolschema::project::{Mode, project_tool};
use toolschema::project::{Profile, apply_profile};
use toolschema::{Tool, tool_json_as};

use crate::calls::{PlaceOrder, valid_order};
use crate::corpus::{self, Entry};
use crate::input_schema::BookRoom;
use crate::snapshots::check;
use toolschema::call::Registry;
use toolschema_test_support::block_on;
use toolschema_test_support::spec_validator;

/// What one provider accepts in a schema.
struct Rules {
    profile: Profile,
    /// Keywords that may appear in a schema object.
    keywords: &'static [&'static str],
    /// String formats that may appear.
    formats: &'static [&'static str],
    /// Every object lists all its properties as required, and is closed
    /// unless the tool leaves it open (a map's values, a Lazy tool's
    /// arguments): those stay open, or real calls would be refused.
    closed_objects: bool,
    /// `type` is one string, never a list.
    single_type: bool,
}

const RULES: &[Rules] = &[
    Rules {
        profile: Profile::OpenAiStrict,
        keywords: &[
            "type",
            "properties",
            "required",
            "additionalProperties",
            "items",
            "enum",
            "const",
            "anyOf",
            "$ref",
            "$defs",
            "description",
            "title",
            "pattern",
            "format",
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "minItems",
            "maxItems",
        ],
        formats: &[
            "date-time",
            "time",
            "date",
            "duration",
            "email",
            "hostname",
            "ipv4",
            "ipv6",
            "uuid",
        ],
        closed_objects: true,
        single_type: false,
    },
    Rules {
        profile: Profile::Gemini,
        keywords: &[
            "type",
            "format",
            "title",
            "description",
            "nullable",
            "enum",
            "properties",
            "required",
            "items",
            "minItems",
            "maxItems",
            "minLength",
            "maxLength",
            "pattern",
            "minimum",
            "maximum",
            "anyOf",
            "default",
        ],
        formats: &["date-time", "enum"],
        closed_objects: false,
        single_type: true,
    },
];

/// Checks one schema object and everything under it against `rules`.
fn obey(rules: &Rules, schema: &Value, at: &str, problems: &mut Vec<String>) {
    let Some(object) = schema.as_object() else {
        return;
    };
    for key in object.keys() {
        if !rules.keywords.contains(&key.as_str()) {
            problems.push(format!("{at}: keyword `{key}`"));
        }
    }
    if let Some(format) = object.get("format").and_then(Value::as_str)
        && !rules.formats.contains(&format)
    {
        problems.push(format!("{at}: format `{format}`"));
    }
    if rules.single_type && object.get("type").is_some_and(|t| !t.is_string()) {
        problems.push(format!("{at}: `type` is not one string"));
    }
    if let Some(Value::Array(values)) = object.get("enum")
        && rules.profile == Profile::Gemini
        && !values.iter().all(Value::is_string)
    {
        problems.push(format!("{at}: enum of non-strings"));
    }
    let is_object = object.get("type").and_then(Value::as_str) == Some("object")
        || object.contains_key("properties");
    if rules.closed_objects && is_object {
        if object.get("additionalProperties") == Some(&Value::Bool(true)) {
            problems.push(format!(
                "{at}: `additionalProperties: true` instead of leaving it out"
            ));
        }
        let names: Vec<&String> = object
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().collect())
            .unwrap_or_default();
        let required: Vec<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if names.iter().any(|n| !required.contains(&n.as_str())) {
            problems.push(format!("{at}: not every property is required"));
        }
    }
    let mut visit = |sub: &Value, key: String| obey(rules, sub, &format!("{at}/{key}"), problems);
    for key in ["properties", "$defs"] {
        for (name, sub) in object
            .get(key)
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            visit(sub, format!("{key}/{name}"));
        }
    }
    for key in ["anyOf", "oneOf", "prefixItems"] {
        for (i, sub) in object
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            visit(sub, format!("{key}/{i}"));
        }
    }
    for key in ["items", "additionalProperties", "not"] {
        if let Some(sub) = object.get(key).filter(|s| s.is_object()) {
            visit(sub, key.to_owned());
        }
    }
}

const MODES: [(Mode, &str); 4] = [
    (Mode::Full, "full"),
    (Mode::DataStructureOnly, "data_structure_only"),
    (Mode::Lazy, "lazy"),
    (Mode::Search, "search"),
];

#[test]
fn every_profile_output_obeys_its_provider() {
    let mut tools = corpus::tool_defs();
    tools.push(("shop_place_order", PlaceOrder::TOOL));
    for rules in RULES {
        for (name, tool) in &tools {
            for (mode, mode_name) in MODES {
                let json = apply_profile(project_tool(tool, mode), rules.profile).to_value();
                let mut problems = Vec::new();
                obey(rules, &json["inputSchema"], "inputSchema", &mut problems);
                // Output schemas stay as rendered: results must conform to them.
                let default = project_tool(tool, mode).to_value();
                if json.get("outputSchema") != default.get("outputSchema") {
                    problems.push("outputSchema changed".to_owned());
                }
                assert!(
                    problems.is_empty(),
                    "{name} {mode_name} {}: {problems:#?}",
                    rules.profile.name()
                );
            }
        }
    }
}

#[test]
fn every_profile_output_is_a_valid_mcp_tool() {
    let validators = [
        spec_validator("2025-11-25", "Tool"),
        spec_validator("2026-07-28", "Tool"),
    ];
    for (name, tool) in corpus::tool_defs() {
        for profile in Profile::ALL {
            for (mode, mode_name) in MODES {
                let json = apply_profile(project_tool(tool, mode), profile).to_value();
                for validator in &validators {
                    let errors = violations(validator, &json);
                    assert!(
                        errors.is_empty(),
                        "{name} {mode_name} {}: {errors:#?}",
                        profile.name()
                    );
                }
                let mut input = json["inputSchema"].clone();
                input["$schema"] = "https://json-schema.org/draft/2020-12/schema".into();
                assert!(
                    jsonschema::meta::is_valid(&input),
                    "{name} {mode_name} {}",
                    profile.name()
                );
            }
        }
    }
}

#[test]
fn profile_snapshots_match() {
    let mut entries = Vec::new();
    for (name, tool) in corpus::tool_defs() {
        for profile in [Profile::OpenAiStrict, Profile::Gemini] {
            // Search mode projects as Lazy (it is not listed): not
            // snapshotted twice.
            for (mode, mode_name) in &MODES[..3] {
                let (mode, mode_name) = (*mode, *mode_name);
                let file: &'static str =
                    Box::leak(format!("{name}.{mode_name}.{}", profile.name()).into_boxed_str());
                entries.push(Entry {
                    name: file,
                    json: apply_profile(project_tool(tool, mode), profile),
                });
            }
        }
    }
    check(entries);
}

#[test]
fn the_default_profile_changes_nothing() {
    for (_, tool) in corpus::tool_defs() {
        for (mode, _) in MODES {
            assert_eq!(
                apply_profile(project_tool(tool, mode), Profile::Default),
                project_tool(tool, mode)
            );
        }
    }
}

/// Fills every property a strict client must send: absent optional ones as
/// `null`, through nesting.
fn fill_nulls(value: &mut Value, schema: &Value) {
    match (value, schema.as_object()) {
        (Value::Object(map), Some(schema)) => {
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            for (name, sub) in properties {
                let entry = map.entry(name.clone()).or_insert(Value::Null);
                fill_nulls(entry, sub);
            }
        }
        (Value::Array(items), Some(schema)) => {
            if let Some(sub) = schema.get("items") {
                items.iter_mut().for_each(|item| fill_nulls(item, sub));
            }
        }
        _ => {}
    }
}

#[test]
fn what_a_strict_client_sends_is_accepted() {
    let strict = tool_json_as::<PlaceOrder>(Mode::Full, Profile::OpenAiStrict);
    let schema = &strict["inputSchema"];
    let mut payload = valid_order();
    payload["lineItems"] = json!([{"sku": "A", "quantity": 1, "unit_price_cents": 1}]);
    fill_nulls(&mut payload, schema);
    assert!(
        payload["delivery"].is_null() && payload["giftWrap"].is_null(),
        "{payload}"
    );
    let validator = jsonschema::draft202012::new(schema).expect("strict schema compiles");
    assert!(
        validator.is_valid(&payload),
        "the strict schema refuses {payload}"
    );
    let order: PlaceOrder = toolschema::parse_args(&payload.to_string()).expect("accepted");
    assert_eq!(order.delivery, None);
    assert!(!order.gift_wrap);
}

#[test]
fn what_a_strict_client_sends_to_a_hand_written_schema_is_accepted() {
    let strict = tool_json_as::<BookRoom>(Mode::Full, Profile::OpenAiStrict);
    let schema = &strict["inputSchema"];
    let mut payload = json!({"room": "B204", "guests": 2, "dates": ["2026-12-01", "2026-12-03"]});
    fill_nulls(&mut payload, schema);
    assert!(payload["phone"].is_null(), "{payload}");
    let validator = jsonschema::draft202012::new(schema).expect("strict schema compiles");
    assert!(
        validator.is_valid(&payload),
        "the strict schema refuses {payload}"
    );
    let mut registry = Registry::new();
    registry.register::<BookRoom>().expect("registers");
    let booked = block_on(registry.call("hotel.book", payload)).expect("the null means absent");
    assert!(format!("{:?}", booked.content()).contains("no phone"));
    // A null the file accepts is not taken for an absent property.
    let required_null = block_on(registry.call(
        "hotel.book",
        json!({"room": null, "guests": 2, "dates": ["2026-12-01", "2026-12-03"]}),
    ));
    assert!(required_null.is_err(), "{required_null:?}");
}

#[test]
fn gemini_inlines_recursion_with_a_placeholder() {
    let gemini = tool_json_as::<corpus::Evaluate>(Mode::Full, Profile::Gemini);
    let text = gemini["inputSchema"].to_string();
    assert!(!text.contains("$ref") && !text.contains("$defs"), "{text}");
    assert!(text.contains("recursive"), "{text}");
}

/// A valid call of each demo tool version, by name and version.
fn demo_calls() -> Vec<(&'static str, u32, Value)> {
    const PAID: &str = "0c1e55aa-0000-4000-8000-000000000001";
    vec![
        ("billing.close-period", 1, json!({"period": "2026-11"})),
        (
            "billing.get-invoice",
            1,
            json!({"invoice_id": PAID, "include_items": true}),
        ),
        (
            "billing.list-invoices",
            1,
            json!({"customer": "cust-42", "status": "paid"}),
        ),
        ("billing.open-balances", 1, json!({"limit": 5})),
        (
            "billing.refund",
            1,
            json!({"invoice_id": PAID, "amount": "10.00"}),
        ),
        (
            "billing.refund",
            2,
            json!({"invoice_id": PAID, "amount": "10.00", "reason": "late"}),
        ),
        ("billing.statement-chart", 1, json!({"customer": "cust-42"})),
        (
            "billing.void-invoice",
            1,
            json!({"invoiceId": PAID, "reason": "duplicate"}),
        ),
        ("internal.reindex", 1, json!({"full": true})),
        (
            "support.open-ticket",
            1,
            json!({"subject": "Printer", "body": "It jams.", "priority": "urgent"}),
        ),
        ("support.search-tickets", 1, json!({"query": "printer"})),
    ]
}

#[test]
fn every_advertised_schema_accepts_a_valid_call() {
    let registry = toolschema_demo::registry();
    let calls = demo_calls();
    let registered: Vec<(&str, u32)> = registry.tools().map(|d| (&*d.name, d.version)).collect();
    assert_eq!(
        registered,
        calls.iter().map(|(n, v, _)| (*n, *v)).collect::<Vec<_>>(),
        "a sample call for every demo tool version"
    );
    for (name, version, arguments) in calls {
        let def = registry.get(name, version).expect("registered");
        for profile in Profile::ALL {
            for (mode, mode_name) in MODES {
                let advertised = apply_profile(project_tool(def, mode), profile).to_value();
                let schema = &advertised["inputSchema"];
                // What a client of the profile sends: a strict client sends
                // every property, the absent ones as null.
                let mut sent = arguments.clone();
                if profile == Profile::OpenAiStrict {
                    fill_nulls(&mut sent, schema);
                }
                let validator =
                    jsonschema::draft202012::new(schema).expect("advertised schema compiles");
                let errors = violations(&validator, &sent);
                assert!(
                    errors.is_empty(),
                    "{name} v{version} {mode_name} {}: the advertised schema refuses {sent}: {errors:#?}\n{schema:#}",
                    profile.name()
                );
                let result =
                    crate::calls::block_on(registry.call_version(name, version, sent.clone()));
                assert!(
                    !matches!(
                        result,
                        Err(toolschema::call::CallError::InvalidArguments(_))
                    ),
                    "{name} v{version} {mode_name} {}: the server refuses {sent}: {result:?}",
                    profile.name()
                );
            }
        }
    }
}

#[test]
fn every_meta_tool_obeys_every_provider_and_is_a_valid_mcp_tool() {
    use toolschema::project::{meta_tool, meta_tool_with_names, search_tool};
    let validators: Vec<_> = ["2025-06-18", "2025-11-25", "2026-07-28"]
        .into_iter()
        .map(|version| (version, spec_validator(version, "Tool")))
        .collect();
    for meta in [meta_tool(), meta_tool_with_names(), search_tool()] {
        let name = meta.to_value()["name"].clone();
        for rules in RULES {
            let json = apply_profile(meta.clone(), rules.profile).to_value();
            let mut problems = Vec::new();
            obey(rules, &json["inputSchema"], "inputSchema", &mut problems);
            assert!(
                problems.is_empty(),
                "{name} {}: {problems:#?}",
                rules.profile.name()
            );
        }
        for profile in Profile::ALL {
            let json = apply_profile(meta.clone(), profile).to_value();
            for (version, validator) in &validators {
                let errors = violations(validator, &json);
                assert!(
                    errors.is_empty(),
                    "{name} {version} {}: {errors:#?}",
                    profile.name()
                );
            }
            for schema in ["inputSchema", "outputSchema"] {
                let mut schema = json[schema].clone();
                schema["$schema"] = "https://json-schema.org/draft/2020-12/schema".into();
                assert!(
                    jsonschema::meta::is_valid(&schema),
                    "{name} {}",
                    profile.name()
                );
            }
        }
    }
}
