//! `toolschema import wsdl`: gateway tools written from a WSDL 1.1
//! document and its XSD types, as draft versions to review and publish.
//!
//! One SOAP port is read (the first SOAP 1.1 one, or the version asked
//! for); each document/literal operation of its binding becomes a
//! `[[gateway_tool]]` calling its request element, with the element's
//! content flattened into fields: nested elements as paths, repeated ones
//! with `[]`, attributes as `@name`, simple types with their restrictions
//! (enumerations, patterns, lengths, bounds) where JSON Schema says the
//! same. Schema files the document imports or includes are read from
//! beside it ([`import_wsdl_file`]); a document of bindings without a
//! service takes its address from `--base-url`; an optional `xsd:any` (an
//! extension point), an optional element of a type that contains it and a
//! name with a dot are left out; text with attributes is its text. What
//! the configuration cannot express (a choice or a required `xsd:any` in a
//! request, required recursion, rpc or encoded operations) is reported and
//! skipped.

use std::collections::{BTreeSet, HashMap};

use super::{
    Found, ImportError, ImportOptions, Imported, Skipped, downstream_section, every_one_found,
    field_section, join, kebab, snake, written,
};
use crate::xml::{self, Element};
use toolschema_catalog::gateway::SoapVersion;
use toolschema_runtime::model::Number;
use toolschema_runtime::render::{Json as Value, Object as Map};

const WSDL: &str = "http://schemas.xmlsoap.org/wsdl/";
const XSD: &str = "http://www.w3.org/2001/XMLSchema";
const SOAP11_BINDING: &str = "http://schemas.xmlsoap.org/wsdl/soap/";
const SOAP12_BINDING: &str = "http://schemas.xmlsoap.org/wsdl/soap12/";

/// How deep elements are flattened into fields.
const MAX_DEPTH: usize = 8;

/// The local part of a qualified name (`tns:Quote` → `Quote`).
fn local(name: &str) -> &str {
    name.rsplit(':').next().unwrap_or(name)
}

/// The element's children of the WSDL or XSD namespace with this name.
fn children<'a>(
    element: &'a Element<'a>,
    namespace: &'a str,
    name: &'a str,
) -> impl Iterator<Item = &'a Element<'a>> + 'a {
    element
        .children
        .iter()
        .filter(move |c| *c.name == *name && c.namespace.as_deref() == Some(namespace))
}

fn child<'a>(
    element: &'a Element<'a>,
    namespace: &'a str,
    name: &'a str,
) -> Option<&'a Element<'a>> {
    children(element, namespace, name).next()
}

/// The text of an element's `documentation` (directly, or in an XSD
/// `annotation`), whitespace folded.
fn documentation(element: &Element<'_>) -> Option<String> {
    let doc = child(element, WSDL, "documentation").or_else(|| {
        child(element, XSD, "annotation").and_then(|a| child(a, XSD, "documentation"))
    })?;
    let text = doc.text.split_whitespace().collect::<Vec<_>>().join(" ");
    (!text.is_empty()).then_some(text)
}

/// Whether a field is sent or read back: XSD's dates, times, durations
/// and URIs take more forms than JSON Schema's formats, so a format is
/// only declared for arguments (what a client sends is then valid XSD).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Argument,
    Result,
}

/// The schemas' named components.
struct Types<'a> {
    elements: HashMap<&'a str, (&'a Element<'a>, usize)>,
    complex: HashMap<&'a str, &'a Element<'a>>,
    simple: HashMap<&'a str, &'a Element<'a>>,
    /// Each schema's target namespace and whether its local elements are
    /// qualified.
    schemas: Vec<(Option<&'a str>, bool)>,
}

/// A schema as a JSON Schema value, from `{"type": kind}`.
fn typed(kind: &'static str) -> Map {
    let mut map = Map::new();
    map.insert("type", kind);
    map
}

fn bounded(kind: &'static str, minimum: Option<i64>, maximum: Option<i64>) -> Map {
    let mut map = typed(kind);
    if let Some(n) = minimum {
        map.insert("minimum", int(n));
    }
    if let Some(n) = maximum {
        map.insert("maximum", int(n));
    }
    map
}

fn int(n: i64) -> Number {
    match u64::try_from(n) {
        Ok(n) => Number::UInt(n),
        Err(_) => Number::Int(n),
    }
}

/// An XSD built-in simple type, as JSON Schema says it.
fn builtin(name: &str, role: Role) -> Option<Map> {
    let with_format = |format: &'static str| {
        let mut map = typed("string");
        if role == Role::Argument {
            map.insert("format", format);
        }
        map
    };
    Some(match name {
        "string" | "normalizedString" | "token" | "Name" | "NCName" | "QName" | "NMTOKEN"
        | "ID" | "IDREF" | "language" | "base64Binary" | "hexBinary" | "gYear" | "gYearMonth"
        | "gMonth" | "gMonthDay" | "gDay" | "anySimpleType" => typed("string"),
        "anyURI" => with_format("uri"),
        "date" => with_format("date"),
        "dateTime" => with_format("date-time"),
        "time" => with_format("time"),
        "duration" => with_format("duration"),
        "boolean" => typed("boolean"),
        "decimal" | "float" | "double" => typed("number"),
        "integer" | "long" => typed("integer"),
        "int" => bounded("integer", Some(i32::MIN.into()), Some(i32::MAX.into())),
        "short" => bounded("integer", Some(i16::MIN.into()), Some(i16::MAX.into())),
        "byte" => bounded("integer", Some(i8::MIN.into()), Some(i8::MAX.into())),
        "unsignedInt" => bounded("integer", Some(0), Some(u32::MAX.into())),
        "unsignedShort" => bounded("integer", Some(0), Some(u16::MAX.into())),
        "unsignedByte" => bounded("integer", Some(0), Some(u8::MAX.into())),
        "unsignedLong" | "nonNegativeInteger" => bounded("integer", Some(0), None),
        "positiveInteger" => bounded("integer", Some(1), None),
        "nonPositiveInteger" => bounded("integer", None, Some(0)),
        "negativeInteger" => bounded("integer", None, Some(-1)),
        _ => return None,
    })
}

