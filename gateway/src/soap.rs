//! SOAP envelopes (features `gateway` and `import`): the request element written from a
//! call's arguments through the operation's element tree, and the answer's
//! body element read back into a JSON value the result mapping takes, or
//! its fault.

use std::io::Write as _;

use quick_xml::escape::escape;
use serde_json::{Map, Value};

use crate::encode::{self, MappingError};
use crate::xml::{self, Element, XmlError};
use toolschema_configured::{FieldKind, Location, Operation, SoapOperation, SoapVersion, XmlNode};

/// The prefix of the envelope's elements.
const ENVELOPE: &str = "soap";
/// The prefix of the request element's namespace.
const OPERATION: &str = "m";
/// The prefix of a header block's namespace (declared on each block).
const HEADER: &str = "h";

/// Why a SOAP answer gives no result: a fault, an answer that is not the
/// envelope expected, or one the mapping cannot read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvelopeError(String);

impl core::fmt::Display for EnvelopeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EnvelopeError {}

/// For a SOAP operation, the envelope a call with these checked
/// `arguments` (exposed names) posts: what the gateway sends, to
/// inspect or test a mapping without a downstream. A header block whose
/// value is a credential (`secret`) is written empty here: the transport
/// reads its secret at each call ([`envelope`]).
///
/// ```
/// use toolschema_runtime::call::Registry;
/// use toolschema_config::Config;
/// use serde_json::json;
/// use toolschema_gateway::soap;
///
/// let config = Config::from_toml(r#"
/// [[tenant]]
/// id = "t"
///
/// [[client]]
/// id = "c"
/// tenant = "t"
///
/// [[downstream]]
/// id = "clock"
/// base_url = "https://clock.example/soap"
/// protocol = "soap"
///
/// [[gateway_tool]]
/// name = "clock.now"
/// downstream = "clock"
///
/// [[gateway_tool.version]]
/// version = 1
/// status = "published"
/// description = "The time in a zone."
/// operation = "Now"
/// namespace = "urn:clock"
///
/// [[gateway_tool.version.argument]]
/// name = "zone"
/// source = "Zone.@id"
/// type = "string"
/// "#, "clock.toml", &Registry::new()).unwrap();
/// let operation = config.configured_tools()[0].versions()[0].operation();
/// let envelope = soap::request_envelope(operation, &json!({"zone": "UTC"})).unwrap();
/// assert!(String::from_utf8(envelope).unwrap().contains(
///     r#"<m:Now xmlns:m="urn:clock"><m:Zone id="UTC"></m:Zone></m:Now>"#
/// ));
/// ```
pub fn request_envelope(operation: &Operation, arguments: &Value) -> Result<Vec<u8>, MappingError> {
    let soap = operation.soap().ok_or(MappingError::NotSoap)?;
    let request = encode::request(operation, arguments)?;
    envelope(
        operation,
        soap,
        arguments,
        request.body.as_ref().unwrap_or(&Value::Null),
        &[],
    )
}

/// For a SOAP operation, the tool's result (exposed names) from the
/// bytes of a successful answer, or the fault or problem the gateway
/// reports for it.
pub fn result_from_envelope(operation: &Operation, answer: &[u8]) -> Result<Value, EnvelopeError> {
    let soap = operation
        .soap()
        .ok_or_else(|| EnvelopeError(MappingError::NotSoap.to_string()))?;
    match read(answer, soap.version()) {
        Ok(Answer::Body(Some(element))) => {
            encode::result(operation, &source_document(&element, soap.response()))
                .map_err(|error| EnvelopeError(error.to_string()))
        }
        Ok(Answer::Body(None)) => Err(EnvelopeError("the SOAP body is empty".to_owned())),
        Ok(Answer::Fault(fault)) => Err(EnvelopeError(format!(
            "a SOAP fault blaming the {}: {}",
            match fault.party {
                Party::Sender => "request",
                Party::Receiver => "service",
                Party::Protocol => "exchange",
            },
            fault.reason
        ))),
        Err(NotSoap::Xml(error)) => Err(EnvelopeError(error.to_string())),
        Err(NotSoap::Envelope(problem)) => Err(EnvelopeError(problem)),
    }
}

