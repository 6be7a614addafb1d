//! A source name that differs from its exposed name never reaches a client:
//! not in any projection, in any profile, nor in any error message.

use std::collections::BTreeSet;

use toolschema::model::{Node, Shape};
use toolschema::project::{Mode, project_tool};
use toolschema::project::{Profile, apply_profile};
use toolschema::{Tool, ToolDef};

use crate::calls::{PlaceOrder, cases};
use crate::corpus;

/// Source names that differ from their exposed names, reachable from `node`.
fn hidden_names(node: &Node, seen: &mut BTreeSet<String>, out: &mut BTreeSet<String>) {
    let fields = match node {
        Node::Optional(inner) => return hidden_names(inner, seen, out),
        Node::Array(array) => return hidden_names(&array.items, seen, out),
        Node::Map(map) => return hidden_names(&map.values, seen, out),
        Node::Tuple(items) | Node::AnyOf(items) => {
            items.iter().for_each(|n| hidden_names(n, seen, out));
            return;
        }
        Node::Object(object) => {
            if !seen.insert(object.info.type_name.to_string()) {
                return;
            }
            &object.fields
        }
        Node::Enum(enumeration) => {
            if !seen.insert(enumeration.info.type_name.to_string()) {
                return;
            }
            for variant in &enumeration.variants {
                match &variant.shape {
                    Shape::Struct(fields) => fields
                        .iter()
                        .for_each(|f| hidden_names(&f.schema, seen, out)),
                    Shape::Newtype(payload) => hidden_names(payload, seen, out),
                    Shape::Tuple(items) => items.iter().for_each(|n| hidden_names(n, seen, out)),
                    Shape::Unit => {}
                }
            }
            return;
        }
        _ => return,
    };
    for field in fields {
        if field.source != field.exposed {
            out.insert(field.source.to_string());
        }
        hidden_names(&field.schema, seen, out);
    }
}

fn tools() -> Vec<&'static ToolDef> {
    let mut tools: Vec<&'static ToolDef> =
        corpus::tool_defs().into_iter().map(|(_, t)| t).collect();
    tools.push(PlaceOrder::TOOL);
    tools
}

fn all_hidden() -> BTreeSet<String> {
    let mut hidden = BTreeSet::new();
    for tool in tools() {
        let mut seen = BTreeSet::new();
        hidden_names(&tool.input, &mut seen, &mut hidden);
        if let Some(output) = &tool.output {
            hidden_names(output, &mut seen, &mut hidden);
        }
    }
    hidden
}

/// Whether `name` stands in `text` as a whole word.
fn mentions(text: &str, name: &str) -> bool {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|word| word == name)
}

#[test]
fn the_scan_has_names_to_look_for() {
    let hidden = all_hidden();
    for name in [
        "customer_name",
        "product_code",
        "street_address",
        "user_id",
        "document_id",
    ] {
        assert!(hidden.contains(name), "{name} missing from {hidden:?}");
    }
}

#[test]
fn no_projection_shows_a_source_name() {
    let hidden = all_hidden();
    for tool in tools() {
        for mode in [Mode::Full, Mode::DataStructureOnly, Mode::Lazy] {
            for profile in Profile::ALL {
                let text = apply_profile(project_tool(tool, mode), profile).to_compact_string();
                for name in &hidden {
                    assert!(
                        !mentions(&text, name),
                        "{} {mode:?} {profile:?} shows `{name}`",
                        tool.name
                    );
                }
            }
        }
    }
}

#[test]
fn no_error_message_shows_a_source_name() {
    let hidden = all_hidden();
    let mut checked = 0;
    for case in cases() {
        let Err(errors) = (case.tool)(&case.payload) else {
            continue;
        };
        let text = format!("{errors}");
        for name in &hidden {
            // A name the client itself sent may be echoed back.
            if mentions(&case.payload, name) {
                continue;
            }
            assert!(
                !mentions(&text, name),
                "error for {} shows `{name}`: {text}",
                &case.payload[..case.payload.len().min(80)]
            );
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} checks");
}

#[test]
fn a_source_name_sent_is_told_the_exposed_name_it_stands_for() {
    use toolschema::validate::{InputValidator, Limits, Rule};

    let validator = InputValidator::new(PlaceOrder::TOOL, Limits::default());
    let text = r#"{"customer_name": "Ada", "contactEmail": "ada@example.com",
        "lineItems": [{"product_code": "A-1", "quantity": 1, "unitPriceCents": 5}],
        "priorty": "standard", "zz_unrelated": 1}"#;
    let value: serde_json::Value = serde_json::from_str(text).expect("JSON");
    // Every inbound path says the same: the text, and parsed arguments.
    let parsed = validator.parse::<PlaceOrder>(text).expect_err("refused");
    let read = validator
        .read::<PlaceOrder>(value.clone())
        .expect_err("refused");
    let checked = validator.check_value(value).expect_err("refused");
    assert_eq!(parsed, read);
    assert_eq!(parsed, checked);
    let unknown: Vec<(&str, &str)> = parsed
        .iter()
        .filter(|v| v.rule() == Rule::UnknownProperty)
        .map(|v| (v.path(), v.message()))
        .collect();
    let said = |path: &str| {
        unknown
            .iter()
            .find(|(at, _)| *at == path)
            .map(|(_, message)| *message)
            .unwrap_or_else(|| panic!("no violation at {path}: {parsed}"))
    };
    // The Rust name of a renamed field, at the top and inside an array.
    assert!(
        said("/customer_name").ends_with("did you mean `customerName`?"),
        "{parsed}"
    );
    assert!(
        said("/lineItems/0/product_code").ends_with("did you mean `sku`?"),
        "{parsed}"
    );
    // A misspelt exposed name.
    assert!(
        said("/priorty").ends_with("did you mean `priority`?"),
        "{parsed}"
    );
    // Nothing close: the usual advice.
    assert!(
        said("/zz_unrelated").ends_with("remove it or check its spelling."),
        "{parsed}"
    );
}