/// XSD's regular expressions are anchored and have escapes of their own;
/// those that JSON Schema's cannot say are left out.
fn pattern(xsd: &str) -> Option<String> {
    let foreign = ["\\i", "\\I", "\\c", "\\C", "\\p{Is"];
    if foreign.iter().any(|f| xsd.contains(f)) || subtracts(xsd) {
        return None;
    }
    Some(format!("^(?:{xsd})$"))
}

/// Whether a pattern subtracts a class from a class (`[a-z-[aeiou]]`).
fn subtracts(xsd: &str) -> bool {
    let mut in_class = false;
    let mut chars = xsd.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '[' => in_class = true,
            ']' => in_class = false,
            '-' if in_class && chars.peek() == Some(&'[') => return true,
            _ => {}
        }
    }
    false
}

/// The fields found so far, and the exposed names they take.
struct Fields {
    found: Vec<Found>,
    taken: BTreeSet<String>,
}

impl Fields {
    fn push(&mut self, field: Found) {
        self.taken.insert(field.exposed.clone());
        self.found.push(field);
    }
}

/// Where the fields of one element go.
#[derive(Clone)]
struct At {
    exposed: String,
    source: String,
    required: bool,
    depth: usize,
    role: Role,
}

impl<'a> Types<'a> {
    /// The components of the document's schemas and of the schema files
    /// it imports (`extra`: each an `xsd:schema`, or a WSDL document whose
    /// `types` are read).
    fn read(root: &'a Element<'a>, extra: &'a [Element<'a>]) -> Types<'a> {
        let mut types = Types {
            elements: HashMap::new(),
            complex: HashMap::new(),
            simple: HashMap::new(),
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
                types.schemas.push((
                    schema.attribute("targetNamespace"),
                    schema.attribute("elementFormDefault") == Some("qualified"),
                ));
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
                        }
                        "simpleType" => {
                            types.simple.insert(name, component);
                        }
                        _ => {}
                    }
                }
            }
        }
        types
    }

    /// A named simple type (the schema's own, else a built-in one).
    fn simple_named(&self, name: &str, role: Role, depth: usize) -> Result<Map, String> {
        if let Some(simple) = self.simple.get(name) {
            return self.simple_type(simple, role, depth + 1);
        }
        builtin(name, role).ok_or_else(|| match name {
            "anyType" => "takes any content (`xsd:anyType`)".to_owned(),
            _ => format!("has the type `{name}`, which the document does not define"),
        })
    }

    /// A `simpleType`: its base and the restrictions JSON Schema can say.
    fn simple_type(&self, simple: &Element<'_>, role: Role, depth: usize) -> Result<Map, String> {
        if depth > MAX_DEPTH {
            return Err("has simple types nested too deep".to_owned());
        }
        let Some(restriction) = child(simple, XSD, "restriction") else {
            // A list or a union is written as text.
            return Ok(typed("string"));
        };
        let mut map = match (
            restriction.attribute("base"),
            child(restriction, XSD, "simpleType"),
        ) {
            (Some(base), _) => self.simple_named(local(base), role, depth)?,
            (None, Some(inner)) => self.simple_type(inner, role, depth + 1)?,
            (None, None) => typed("string"),
        };
        let kind = match map.get("type") {
            Some(Value::String(kind)) => kind.to_string(),
            _ => "string".to_owned(),
        };
        let mut values = Vec::new();
        for facet in &restriction.children {
            let Some(value) = facet.attribute("value") else {
                continue;
            };
            match &*facet.name {
                "enumeration" => values.push(Value::from(value.to_owned())),
                "pattern" if kind == "string" => {
                    if let Some(pattern) = pattern(value) {
                        map.insert("pattern", pattern);
                    }
                }
                "length" | "minLength" | "maxLength" if kind == "string" => {
                    if let Ok(n) = value.parse::<u64>() {
                        if &*facet.name != "maxLength" {
                            map.insert("minLength", n);
                        }
                        if &*facet.name != "minLength" {
                            map.insert("maxLength", n);
                        }
                    }
                }
                "minInclusive" | "maxInclusive" | "minExclusive" | "maxExclusive"
                    if kind == "integer" || kind == "number" =>
                {
                    let key = if facet.name.starts_with("min") {
                        "minimum"
                    } else {
                        "maximum"
                    };
                    let exclusive = facet.name.ends_with("Exclusive");
                    if let Ok(n) = value.parse::<i64>() {
                        // An exclusive bound of an integer is the next one in.
                        let n = match (exclusive, key) {
                            (false, _) => Some(n),
                            (true, _) if kind != "integer" => None,
                            (true, "minimum") => n.checked_add(1),
                            (true, _) => n.checked_sub(1),
                        };
                        if let Some(n) = n {
                            map.insert(key, int(n));
                        }
                    } else if let Ok(f) = value.parse::<f64>()
                        && kind == "number"
                        && !exclusive
                        && f.is_finite()
                    {
                        map.insert(key, Number::Float(f));
                    }
                }
                _ => {}
            }
        }
        if !values.is_empty() && kind == "string" {
            map.insert("enum", Value::Array(values));
        }
        Ok(map)
    }

    /// One element declaration's fields.
    fn element(
        &self,
        declaration: &Element<'_>,
        at: &At,
        trail: &mut Vec<String>,
        out: &mut Fields,
    ) -> Result<(), String> {
        let (declared, reference) = match declaration.attribute("ref") {
            Some(reference) => match self.elements.get(local(reference)) {
                Some((element, _)) => (*element, true),
                None => {
                    return Err(format!(
                        "refers to the element `{reference}`, which the document does not define"
                    ));
                }
            },
            None => (declaration, false),
        };
        let Some(name) = declared.attribute("name") else {
            return Err("has an element without a name".to_owned());
        };
        let min = declaration
            .attribute("minOccurs")
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or(1);
        let max = match declaration.attribute("maxOccurs") {
            Some("unbounded") => None,
            Some(n) => Some(n.parse::<u64>().unwrap_or(1)),
            None => Some(1),
        };
        if max == Some(0) {
            return Ok(());
        }
        let repeated = max != Some(1);
        let nillable = matches!(declared.attribute("nillable"), Some("true" | "1"));
        let required = at.required && min >= 1 && !nillable;
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
        let description = documentation(declaration)
            .or_else(|| reference.then(|| documentation(declared)).flatten());
        let exposed = join(&at.exposed, &snake(name));
        let source = join(&at.source, name);
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
            let required_attribute = derived
                .into_iter()
                .flat_map(|d| children(d, XSD, "attribute"))
                .find(|a| a.attribute("use") == Some("required"));
            if at.role == Role::Argument
                && let Some(attribute) = required_attribute
            {
                return Err(format!(
                    "`{exposed}` holds text and the required attribute `{}`, which the configuration cannot write together",
                    attribute.attribute("name").unwrap_or_default()
                ));
            }
            content_schema = Some(match derived.and_then(|d| d.attribute("base")) {
                Some(base) => self.simple_named(local(base), at.role, 0),
                None => Ok(typed("string")),
            });
            complex = None;
        }
        let array = |min: u64| {
            let mut map = typed("array");
            if min > 0 {
                map.insert("minItems", min);
            }
            if let Some(max) = max {
                map.insert("maxItems", max);
            }
            Value::Object(map)
        };
        if at.depth >= MAX_DEPTH {
            return Err(format!("`{exposed}` nests deeper than {MAX_DEPTH} levels"));
        }
        // An optional element of a type that contains it (`Transport`'s
        // `Tunnel`) ends the paths there: left out.
        if let Some(name) = complex.and_then(|c| c.attribute("name"))
            && trail.iter().any(|t| t == name)
            && !required
        {
            return Ok(());
        }
        if let Some(complex) = complex {
            let inner = if repeated {
                out.push(Found {
                    exposed: exposed.clone(),
                    source: String::new(),
                    location: None,
                    schema: array(min),
                    required,
                    description,
                    whole: None,
                });
                At {
                    exposed: format!("{exposed}[]"),
                    source: format!("{source}[]"),
                    required: true,
                    depth: at.depth + 1,
                    role: at.role,
                }
            } else {
                out.push(Found {
                    exposed: exposed.clone(),
                    source: String::new(),
                    location: None,
                    schema: Value::Object(typed("object")),
                    required,
                    description,
                    whole: None,
                });
                At {
                    exposed,
                    source,
                    required,
                    depth: at.depth + 1,
                    role: at.role,
                }
            };
            // The declaration just pushed.
            let declared_at = out.found.len() - 1;
            self.content(complex, &inner, trail, out)?;
            // An element of no content (an extension point whose `xsd:any`
            // was left out) holds nothing a client could send or read.
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
            return Ok(());
        }
        let schema = match (
            content_schema,
            declared.attribute("type"),
            child(declared, XSD, "simpleType"),
        ) {
            (Some(schema), _, _) => schema,
            (None, Some(kind), _) => self.simple_named(local(kind), at.role, 0),
            (None, None, Some(simple)) => self.simple_type(simple, at.role, 0),
            (None, None, None) => Err("takes any content (no type)".to_owned()),
        }
        .map_err(|problem| format!("`{exposed}` {problem}"))?;
        if repeated {
            let bounded = min > 0 || max.is_some();
            if bounded {
                out.push(Found {
                    exposed: exposed.clone(),
                    source: String::new(),
                    location: None,
                    schema: array(min),
                    required,
                    description: description.clone(),
                    whole: None,
                });
            }
            out.push(Found {
                exposed: format!("{exposed}[]"),
                source: format!("{source}[]"),
                location: None,
                schema: Value::Object(schema),
                required: false,
                description: if bounded { None } else { description },
                whole: None,
            });
        } else {
            out.push(Found {
                exposed,
                source,
                location: None,
                schema: Value::Object(schema),
                required,
                description,
                whole: None,
            });
        }
        Ok(())
    }

    /// A complex type's content: its elements in order, then attributes.
    fn content(
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
            let mut exposed = join(&at.exposed, &snake(name));
            if out.taken.contains(&exposed) {
                exposed = format!("{exposed}_attribute");
            }
            out.push(Found {
                exposed,
                source: join(&at.source, &format!("@{name}")),
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

    /// An `xsd:choice`: in an answer, each alternative's elements are read
    /// where present (each optional); a request cannot say which one to
    /// send.
    fn choice(
        &self,
        choice: &Element<'_>,
        at: &At,
        here: &str,
        trail: &mut Vec<String>,
        out: &mut Fields,
    ) -> Result<(), String> {
        if at.role == Role::Argument {
            return Err(format!(
                "{here} is one of several elements (`xsd:choice`), which the configuration cannot express"
            ));
        }
        let optional = At {
            required: false,
            ..at.clone()
        };
        self.particles(choice, &optional, here, trail, out)
    }

    /// The fields of a top-level element's content. A result whose element
    /// holds one element of a complex type (`<quote>` in
    /// `<GetQuoteResponse>`) is read through it, so that clients see its
    /// fields at the top.
    fn fields(&self, name: &str, role: Role, out: &mut Fields) -> Result<(), String> {
        let Some((element, _)) = self.elements.get(name) else {
            return Err(format!(
                "the element `{name}` is not defined in the document's types"
            ));
        };
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
        }
        let at = At {
            exposed: String::new(),
            source,
            required: true,
            depth: 0,
            role,
        };
        self.content(complex, &at, &mut Vec::new(), out)
    }
}

/// A SOAP port of the service: its binding, version and address.
struct Port<'a> {
    binding: &'a Element<'a>,
    version: SoapVersion,
    address: Option<&'a str>,
}

