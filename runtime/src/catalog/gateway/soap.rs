//! SOAP envelopes (feature `gateway`): the request element written from a
//! call's arguments through the operation's element tree, and the answer's
//! body element read back into a JSON value the result mapping takes, or
//! its fault.

use std::io;

use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use serde_json::{Map, Value};

use super::xml::{self, Element, XmlError};
use super::{FieldKind, Operation, SoapOperation, SoapVersion, XmlNode};

/// The prefix of the envelope's elements.
const ENVELOPE: &str = "soap";
/// The prefix of the request element's namespace.
const OPERATION: &str = "m";

/// A value XML cannot carry, named by the argument's exposed path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unwritable {
    pub(crate) exposed: String,
}

/// The envelope of a call: `body` is the request's source document (the
/// arguments moved to their source paths).
pub(crate) fn envelope(
    version: SoapVersion,
    operation: &Operation,
    soap: &SoapOperation,
    arguments: &Value,
    body: &Value,
) -> Result<Vec<u8>, Unwritable> {
    // XML 1.0 cannot carry some control characters, escaped or not.
    for argument in &operation.arguments {
        for (_, value) in argument.exposed.get_all(arguments) {
            if let Value::String(text) = value
                && !text.chars().all(xml::is_xml_char)
            {
                return Err(Unwritable {
                    exposed: argument.exposed.to_string(),
                });
            }
        }
    }
    let mut writer = Writer::new(Vec::with_capacity(512));
    // Writing to a vector cannot fail.
    let _ = write_envelope(&mut writer, version, soap, body);
    Ok(writer.into_inner())
}

fn write_envelope(
    writer: &mut Writer<Vec<u8>>,
    version: SoapVersion,
    soap: &SoapOperation,
    body: &Value,
) -> io::Result<()> {
    writer.write_event(Event::Decl(BytesDecl::new("1.0", Some("utf-8"), None)))?;
    let envelope = format!("{ENVELOPE}:Envelope");
    let mut start = BytesStart::new(envelope.as_str());
    start.push_attribute((
        format!("xmlns:{ENVELOPE}").as_str(),
        version.envelope_namespace(),
    ));
    writer.write_event(Event::Start(start))?;
    let body_name = format!("{ENVELOPE}:Body");
    writer.write_event(Event::Start(BytesStart::new(body_name.as_str())))?;
    let (element, prefix) = match &soap.namespace {
        Some(_) => (format!("{OPERATION}:{}", soap.element), OPERATION),
        None => (soap.element.clone(), ""),
    };
    let mut start = BytesStart::new(element.as_str());
    if let Some(namespace) = &soap.namespace {
        start.push_attribute((format!("xmlns:{OPERATION}").as_str(), namespace.as_str()));
    }
    let child_prefix = if soap.qualified { prefix } else { "" };
    push_attributes(&mut start, &soap.request, body);
    writer.write_event(Event::Start(start))?;
    if let Value::Object(fields) = body {
        write_children(writer, &soap.request, fields, child_prefix)?;
    }
    writer.write_event(Event::End(BytesEnd::new(element.as_str())))?;
    writer.write_event(Event::End(BytesEnd::new(body_name.as_str())))?;
    writer.write_event(Event::End(BytesEnd::new(envelope.as_str())))?;
    Ok(())
}

/// A scalar as element or attribute text.
fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        _ => None,
    }
}

/// Adds the attributes `nodes` name that `value` holds.
fn push_attributes(start: &mut BytesStart<'_>, nodes: &[XmlNode], value: &Value) {
    for node in nodes {
        if let Some(name) = node.attribute()
            && let Some(text) = value.get(&node.name).and_then(text_of)
        {
            start.push_attribute((name, text.as_str()));
        }
    }
}

fn write_children(
    writer: &mut Writer<Vec<u8>>,
    nodes: &[XmlNode],
    fields: &Map<String, Value>,
    prefix: &str,
) -> io::Result<()> {
    for node in nodes.iter().filter(|node| node.attribute().is_none()) {
        let Some(value) = fields.get(&node.name) else {
            continue;
        };
        match value {
            Value::Array(items) if node.repeated => {
                for item in items {
                    write_element(writer, node, item, prefix)?;
                }
            }
            value => write_element(writer, node, value, prefix)?,
        }
    }
    Ok(())
}

