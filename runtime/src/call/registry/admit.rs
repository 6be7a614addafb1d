//! What registration checks of a descriptor before it is served: a
//! hand-written schema stands at the input root and compiles, the defaults
//! it advertises are serde's, and every refinement suits the type it
//! refines, also where that type is a type parameter, which the derive's
//! compile-time checks cannot see.

use core::ops::ControlFlow;

use serde_json::Value;

use super::RegistryError;
use crate::model::walk::{Visit, field_lists, has_nested_raw, type_info, walk};
use crate::model::{Direction, Node, SerdeDefault, ToolDef};
use crate::render::Json;
use toolschema_schema::checks::check_refine;

/// A hand-written input schema stands at the input root and compiles.
pub(super) fn check_raw(
    def: &ToolDef,
    input: &Node,
    output: Option<&Node>,
) -> Result<(), RegistryError> {
    let invalid = |problem: String| RegistryError::InvalidSchema {
        name: def.name.clone(),
        problem,
    };
    let nested = has_nested_raw(input, Direction::Input)
        || output.is_some_and(|root| {
            matches!(root, Node::Raw(_)) || has_nested_raw(root, Direction::Output)
        });
    if nested {
        return Err(invalid(
            "a type with `#[tool(input_schema)]` is used inside another schema, where its `$ref`s would not resolve; use it only as a tool's arguments".to_owned(),
        ));
    }
    if let Node::Raw(_) = input {
        crate::validate::compile_input(def)
            .map_err(|error| invalid(format!("its input schema does not compile: {error}")))?;
    }
    Ok(())
}

/// How deep registration follows nested types' defaults (a type may
/// contain itself).
const DEFAULTS_DEPTH: usize = 16;

/// The first field under `node` (at `path`) whose advertised default is
/// not serde's, among `defaults`.
fn disagreeing_default(
    def: &ToolDef,
    node: &Node,
    defaults: &[SerdeDefault],
    path: &str,
    depth: usize,
) -> Result<(), RegistryError> {
    if defaults.is_empty() || depth > DEFAULTS_DEPTH {
        return Ok(());
    }
    let mut fields = Vec::new();
    object_fields(node, &mut fields);
    let find = |exposed: &str| fields.iter().find(|field| *field.exposed == *exposed);
    for default in defaults {
        match *default {
            SerdeDefault::Field { exposed, value } => {
                let (Some(field), Some(serde)) = (find(exposed), value()) else {
                    continue;
                };
                let Some(advertised) = &field.default else {
                    continue;
                };
                let advertised = Json::from(advertised).to_value();
                if !same_json(&advertised, &serde) {
                    return Err(RegistryError::DefaultDisagrees {
                        name: def.name.clone(),
                        field: format!("{path}/{exposed}"),
                        advertised: advertised.to_string(),
                        serde: serde.to_string(),
                    });
                }
            }
            SerdeDefault::Within { exposed, defaults } => {
                if let Some(field) = find(exposed) {
                    let path = format!("{path}/{exposed}");
                    disagreeing_default(def, &field.schema, defaults(), &path, depth + 1)?;
                }
            }
        }
    }
    Ok(())
}

/// The members of the object `node` is (through options and flattened
/// fields).
fn object_fields<'n>(node: &'n Node, out: &mut Vec<&'n crate::model::Field>) {
    match node {
        Node::Optional(inner) => object_fields(inner, out),
        Node::Object(object) => {
            for field in object.fields.iter() {
                match field.flatten {
                    true => object_fields(&field.schema, out),
                    false => out.push(field),
                }
            }
        }
        _ => {}
    }
}

/// JSON equality with numbers compared by value (`20` and `20.0` agree).
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x == y,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, x)| y.get(key).is_some_and(|y| same_json(x, y)))
        }
        _ => a == b,
    }
}

/// What registration checks of a derived tool beyond its descriptor: its
/// advertised defaults are serde's (`defaults`), and its refinements suit
/// their types.
pub(super) fn derived(def: &ToolDef, defaults: &[SerdeDefault]) -> Result<(), RegistryError> {
    disagreeing_default(def, &def.input, defaults, "", 0)?;
    let output = def.output.as_deref().map(|root| (root, Direction::Output));
    let found = [Some((&*def.input, Direction::Input)), output]
        .into_iter()
        .flatten()
        .find_map(|(root, direction)| unsuited_refinement(root, direction));
    match found {
        Some((type_name, field, problem)) => Err(RegistryError::InvalidSchema {
            name: def.name.clone(),
            problem: format!("`{type_name}.{field}`: {problem}"),
        }),
        None => Ok(()),
    }
}

/// The first refinement under `root` (in `direction`) that does not suit
/// its field's type, as `(the type's name, the field, the problem)`. The
/// derive refuses these at compile time for a field of a named type; a
/// field whose type is a type parameter is known only once the parameter
/// is (`Gen<u8>` with `#[tool(maximum = 300)] t: T`).
fn unsuited_refinement(root: &Node, direction: Direction) -> Option<(&str, &str, String)> {
    struct Unsuited<'a> {
        found: Option<(&'a str, &'a str, String)>,
    }
    impl<'a> Visit<'a> for Unsuited<'a> {
        fn node(&mut self, node: &'a Node) -> ControlFlow<()> {
            let Some(info) = type_info(node) else {
                return ControlFlow::Continue(());
            };
            for field in field_lists(node).flatten() {
                if let Some(problem) = check_refine(&field.schema, &field.refine) {
                    self.found = Some((&info.name, &field.exposed, problem.as_str().to_owned()));
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        }
    }
    let mut unsuited = Unsuited { found: None };
    walk(root, direction, &mut unsuited);
    unsuited.found
}
