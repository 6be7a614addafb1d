//! Projections of the corpus tools into the reduced discovery modes, and the
//! meta-tool: snapshots, MCP validity, and what each mode keeps and drops.

use crate::support::violations;
use serde_json::Value;
use toolschema::project::{HINT_FIELD, META_TOOL, Mode, meta_tool, project_tool};

use crate::corpus::{self, Entry};
use crate::snapshots::check;
use toolschema_test_support::spec_validator;

fn projections() -> Vec<(Mode, &'static str, Value, Value)> {
    let mut out = Vec::new();
    for (name, tool) in corpus::tool_defs() {
        let full = project_tool(tool, Mode::Full).to_value();
        for mode in [Mode::DataStructureOnly, Mode::Lazy] {
            out.push((
                mode,
                name,
                project_tool(tool, mode).to_value(),
                full.clone(),
            ));
        }
    }
    out
}

#[test]
fn projection_snapshots_match() {
    let mut entries = vec![Entry {
        name: "meta_tool",
        json: meta_tool(),
    }];
    for (name, tool) in corpus::tool_defs() {
        let dso: &'static str = Box::leak(format!("{name}.data_structure_only").into_boxed_str());
        let lazy: &'static str = Box::leak(format!("{name}.lazy").into_boxed_str());
        entries.push(Entry {
            name: dso,
            json: project_tool(tool, Mode::DataStructureOnly),
        });
        entries.push(Entry {
            name: lazy,
            json: project_tool(tool, Mode::Lazy),
        });
    }
    check(entries);
}

#[test]
fn every_projection_is_a_valid_mcp_tool() {
    for version in ["2025-11-25", "2026-07-28"] {
        let validator = spec_validator(version, "Tool");
        let meta = meta_tool().to_value();
        assert!(
            validator.is_valid(&meta),
            "meta-tool is not an MCP {version} Tool"
        );
        for (mode, name, tool, _) in projections() {
            let errors = violations(&validator, &tool);
            assert!(
                errors.is_empty(),
                "{name} in {mode:?} is not an MCP {version} Tool: {errors:#?}"
            );
            let mut input = tool["inputSchema"].clone();
            input["$schema"] = "https://json-schema.org/draft/2020-12/schema".into();
            assert!(
                jsonschema::meta::is_valid(&input),
                "{name} in {mode:?}: bad inputSchema"
            );
        }
    }
}

/// Every value of `key` anywhere in `schema`'s keywords (not under property
/// names).
fn keyword_values<'a>(schema: &'a Value, key: &str, out: &mut Vec<&'a Value>) {
    let Some(object) = schema.as_object() else {
        return;
    };
    for (k, v) in object {
        if k == key {
            out.push(v);
        }
        match k.as_str() {
            "properties" | "$defs" => {
                for sub in v.as_object().into_iter().flat_map(|m| m.values()) {
                    keyword_values(sub, key, out);
                }
            }
            "prefixItems" | "oneOf" | "anyOf" => {
                for sub in v.as_array().into_iter().flatten() {
                    keyword_values(sub, key, out);
                }
            }
            "items" | "additionalProperties" => keyword_values(v, key, out),
            _ => {}
        }
    }
}

#[test]
fn data_structure_only_keeps_structure_and_drops_documentation() {
    for (mode, name, tool, full) in projections() {
        if mode != Mode::DataStructureOnly {
            continue;
        }
        assert_eq!(
            tool["description"], full["description"],
            "{name}: tool description kept"
        );
        for schema_key in ["inputSchema", "outputSchema"] {
            let (reduced, whole) = (&tool[schema_key], &full[schema_key]);
            if whole.is_null() {
                assert!(reduced.is_null());
                continue;
            }
            for dropped in [
                "format", "pattern", "minimum", "maximum", "examples", "default", "title",
            ] {
                let mut found = Vec::new();
                keyword_values(reduced, dropped, &mut found);
                assert!(found.is_empty(), "{name}.{schema_key} keeps `{dropped}`");
            }
            let mut descriptions = Vec::new();
            keyword_values(reduced, "description", &mut descriptions);
            let allowed = usize::from(schema_key == "inputSchema");
            assert_eq!(
                descriptions.len(),
                allowed,
                "{name}.{schema_key}: only the hint is described"
            );
            // Names, nesting, arrays and required flags are all kept.
            let names = |schema: &Value| {
                let mut found = Vec::new();
                keyword_values(schema, "properties", &mut found);
                let mut names: Vec<String> = found
                    .iter()
                    .flat_map(|p| p.as_object().into_iter().flat_map(|o| o.keys().cloned()))
                    .filter(|n| n != HINT_FIELD)
                    .collect();
                names.sort();
                names
            };
            assert_eq!(
                names(reduced),
                names(whole),
                "{name}.{schema_key}: property names"
            );
            for kept in ["required", "$ref", "type"] {
                let (mut a, mut b) = (Vec::new(), Vec::new());
                keyword_values(reduced, kept, &mut a);
                keyword_values(whole, kept, &mut b);
                if schema_key == "inputSchema" && kept == "type" {
                    // The hint property adds one `type: string`.
                    assert_eq!(a.len(), b.len() + 1, "{name}.{schema_key}: `type` count");
                } else {
                    assert_eq!(a, b, "{name}.{schema_key}: `{kept}` differs");
                }
            }
            let (mut a, mut b) = (Vec::new(), Vec::new());
            keyword_values(reduced, "items", &mut a);
            keyword_values(whole, "items", &mut b);
            assert_eq!(a.len(), b.len(), "{name}.{schema_key}: arrays");
        }
        // The hint says to fetch the schema with the meta-tool; it stands
        // in the tool's own entry, so it need not repeat the tool's name.
        assert!(
            tool["inputSchema"]["properties"][HINT_FIELD]["description"]
                .as_str()
                .is_some_and(|d| d.starts_with("Not an argument.") && d.contains(META_TOOL))
        );
        let required = tool["inputSchema"]["required"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert!(
            !required.contains(&HINT_FIELD.into()),
            "{name}: the hint is optional"
        );
    }
}

#[test]
fn lazy_shows_only_the_hint() {
    for (mode, name, tool, full) in projections() {
        if mode != Mode::Lazy {
            continue;
        }
        assert_eq!(
            tool["description"], full["description"],
            "{name}: tool description kept"
        );
        assert_eq!(tool["name"], full["name"]);
        let properties = tool["inputSchema"]["properties"]
            .as_object()
            .expect("properties");
        assert_eq!(properties.keys().collect::<Vec<_>>(), vec![HINT_FIELD]);
        assert!(tool["inputSchema"].get("required").is_none());
        assert!(
            tool["inputSchema"].get("additionalProperties").is_none(),
            "{name}: others allowed"
        );
        assert!(
            tool.get("outputSchema").is_none(),
            "{name}: no output schema"
        );
        assert_eq!(tool["annotations"], full["annotations"]);
    }
}