/// The envelope of a call: `body` is the request's source document (the
/// arguments moved to their source paths), and `secrets` the values of the
/// header blocks that hold credentials, in the order of the operation's
/// [`headers`](SoapOperation::headers) that have a `secret` (a block
/// without its value is written empty).
pub fn envelope(
    operation: &Operation,
    soap: &SoapOperation,
    arguments: &Value,
    body: &Value,
    secrets: &[String],
) -> Result<Vec<u8>, MappingError> {
    let mut out = Vec::with_capacity(512);
    let header = header_document(operation, arguments);
    match write_envelope(&mut out, soap, body, &header, secrets) {
        Ok(()) => Ok(out),
        // Named by the argument that holds it, looked for only now.
        Err(Unwritable) => Err(MappingError::Unwritable {
            exposed: operation
                .arguments()
                .iter()
                .find(|argument| {
                    argument
                        .exposed
                        .get_all(arguments)
                        .iter()
                        .any(|(_, value)| {
                            value
                                .as_str()
                                .is_some_and(|text| !text.chars().all(xml::is_xml_char))
                        })
                })
                .map(|argument| argument.exposed.to_string())
                .unwrap_or_default(),
        }),
    }
}

/// A value XML 1.0 cannot carry (a control character), escaped or not.
struct Unwritable;

/// The arguments placed in header blocks (`in = "soap_header"`), moved
/// to their source paths: an object by block element, `null` when the
/// call gives none.
fn header_document(operation: &Operation, arguments: &Value) -> Value {
    let mut document = Value::Null;
    for argument in operation.arguments() {
        if argument.location != Location::SoapHeader {
            continue;
        }
        if argument.exposed.ends_in_array() && argument.source.ends_in_array() {
            argument.exposed.for_each_array(arguments, |indices, _| {
                argument.source.ensure_array(&mut document, indices);
            });
        }
        for (indices, value) in argument.exposed.get_all(arguments) {
            argument.source.set(&mut document, &indices, value.clone());
        }
    }
    document
}

