//! A plan built from the schema model: each place a value can stand
//! becomes a slot, shared object types are planned once, and how deep the
//! arguments can nest is worked out.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::Value;

use super::{
    Errors, Kind, MAX_MEMBERS, Member, Name, Object, Plain, Plan, Slot, StringCheck, compile,
    says_only,
};
use crate::model::{Additional, Direction, Field, Node, Number, Presence, Refine, members};

impl Plan {
    /// Builds the plan of `root`, the input node of a tool, whose Full
    /// schema is `schema`. `None` when a string check does not compile (the
    /// full path then reports it).
    pub(crate) fn compile(root: &Node, schema: &Value) -> Option<Plan> {
        let mut builder = Builder {
            plan: Plan {
                slots: Vec::new(),
                objects: Vec::new(),
                strings: Vec::new(),
                enums: Vec::new(),
                depth: None,
                errors: None,
            },
            objects: HashMap::new(),
            pointers: Vec::new(),
        };
        builder.slot(root, None, String::new())?;
        let pointers = builder.pointers;
        let mut plan = builder.plan;
        let mut depths = vec![Depth::Unknown; plan.objects.len()];
        plan.depth = plan.depth_of(0, &mut depths);
        if plan.lists_as_schema(schema, &pointers) {
            let plain = pointers
                .iter()
                .zip(&plan.slots)
                .map(|(pointer, slot)| match slot.kind {
                    Kind::Null
                    | Kind::Bool
                    | Kind::Integer { .. }
                    | Kind::Number { .. }
                    | Kind::String { .. }
                    | Kind::Enum(_) => Plain::read(schema.pointer(pointer)?.as_object()?),
                    _ => None,
                })
                .collect();
            plan.errors = Some(Errors {
                schema: schema.to_string().into(),
                validators: pointers.iter().map(|_| OnceLock::new()).collect(),
                pointers,
                plain,
            });
        }
        Some(plan)
    }

    /// Whether violations can be listed slot by slot exactly as the full
    /// path lists them: no slot's schema is reached through a `$ref`, and
    /// every array, map, object and open slot says no more than the plan
    /// knows (scalars' own schemas list their violations themselves).
    fn lists_as_schema(&self, schema: &Value, pointers: &[Box<str>]) -> bool {
        if schema.get("$defs").is_some() {
            return false;
        }
        self.slots.iter().zip(pointers).all(|(slot, pointer)| {
            let Some(sub) = schema.pointer(pointer).and_then(Value::as_object) else {
                return false;
            };
            if sub.contains_key("$ref") {
                return false;
            }
            let count = |key: &str, default: u64| sub.get(key).map_or(Some(default), Value::as_u64);
            match slot.kind {
                Kind::Any => says_only(sub, &[]),
                Kind::Array { min, max, .. } => {
                    says_only(sub, &["type", "items", "minItems", "maxItems"])
                        && sub.get("type") == Some(&Value::from("array"))
                        && count("minItems", 0) == Some(min)
                        && count("maxItems", u64::MAX) == Some(max)
                }
                Kind::Map { .. } => {
                    says_only(sub, &["type", "additionalProperties"])
                        && sub.get("type") == Some(&Value::from("object"))
                }
                Kind::Object(index) => {
                    let object = &self.objects[index as usize];
                    let listed = |key: &str| sub.get(key).and_then(Value::as_array);
                    let properties = sub.get("properties").and_then(Value::as_object);
                    let required: Vec<&str> = object
                        .members
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| object.required & (1 << i) != 0)
                        .map(|(_, member)| &*member.exposed.text)
                        .collect();
                    says_only(
                        sub,
                        &["type", "properties", "required", "additionalProperties"],
                    ) && sub.get("type") == Some(&Value::from("object"))
                        && sub.get("additionalProperties") == Some(&Value::Bool(false))
                        && properties.is_some_and(|p| {
                            p.len() == object.members.len()
                                && object
                                    .members
                                    .iter()
                                    .all(|m| p.contains_key(&*m.exposed.text))
                        })
                        && listed("required").map_or(required.is_empty(), |names| {
                            names.len() == required.len()
                                && names
                                    .iter()
                                    .all(|n| n.as_str().is_some_and(|n| required.contains(&n)))
                        })
                }
                _ => true,
            }
        })
    }

    /// Whether every argument object this plan accepts nests at most `max`
    /// levels, so the bytes need no nesting scan before the pass.
    pub(crate) fn bounds_depth(&self, max: usize) -> bool {
        self.depth.is_some_and(|depth| depth <= max)
    }

    fn depth_of(&self, slot: u32, depths: &mut [Depth]) -> Option<usize> {
        match self.slots[slot as usize].kind {
            Kind::Any => None,
            Kind::Array { items, .. } => Some(self.depth_of(items, depths)? + 1),
            Kind::Map { values } => Some(self.depth_of(values, depths)? + 1),
            Kind::Object(index) => {
                let index = index as usize;
                match depths[index] {
                    Depth::Known(depth) => return depth,
                    // A cycle: an object inside itself nests without bound.
                    Depth::Visiting => return None,
                    Depth::Unknown => {}
                }
                depths[index] = Depth::Visiting;
                let mut deepest = Some(0);
                for member in &self.objects[index].members {
                    deepest = match (deepest, self.depth_of(member.slot, depths)) {
                        (Some(a), Some(b)) => Some(a.max(b)),
                        _ => None,
                    };
                }
                let depth = deepest.map(|d| d + 1);
                depths[index] = Depth::Known(depth);
                depth
            }
            _ => Some(0),
        }
    }
}