fn ports<'a>(root: &'a Element<'a>) -> Vec<Port<'a>> {
    let mut out = service_ports(root);
    // A document of bindings without a service (its address is the
    // device's or the deployment's): each SOAP binding, without an address.
    if out.is_empty() {
        for binding in children(root, WSDL, "binding") {
            let Some(version) = soap_version(binding) else {
                continue;
            };
            out.push(Port {
                binding,
                version,
                address: None,
            });
        }
    }
    out
}

/// The SOAP version a binding says (`soap:binding`, `soap12:binding`),
/// if it is a SOAP binding.
fn soap_version(binding: &Element<'_>) -> Option<SoapVersion> {
    if child(binding, SOAP11_BINDING, "binding").is_some() {
        Some(SoapVersion::V1_1)
    } else if child(binding, SOAP12_BINDING, "binding").is_some() {
        Some(SoapVersion::V1_2)
    } else {
        None
    }
}

fn service_ports<'a>(root: &'a Element<'a>) -> Vec<Port<'a>> {
    let mut out = Vec::new();
    for service in children(root, WSDL, "service") {
        for port in children(service, WSDL, "port") {
            let binding_name = port.attribute("binding").map(local).unwrap_or_default();
            let Some(binding) =
                children(root, WSDL, "binding").find(|b| b.attribute("name") == Some(binding_name))
            else {
                continue;
            };
            let Some(version) = soap_version(binding) else {
                continue;
            };
            let address = port
                .children
                .iter()
                .find(|c| &*c.name == "address")
                .and_then(|a| a.attribute("location"));
            out.push(Port {
                binding,
                version,
                address,
            });
        }
    }
    out
}

