//! A configured tool's arguments and result described in the schema model:
//! the exposed paths of its fields become nested objects and arrays, built
//! at run time with shared parts ([`Ref::Shared`](toolschema_runtime::model::Ref)).

use super::FieldPath;
use toolschema_runtime::model::{
    Additional, ArrayNode, EnumNode, Field, IntegerNode, Literal, MapNode, Node, Number,
    NumberNode, ObjectNode, Presence, Ref, Refine, Shape, StringNode, Tagging, Text, TypeInfo,
    Variant,
};

/// The JSON type of a configured field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// `type = "string"`.
    String,
    /// `type = "integer"`.
    Integer,
    /// `type = "number"`.
    Number,
    /// `type = "boolean"`.
    Boolean,
    /// `type = "object"`.
    Object,
    /// `type = "array"`.
    Array,
    /// Any JSON value (with a `schema`, the values it accepts).
    Any,
}

impl FieldKind {
    /// The type of a configuration word.
    pub fn from_name(name: &str) -> Option<FieldKind> {
        Some(match name {
            "string" => FieldKind::String,
            "integer" => FieldKind::Integer,
            "number" => FieldKind::Number,
            "boolean" => FieldKind::Boolean,
            "object" => FieldKind::Object,
            "array" => FieldKind::Array,
            "any" => FieldKind::Any,
            _ => return None,
        })
    }

    /// The type's configuration word.
    pub fn name(self) -> &'static str {
        match self {
            FieldKind::String => "string",
            FieldKind::Integer => "integer",
            FieldKind::Number => "number",
            FieldKind::Boolean => "boolean",
            FieldKind::Object => "object",
            FieldKind::Array => "array",
            FieldKind::Any => "any",
        }
    }

    /// Whether a value of the type is one scalar.
    pub fn is_scalar(self) -> bool {
        !matches!(self, FieldKind::Object | FieldKind::Array | FieldKind::Any)
    }

    /// Whether a literal is of this type.
    pub fn admits(self, literal: &Literal) -> bool {
        matches!(
            (self, literal),
            (FieldKind::String, Literal::Str(_))
                | (FieldKind::Boolean, Literal::Bool(_))
                | (
                    FieldKind::Integer,
                    Literal::Number(Number::Int(_) | Number::UInt(_))
                )
                | (FieldKind::Number, Literal::Number(_))
                | (FieldKind::Any, _)
        )
    }
}

/// One configured field, checked: what the schema says of its exposed path.
#[derive(Debug, Clone)]
pub struct FieldSpec {
    /// The name a client sees, as a path.
    pub exposed: FieldPath,
    /// Its type.
    pub kind: FieldKind,
    /// Whether a client must send it.
    pub required: bool,
    /// What the schema says of it.
    pub description: Option<String>,
    /// A standard format (`date-time`, `uuid`, ...).
    pub format: Option<String>,
    /// A regular expression a string matches.
    pub pattern: Option<String>,
    /// The fewest characters of a string.
    pub min_length: Option<u64>,
    /// The most characters of a string.
    pub max_length: Option<u64>,
    /// The lowest number.
    pub minimum: Option<Number>,
    /// The highest number.
    pub maximum: Option<Number>,
    /// The fewest items of an array.
    pub min_items: Option<u64>,
    /// The most items of an array.
    pub max_items: Option<u64>,
    /// The values allowed, when they are listed.
    pub values: Vec<String>,
    /// The value taken when it is not sent.
    pub default: Option<Literal>,
    /// Example values.
    pub examples: Vec<Literal>,
    /// The field's whole JSON Schema (compact JSON text, no `$ref`), when
    /// the configuration states it: the field is then one value the
    /// client writes whole.
    pub schema: Option<Text>,
}

/// A place in the exposed tree: declared by a field, or implied by the
/// paths of others.
#[derive(Default)]
struct Place {
    /// The field that declares this place, by index.
    declared: Option<usize>,
    shape: Form,
    /// Where each child of an object place is in its list, by name: a
    /// wide object is built in time linear in its fields.
    index: std::collections::HashMap<String, usize>,
}

#[derive(Default)]
enum Form {
    /// Nothing inside: a leaf.
    #[default]
    Leaf,
    Object(Vec<(String, Place)>),
    Array(Box<Place>),
}

/// A problem with one field (by index), for the configuration to locate.
pub type FieldProblem = (usize, String);