/// Writes the envelope: tags and names from the configuration, every value
/// escaped by quick-xml.
fn write_envelope(
    out: &mut Vec<u8>,
    soap: &SoapOperation,
    body: &Value,
    header: &Value,
    secrets: &[String],
) -> Result<(), Unwritable> {
    out.extend_from_slice(br#"<?xml version="1.0" encoding="utf-8"?>"#);
    for piece in [
        "<",
        ENVELOPE,
        ":Envelope xmlns:",
        ENVELOPE,
        "=\"",
        soap.version().envelope_namespace(),
        "\"",
    ] {
        out.extend_from_slice(piece.as_bytes());
    }
    // The prefixes of source paths (`n1:long`), for the body and the
    // header alike.
    for (prefix, namespace) in soap.prefixes() {
        out.extend_from_slice(b" xmlns:");
        out.extend_from_slice(prefix.as_bytes());
        out.extend_from_slice(b"=\"");
        out.extend_from_slice(escape(namespace.as_str()).as_bytes());
        out.push(b'"');
    }
    out.push(b'>');
    write_header(out, soap, header, secrets)?;
    for piece in ["<", ENVELOPE, ":Body>"] {
        out.extend_from_slice(piece.as_bytes());
    }
    let prefix = if soap.namespace().is_some() {
        OPERATION
    } else {
        ""
    };
    open_tag(out, prefix, soap.element());
    if let Some(namespace) = soap.namespace() {
        for piece in [" xmlns:", OPERATION, "=\""] {
            out.extend_from_slice(piece.as_bytes());
        }
        out.extend_from_slice(escape(namespace).as_bytes());
        out.push(b'"');
    }
    write_attributes(out, soap.request(), body)?;
    out.push(b'>');
    if let Value::Object(fields) = body {
        let child_prefix = if soap.qualified() { prefix } else { "" };
        write_children(out, soap.request(), fields, child_prefix)?;
    }
    close_tag(out, prefix, soap.element());
    for piece in ["</", ENVELOPE, ":Body></", ENVELOPE, ":Envelope>"] {
        out.extend_from_slice(piece.as_bytes());
    }
    Ok(())
}

/// The envelope's `Header`, if any block has a value: each credential
/// block with its secret's value, each other block with what the
/// arguments put in it (left out when they put nothing).
fn write_header(
    out: &mut Vec<u8>,
    soap: &SoapOperation,
    header: &Value,
    secrets: &[String],
) -> Result<(), Unwritable> {
    let mut secrets = secrets.iter();
    let mut opened = false;
    for block in soap.headers() {
        let node = block.element();
        let secret;
        let value = match block.secret() {
            Some(_) => {
                secret = Value::String(secrets.next().cloned().unwrap_or_default());
                &secret
            }
            None => match header.get(&node.name) {
                Some(value) if !value.is_null() => value,
                _ => continue,
            },
        };
        if !opened {
            for piece in ["<", ENVELOPE, ":Header>"] {
                out.extend_from_slice(piece.as_bytes());
            }
            opened = true;
        }
        let prefix = if block.namespace().is_some() {
            HEADER
        } else {
            ""
        };
        let items = match value {
            Value::Array(items) if node.repeated => items.as_slice(),
            value => core::slice::from_ref(value),
        };
        for item in items.iter().filter(|item| !item.is_null()) {
            open_tag(out, prefix, &node.name);
            if let Some(namespace) = block.namespace() {
                for piece in [" xmlns:", HEADER, "=\""] {
                    out.extend_from_slice(piece.as_bytes());
                }
                out.extend_from_slice(escape(namespace).as_bytes());
                out.push(b'"');
            }
            write_attributes(out, &node.children, item)?;
            out.push(b'>');
            match item {
                Value::Object(fields) => {
                    let child_prefix = if soap.qualified() { prefix } else { "" };
                    write_children(out, &node.children, fields, child_prefix)?;
                }
                item => write_text(out, item)?,
            }
            close_tag(out, prefix, &node.name);
        }
    }
    if opened {
        for piece in ["</", ENVELOPE, ":Header>"] {
            out.extend_from_slice(piece.as_bytes());
        }
    }
    Ok(())
}

/// `<prefix:name` (the tag left open for attributes).
fn open_tag(out: &mut Vec<u8>, prefix: &str, name: &str) {
    out.push(b'<');
    if !prefix.is_empty() {
        out.extend_from_slice(prefix.as_bytes());
        out.push(b':');
    }
    out.extend_from_slice(name.as_bytes());
}

/// `</prefix:name>`.
fn close_tag(out: &mut Vec<u8>, prefix: &str, name: &str) {
    out.extend_from_slice(b"</");
    if !prefix.is_empty() {
        out.extend_from_slice(prefix.as_bytes());
        out.push(b':');
    }
    out.extend_from_slice(name.as_bytes());
    out.push(b'>');
}

/// A scalar as element or attribute text, escaped.
fn write_text(out: &mut Vec<u8>, value: &Value) -> Result<(), Unwritable> {
    match value {
        Value::String(text) => {
            if !text.chars().all(xml::is_xml_char) {
                return Err(Unwritable);
            }
            out.extend_from_slice(escape(text.as_str()).as_bytes());
        }
        // Writing to a vector cannot fail.
        Value::Number(number) => {
            let _ = write!(out, "{number}");
        }
        Value::Bool(flag) => out.extend_from_slice(if *flag { b"true" } else { b"false" }),
        _ => {}
    }
    Ok(())
}

/// The attributes `nodes` name that `value` holds.
fn write_attributes(out: &mut Vec<u8>, nodes: &[XmlNode], value: &Value) -> Result<(), Unwritable> {
    for node in nodes {
        if let Some(name) = node.attribute()
            && let Some(text) = value.get(&node.name).filter(|v| !v.is_null())
        {
            out.push(b' ');
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b"=\"");
            write_text(out, text)?;
            out.push(b'"');
        }
    }
    Ok(())
}

