//! A small XML tree, read with quick-xml, for SOAP answers and WSDL
//! documents.
//!
//! Read defensively: a document type declaration is refused (SOAP forbids
//! one in a message, and without one no entity can be defined, so none is
//! ever expanded and nothing external is ever fetched); a reference to any
//! entity but XML's five and character references is refused; nesting is
//! bounded ([`MAX_DEPTH`]); the input's size is the caller's to bound.

use core::fmt;
use std::borrow::Cow;

use quick_xml::events::{BytesStart, Event};
use quick_xml::name::ResolveResult;
use quick_xml::{NsReader, XmlVersion};

/// The deepest nesting of elements read.
pub const MAX_DEPTH: usize = 64;

/// An element: its local name and namespace, its attributes (local names;
/// namespace declarations left out), its child elements and its text
/// (borrowed from the document when it can be).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element<'i> {
    /// The local name.
    pub name: String,
    /// The namespace, if the element is in one.
    pub namespace: Option<String>,
    /// The attributes, by local name.
    pub attributes: Vec<(String, String)>,
    /// The child elements, in order.
    pub children: Vec<Element<'i>>,
    /// The text directly inside.
    pub text: Cow<'i, str>,
}

impl<'i> Element<'i> {
    /// The value of the attribute with this local name.
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(key, _)| **key == *name)
            .map(|(_, value)| value.as_str())
    }

    /// The child elements with this local name.
    pub fn children_named<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Iterator<Item = &'a Element<'i>> + 'a {
        self.children
            .iter()
            .filter(move |child| *child.name == *name)
    }

    /// The first child element with this local name.
    pub fn child(&self, name: &str) -> Option<&Element<'i>> {
        self.children.iter().find(|child| *child.name == *name)
    }

    /// Whether the element says it has no value (`xsi:nil="true"`).
    pub fn is_nil(&self) -> bool {
        matches!(self.attribute("nil"), Some("true" | "1"))
    }
}

/// Why a document is not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum XmlError {
    /// It has a document type declaration.
    DocumentType,
    /// It refers to an entity XML does not predefine.
    Entity(String),
    /// Its elements nest deeper than [`MAX_DEPTH`].
    TooDeep,
    /// It is not UTF-8.
    NotUtf8,
    /// It is not well-formed XML.
    Malformed(String),
}

impl fmt::Display for XmlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            XmlError::DocumentType => f.write_str(
                "it holds a document type declaration (`<!DOCTYPE`), which is refused: no entity is ever defined or expanded",
            ),
            // The name is the downstream's to choose: shown cut short.
            XmlError::Entity(name) => write!(
                f,
                "it refers to the entity `&{};`, which XML does not predefine; it is not expanded",
                toolschema_text::shorten::shorten(name, 40)
            ),
            XmlError::TooDeep => write!(f, "its elements nest deeper than {MAX_DEPTH} levels"),
            XmlError::NotUtf8 => f.write_str("it is not UTF-8 text"),
            XmlError::Malformed(problem) => write!(f, "it is not well-formed XML ({problem})"),
        }
    }
}

/// The text of an entity XML predefines (`lt`, `gt`, `amp`, `apos`,
/// `quot`), in text and in attribute values alike.
fn predefined(name: &str) -> Option<&'static str> {
    quick_xml::escape::resolve_xml_entity(name)
}

fn malformed(error: impl fmt::Display) -> XmlError {
    XmlError::Malformed(error.to_string())
}

/// The element an opening tag starts.
fn open<'i>(resolved: ResolveResult<'_>, start: &BytesStart<'_>) -> Result<Element<'i>, XmlError> {
    let namespace = match resolved {
        ResolveResult::Bound(namespace) => Some(namespace.as_ref().to_owned()),
        ResolveResult::Unbound => None,
        ResolveResult::Unknown(prefix) => {
            return Err(XmlError::Malformed(format!(
                "the prefix `{prefix}` is not declared"
            )));
        }
    };
    let name = start.local_name().as_ref().to_owned();
    let mut attributes = Vec::new();
    for attribute in start.attributes() {
        let attribute = attribute.map_err(malformed)?;
        if attribute.key.as_namespace_binding().is_some() {
            continue;
        }
        let key = attribute.key.local_name().as_ref().to_owned();
        let mut unknown = None;
        // quick-xml expands character references and `&amp;` itself, and
        // asks for every other entity: the predefined ones are answered,
        // any other is refused.
        let value = attribute
            .normalized_value_with(XmlVersion::Implicit1_0, 1, |entity| {
                let text = predefined(entity);
                if text.is_none() {
                    unknown = Some(entity.to_owned());
                }
                text
            })
            .map_err(|error| match unknown.take() {
                Some(entity) => XmlError::Entity(entity),
                None => malformed(error),
            })?;
        attributes.push((key, value.into_owned()));
    }
    Ok(Element {
        name,
        namespace,
        attributes,
        children: Vec::new(),
        text: Cow::Borrowed(""),
    })
}

/// Adds text to an element's.
fn append<'i>(text: &mut Cow<'i, str>, more: Cow<'i, str>) {
    if text.is_empty() {
        *text = more;
    } else {
        text.to_mut().push_str(&more);
    }
}

