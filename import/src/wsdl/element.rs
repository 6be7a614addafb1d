//! One XSD element declaration's fields: a value of a simple type (or
//! text with attributes), or an element of a complex type and the fields
//! of its content, each repeated one a list with its items `[]`.

use super::types::{At, Fields, Role, Types};
use super::{MAX_DEPTH, XSD, child, children, documentation, local, typed};
use crate::context::Found;
use crate::names::{join, snake};
use toolschema_gateway::xml::Element;
use toolschema_runtime::render::{Json as Value, Object as Map};

/// One element declaration as read: the paths of its fields, whether it
/// must be sent or is always read, what its documentation says, and how
/// many times it occurs (at most `max`; unbounded when none).
struct Declared {
    exposed: String,
    source: String,
    required: bool,
    description: Option<String>,
    min: u64,
    max: Option<u64>,
}

impl Declared {
    /// Whether the element may occur more than once: a list.
    fn repeated(&self) -> bool {
        self.max != Some(1)
    }

    /// The schema of the list a repeated element is, with its counts.
    fn array(&self) -> Value {
        let mut map = typed("array");
        if self.min > 0 {
            map.insert("minItems", self.min);
        }
        if let Some(max) = self.max {
            map.insert("maxItems", max);
        }
        Value::Object(map)
    }
}