#[derive(Clone, Copy)]
enum Depth {
    Unknown,
    Visiting,
    Known(Option<usize>),
}

struct Builder {
    plan: Plan,
    /// Objects already planned, by the address of their field list: shared
    /// types are planned once, and recursion ends.
    objects: HashMap<usize, u32>,
    /// Each slot's place in the rendered schema, as a JSON pointer.
    pointers: Vec<Box<str>>,
}

impl Builder {
    /// Adds the slot of `node` (held by `field`, if any), rendered at
    /// `pointer` in the schema, and returns its index.
    fn slot(&mut self, node: &Node, field: Option<&Field>, pointer: String) -> Option<u32> {
        let index = self.plan.slots.len() as u32;
        self.pointers.push(pointer.as_str().into());
        // A `null` for a field that may be absent means "absent": the full
        // path removes it and serde gives the field its default. Handed to
        // serde, a `null` reads as `None`, which is that default only for an
        // `Option` without a default of its own (`#[serde(default = …)]`
        // may say `Some(5)`): such a field's `null` goes to the full path.
        let defaulted_option =
            |f: &Field| f.presence == Presence::Optional && matches!(node, Node::Optional(_));
        let null = field.is_some_and(|f| !(f.is_required() || defaulted_option(f)))
            || matches!(node, Node::Any | Node::Null);
        self.plan.slots.push(Slot {
            kind: Kind::Refuse,
            null,
        });
        let kind = self.kind(node.unwrap_optional(), field, &pointer)?;
        self.plan.slots[index as usize].kind = kind;
        Some(index)
    }