fn write_children(
    out: &mut Vec<u8>,
    nodes: &[XmlNode],
    fields: &Map<String, Value>,
    prefix: &str,
) -> Result<(), Unwritable> {
    for node in nodes.iter().filter(|node| node.attribute().is_none()) {
        let Some(value) = fields.get(&node.name) else {
            continue;
        };
        match value {
            Value::Array(items) if node.repeated => {
                for item in items {
                    write_element(out, node, item, prefix)?;
                }
            }
            value => write_element(out, node, value, prefix)?,
        }
    }
    Ok(())
}

fn write_element(
    out: &mut Vec<u8>,
    node: &XmlNode,
    value: &Value,
    prefix: &str,
) -> Result<(), Unwritable> {
    if value.is_null() {
        return Ok(());
    }
    // A name with its own prefix (`n1:long`) is written as it is.
    let own = if node.name.contains(':') { "" } else { prefix };
    open_tag(out, own, &node.name);
    write_attributes(out, &node.children, value)?;
    out.push(b'>');
    match value {
        Value::Object(fields) => write_children(out, &node.children, fields, prefix)?,
        value => write_text(out, value)?,
    }
    close_tag(out, own, &node.name);
    Ok(())
}

/// A SOAP fault, as a model is told of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// Who the fault blames.
    pub party: Party,
    /// The fault's text (`faultstring`, or the first `Reason/Text`).
    pub reason: String,
}

/// Who a fault blames, from its code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Party {
    /// `Client` (1.1) or `Sender` (1.2): the request.
    Sender,
    /// `Server` (1.1) or `Receiver` (1.2): the service.
    Receiver,
    /// `VersionMismatch`, `MustUnderstand`, …: the gateway's setup.
    Protocol,
}

/// What a SOAP answer holds.
#[derive(Debug)]
pub enum Answer<'i> {
    /// The body's element (the operation's response), if any.
    Body(Option<Element<'i>>),
    /// A fault.
    Fault(Fault),
}

/// Why an answer cannot be read as SOAP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotSoap {
    /// It is not XML the gateway reads.
    Xml(XmlError),
    /// It is XML, but no envelope of the downstream's version.
    Envelope(String),
}

/// Reads an answer's envelope.
pub fn read(bytes: &[u8], version: SoapVersion) -> Result<Answer<'_>, NotSoap> {
    let root = xml::parse(bytes).map_err(NotSoap::Xml)?;
    let namespace = version.envelope_namespace();
    if &*root.name != "Envelope" {
        return Err(NotSoap::Envelope(
            "its root element is not a SOAP `Envelope`".to_owned(),
        ));
    }
    if root.namespace.as_deref() != Some(namespace) {
        let other = match version {
            SoapVersion::V1_1 => SoapVersion::V1_2,
            SoapVersion::V1_2 => SoapVersion::V1_1,
        };
        return Err(NotSoap::Envelope(
            if root.namespace.as_deref() == Some(other.envelope_namespace()) {
                format!(
                    "it is a SOAP {} envelope, and the downstream is configured for SOAP {} (set `soap_version`)",
                    name_of(other),
                    name_of(version)
                )
            } else {
                "its envelope is in no SOAP namespace".to_owned()
            },
        ));
    }
    let Some(body) = root
        .children
        .into_iter()
        .find(|child| &*child.name == "Body" && child.namespace.as_deref() == Some(namespace))
    else {
        return Err(NotSoap::Envelope("its envelope has no `Body`".to_owned()));
    };
    let Some(first) = body.children.into_iter().next() else {
        return Ok(Answer::Body(None));
    };
    if &*first.name == "Fault" && first.namespace.as_deref() == Some(namespace) {
        return Ok(Answer::Fault(fault(&first, version)));
    }
    Ok(Answer::Body(Some(first)))
}