impl Types<'_> {
    /// One element declaration's fields.
    pub(super) fn element(
        &self,
        declaration: &Element<'_>,
        at: &At,
        trail: &mut Vec<String>,
        out: &mut Fields,
    ) -> Result<(), String> {
        let (declared, reference) = self.declared(declaration)?;
        let Some(name) = declared.attribute("name") else {
            return Err("has an element without a name".to_owned());
        };
        let (min, max) = occurs(declaration);
        if max == Some(0) {
            return Ok(());
        }
        // An element that must occur is sent, nillable or not (the gateway
        // writes no `xsi:nil`); one read back may come nil, so it is
        // required only if it may not.
        let nillable = matches!(declared.attribute("nillable"), Some("true" | "1"));
        let required = at.required && min >= 1 && (at.role == Role::Argument || !nillable);
        // A name with a dot (`TLS1.2`) cannot be a step of a source path:
        // left out, unless a request must carry it.
        if name.contains('.') {
            if required && at.role == Role::Argument {
                return Err(format!(
                    "the required element `{name}` has a dot in its name, which a source path cannot address"
                ));
            }
            return Ok(());
        }
        // The element's step: its local name, prefixed when it is in
        // another namespace than unprefixed steps are (in a request). An
        // optional one the gateway cannot name is left out.
        let step = match out.naming.as_mut() {
            Some(naming) => {
                match naming.step(name, self.namespace_of(declaration, reference, at)) {
                    Ok(step) => step,
                    Err(_) if !required => return Ok(()),
                    Err(problem) => return Err(problem),
                }
            }
            None => name.to_owned(),
        };
        // Its content is its declaration's schema's: a referred element's
        // is the schema that declares it.
        let inside = At {
            schema: match declaration.attribute("ref") {
                Some(reference) => self.elements.get(local(reference)).map(|(_, i)| *i),
                None => at.schema,
            },
            ..at.clone()
        };
        let at = &inside;
        let element = Declared {
            exposed: join(&at.exposed, &snake(name)),
            source: join(&at.source, &step),
            required,
            description: documentation(declaration)
                .or_else(|| reference.then(|| documentation(declared)).flatten()),
            min,
            max,
        };
        let mut complex = match declared.attribute("type") {
            Some(kind) => self.complex.get(local(kind)).copied(),
            None => child(declared, XSD, "complexType"),
        };
        // Text with attributes (`xsd:simpleContent`): the element is its
        // text, of its base type; its attributes are left out (one that a
        // request must carry cannot be, and the operation is skipped).
        let mut content_schema = None;
        if let Some(content) = complex.and_then(|c| child(c, XSD, "simpleContent")) {
            let derived =
                child(content, XSD, "extension").or_else(|| child(content, XSD, "restriction"));
            if at.role == Role::Argument {
                no_required_attribute(derived, &element.exposed)?;
            }
            content_schema = Some(match derived.and_then(|d| d.attribute("base")) {
                Some(base) => self.simple_named(local(base), at.role, 0),
                None => Ok(typed("string")),
            });
            complex = None;
        }
        // Past the depth, an optional element is left out (and said); a
        // required one cannot be.
        if at.depth >= MAX_DEPTH {
            if !required {
                out.notes.push(format!(
                    "`{}` nests deeper than {MAX_DEPTH} levels: left out (it is optional)",
                    element.exposed
                ));
                return Ok(());
            }
            return Err(format!(
                "`{}` nests deeper than {MAX_DEPTH} levels, and must be sent",
                element.exposed
            ));
        }
        // An optional element of a type that contains it (`Transport`'s
        // `Tunnel`) ends the paths there: left out.
        if let Some(name) = complex.and_then(|c| c.attribute("name"))
            && trail.iter().any(|t| t == name)
            && !required
        {
            return Ok(());
        }
        match complex {
            Some(complex) => self.complex_element(complex, element, at, trail, out),
            None => self.simple_element(declared, content_schema, element, at.role, out),
        }
    }

    /// The namespace of a declaration's element: a referred (top-level)
    /// element's schema's; a local one's schema's if it qualifies it (its
    /// `form`, else the schema's `elementFormDefault`), else none.
    fn namespace_of(&self, declaration: &Element<'_>, reference: bool, at: &At) -> Option<&str> {
        if reference {
            let (_, schema) = self.elements.get(local(declaration.attribute("ref")?))?;
            return self.schemas[*schema].0;
        }
        let schema = at.schema?;
        let qualified = match declaration.attribute("form") {
            Some(form) => form == "qualified",
            None => self.schemas[schema].1,
        };
        qualified.then_some(self.schemas[schema].0).flatten()
    }

    /// The element a declaration declares: itself, or the top-level one
    /// it refers to (`ref`); and whether it refers to one.
    fn declared<'e>(
        &'e self,
        declaration: &'e Element<'e>,
    ) -> Result<(&'e Element<'e>, bool), String> {
        match declaration.attribute("ref") {
            Some(reference) => match self.elements.get(local(reference)) {
                Some((element, _)) => Ok((*element, true)),
                None => Err(format!(
                    "refers to the element `{reference}`, which the document does not define"
                )),
            },
            None => Ok((declaration, false)),
        }
    }

    /// The fields of an element of a complex type: the element itself (a
    /// repeated one as a list, its items `[]`), then those of its content,
    /// one level down. An element of no content (an extension point whose
    /// `xsd:any` was left out) holds nothing a client could send or read:
    /// it is left out, and a request that must carry it is refused.
    fn complex_element(
        &self,
        complex: &Element<'_>,
        element: Declared,
        at: &At,
        trail: &mut Vec<String>,
        out: &mut Fields,
    ) -> Result<(), String> {
        let required = element.required;
        let inner = if element.repeated() {
            out.push(Found {
                exposed: element.exposed.clone(),
                source: String::new(),
                location: None,
                schema: element.array(),
                required,
                description: element.description,
                whole: None,
            });
            At {
                exposed: format!("{}[]", element.exposed),
                source: format!("{}[]", element.source),
                required: true,
                depth: at.depth + 1,
                role: at.role,
                schema: at.schema,
            }
        } else {
            out.push(Found {
                exposed: element.exposed.clone(),
                source: String::new(),
                location: None,
                schema: Value::Object(typed("object")),
                required,
                description: element.description,
                whole: None,
            });
            At {
                exposed: element.exposed,
                source: element.source,
                required,
                depth: at.depth + 1,
                role: at.role,
                schema: at.schema,
            }
        };
        // The declaration just pushed.
        let declared_at = out.found.len() - 1;
        self.content(complex, &inner, trail, out)?;
        if out.found.len() == declared_at + 1 {
            if required && at.role == Role::Argument {
                return Err(format!(
                    "`{exposed}` must be sent and has no content the configuration can write (only `xsd:any`)",
                    exposed = out.found[declared_at].exposed
                ));
            }
            let removed = out.found.remove(declared_at);
            out.taken.remove(&removed.exposed);
        }
        Ok(())
    }

    /// The field of an element of a simple type, or of text with
    /// attributes (whose text's schema is `content`): one value, or a
    /// repeated one's items (`[]`), after the list itself when its counts
    /// are bounded.
    fn simple_element(
        &self,
        declared: &Element<'_>,
        content: Option<Result<Map, String>>,
        element: Declared,
        role: Role,
        out: &mut Fields,
    ) -> Result<(), String> {
        let schema = match (
            content,
            declared.attribute("type"),
            child(declared, XSD, "simpleType"),
        ) {
            (Some(schema), _, _) => schema,
            (None, Some(kind), _) => self.simple_named(local(kind), role, 0),
            (None, None, Some(simple)) => self.simple_type(simple, role, 0),
            (None, None, None) => Err("takes any content (no type)".to_owned()),
        }
        .map_err(|problem| format!("`{}` {problem}", element.exposed))?;
        // A fixed value is the only one a request may send.
        let mut schema = schema;
        if role == Role::Argument
            && let Some(fixed) = declared.attribute("fixed")
        {
            fix(&mut schema, fixed);
        }
        if element.repeated() {
            let bounded = element.min > 0 || element.max.is_some();
            if bounded {
                out.push(Found {
                    exposed: element.exposed.clone(),
                    source: String::new(),
                    location: None,
                    schema: element.array(),
                    required: element.required,
                    description: element.description.clone(),
                    whole: None,
                });
            }
            out.push(Found {
                exposed: format!("{}[]", element.exposed),
                source: format!("{}[]", element.source),
                location: None,
                schema: Value::Object(schema),
                required: false,
                description: if bounded { None } else { element.description },
                whole: None,
            });
        } else {
            out.push(Found {
                exposed: element.exposed,
                source: element.source,
                location: None,
                schema: Value::Object(schema),
                required: element.required,
                description: element.description,
                whole: None,
            });
        }
        Ok(())
    }
}