/// `GetQuote` → `Get quote.`, for an operation without documentation.
fn sentence(name: &str) -> String {
    let words = snake(name).replace('_', " ");
    let mut chars = words.chars();
    match chars.next() {
        Some(first) => format!("{}{}.", first.to_ascii_uppercase(), chars.as_str()),
        None => "Calls the operation.".to_owned(),
    }
}

/// Reads a WSDL 1.1 document and writes a downstream and a draft gateway
/// tool for each chosen operation of one of its SOAP ports.
///
/// ```
/// use toolschema_gateway::import::{ImportOptions, import_wsdl};
///
/// let wsdl = r#"<definitions xmlns="http://schemas.xmlsoap.org/wsdl/"
///     xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
///     xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:t="urn:clock"
///     targetNamespace="urn:clock">
///   <types><xsd:schema targetNamespace="urn:clock" elementFormDefault="qualified">
///     <xsd:element name="Now"><xsd:complexType><xsd:sequence>
///       <xsd:element name="zone" type="xsd:string"/>
///     </xsd:sequence></xsd:complexType></xsd:element>
///     <xsd:element name="NowResponse"><xsd:complexType><xsd:sequence>
///       <xsd:element name="time" type="xsd:string"/>
///     </xsd:sequence></xsd:complexType></xsd:element>
///   </xsd:schema></types>
///   <message name="In"><part name="p" element="t:Now"/></message>
///   <message name="Out"><part name="p" element="t:NowResponse"/></message>
///   <portType name="Clock"><operation name="Now">
///     <input message="t:In"/><output message="t:Out"/>
///   </operation></portType>
///   <binding name="ClockSoap" type="t:Clock">
///     <soap:binding style="document"/>
///     <operation name="Now"><soap:operation soapAction="urn:clock/Now"/>
///       <input><soap:body use="literal"/></input><output><soap:body use="literal"/></output>
///     </operation>
///   </binding>
///   <service name="ClockService"><port name="P" binding="t:ClockSoap">
///     <soap:address location="https://clock.example/soap"/>
///   </port></service>
/// </definitions>"#;
/// let options = ImportOptions { downstream: "clock".into(), ..ImportOptions::default() };
/// let imported = import_wsdl(wsdl.as_bytes(), &options).unwrap();
/// assert_eq!(imported.tools, ["now"]);
/// assert!(imported.toml.contains("operation = \"Now\""));
/// assert!(imported.toml.contains("base_url = \"https://clock.example/soap\""));
/// ```
pub fn import_wsdl(document: &[u8], options: &ImportOptions) -> Result<Imported, ImportError> {
    import_wsdl_with(document, &[], Vec::new(), options)
}

