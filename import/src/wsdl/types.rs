//! A WSDL document's XSD types: the schemas' named components, and the
//! fields of an element's complex content (sequences, choices in an
//! answer, extensions of another type, and attributes as `@name`).

use std::collections::{BTreeSet, HashMap, HashSet};

use super::{WSDL, XSD, child, children, documentation, local, typed};
use crate::context::Found;
use crate::names::{join, snake};
use toolschema_gateway::xml::Element;
use toolschema_runtime::render::Json as Value;

/// Whether a field is sent or read back: XSD's dates, times, durations
/// and URIs take more forms than JSON Schema's formats, so a format is
/// only declared for arguments (what a client sends is then valid XSD).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    /// Sent: a request's fields.
    Argument,
    /// Read back: an answer's fields.
    Result,
}

/// The schemas' named components.
pub(super) struct Types<'a> {
    /// The top-level elements, each with the index of its schema.
    pub(super) elements: HashMap<&'a str, (&'a Element<'a>, usize)>,
    /// The named complex types.
    pub(super) complex: HashMap<&'a str, &'a Element<'a>>,
    /// The schema of each named complex type (its index in `schemas`).
    pub(super) complex_schema: HashMap<&'a str, usize>,
    /// The named simple types.
    pub(super) simple: HashMap<&'a str, &'a Element<'a>>,
    /// The schema of each top-level attribute (its index in `schemas`).
    pub(super) attributes: HashMap<&'a str, usize>,
    /// The named complex types of schemas whose local elements are
    /// qualified.
    pub(super) qualified_types: HashSet<&'a str>,
    /// Each schema's target namespace and whether its local elements are
    /// qualified.
    pub(super) schemas: Vec<(Option<&'a str>, bool)>,
}

/// The fields found so far, and the exposed names they take.
pub(super) struct Fields {
    /// The fields, in order.
    pub(super) found: Vec<Found>,
    /// The exposed names the fields take.
    pub(super) taken: BTreeSet<String>,
    /// For a request: how its elements' names are written in source paths
    /// (an answer is read by local names).
    pub(super) naming: Option<Naming>,
    /// What was left out, for the import's notes.
    pub(super) notes: Vec<String>,
}

impl Fields {
    /// No fields yet, named by `naming`.
    pub(super) fn new(naming: Option<Naming>) -> Fields {
        Fields {
            found: Vec::new(),
            taken: BTreeSet::new(),
            naming,
            notes: Vec::new(),
        }
    }
}

/// How a request's elements are named in source paths: an element in the
/// namespace the gateway writes unprefixed steps in (the request
/// element's when its schema qualifies its elements, else none) by its
/// local name, any other as `prefix:name`, each namespace given a prefix
/// (`n1`, `n2`, …) the version declares.
#[derive(Default)]
pub(super) struct Naming {
    /// The namespace of unprefixed steps.
    pub(super) unprefixed: Option<String>,
    /// The prefixes given so far, each with its namespace.
    pub(super) prefixes: Vec<(String, String)>,
}

impl Naming {
    /// `prefix:name` for the attribute (or element) `name` of
    /// `namespace`, the namespace given a prefix if it has none yet.
    pub(super) fn prefixed(&mut self, name: &str, namespace: &str) -> String {
        let prefix = match self.prefixes.iter().find(|(_, ns)| ns == namespace) {
            Some((prefix, _)) => prefix.clone(),
            None => {
                let prefix = format!("n{}", self.prefixes.len() + 1);
                self.prefixes.push((prefix.clone(), namespace.to_owned()));
                prefix
            }
        };
        format!("{prefix}:{name}")
    }

    /// The step that names the element `name` of `namespace`.
    pub(super) fn step(&mut self, name: &str, namespace: Option<&str>) -> Result<String, String> {
        if namespace == self.unprefixed.as_deref() {
            return Ok(name.to_owned());
        }
        let Some(namespace) = namespace else {
            return Err(format!(
                "the element `{name}` is in no namespace, inside elements in one (its schema leaves its local elements unqualified); the gateway cannot write it"
            ));
        };
        Ok(self.prefixed(name, namespace))
    }
}

impl Fields {
    /// Adds a field, taking its exposed name.
    pub(super) fn push(&mut self, field: Found) {
        self.taken.insert(field.exposed.clone());
        self.found.push(field);
    }
}