/// The object node of `specs`' exposed paths, or every problem found:
/// two fields at one path, a field inside one that is not an object or
/// array, a required field inside an optional object.
pub fn describe(
    identity: &str,
    specs: &[FieldSpec],
    direction_input: bool,
) -> Result<Node, Vec<FieldProblem>> {
    let mut root = Place {
        shape: Form::Object(Vec::new()),
        ..Place::default()
    };
    let mut problems = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        if let Err(message) = insert(&mut root, spec, i) {
            problems.push((i, message));
        }
    }
    check_kinds(&root, specs, "", &mut problems);
    check_required(&root, specs, None, &mut problems);
    if !problems.is_empty() {
        problems.sort_by_key(|(i, _)| *i);
        problems.dedup();
        return Err(problems);
    }
    let builder = Builder {
        identity,
        specs,
        additional: if direction_input {
            Additional::Deny
        } else {
            Additional::Allow
        },
    };
    Ok(builder.node(&root, ""))
}

fn insert(root: &mut Place, spec: &FieldSpec, index: usize) -> Result<(), String> {
    let mut place = root;
    for step in spec.exposed.steps() {
        // A place reached by a longer path holds fields; whether its own
        // declaration agrees is checked once all are in.
        if let Form::Leaf = place.shape {
            place.shape = Form::Object(Vec::new());
        }
        let Place { shape, index, .. } = place;
        let Form::Object(children) = shape else {
            return Err(format!(
                "`{}` goes inside an array without `[]`; write the path through its items (`name[].field`)",
                spec.exposed
            ));
        };
        let at = match index.get(&*step.name) {
            Some(&at) => at,
            None => {
                children.push((step.name.to_string(), Place::default()));
                index.insert(step.name.to_string(), children.len() - 1);
                children.len() - 1
            }
        };
        let mut child = &mut children[at].1;
        if step.each {
            if let Form::Leaf = child.shape {
                child.shape = Form::Array(Box::default());
            }
            let Form::Array(item) = &mut child.shape else {
                return Err(format!(
                    "`{}` treats `{}` as an array, and another field makes it an object; give one of them another name",
                    spec.exposed, step.name
                ));
            };
            child = item;
        }
        place = child;
    }
    match place.declared {
        Some(_) => Err(format!(
            "`{}` is declared twice; exposed names must be unique",
            spec.exposed
        )),
        None => {
            place.declared = Some(index);
            Ok(())
        }
    }
}

/// A declared type agrees with what the other paths put inside it.
fn check_kinds(place: &Place, specs: &[FieldSpec], at: &str, problems: &mut Vec<FieldProblem>) {
    if let Some(i) = place.declared {
        let kind = specs[i].kind;
        let clash = match place.shape {
            Form::Leaf => false,
            Form::Object(_) => kind != FieldKind::Object,
            Form::Array(_) => kind != FieldKind::Array,
        };
        if specs[i].schema.is_some() && !matches!(place.shape, Form::Leaf) {
            problems.push((
                i,
                format!(
                    "`{at}` states its whole `schema`, and other fields go inside it; describe them in its schema, or remove its `schema`"
                ),
            ));
        } else if clash {
            let holds = match place.shape {
                Form::Array(_) => "items",
                _ => "fields",
            };
            problems.push((
                i,
                format!(
                    "`{at}` is declared a {}, and other fields put {holds} inside it; declare it an {} or rename those fields",
                    kind.name(),
                    if holds == "items" { "array" } else { "object" }
                ),
            ));
        }
    }
    match &place.shape {
        Form::Leaf => {}
        Form::Object(children) => {
            for (name, child) in children {
                let path = if at.is_empty() {
                    name.clone()
                } else {
                    format!("{at}.{name}")
                };
                check_kinds(child, specs, &path, problems);
            }
        }
        Form::Array(item) => check_kinds(item, specs, &format!("{at}[]"), problems),
    }
}

/// Whether a place must be present: declared required, or (undeclared)
/// an object holding a required field.
fn is_required(place: &Place, specs: &[FieldSpec]) -> bool {
    match place.declared {
        Some(i) => specs[i].required,
        None => match &place.shape {
            Form::Object(children) => children.iter().any(|(_, c)| is_required(c, specs)),
            _ => false,
        },
    }
}