/// The most schema files one import reads.
const MAX_FILES: usize = 64;

/// The most bytes of one schema file.
const MAX_FILE_BYTES: u64 = 16 << 20;

/// [`import_wsdl`] of the file at `path`, with the schema files its
/// schemas import and include (`xsd:import`, `xsd:include`, and
/// `wsdl:import` of schemas) read from the files beside it, as their
/// relative `schemaLocation` says; a location that is a URL is never
/// fetched, and is said (`Imported::dropped`).
///
/// ```no_run
/// use toolschema_gateway::import::{ImportOptions, import_wsdl_file};
///
/// let options = ImportOptions {
///     downstream: "devices".to_owned(),
///     base_url: Some("http://camera.local/onvif/device_service".to_owned()),
///     ..ImportOptions::default()
/// };
/// let imported = import_wsdl_file("wsdl/devicemgmt.wsdl".as_ref(), &options)?;
/// println!("{}", imported.toml);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn import_wsdl_file(
    path: &std::path::Path,
    options: &ImportOptions,
) -> Result<Imported, ImportError> {
    let read = |path: &std::path::Path| -> Result<Vec<u8>, String> {
        let size = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
        if size > MAX_FILE_BYTES {
            return Err(format!("it is larger than {MAX_FILE_BYTES} bytes"));
        }
        std::fs::read(path).map_err(|e| e.to_string())
    };
    let document = read(path)
        .map_err(|error| ImportError(format!("{} cannot be read: {error}", path.display())))?;
    let mut notes = Vec::new();
    let mut files: Vec<Vec<u8>> = Vec::new();
    let mut seen: Vec<std::path::PathBuf> = path.canonicalize().into_iter().collect();
    let mut pending = vec![(path.to_path_buf(), document.clone())];
    while let Some((at, bytes)) = pending.pop() {
        let Ok(root) = xml::parse(&bytes) else {
            continue;
        };
        for location in schema_locations(&root) {
            if location.contains("://") {
                notes.push(format!(
                    "the schema at `{location}` is not read: only files beside the document are, never a URL"
                ));
                continue;
            }
            let file = at
                .parent()
                .unwrap_or(std::path::Path::new("."))
                .join(&location);
            let Ok(canonical) = file.canonicalize() else {
                notes.push(format!("the schema file `{location}` is not found"));
                continue;
            };
            if seen.contains(&canonical) {
                continue;
            }
            if seen.len() > MAX_FILES {
                notes.push(format!(
                    "the schema file `{location}` is not read: one import reads at most {MAX_FILES} files"
                ));
                continue;
            }
            seen.push(canonical);
            match read(&file) {
                Ok(bytes) => {
                    files.push(bytes.clone());
                    pending.push((file, bytes));
                }
                Err(error) => notes.push(format!(
                    "the schema file `{location}` cannot be read: {error}"
                )),
            }
        }
    }
    let dropped = notes
        .into_iter()
        .map(|reason| Skipped {
            operation: path.display().to_string(),
            reason,
        })
        .collect();
    import_wsdl_with(&document, &files, dropped, options)
}

/// The locations of the schema files a document imports or includes.
fn schema_locations(root: &Element<'_>) -> Vec<String> {
    let mut out = Vec::new();
    let mut pending = vec![root];
    while let Some(element) = pending.pop() {
        let location = match (&*element.name, element.namespace.as_deref()) {
            ("import" | "include" | "redefine", Some(XSD)) => element.attribute("schemaLocation"),
            ("import", Some(WSDL)) => element.attribute("location"),
            _ => None,
        };
        if let Some(location) = location {
            out.push(location.to_owned());
        }
        pending.extend(element.children.iter());
    }
    out
}