    fn kind(&mut self, node: &Node, field: Option<&Field>, pointer: &str) -> Option<Kind> {
        let refine = field.map_or(&Refine::NONE, |f| &f.refine);
        Some(match node {
            Node::Any => Kind::Any,
            Node::Null => Kind::Null,
            Node::Boolean => Kind::Bool,
            Node::Integer(integer) => {
                let (Some((min_a, max_a)), Some((min_b, max_b))) = (
                    integer_range(integer.minimum, integer.maximum),
                    integer_range(refine.minimum, refine.maximum),
                ) else {
                    return Some(Kind::Refuse);
                };
                Kind::Integer {
                    min: min_a.max(min_b),
                    max: max_a.min(max_b),
                    nonzero: integer.nonzero,
                }
            }
            Node::Number(number) => Kind::Number {
                min: tighter(number.minimum, refine.minimum, |a, b| b.is_less_than(a)),
                max: tighter(number.maximum, refine.maximum, Number::is_less_than),
            },
            Node::String(string) => {
                let format = refine.format.as_deref().or(string.format.as_deref());
                let pattern = refine.pattern.as_deref().or(string.pattern.as_deref());
                let check = match (format, pattern) {
                    (None, None) => None,
                    _ => Some(self.string_check(format, pattern)?),
                };
                Kind::String {
                    min: refine.min_length.or(string.min_length).unwrap_or(0),
                    max: refine.max_length.or(string.max_length).unwrap_or(u64::MAX),
                    check,
                }
            }
            Node::Enum(enumeration) if enumeration.is_string_enum() => {
                let names = enumeration.variants.iter().map(|v| (*v.name).into());
                self.plan.enums.push(names.collect());
                Kind::Enum(self.plan.enums.len() as u32 - 1)
            }
            Node::Array(array) if !array.unique_items => {
                let items = self.slot(&array.items, None, format!("{pointer}/items"))?;
                Kind::Array {
                    items,
                    min: refine.min_items.or(array.min_items).unwrap_or(0),
                    max: refine.max_items.or(array.max_items).unwrap_or(u64::MAX),
                }
            }
            Node::Map(map) => Kind::Map {
                values: self.slot(&map.values, None, format!("{pointer}/additionalProperties"))?,
            },
            Node::Object(object)
                if matches!(object.additional, Additional::Deny)
                    && !object.fields.iter().any(|f| f.flatten) =>
            {
                let address = object.fields.as_ptr() as usize;
                if let Some(&index) = self.objects.get(&address) {
                    return Some(Kind::Object(index));
                }
                let fields = members(&object.fields, Direction::Input);
                if fields.len() > MAX_MEMBERS {
                    return Some(Kind::Refuse);
                }
                let index = self.plan.objects.len() as u32;
                self.objects.insert(address, index);
                self.plan.objects.push(Object::new(Vec::new(), 0));
                let mut planned = Vec::with_capacity(fields.len());
                let mut required = 0u64;
                for (i, member) in fields.iter().enumerate() {
                    if member.is_required(Direction::Input) {
                        required |= 1 << i;
                    }
                    let field = member.field;
                    let slot = self.slot(
                        &field.schema,
                        Some(field),
                        format!("{pointer}/properties/{}", escaped(&field.exposed)),
                    )?;
                    planned.push(Member {
                        exposed: Name::new(&field.exposed),
                        source: (*field.source).into(),
                        slot,
                        // Final: a slot's kind is set before it is handed out.
                        place: self.plan.slots[slot as usize],
                    });
                }
                self.plan.objects[index as usize] = Object::new(planned, required);
                Kind::Object(index)
            }
            _ => Kind::Refuse,
        })
    }

    fn string_check(&mut self, format: Option<&str>, pattern: Option<&str>) -> Option<u32> {
        let mut schema = serde_json::json!({"type": "string"});
        if let Some(format) = format {
            schema["format"] = format.into();
        }
        if let Some(pattern) = pattern {
            schema["pattern"] = pattern.into();
        }
        let validator = compile(&schema)?;
        self.plan.strings.push(StringCheck {
            validator,
            email: format == Some("email") && pattern.is_none(),
            backtracks: pattern.is_some_and(crate::validate::needs_backtracking),
        });
        Some(self.plan.strings.len() as u32 - 1)
    }
}

/// A property name as a step of a JSON pointer.
fn escaped(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// The integers between two bounds; `None` when a bound is not a finite
/// number.
fn integer_range(minimum: Option<Number>, maximum: Option<Number>) -> Option<(i128, i128)> {
    /// The bound as an integer, a fraction rounded inwards by `round`.
    fn integer(bound: Option<Number>, unbounded: i128, round: fn(f64) -> f64) -> Option<i128> {
        Some(match bound {
            None => unbounded,
            Some(Number::Int(n)) => n.into(),
            Some(Number::UInt(n)) => n.into(),
            Some(Number::Float(f)) if f.is_finite() => round(f) as i128,
            Some(Number::Float(_)) => return None,
        })
    }
    Some((
        integer(minimum, i128::MIN, f64::ceil)?,
        integer(maximum, i128::MAX, f64::floor)?,
    ))
}

/// Of two optional bounds, the one that binds: `first_binds(a, b)` says
/// whether `a` is the stricter.
fn tighter(
    a: Option<Number>,
    b: Option<Number>,
    first_binds: impl Fn(Number, Number) -> bool,
) -> Option<Number> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if first_binds(a, b) { a } else { b }),
        (a, b) => a.or(b),
    }
}