/// A required field inside an object declared optional is refused: the
/// object could be left out with the field.
fn check_required(
    place: &Place,
    specs: &[FieldSpec],
    optional_parent: Option<usize>,
    problems: &mut Vec<FieldProblem>,
) {
    let Form::Object(children) = &place.shape else {
        if let Form::Array(item) = &place.shape {
            check_required(item, specs, None, problems);
        }
        return;
    };
    for (_, child) in children {
        if let (Some(parent), Some(i)) = (optional_parent, child.declared)
            && specs[i].required
        {
            problems.push((
                i,
                format!(
                    "`{}` is required, but `{}`, which holds it, is optional; make `{}` required, or `{}` optional",
                    specs[i].exposed, specs[parent].exposed, specs[parent].exposed, specs[i].exposed
                ),
            ));
        }
        let parent = match child.declared {
            Some(i) if !specs[i].required => Some(i),
            Some(_) => None,
            None => optional_parent,
        };
        check_required(child, specs, parent, problems);
    }
}

struct Builder<'a> {
    identity: &'a str,
    specs: &'a [FieldSpec],
    additional: Additional,
}

impl Builder<'_> {
    fn spec(&self, place: &Place) -> Option<&FieldSpec> {
        place.declared.map(|i| &self.specs[i])
    }

    fn info(&self, at: &str) -> TypeInfo {
        TypeInfo {
            name: Text::from(self.identity.to_owned()),
            type_name: Text::from(format!("{}:{at}", self.identity)),
            title: None,
            description: None,
        }
    }

    fn node(&self, place: &Place, at: &str) -> Node {
        let spec = self.spec(place);
        match &place.shape {
            Form::Object(children) => {
                let fields: Vec<Field> = children
                    .iter()
                    .map(|(name, child)| {
                        let path = if at.is_empty() {
                            name.clone()
                        } else {
                            format!("{at}.{name}")
                        };
                        self.field(name, child, &path)
                    })
                    .collect();
                Node::Object(ObjectNode {
                    info: self.info(at),
                    fields: Ref::from(fields),
                    additional: self.additional,
                })
            }
            Form::Array(item) => Node::Array(ArrayNode {
                items: Ref::new(self.node(item, &format!("{at}[]"))),
                min_items: spec.and_then(|s| s.min_items),
                max_items: spec.and_then(|s| s.max_items),
                unique_items: false,
            }),
            Form::Leaf => match spec {
                Some(spec) => self.leaf(spec, at),
                None => Node::Any,
            },
        }
    }

    fn leaf(&self, spec: &FieldSpec, at: &str) -> Node {
        let text = |value: &Option<String>| value.clone().map(Text::from);
        if let Some(schema) = &spec.schema {
            return Node::Raw(schema.clone());
        }
        match spec.kind {
            FieldKind::String if !spec.values.is_empty() => Node::Enum(EnumNode {
                info: self.info(at),
                tagging: Tagging::External,
                variants: Ref::from(
                    spec.values
                        .iter()
                        .map(|value| Variant {
                            name: Text::from(value.clone()),
                            description: None,
                            shape: Shape::Unit,
                        })
                        .collect::<Vec<_>>(),
                ),
            }),
            FieldKind::String => Node::String(StringNode {
                format: text(&spec.format),
                pattern: text(&spec.pattern),
                min_length: spec.min_length,
                max_length: spec.max_length,
            }),
            FieldKind::Integer => Node::Integer(IntegerNode {
                minimum: spec.minimum,
                maximum: spec.maximum,
                nonzero: false,
            }),
            FieldKind::Number => Node::Number(NumberNode {
                minimum: spec.minimum,
                maximum: spec.maximum,
            }),
            FieldKind::Boolean => Node::Boolean,
            FieldKind::Object => Node::Map(MapNode {
                values: Ref::Static(&Node::Any),
            }),
            FieldKind::Array => Node::Array(ArrayNode {
                items: Ref::Static(&Node::Any),
                min_items: spec.min_items,
                max_items: spec.max_items,
                unique_items: false,
            }),
            FieldKind::Any => Node::Any,
        }
    }

    fn field(&self, name: &str, place: &Place, at: &str) -> Field {
        // An undeclared array takes the description of its declared items.
        let described = self.spec(place).or_else(|| match &place.shape {
            Form::Array(item) => self.spec(item),
            _ => None,
        });
        let spec = self.spec(place);
        Field {
            exposed: Text::from(name.to_owned()),
            source: Text::from(name.to_owned()),
            description: described
                .and_then(|s| s.description.clone())
                .map(Text::from),
            schema: Ref::new(self.node(place, at)),
            presence: if is_required(place, self.specs) {
                Presence::Required
            } else {
                Presence::Optional
            },
            refine: Refine::NONE,
            default: spec.and_then(|s| s.default.clone()),
            examples: Ref::from(spec.map(|s| s.examples.clone()).unwrap_or_default()),
            ..Field::BLANK
        }
    }
}