fn import_wsdl_with(
    document: &[u8],
    schema_files: &[Vec<u8>],
    dropped: Vec<Skipped>,
    options: &ImportOptions,
) -> Result<Imported, ImportError> {
    let root = xml::parse(document)
        .map_err(|error| ImportError(format!("the document cannot be read: {error}")))?;
    if &*root.name != "definitions" || root.namespace.as_deref() != Some(WSDL) {
        return Err(ImportError(format!(
            "this is not a WSDL 1.1 document (its root is `{}`{}); WSDL 2.0 is not read",
            root.name,
            root.namespace
                .as_deref()
                .map(|ns| format!(" in {ns}"))
                .unwrap_or_default()
        )));
    }
    let ports = ports(&root);
    let port = match options.soap_version {
        Some(version) => ports.iter().find(|p| p.version == version),
        None => ports
            .iter()
            .find(|p| p.version == SoapVersion::V1_1)
            .or(ports.first()),
    }
    .ok_or_else(|| {
        ImportError(match options.soap_version {
            Some(_) => {
                "the document's services have no port of the SOAP version asked for".to_owned()
            }
            None => "the document's services have no SOAP port".to_owned(),
        })
    })?;
    let base_url = match (&options.base_url, port.address) {
        (Some(url), _) => url.clone(),
        (None, Some(address))
            if address.starts_with("http://") || address.starts_with("https://") =>
        {
            address.to_owned()
        }
        (None, address) => {
            return Err(ImportError(format!(
                "the port's address (`{}`) is not an absolute URL; say where the service is with --base-url",
                address.unwrap_or("")
            )));
        }
    };
    let extra: Vec<Element<'_>> = schema_files
        .iter()
        .filter_map(|bytes| xml::parse(bytes).ok())
        .collect();
    let types = Types::read(&root, &extra);
    let binding_namespace = match port.version {
        SoapVersion::V1_1 => SOAP11_BINDING,
        SoapVersion::V1_2 => SOAP12_BINDING,
    };
    let binding_style = child(port.binding, binding_namespace, "binding")
        .and_then(|b| b.attribute("style"))
        .unwrap_or("document");
    let port_type_name = port
        .binding
        .attribute("type")
        .map(local)
        .unwrap_or_default();
    let port_type = children(&root, WSDL, "portType")
        .find(|p| p.attribute("name") == Some(port_type_name))
        .ok_or_else(|| {
            ImportError(format!(
                "the binding's port type `{port_type_name}` is not defined"
            ))
        })?;

    let downstream = downstream_section(written::DownstreamSection {
        id: options.downstream.clone(),
        base_url,
        protocol: Some("soap"),
        soap_version: (port.version == SoapVersion::V1_2).then_some("1.2"),
        auth: None,
    })
    .map_err(ImportError)?;
    let mut tools = Vec::new();
    let mut skipped = Vec::new();
    let mut seen = BTreeSet::new();
    let mut text = String::new();
    for operation in children(port.binding, WSDL, "operation") {
        let Some(name) = operation.attribute("name") else {
            continue;
        };
        if !options.operations.is_empty() && !options.operations.iter().any(|o| o == name) {
            continue;
        }
        seen.insert(name.to_owned());
        let abstract_operation =
            children(port_type, WSDL, "operation").find(|o| o.attribute("name") == Some(name));
        let result = tool(
            &root,
            &types,
            operation,
            abstract_operation,
            binding_namespace,
            binding_style,
            options,
        )
        .and_then(|(tool_name, tool_text)| {
            // Held to the checks an operator's file is.
            super::checked_alone(&downstream, &tool_text)?;
            Ok((tool_name, tool_text))
        });
        match result {
            Ok((tool_name, tool_text)) => {
                text.push('\n');
                text.push_str(&tool_text);
                tools.push(tool_name);
            }
            Err(reason) => skipped.push(Skipped {
                operation: name.to_owned(),
                reason,
            }),
        }
    }
    every_one_found(&options.operations, &seen, "the port's binding")?;
    let mut out = downstream;
    out.push_str(&text);
    Ok(Imported {
        toml: out,
        tools,
        skipped,
        dropped,
    })
}

/// The element a message's one part names (document/literal).
fn message_element<'a>(root: &'a Element<'a>, message: &str) -> Result<&'a str, String> {
    let message = local(message);
    let definition = children(root, WSDL, "message")
        .find(|m| m.attribute("name") == Some(message))
        .ok_or_else(|| format!("the message `{message}` is not defined"))?;
    let parts: Vec<&Element<'_>> = children(definition, WSDL, "part").collect();
    match parts[..] {
        [part] => match part.attribute("element") {
            Some(element) => Ok(local(element)),
            None => Err(format!(
                "the message `{message}` has a part of a type rather than an element (rpc style), which is not imported"
            )),
        },
        _ => Err(format!(
            "the message `{message}` has {} parts; document/literal operations have one",
            parts.len()
        )),
    }
}