/// Reads the document's root element.
pub fn parse(bytes: &[u8]) -> Result<Element<'_>, XmlError> {
    let text = core::str::from_utf8(bytes).map_err(|_| XmlError::NotUtf8)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut reader = NsReader::from_str(text);
    let mut open_elements: Vec<Element<'_>> = Vec::new();
    loop {
        let (resolved, event) = reader.read_resolved_event().map_err(malformed)?;
        match event {
            Event::DocType(_) => return Err(XmlError::DocumentType),
            Event::Start(start) => {
                if open_elements.len() >= MAX_DEPTH {
                    return Err(XmlError::TooDeep);
                }
                open_elements.push(open(resolved, &start)?);
            }
            Event::Empty(start) => {
                if open_elements.len() >= MAX_DEPTH {
                    return Err(XmlError::TooDeep);
                }
                let element = open(resolved, &start)?;
                match open_elements.last_mut() {
                    Some(parent) => parent.children.push(element),
                    None => return Ok(element),
                }
            }
            Event::End(_) => {
                let Some(element) = open_elements.pop() else {
                    return Err(XmlError::Malformed(
                        "a closing tag has no opening".to_owned(),
                    ));
                };
                match open_elements.last_mut() {
                    Some(parent) => parent.children.push(element),
                    None => return Ok(element),
                }
            }
            Event::Text(text) => {
                if let Some(element) = open_elements.last_mut() {
                    append(&mut element.text, text.xml10_content());
                } else if !text.xml10_content().trim().is_empty() {
                    return Err(XmlError::Malformed(
                        "text stands outside the root element".to_owned(),
                    ));
                }
            }
            Event::CData(data) => {
                if let Some(element) = open_elements.last_mut() {
                    append(&mut element.text, data.xml10_content());
                }
            }
            Event::GeneralRef(reference) => {
                let mut character = [0; 4];
                let text = if reference.is_char_ref() {
                    reference
                        .resolve_char_ref()
                        .map_err(malformed)?
                        .map(|c| &*c.encode_utf8(&mut character))
                } else {
                    let name = reference.xml10_content();
                    match predefined(&name) {
                        Some(text) => Some(text),
                        None => return Err(XmlError::Entity(name.into_owned())),
                    }
                };
                if let (Some(element), Some(text)) = (open_elements.last_mut(), text) {
                    element.text.to_mut().push_str(text);
                }
            }
            Event::Eof => {
                return Err(XmlError::Malformed(if open_elements.is_empty() {
                    "there is no element".to_owned()
                } else {
                    format!(
                        "`<{}>` is not closed",
                        open_elements[open_elements.len() - 1].name
                    )
                }));
            }
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) => {}
        }
    }
}

/// Whether XML 1.0 can carry `c` at all (escaped or not).
pub fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

#[cfg(test)]
mod tests {
    use super::{XmlError, parse};

    #[test]
    fn elements_attributes_text_and_namespaces_are_read() {
        let document = br#"<?xml version="1.0"?>
            <s:Envelope xmlns:s="urn:env"><s:Body>
              <m:Quote xmlns:m="urn:q" currency="EUR">
                <m:premium>12.50</m:premium><m:note>a &lt; b &#x26; c<![CDATA[ <raw> ]]></m:note>
                <m:empty/>
              </m:Quote>
            </s:Body></s:Envelope>"#;
        let root = parse(document).expect("well-formed");
        assert_eq!(&*root.name, "Envelope");
        assert_eq!(root.namespace.as_deref(), Some("urn:env"));
        let quote = &root.child("Body").expect("body").children[0];
        assert_eq!(quote.namespace.as_deref(), Some("urn:q"));
        assert_eq!(quote.attribute("currency"), Some("EUR"));
        assert_eq!(quote.child("premium").expect("premium").text, "12.50");
        assert_eq!(quote.child("note").expect("note").text, "a < b & c <raw> ");
        assert_eq!(quote.children.len(), 3);
    }

    #[test]
    fn attribute_values_read_the_predefined_entities_and_character_references() {
        let root = parse(
            br#"<r a="&quot;x&quot;" b="&apos;&lt;&gt;&amp;" c="&#34;&#x22;&#39;" d="a&amp;lt;b"/>"#,
        )
        .expect("XML predefines these");
        assert_eq!(root.attribute("a"), Some("\"x\""));
        assert_eq!(root.attribute("b"), Some("'<>&"));
        assert_eq!(root.attribute("c"), Some("\"\"'"));
        // Expanded once: `&amp;lt;` is the text `&lt;`.
        assert_eq!(root.attribute("d"), Some("a&lt;b"));
    }

    #[test]
    fn entities_document_types_and_deep_nesting_are_refused() {
        let xxe = br#"<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>"#;
        assert_eq!(parse(xxe), Err(XmlError::DocumentType));
        assert_eq!(parse(b"<r>&x;</r>"), Err(XmlError::Entity("x".to_owned())));
        assert_eq!(
            parse(br#"<r a="&x;"/>"#),
            Err(XmlError::Entity("x".to_owned()))
        );
        assert_eq!(
            parse(br#"<r a="&quot;&x;"/>"#),
            Err(XmlError::Entity("x".to_owned()))
        );
        let deep = "<a>".repeat(65) + &"</a>".repeat(65);
        assert_eq!(parse(deep.as_bytes()), Err(XmlError::TooDeep));
        let fine = "<a>".repeat(64) + &"</a>".repeat(64);
        assert!(parse(fine.as_bytes()).is_ok());
        for broken in [&b"<a><b></a>"[..], b"<a>", b"", b"<p:a/>", b"\xff<a/>"] {
            assert!(
                parse(broken).is_err(),
                "{:?}",
                String::from_utf8_lossy(broken)
            );
        }
    }
}