/// The schema of a value declared `fixed`: that one value (a string's
/// one `enum` value, an integer's equal bounds); other types keep their
/// schema.
fn fix(schema: &mut Map, fixed: &str) {
    match schema.get("type") {
        Some(Value::String(kind)) if **kind == *"string" => {
            schema.insert("enum", Value::Array(vec![Value::from(fixed.to_owned())]));
        }
        Some(Value::String(kind)) if **kind == *"integer" => {
            if let Ok(n) = fixed.trim().parse::<i64>() {
                schema.insert("minimum", super::simple::int(n));
                schema.insert("maximum", super::simple::int(n));
            }
        }
        _ => {}
    }
}

/// How many times a declaration says its element occurs: at least
/// `minOccurs` (1 when unsaid), at most `maxOccurs` (1 when unsaid, none
/// when `unbounded`).
fn occurs(declaration: &Element<'_>) -> (u64, Option<u64>) {
    let min = declaration
        .attribute("minOccurs")
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or(1);
    let max = match declaration.attribute("maxOccurs") {
        Some("unbounded") => None,
        Some(n) => Some(n.parse::<u64>().unwrap_or(1)),
        None => Some(1),
    };
    (min, max)
}

/// Refuses text with a required attribute (`derived` says its
/// attributes) in a request: the configuration cannot write the two
/// together.
fn no_required_attribute(derived: Option<&Element<'_>>, exposed: &str) -> Result<(), String> {
    let required_attribute = derived
        .into_iter()
        .flat_map(|d| children(d, XSD, "attribute"))
        .find(|a| a.attribute("use") == Some("required"));
    if let Some(attribute) = required_attribute {
        return Err(format!(
            "`{exposed}` holds text and the required attribute `{}`, which the configuration cannot write together",
            attribute.attribute("name").unwrap_or_default()
        ));
    }
    Ok(())
}