/// One operation's tool, or why it is skipped.
fn tool(
    root: &Element<'_>,
    types: &Types<'_>,
    operation: &Element<'_>,
    abstract_operation: Option<&Element<'_>>,
    binding_namespace: &str,
    binding_style: &str,
    options: &ImportOptions,
) -> Result<(String, String), String> {
    let name = operation.attribute("name").unwrap_or_default();
    let soap_operation = child(operation, binding_namespace, "operation");
    let style = soap_operation
        .and_then(|o| o.attribute("style"))
        .unwrap_or(binding_style);
    if style != "document" {
        return Err(format!(
            "it is an `{style}` style operation; only document/literal operations are imported"
        ));
    }
    for direction in ["input", "output"] {
        let body =
            child(operation, WSDL, direction).and_then(|d| child(d, binding_namespace, "body"));
        if body.and_then(|b| b.attribute("use")) == Some("encoded") {
            return Err("its messages are SOAP-encoded; only literal ones are imported".to_owned());
        }
    }
    let Some(abstract_operation) = abstract_operation else {
        return Err("the port type does not define it".to_owned());
    };
    let input = child(abstract_operation, WSDL, "input")
        .and_then(|i| i.attribute("message"))
        .ok_or("it has no input message")?;
    let request = message_element(root, input)?;
    let response =
        match child(abstract_operation, WSDL, "output").and_then(|o| o.attribute("message")) {
            Some(output) => Some(message_element(root, output)?),
            None => None,
        };
    let (_, schema) = types
        .elements
        .get(request)
        .ok_or_else(|| format!("the element `{request}` is not defined in the document's types"))?;
    let (namespace, qualified) = types.schemas[*schema];
    let mut arguments = Fields {
        found: Vec::new(),
        taken: BTreeSet::new(),
    };
    types.fields(request, Role::Argument, &mut arguments)?;
    let mut results = Fields {
        found: Vec::new(),
        taken: BTreeSet::new(),
    };
    if let Some(response) = response {
        types.fields(response, Role::Result, &mut results)?;
    }
    let tool_name = format!("{}{}", options.prefix, kebab(name));
    let description = documentation(abstract_operation)
        .or_else(|| documentation(operation))
        .unwrap_or_else(|| sentence(name));
    let version = written::VersionSection {
        version: 1,
        status: "draft",
        description,
        operation: Some(request.to_owned()),
        namespace: namespace.map(str::to_owned),
        soap_action: soap_operation
            .and_then(|o| o.attribute("soapAction"))
            .filter(|a| !a.is_empty())
            .map(str::to_owned),
        qualified: Some(qualified),
        argument: arguments
            .found
            .iter()
            .map(|field| field_section(field, true, &mut Vec::new()))
            .collect(),
        result: results
            .found
            .iter()
            .map(|field| field_section(field, false, &mut Vec::new()))
            .collect(),
        ..written::VersionSection::default()
    };
    let text = written::Sections {
        gateway_tool: vec![written::ToolSection {
            name: tool_name.clone(),
            downstream: options.downstream.clone(),
            version: vec![version],
        }],
        ..written::Sections::default()
    }
    .text()?;
    Ok((tool_name, text))
}

#[cfg(test)]
mod tests {
    use super::{ImportOptions, import_wsdl, pattern};

    /// A document/literal service whose operations take `elements`.
    fn service(schema: &str, operations: &[(&str, &str)]) -> String {
        let mut messages = String::new();
        let mut port_type = String::new();
        let mut binding = String::new();
        for (name, style) in operations {
            messages.push_str(&format!(
                r#"<message name="{name}In"><part name="p" element="t:{name}"/></message>"#
            ));
            port_type.push_str(&format!(
                r#"<operation name="{name}"><input message="t:{name}In"/></operation>"#
            ));
            binding.push_str(&format!(
                r#"<operation name="{name}"><soap:operation soapAction="" style="{style}"/><input><soap:body use="literal"/></input></operation>"#
            ));
        }
        format!(
            r#"<?xml version="1.0"?>
<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
    xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:t="urn:t" targetNamespace="urn:t">
  <types><xs:schema targetNamespace="urn:t">{schema}</xs:schema></types>
  {messages}
  <portType name="P">{port_type}</portType>
  <binding name="B" type="t:P"><soap:binding style="document"/>{binding}</binding>
  <service name="S"><port name="Q" binding="t:B"><soap:address location="https://svc.example/ws"/></port></service>
</definitions>"#
        )
    }