fn write_element(
    writer: &mut Writer<Vec<u8>>,
    node: &XmlNode,
    value: &Value,
    prefix: &str,
) -> io::Result<()> {
    if value.is_null() {
        return Ok(());
    }
    let name = if prefix.is_empty() {
        node.name.clone()
    } else {
        format!("{prefix}:{}", node.name)
    };
    let mut start = BytesStart::new(name.as_str());
    push_attributes(&mut start, &node.children, value);
    writer.write_event(Event::Start(start))?;
    match value {
        Value::Object(fields) => write_children(writer, &node.children, fields, prefix)?,
        value => {
            if let Some(text) = text_of(value) {
                writer.write_event(Event::Text(BytesText::new(&text)))?;
            }
        }
    }
    writer.write_event(Event::End(BytesEnd::new(name.as_str())))
}

/// A SOAP fault, as a model is told of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fault {
    /// Who the fault blames.
    pub(crate) party: Party,
    /// The fault's text (`faultstring`, or the first `Reason/Text`).
    pub(crate) reason: String,
}

/// Who a fault blames, from its code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Party {
    /// `Client` (1.1) or `Sender` (1.2): the request.
    Sender,
    /// `Server` (1.1) or `Receiver` (1.2): the service.
    Receiver,
    /// `VersionMismatch`, `MustUnderstand`, …: the gateway's setup.
    Protocol,
}

/// What a SOAP answer holds.
#[derive(Debug)]
pub(crate) enum Answer {
    /// The body's element (the operation's response), if any.
    Body(Option<Element>),
    /// A fault.
    Fault(Fault),
}

/// Why an answer cannot be read as SOAP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NotSoap {
    /// It is not XML the gateway reads.
    Xml(XmlError),
    /// It is XML, but no envelope of the downstream's version.
    Envelope(String),
}

/// Reads an answer's envelope.
pub(crate) fn read(bytes: &[u8], version: SoapVersion) -> Result<Answer, NotSoap> {
    let root = xml::parse(bytes).map_err(NotSoap::Xml)?;
    let namespace = version.envelope_namespace();
    if root.name != "Envelope" {
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
        .find(|child| child.name == "Body" && child.namespace.as_deref() == Some(namespace))
    else {
        return Err(NotSoap::Envelope("its envelope has no `Body`".to_owned()));
    };
    let Some(first) = body.children.into_iter().next() else {
        return Ok(Answer::Body(None));
    };
    if first.name == "Fault" && first.namespace.as_deref() == Some(namespace) {
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

fn fault(element: &Element, version: SoapVersion) -> Fault {
    let (code, reason) = match version {
        SoapVersion::V1_1 => (
            element.child("faultcode").map(|c| c.text.as_str()),
            element.child("faultstring").map(|c| c.text.as_str()),
        ),
        SoapVersion::V1_2 => (
            element
                .child("Code")
                .and_then(|c| c.child("Value"))
                .map(|v| v.text.as_str()),
            element
                .child("Reason")
                .and_then(|r| r.child("Text"))
                .map(|t| t.text.as_str()),
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
pub(crate) fn source_document(element: &Element, nodes: &[XmlNode]) -> Value {
    Value::Object(read_children(element, nodes))
}

fn read_children(element: &Element, nodes: &[XmlNode]) -> Map<String, Value> {
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

fn read_element(element: &Element, node: &XmlNode) -> Value {
    if element.is_nil() {
        return Value::Null;
    }
    if !node.children.is_empty() {
        return Value::Object(read_children(element, &node.children));
    }
    match node.kind {
        Some(FieldKind::Object | FieldKind::Array) | None => whole(element),
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
fn whole(element: &Element) -> Value {
    if element.children.is_empty() && element.attributes.is_empty() {
        return Value::String(element.text.clone());
    }
    let mut out = Map::new();
    for (name, value) in &element.attributes {
        out.insert(format!("@{name}"), Value::String(value.clone()));
    }
    for child in &element.children {
        let value = whole(child);
        match out.get_mut(&child.name) {
            Some(Value::Array(items)) => items.push(value),
            Some(existing) => {
                let first = existing.take();
                *existing = Value::Array(vec![first, value]);
            }
            None => {
                out.insert(child.name.clone(), value);
            }
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Answer, NotSoap, Party, read, source_document};
    use crate::catalog::gateway::xml::{XmlError, parse};
    use crate::catalog::gateway::{FieldKind, FieldPath, SoapVersion, XmlNode};

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
}
