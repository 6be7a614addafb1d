//! SOAP operations: the request element built from the arguments, the
//! headers sent beside it, and the answer's element read into the result.

use super::{FieldKind, FieldPath, SoapVersion};

/// A SOAP operation (document/literal): the request element, in its
/// namespace, built from the arguments, and the answer's first body
/// element read into the result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SoapOperation {
    /// The downstream's SOAP version.
    pub version: SoapVersion,
    /// The request element's name.
    pub element: String,
    /// The request element's namespace.
    pub namespace: Option<String>,
    /// The SOAP action.
    pub action: Option<String>,
    /// Whether the request element's children are in its namespace
    /// (`elementFormDefault="qualified"`).
    pub qualified: bool,
    /// The request element's content, in the order elements are written.
    pub request: Vec<XmlNode>,
    /// What is read from the answer's element.
    pub response: Vec<XmlNode>,
    /// The blocks of the envelope's `Header`, in the order written.
    pub headers: Vec<SoapHeader>,
    /// The namespace prefixes source paths use (`prefix:name` steps), each
    /// with its namespace: declared on the envelope.
    pub prefixes: Vec<(String, String)>,
}

impl SoapOperation {
    /// The request element's local name.
    pub fn element(&self) -> &str {
        &self.element
    }

    /// The request element's namespace.
    pub fn namespace(&self) -> Option<&str> {
        self.namespace.as_deref()
    }

    /// The SOAP action, if the operation has one.
    pub fn action(&self) -> Option<&str> {
        self.action.as_deref()
    }

    /// The SOAP version of its downstream.
    pub fn version(&self) -> SoapVersion {
        self.version
    }

    /// What is read from the answer's element.
    pub fn response(&self) -> &[XmlNode] {
        &self.response
    }

    /// The request element's content, in the order elements are written.
    pub fn request(&self) -> &[XmlNode] {
        &self.request
    }

    /// Whether the request element's children are in its namespace
    /// (`elementFormDefault="qualified"`).
    pub fn qualified(&self) -> bool {
        self.qualified
    }

    /// The blocks of the envelope's `Header`, in the order written.
    pub fn headers(&self) -> &[SoapHeader] {
        &self.headers
    }

    /// The namespace prefixes the request's source paths use
    /// (`Ids.n1:long[]`), each with its namespace, in order by prefix.
    pub fn prefixes(&self) -> &[(String, String)] {
        &self.prefixes
    }
}

/// A block of a SOAP request's `Header`: an element in its namespace,
/// whose value is either the arguments placed in it (`in =
/// "soap_header"`, never a credential) or, for a credential, a secret read
/// at each call (`[[gateway_tool.version.soap_header]]` with `secret`),
/// which no client sees or sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SoapHeader {
    /// The element, and what the arguments put inside it (a leaf's type
    /// when it holds a value itself).
    pub element: XmlNode,
    /// The block's namespace.
    pub namespace: Option<String>,
    /// The name of the secret the block's value is read from, for a
    /// credential sent in the header.
    pub secret: Option<String>,
}

impl SoapHeader {
    /// The block's element: its local name, and the elements and
    /// attributes the arguments write inside it.
    pub fn element(&self) -> &XmlNode {
        &self.element
    }

    /// The element's namespace (the block's `namespace`, else the
    /// operation's).
    pub fn namespace(&self) -> Option<&str> {
        self.namespace.as_deref()
    }

    /// The secret (by default an environment variable) whose value is the
    /// element's text, for a credential; `None` when arguments fill it.
    pub fn secret(&self) -> Option<&str> {
        self.secret.as_deref()
    }
}

/// An element (or, named `@…`, an attribute) that source paths go
/// through: the tree of a SOAP operation's request or answer, children in
/// the order the configuration first names them (a sequence's order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XmlNode {
    /// The source step's name: an element's local name, or `@` and an
    /// attribute's.
    pub name: String,
    /// Whether the element repeats (`[]`): one per item of an array.
    pub repeated: bool,
    /// The type of the value a leaf holds.
    pub kind: Option<FieldKind>,
    /// The elements and attributes inside, in order.
    pub children: Vec<XmlNode>,
}

impl XmlNode {
    /// The attribute's name, if this is one.
    pub fn attribute(&self) -> Option<&str> {
        self.name.strip_prefix('@')
    }

    /// The tree that `paths` (each with its leaf's type) go through.
    pub fn tree<'a>(
        paths: impl Iterator<Item = (&'a FieldPath, Option<FieldKind>)>,
    ) -> Vec<XmlNode> {
        let mut roots: Vec<XmlNode> = Vec::new();
        for (path, kind) in paths {
            let mut level = &mut roots;
            let steps = path.steps();
            for (i, step) in steps.iter().enumerate() {
                let at = match level.iter().position(|n| *n.name == *step.name) {
                    Some(at) => at,
                    None => {
                        level.push(XmlNode {
                            name: step.name.to_string(),
                            repeated: false,
                            kind: None,
                            children: Vec::new(),
                        });
                        level.len() - 1
                    }
                };
                let node = &mut level[at];
                node.repeated |= step.each;
                if i + 1 == steps.len() {
                    node.kind = kind;
                }
                level = &mut node.children;
            }
        }
        roots
    }
}