fn name_of(version: SoapVersion) -> &'static str {
    match version {
        SoapVersion::V1_1 => "1.1",
        SoapVersion::V1_2 => "1.2",
    }
}

fn fault(element: &Element<'_>, version: SoapVersion) -> Fault {
    let (code, reason) = match version {
        SoapVersion::V1_1 => (
            element.child("faultcode").map(|c| c.text.as_ref()),
            element.child("faultstring").map(|c| c.text.as_ref()),
        ),
        SoapVersion::V1_2 => (
            element
                .child("Code")
                .and_then(|c| c.child("Value"))
                .map(|v| v.text.as_ref()),
            element
                .child("Reason")
                .and_then(|r| r.child("Text"))
                .map(|t| t.text.as_ref()),
        ),
    };
    let code = code.unwrap_or("").trim();
    let local = code.rsplit(':').next().unwrap_or(code);
    let party = if ["Client", "Sender"].iter().any(|p| local.starts_with(p)) {
        Party::Sender
    } else if ["Server", "Receiver"].iter().any(|p| local.starts_with(p)) {
        Party::Receiver
    } else {
        Party::Protocol
    };
    Fault {
        party,
        reason: reason.unwrap_or("").to_owned(),
    }
}

/// The source document of an answer's element, read through `nodes`: a
/// repeated element as an array (one item or none as well), a leaf's
/// text as the type its field declares (left as text when it is not one,
/// for the output check to name), anything else left out.
pub fn source_document(element: &Element<'_>, nodes: &[XmlNode]) -> Value {
    Value::Object(read_children(element, nodes))
}

fn read_children(element: &Element<'_>, nodes: &[XmlNode]) -> Map<String, Value> {
    let mut out = Map::new();
    for node in nodes {
        if let Some(name) = node.attribute() {
            if let Some(text) = element.attribute(name) {
                out.insert(node.name.clone(), scalar(text, node.kind));
            }
            continue;
        }
        let mut matches = element.children_named(&node.name);
        if node.repeated {
            let items = matches.map(|child| read_element(child, node)).collect();
            out.insert(node.name.clone(), Value::Array(items));
        } else if let Some(child) = matches.next() {
            out.insert(node.name.clone(), read_element(child, node));
        }
    }
    out
}

fn read_element(element: &Element<'_>, node: &XmlNode) -> Value {
    if element.is_nil() {
        return Value::Null;
    }
    if !node.children.is_empty() {
        return Value::Object(read_children(element, &node.children));
    }
    match node.kind {
        Some(FieldKind::Object | FieldKind::Array | FieldKind::Any) | None => whole(element),
        kind => scalar(&element.text, kind),
    }
}

/// Text as the scalar type `kind` says, when it is one.
fn scalar(text: &str, kind: Option<FieldKind>) -> Value {
    let trimmed = text.trim();
    let typed = match kind {
        Some(FieldKind::Integer) => trimmed
            .parse::<i64>()
            .map(Value::from)
            .or_else(|_| trimmed.parse::<u64>().map(Value::from))
            .ok(),
        Some(FieldKind::Number) => trimmed.parse::<i64>().map(Value::from).ok().or_else(|| {
            trimmed
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
                .map(Value::Number)
        }),
        Some(FieldKind::Boolean) => match trimmed {
            "true" | "1" => Some(Value::Bool(true)),
            "false" | "0" => Some(Value::Bool(false)),
            _ => None,
        },
        _ => None,
    };
    typed.unwrap_or_else(|| Value::String(text.to_owned()))
}