/// Where the fields of one element go.
#[derive(Clone)]
pub(super) struct At {
    /// The exposed path of the element (empty at the top).
    pub(super) exposed: String,
    /// The source path of the element (empty at the top).
    pub(super) source: String,
    /// Whether the element must be sent, or is always read.
    pub(super) required: bool,
    /// How many levels down the element is.
    pub(super) depth: usize,
    /// Whether its fields are sent or read back.
    pub(super) role: Role,
    /// The schema (its index in `schemas`) whose local declarations are
    /// read: their namespace is its target namespace if it qualifies
    /// them; none for the parts of an rpc message.
    pub(super) schema: Option<usize>,
}

impl<'a> Types<'a> {
    /// The components of the document's schemas and of the schema files
    /// it imports (`extra`: each an `xsd:schema`, or a WSDL document whose
    /// `types` are read).
    pub(super) fn read(root: &'a Element<'a>, extra: &'a [Element<'a>]) -> Types<'a> {
        let mut types = Types {
            elements: HashMap::new(),
            complex: HashMap::new(),
            complex_schema: HashMap::new(),
            simple: HashMap::new(),
            attributes: HashMap::new(),
            qualified_types: HashSet::new(),
            schemas: Vec::new(),
        };
        let sections = core::iter::once(root).chain(extra.iter());
        let schemas = sections.flat_map(|document| {
            let own = (&*document.name == "schema" && document.namespace.as_deref() == Some(XSD))
                .then_some(document);
            own.into_iter().chain(
                children(document, WSDL, "types")
                    .flat_map(|section| children(section, XSD, "schema")),
            )
        });
        {
            for schema in schemas {
                let index = types.schemas.len();
                let qualified = schema.attribute("elementFormDefault") == Some("qualified");
                types
                    .schemas
                    .push((schema.attribute("targetNamespace"), qualified));
                for component in &schema.children {
                    let Some(name) = component.attribute("name") else {
                        continue;
                    };
                    match &*component.name {
                        "element" => {
                            types.elements.insert(name, (component, index));
                        }
                        "complexType" => {
                            types.complex.insert(name, component);
                            types.complex_schema.insert(name, index);
                            if qualified {
                                types.qualified_types.insert(name);
                            }
                        }
                        "simpleType" => {
                            types.simple.insert(name, component);
                        }
                        "attribute" => {
                            types.attributes.insert(name, index);
                        }
                        _ => {}
                    }
                }
            }
        }
        types
    }

    /// A complex type's content: its elements in order, then attributes.
    pub(super) fn content(
        &self,
        complex: &Element<'_>,
        at: &At,
        trail: &mut Vec<String>,
        out: &mut Fields,
    ) -> Result<(), String> {
        let here = if at.exposed.is_empty() {
            "the request".to_owned()
        } else {
            format!("`{}`", at.exposed.trim_end_matches("[]"))
        };
        // A named type's local elements are its own schema's.
        let named = At {
            schema: complex
                .attribute("name")
                .and_then(|name| self.complex_schema.get(name).copied())
                .or(at.schema),
            ..at.clone()
        };
        let at = &named;
        let mark = trail.len();
        if let Some(name) = complex.attribute("name") {
            if trail.iter().any(|t| t == name) {
                return Err(format!(
                    "{here} is of the type `{name}`, which contains itself; recursive types are not imported"
                ));
            }
            trail.push(name.to_owned());
        }
        let mut complex = complex;
        if child(complex, XSD, "simpleContent").is_some() {
            return Err(format!(
                "{here} holds text and attributes together (`xsd:simpleContent`), which source paths cannot address"
            ));
        }
        if let Some(derived) = child(complex, XSD, "complexContent") {
            let Some(extension) = child(derived, XSD, "extension") else {
                return Err(format!(
                    "{here} restricts another type (`xsd:complexContent/restriction`), which is not imported"
                ));
            };
            let base = extension.attribute("base").map(local).unwrap_or_default();
            let Some(base) = self.complex.get(base) else {
                return Err(format!(
                    "{here} extends `{base}`, which the document does not define"
                ));
            };
            self.content(base, at, trail, out)?;
            complex = extension;
        }
        for group in ["sequence", "all"] {
            if let Some(group) = child(complex, XSD, group) {
                self.particles(group, at, &here, trail, out)?;
            }
        }
        if let Some(choice) = child(complex, XSD, "choice") {
            self.choice(choice, at, &here, trail, out)?;
        }
        for attribute in children(complex, XSD, "attribute") {
            let declared = attribute
                .attribute("name")
                .or(attribute.attribute("ref").map(local));
            let Some(name) = declared else { continue };
            if attribute.attribute("use") == Some("prohibited") {
                continue;
            }
            // A name with a dot (`TLS1.2`) cannot be a step of a source
            // path: left out, unless a request must carry it.
            if name.contains('.') {
                if at.role == Role::Argument && attribute.attribute("use") == Some("required") {
                    return Err(format!(
                        "the required attribute `{name}` of {here} has a dot in its name, which a source path cannot address"
                    ));
                }
                continue;
            }
            let schema = match (
                attribute.attribute("type"),
                child(attribute, XSD, "simpleType"),
            ) {
                (Some(kind), _) => self.simple_named(local(kind), at.role, 0),
                (None, Some(simple)) => self.simple_type(simple, at.role, 0),
                (None, None) => Ok(typed("string")),
            }
            .map_err(|problem| format!("the attribute `{name}` of {here} {problem}"))?;
            // A referred (top-level) attribute is in its schema's
            // namespace: named with a prefix in a request.
            let namespace = attribute
                .attribute("ref")
                .and_then(|_| self.attributes.get(name))
                .and_then(|schema| self.schemas[*schema].0);
            let step = match (out.naming.as_mut(), namespace) {
                (Some(naming), Some(namespace)) => naming.prefixed(name, namespace),
                _ => name.to_owned(),
            };
            let mut exposed = join(&at.exposed, &snake(name));
            if out.taken.contains(&exposed) {
                exposed = format!("{exposed}_attribute");
            }
            out.push(Found {
                exposed,
                source: join(&at.source, &format!("@{step}")),
                location: None,
                schema: Value::Object(schema),
                required: at.required && attribute.attribute("use") == Some("required"),
                description: documentation(attribute),
                whole: None,
            });
        }
        trail.truncate(mark);
        Ok(())
    }

    /// The elements of a `sequence` or `all`, nested sequences included.
    fn particles(
        &self,
        group: &Element<'_>,
        at: &At,
        here: &str,
        trail: &mut Vec<String>,
        out: &mut Fields,
    ) -> Result<(), String> {
        for particle in &group.children {
            if particle.namespace.as_deref() != Some(XSD) {
                continue;
            }
            match &*particle.name {
                "element" => self.element(particle, at, trail, out)?,
                "sequence" => self.particles(particle, at, here, trail, out)?,
                "choice" => self.choice(particle, at, here, trail, out)?,
                // An optional `xsd:any` is an extension point: nothing
                // need be sent there; and an answer is read by name only.
                "any"
                    if particle.attribute("minOccurs") == Some("0") || at.role == Role::Result => {}
                "any" => {
                    return Err(format!(
                        "{here} takes any element (`xsd:any`), which the configuration cannot express"
                    ));
                }
                "group" => {
                    return Err(format!(
                        "{here} uses a model group (`xsd:group`), which is not imported"
                    ));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// An `xsd:choice`: each alternative's elements are optional fields.
    /// In an answer they are read where present. In a request the
    /// configuration cannot say "exactly one": each alternative's fields
    /// are offered, and their descriptions say to send only one
    /// alternative (the service refuses two, and its fault reaches the
    /// client). A request's choice that may repeat is not imported.
    fn choice(
        &self,
        choice: &Element<'_>,
        at: &At,
        here: &str,
        trail: &mut Vec<String>,
        out: &mut Fields,
    ) -> Result<(), String> {
        let optional = At {
            required: false,
            ..at.clone()
        };
        if at.role == Role::Result {
            return self.particles(choice, &optional, here, trail, out);
        }
        if choice
            .attribute("maxOccurs")
            .is_some_and(|m| m != "1" && m != "0")
        {
            return Err(format!(
                "{here} is a choice that may repeat (`xsd:choice maxOccurs`), which the configuration cannot express"
            ));
        }
        let depth = at.exposed.split('.').filter(|s| !s.is_empty()).count();
        let mark = out.found.len();
        // Each alternative: the names it puts at this level.
        let mut alternatives = Vec::new();
        for particle in &choice.children {
            let start = out.found.len();
            let one = Element {
                name: choice.name.clone(),
                namespace: choice.namespace.clone(),
                attributes: Vec::new(),
                children: vec![particle.clone()],
                text: std::borrow::Cow::Borrowed(""),
            };
            self.particles(&one, &optional, here, trail, out)?;
            let names: Vec<String> = out.found[start..]
                .iter()
                .filter(|field| field.exposed.split('.').count() == depth + 1)
                .map(|field| format!("`{}`", field.exposed.rsplit('.').next().unwrap_or_default()))
                .collect();
            if !names.is_empty() {
                alternatives.push(names.join(" with "));
            }
        }
        if alternatives.len() > 1 {
            let note = format!("Send only one of {}.", alternatives.join(", "));
            for field in &mut out.found[mark..] {
                field.description = Some(match field.description.take() {
                    Some(text) => format!("{text} {note}"),
                    None => note.clone(),
                });
            }
        }
        Ok(())
    }

    /// Whether the named type's elements cannot be written unqualified:
    /// it, or a type inside it, is of a schema that qualifies its local
    /// elements, or it refers to a top-level element (`ref`, always
    /// qualified) or says `form="qualified"`.
    pub(super) fn qualifies(&self, name: &str, seen: &mut Vec<String>) -> bool {
        if self.qualified_types.contains(name) {
            return true;
        }
        if seen.iter().any(|s| s == name) {
            return false;
        }
        seen.push(name.to_owned());
        self.complex
            .get(name)
            .is_some_and(|complex| self.qualifies_within(complex, seen))
    }

    fn qualifies_within(&self, element: &Element<'_>, seen: &mut Vec<String>) -> bool {
        element.children.iter().any(|child| {
            if child.namespace.as_deref() != Some(XSD) {
                return false;
            }
            let typed = |attribute: &str, seen: &mut Vec<String>| {
                child
                    .attribute(attribute)
                    .is_some_and(|kind| self.qualifies(local(kind), seen))
            };
            match &*child.name {
                "element" => {
                    child.attribute("ref").is_some()
                        || child.attribute("form") == Some("qualified")
                        || typed("type", seen)
                        || self.qualifies_within(child, seen)
                }
                "extension" | "restriction" => {
                    typed("base", seen) || self.qualifies_within(child, seen)
                }
                _ => self.qualifies_within(child, seen),
            }
        })
    }

    /// The fields of a top-level element's content. A result whose element
    /// holds one element of a complex type (`<quote>` in
    /// `<GetQuoteResponse>`) is read through it, so that clients see its
    /// fields at the top.
    pub(super) fn fields(&self, name: &str, role: Role, out: &mut Fields) -> Result<(), String> {
        let Some((element, schema)) = self.elements.get(name) else {
            return Err(format!(
                "the element `{name}` is not defined in the document's types"
            ));
        };
        let mut schema = Some(*schema);
        let Some(mut complex) = (match element.attribute("type") {
            Some(kind) => self.complex.get(local(kind)).copied(),
            None => child(element, XSD, "complexType"),
        }) else {
            return Err(format!(
                "the element `{name}` has no fields (it is not of a complex type)"
            ));
        };
        let mut source = String::new();
        if role == Role::Result
            && children(complex, XSD, "attribute").next().is_none()
            && let Some(sequence) = child(complex, XSD, "sequence")
            && let [only] = &sequence.children[..]
            && &*only.name == "element"
            && only.attribute("maxOccurs").is_none_or(|m| m == "1")
            && let Some(name) = only.attribute("name")
            && let Some(inner) = (match only.attribute("type") {
                Some(kind) => self.complex.get(local(kind)).copied(),
                None => child(only, XSD, "complexType"),
            })
        {
            source = name.to_owned();
            complex = inner;
            schema = only
                .attribute("type")
                .and_then(|kind| self.complex_schema.get(local(kind)).copied())
                .or(schema);
        }
        let at = At {
            exposed: String::new(),
            source,
            required: true,
            depth: 0,
            role,
            schema,
        };
        self.content(complex, &at, &mut Vec::new(), out)
    }
}