    #[test]
    fn restrictions_extensions_and_references_become_fields() {
        let schema = r#"
          <xs:complexType name="Base"><xs:sequence><xs:element name="id" type="xs:long"/></xs:sequence></xs:complexType>
          <xs:complexType name="Item"><xs:complexContent><xs:extension base="t:Base">
            <xs:sequence><xs:element name="qty"><xs:simpleType><xs:restriction base="xs:int">
              <xs:minExclusive value="0"/><xs:maxExclusive value="100"/></xs:restriction></xs:simpleType></xs:element></xs:sequence>
          </xs:extension></xs:complexContent></xs:complexType>
          <xs:element name="note" type="xs:string"/>
          <xs:element name="Order"><xs:complexType><xs:sequence>
            <xs:element name="item" type="t:Item" maxOccurs="unbounded"/>
            <xs:element ref="t:note" minOccurs="0"/>
            <xs:element name="code"><xs:simpleType><xs:restriction base="xs:string">
              <xs:length value="4"/><xs:pattern value="[A-Z-[IO]]+"/></xs:restriction></xs:simpleType></xs:element>
          </xs:sequence></xs:complexType></xs:element>"#;
        let wsdl = service(schema, &[("Order", "document")]);
        let imported = import_wsdl(wsdl.as_bytes(), &ImportOptions::default()).expect("imports");
        let written: toml::Table = imported.toml.parse().expect("TOML");
        let version = &written["gateway_tool"][0]["version"][0];
        // Unqualified by XSD's default, in the schema's namespace.
        assert_eq!(version["qualified"].as_bool(), Some(false));
        assert_eq!(version["namespace"].as_str(), Some("urn:t"));
        let fields: Vec<(String, String)> = version["argument"]
            .as_array()
            .expect("arguments")
            .iter()
            .map(|f| {
                (
                    f["name"].as_str().unwrap_or_default().to_owned(),
                    f.get("source")
                        .and_then(|s| s.as_str())
                        .unwrap_or("")
                        .to_owned(),
                )
            })
            .collect();
        let names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["item", "item[].id", "item[].qty", "note", "code"]);
        let qty = &version["argument"][2];
        // Exclusive integer bounds are the next integers in.
        assert_eq!(
            (qty["minimum"].as_integer(), qty["maximum"].as_integer()),
            (Some(1), Some(99))
        );
        let code = &version["argument"][4];
        assert_eq!(
            (
                code["min_length"].as_integer(),
                code["max_length"].as_integer()
            ),
            (Some(4), Some(4))
        );
        assert!(
            code.get("pattern").is_none(),
            "XSD class subtraction is left out"
        );
        assert_eq!(version["argument"][0]["min_items"].as_integer(), Some(1));
    }

    #[test]
    fn what_cannot_be_expressed_is_skipped_with_its_reason() {
        let schema = r#"
          <xs:complexType name="Node"><xs:sequence><xs:element name="child" type="t:Node"/></xs:sequence></xs:complexType>
          <xs:element name="Tree"><xs:complexType><xs:sequence><xs:element name="root" type="t:Node"/></xs:sequence></xs:complexType></xs:element>
          <xs:element name="Price"><xs:complexType><xs:simpleContent><xs:extension base="xs:decimal"><xs:attribute name="currency" type="xs:string"/></xs:extension></xs:simpleContent></xs:complexType></xs:element>
          <xs:element name="Any"><xs:complexType><xs:sequence><xs:any/></xs:sequence></xs:complexType></xs:element>
          <xs:element name="Call"><xs:complexType><xs:sequence><xs:element name="x" type="xs:string"/></xs:sequence></xs:complexType></xs:element>"#;
        let wsdl = service(
            schema,
            &[
                ("Tree", "document"),
                ("Price", "document"),
                ("Any", "document"),
                ("Call", "rpc"),
            ],
        );
        let imported = import_wsdl(wsdl.as_bytes(), &ImportOptions::default()).expect("imports");
        assert!(imported.tools.is_empty());
        let reasons: Vec<(&str, &str)> = imported
            .skipped
            .iter()
            .map(|s| (s.operation.as_str(), s.reason.as_str()))
            .collect();
        assert!(reasons[0].1.contains("contains itself"), "{reasons:?}");
        assert!(reasons[1].1.contains("xsd:simpleContent"), "{reasons:?}");
        assert!(reasons[2].1.contains("xsd:any"), "{reasons:?}");
        assert!(reasons[3].1.contains("`rpc` style"), "{reasons:?}");
        assert_eq!(reasons.len(), 4);
        let doctype = format!("<!DOCTYPE d>{wsdl}");
        assert!(import_wsdl(doctype.as_bytes(), &ImportOptions::default()).is_err());
    }

    #[test]
    fn text_with_attributes_dotted_names_and_optional_recursion_are_read_around() {
        let schema = r#"
          <xs:complexType name="Money"><xs:simpleContent><xs:extension base="xs:decimal"><xs:attribute name="currency" type="xs:string"/></xs:extension></xs:simpleContent></xs:complexType>
          <xs:complexType name="Part"><xs:sequence>
            <xs:element name="label" type="xs:string"/>
            <xs:element name="inner" type="t:Part" minOccurs="0"/>
          </xs:sequence></xs:complexType>
          <xs:element name="Order"><xs:complexType><xs:sequence>
            <xs:element name="amount" type="t:Money"/>
            <xs:element name="TLS1.2" type="xs:boolean" minOccurs="0"/>
            <xs:element name="part" type="t:Part"/>
          </xs:sequence><xs:attribute name="X.509" type="xs:string"/></xs:complexType></xs:element>"#;
        let wsdl = service(schema, &[("Order", "document")]);
        let imported = import_wsdl(wsdl.as_bytes(), &ImportOptions::default()).expect("imports");
        assert_eq!(imported.tools, ["order"], "{:?}", imported.skipped);
        let config: toml::Table = imported.toml.parse().expect("TOML");
        let names: Vec<&str> = config["gateway_tool"][0]["version"][0]["argument"]
            .as_array()
            .expect("arguments")
            .iter()
            .filter_map(|a| a["name"].as_str())
            .collect();
        // The money's text is its value; the dotted names and the part
        // inside a part are left out.
        assert_eq!(names, ["amount", "part", "part.label"]);
        assert!(
            imported
                .toml
                .contains("name = \"amount\"\ntype = \"number\"\nrequired = true"),
            "{}",
            imported.toml
        );
    }

    #[test]
    fn xsd_patterns_are_anchored_and_foreign_escapes_left_out() {
        assert_eq!(pattern("PI-[0-9]{6}").as_deref(), Some("^(?:PI-[0-9]{6})$"));
        assert_eq!(pattern("\\i\\c*"), None);
        assert_eq!(pattern("[a-z-[aeiou]]"), None);
        assert_eq!(pattern("[\\-\\[]x").as_deref(), Some("^(?:[\\-\\[]x)$"));
    }
}