/// An element read whole: its text when it has no children, else an
/// object of its attributes (`@name`) and children (repeated names as
/// arrays).
fn whole(element: &Element<'_>) -> Value {
    if element.children.is_empty() && element.attributes.is_empty() {
        return Value::String(element.text.clone().into_owned());
    }
    let mut out = Map::new();
    for (name, value) in &element.attributes {
        out.insert(format!("@{name}"), Value::String(value.clone()));
    }
    for child in &element.children {
        let value = whole(child);
        match out.get_mut(&*child.name) {
            Some(Value::Array(items)) => items.push(value),
            Some(existing) => {
                let first = existing.take();
                *existing = Value::Array(vec![first, value]);
            }
            None => {
                out.insert(child.name.to_string(), value);
            }
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Answer, NotSoap, Party, read, source_document};
    use crate::xml::{XmlError, parse};
    use toolschema_configured::{FieldKind, FieldPath, SoapVersion, XmlNode};

    fn tree(paths: &[(&str, Option<FieldKind>)]) -> Vec<XmlNode> {
        let paths: Vec<(FieldPath, Option<FieldKind>)> = paths
            .iter()
            .map(|(p, k)| (FieldPath::source(p).expect("valid"), *k))
            .collect();
        XmlNode::tree(paths.iter().map(|(p, k)| (p, *k)))
    }

    #[test]
    fn answers_are_read_through_the_result_tree_with_types() {
        let nodes = tree(&[
            ("quote.@currency", Some(FieldKind::String)),
            ("quote.premium", Some(FieldKind::Number)),
            ("quote.months", Some(FieldKind::Integer)),
            ("quote.exclusion[]", Some(FieldKind::String)),
            ("quote.policy[].@number", Some(FieldKind::String)),
            ("quote.policy[].active", Some(FieldKind::Boolean)),
            ("quote.note", Some(FieldKind::String)),
        ]);
        let element = parse(
            br#"<r xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><quote currency="EUR"><premium>12.50</premium><months>x12</months>
               <exclusion>dental</exclusion><policy number="P-1"><active>1</active></policy><note xsi:nil="true"/><other/></quote></r>"#,
        )
        .expect("well-formed");
        assert_eq!(
            source_document(&element, &nodes),
            json!({"quote": {"@currency": "EUR", "premium": 12.5, "months": "x12",
                "exclusion": ["dental"], "policy": [{"@number": "P-1", "active": true}], "note": null}})
        );
    }

    #[test]
    fn faults_name_who_is_blamed_in_both_versions() {
        let v11 = br#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><s:Fault>
            <faultcode>s:Client.Validation</faultcode><faultstring>No such policy</faultstring></s:Fault></s:Body></s:Envelope>"#;
        match read(v11, SoapVersion::V1_1) {
            Ok(Answer::Fault(fault)) => {
                assert_eq!(fault.party, Party::Sender);
                assert_eq!(fault.reason, "No such policy");
            }
            other => panic!("{other:?}"),
        }
        let v12 = br#"<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body><e:Fault>
            <e:Code><e:Value>e:Receiver</e:Value></e:Code><e:Reason><e:Text xml:lang="en">Down</e:Text></e:Reason></e:Fault></e:Body></e:Envelope>"#;
        match read(v12, SoapVersion::V1_2) {
            Ok(Answer::Fault(fault)) => assert_eq!(
                (fault.party, fault.reason.as_str()),
                (Party::Receiver, "Down")
            ),
            other => panic!("{other:?}"),
        }
        match read(v12, SoapVersion::V1_1) {
            Err(NotSoap::Envelope(message)) => {
                assert!(message.contains("SOAP 1.2 envelope"), "{message}")
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            read(b"<html>502</html>", SoapVersion::V1_1),
            Err(NotSoap::Envelope(_))
        ));
        assert!(matches!(
            read(b"<!DOCTYPE x><x/>", SoapVersion::V1_1),
            Err(NotSoap::Xml(XmlError::DocumentType))
        ));
    }

    #[test]
    fn an_operation_says_what_it_sends_and_what_it_reads() {
        let config = toolschema_config::Config::from_toml(
            r#"
[[tenant]]
id = "t"

[[client]]
id = "c"
tenant = "t"

[[downstream]]
id = "svc"
base_url = "https://svc.example/ws"
protocol = "soap"
soap_version = "1.2"

[[gateway_tool]]
name = "svc.price"
downstream = "svc"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Prices an item."
operation = "Price"
qualified = false

[[gateway_tool.version.argument]]
name = "sku"
source = "item.@sku"
type = "string"

[[gateway_tool.version.argument]]
name = "tags[]"
source = "item.tag[]"
type = "string"

[[gateway_tool.version.result]]
name = "cents"
source = "price"
type = "integer"
"#,
            "svc.toml",
            &toolschema_runtime::call::Registry::new(),
        )
        .unwrap_or_else(|errors| panic!("{errors}"));
        let operation = config.configured_tools()[0].versions()[0].operation();
        let envelope =
            super::request_envelope(operation, &json!({"sku": "A&B", "tags": ["x", "y"]}))
                .expect("writable");
        assert_eq!(
            String::from_utf8(envelope).expect("UTF-8"),
            r#"<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Body><Price><item sku="A&amp;B"><tag>x</tag><tag>y</tag></item></Price></soap:Body></soap:Envelope>"#
        );
        assert_eq!(
            super::request_envelope(operation, &json!({"sku": "bell\u{7}"})),
            Err(crate::encode::MappingError::Unwritable {
                exposed: "sku".to_owned()
            })
        );
        let answer = br#"<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body><r><price>1250</price></r></e:Body></e:Envelope>"#;
        assert_eq!(
            super::result_from_envelope(operation, answer),
            Ok(json!({"cents": 1250}))
        );
        let fault = br#"<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body><e:Fault><e:Code><e:Value>e:Sender</e:Value></e:Code><e:Reason><e:Text>Unknown SKU</e:Text></e:Reason></e:Fault></e:Body></e:Envelope>"#;
        assert_eq!(
            super::result_from_envelope(operation, fault).map_err(|e| e.to_string()),
            Err("a SOAP fault blaming the request: Unknown SKU".to_owned())
        );
    }
    #[test]
    fn an_answers_attributes_read_the_predefined_entities() {
        let config = toolschema_config::Config::from_toml(
            r#"
[[tenant]]
id = "t"

[[client]]
id = "c"
tenant = "t"

[[downstream]]
id = "svc"
base_url = "https://svc.example/ws"
protocol = "soap"
soap_version = "1.2"

[[gateway_tool]]
name = "svc.price"
downstream = "svc"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Prices an item."
operation = "Price"

[[gateway_tool.version.argument]]
name = "sku"
source = "sku"
type = "string"

[[gateway_tool.version.result]]
name = "note"
source = "price.@note"
type = "string"
"#,
            "svc.toml",
            &toolschema_runtime::call::Registry::new(),
        )
        .unwrap_or_else(|errors| panic!("{errors}"));
        let operation = config.configured_tools()[0].versions()[0].operation();
        let answer = br#"<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body><r><price note="a&quot;b&apos;c&lt;d&gt;e&amp;f&#34;&#x22;">1</price></r></e:Body></e:Envelope>"#;
        assert_eq!(
            super::result_from_envelope(operation, answer),
            Ok(json!({"note": "a\"b'c<d>e&f\"\""}))
        );
        let unknown = br#"<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body><r><price note="a&nbsp;b">1</price></r></e:Body></e:Envelope>"#;
        assert!(
            super::result_from_envelope(operation, unknown)
                .is_err_and(|error| error.to_string().contains("`&nbsp;`")),
        );
    }
}
