//! Violations: the rule broken, where (an exposed JSON pointer), and one
//! sentence a model can act on; and how `jsonschema`'s errors become them.

use core::fmt;

use serde_json::Value;

use crate::model::Text;

mod found;
pub(crate) use found::{Broken, Found, options_text};

/// The rule a violation breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Rule {
    /// The payload is not JSON.
    InvalidJson,
    /// The payload exceeds [`Limits::max_bytes`](super::Limits::max_bytes).
    TooLarge,
    /// The payload nests deeper than [`Limits::max_depth`](super::Limits::max_depth).
    TooDeep,
    /// The arguments are not a JSON object.
    NotAnObject,
    /// A value has the wrong JSON type (`type`).
    Type,
    /// A required property is missing (`required`).
    Required,
    /// A property the schema does not list (`additionalProperties`).
    UnknownProperty,
    /// A string breaks its `format`.
    Format,
    /// A number is below `minimum`.
    Minimum,
    /// A number is above `maximum`.
    Maximum,
    /// A string is shorter than `minLength`.
    MinLength,
    /// A string is longer than `maxLength`.
    MaxLength,
    /// A string does not match `pattern`.
    Pattern,
    /// An array has fewer items than `minItems`.
    MinItems,
    /// An array has more items than `maxItems`.
    MaxItems,
    /// An array repeats an item (`uniqueItems`).
    UniqueItems,
    /// A value is not one of the allowed values (`enum`).
    Enum,
    /// A value is not the one allowed value (`const`).
    Const,
    /// A value matches none, or several, of the allowed forms (`oneOf`,
    /// `anyOf`).
    Alternatives,
    /// A value that is explicitly not allowed (`not`).
    Not,
    /// The arguments match the schema, but the tool could not read them.
    Unreadable,
    /// The tool's own schema does not compile: a server-side defect.
    InvalidSchema,
    /// Any other keyword.
    Other,
}

impl Rule {
    /// The JSON Schema keyword (or limit) behind the rule.
    pub fn keyword(self) -> &'static str {
        match self {
            Rule::InvalidJson => "json",
            Rule::TooLarge => "maxBytes",
            Rule::TooDeep => "maxDepth",
            Rule::NotAnObject | Rule::Type => "type",
            Rule::Required => "required",
            Rule::UnknownProperty => "additionalProperties",
            Rule::Format => "format",
            Rule::Minimum => "minimum",
            Rule::Maximum => "maximum",
            Rule::MinLength => "minLength",
            Rule::MaxLength => "maxLength",
            Rule::Pattern => "pattern",
            Rule::MinItems => "minItems",
            Rule::MaxItems => "maxItems",
            Rule::UniqueItems => "uniqueItems",
            Rule::Enum => "enum",
            Rule::Const => "const",
            Rule::Alternatives => "oneOf",
            Rule::Not => "not",
            Rule::Unreadable => "deserialize",
            Rule::InvalidSchema => "schema",
            Rule::Other => "other",
        }
    }
}

/// One broken rule at one place of the arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    path: String,
    rule: Rule,
    message: String,
}

impl Violation {
    pub(crate) fn new(
        path: impl Into<String>,
        rule: Rule,
        message: impl Into<String>,
    ) -> Violation {
        Violation {
            path: path.into(),
            rule,
            message: message.into(),
        }
    }

    /// A whole number written with a fraction or an exponent (`1e19`),
    /// where an integer stands, too large to be read exactly: the float may
    /// be a rounding of the number written.
    pub(crate) fn inexact(path: String) -> Violation {
        let message = format!(
            "{} is a whole number too large to read exactly when written with a fraction or an exponent; write it in digits only (no `.` or `e`).",
            Place(&path)
        );
        Violation::new(path, Rule::Type, message)
    }

    /// The JSON pointer of the offending value, in exposed names (`""` is the
    /// arguments object itself).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The rule broken.
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// One sentence that says what to change.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// The violations found in one set of arguments (never none): the first
/// [`Limits::max_violations`](super::Limits::max_violations) by path, and
/// how many more there are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentErrors {
    violations: Box<[Violation]>,
    omitted: usize,
}

impl ArgumentErrors {
    pub(crate) fn one(violation: Violation) -> ArgumentErrors {
        ArgumentErrors {
            violations: Box::new([violation]),
            omitted: 0,
        }
    }

    /// What `found` kept (at least one violation).
    pub(crate) fn from_found(found: Found) -> ArgumentErrors {
        let (violations, omitted) = found.finish();
        ArgumentErrors {
            violations,
            omitted,
        }
    }

    /// The same, where an unknown property names a field of its object
    /// another way (the field's Rust name, or a near miss of its exposed
    /// name), saying which field it likely meant.
    pub(crate) fn with_suggestions(mut self, root: &crate::model::Node) -> ArgumentErrors {
        for violation in self.violations.iter_mut() {
            if violation.rule != Rule::UnknownProperty {
                continue;
            }
            if let Some(meant) = meant_field(root, &violation.path) {
                let tail = "remove it or check its spelling.";
                if let Some(kept) = violation.message.strip_suffix(tail) {
                    violation.message = format!("{kept}did you mean `{meant}`?");
                }
            }
        }
        self
    }

    /// The violations listed, ordered by path (one value's violations in
    /// the order the schema lists its rules).
    pub fn iter(&self) -> core::slice::Iter<'_, Violation> {
        self.violations.iter()
    }

    /// How many violations are listed.
    pub fn len(&self) -> usize {
        self.violations.len()
    }

    /// How many more violations were found than are listed: the arguments
    /// broke `len() + omitted()` rules in all.
    pub fn omitted(&self) -> usize {
        self.omitted
    }

    /// Always false: there is at least one violation.
    pub fn is_empty(&self) -> bool {
        self.violations.is_empty()
    }
}

impl<'a> IntoIterator for &'a ArgumentErrors {
    type Item = &'a Violation;
    type IntoIter = core::slice::Iter<'a, Violation>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl fmt::Display for ArgumentErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.violations.len() + self.omitted;
        write!(
            f,
            "the arguments break {n} rule{}:",
            if n == 1 { "" } else { "s" }
        )?;
        write_list(f, &self.violations, self.omitted)
    }
}

/// The listed violations, one per line, then how many are not listed.
fn write_list(f: &mut fmt::Formatter<'_>, listed: &[Violation], omitted: usize) -> fmt::Result {
    for violation in listed {
        write!(f, "\n- {violation}")?;
    }
    if omitted > 0 {
        write!(
            f,
            "\n- and {omitted} more, not listed; fix these and the rest will be reported."
        )?;
    }
    Ok(())
}

impl std::error::Error for ArgumentErrors {}

/// A tool's result that breaks the tool's own output schema: a server-side
/// defect, never sent as if valid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputErrors {
    tool: Text,
    violations: Box<[Violation]>,
    omitted: usize,
}

impl OutputErrors {
    /// What `found` kept of `tool`'s result (at least one violation).
    pub(crate) fn from_found(tool: Text, found: Found) -> OutputErrors {
        let (violations, omitted) = found.finish();
        OutputErrors {
            tool,
            violations,
            omitted,
        }
    }

    /// The violations listed, with paths in exposed names.
    pub fn iter(&self) -> core::slice::Iter<'_, Violation> {
        self.violations.iter()
    }

    /// How many more violations were found than are listed.
    pub fn omitted(&self) -> usize {
        self.omitted
    }
}

impl fmt::Display for OutputErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tool `{}` returned a result that breaks its own output schema; this is a server-side defect:",
            self.tool
        )?;
        write_list(f, &self.violations, self.omitted)
    }
}

impl std::error::Error for OutputErrors {}

pub(super) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// At most this many bytes of a path are reported; a longer one is cut and
/// ends in `…` (a property name is the client's to choose, and a reply
/// echoes it).
pub(crate) const MAX_PATH_BYTES: usize = 200;

/// At most this many bytes of one message.
const MAX_MESSAGE_BYTES: usize = 600;

/// `text` cut to at most `max` bytes on a character boundary, marked with
/// `…` when cut.
fn bounded(text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    toolschema_text::shorten::shorten(&text, max).into_owned()
}

/// Appends a property name to a JSON pointer (bounded).
/// The exposed name of the field an unknown property at `pointer` likely
/// meant: the field whose Rust (source) name or alias it is, else the
/// exposed name it misspells. `None` where the object cannot be found by
/// the pointer (alternatives, a map's keys) or nothing is close.
fn meant_field<'a>(root: &'a crate::model::Node, pointer: &str) -> Option<&'a str> {
    use crate::model::{Field, Node};
    fn object_fields<'n>(node: &'n Node, out: &mut Vec<&'n Field>) -> bool {
        match node {
            Node::Object(object) => {
                for field in object.fields.iter() {
                    match field.flatten {
                        true => {
                            object_fields(&field.schema, out);
                        }
                        false => out.push(field),
                    }
                }
                true
            }
            Node::Optional(inner) => object_fields(inner, out),
            _ => false,
        }
    }
    fn unescape(step: &str) -> String {
        step.replace("~1", "/").replace("~0", "~")
    }
    let (parent, name) = pointer.rsplit_once('/')?;
    let name = unescape(name);
    let mut node = root;
    for step in parent.split('/').skip(1) {
        node = match node {
            Node::Optional(inner) => inner,
            _ => node,
        };
        node = match node {
            Node::Array(array) => &array.items,
            Node::Map(map) => &map.values,
            Node::Object(_) => {
                let mut fields = Vec::new();
                object_fields(node, &mut fields);
                let step = unescape(step);
                &fields
                    .into_iter()
                    .find(|field| *field.exposed == *step)?
                    .schema
            }
            _ => return None,
        };
    }
    let mut fields = Vec::new();
    if !object_fields(node, &mut fields) {
        return None;
    }
    let fields: Vec<&Field> = fields.into_iter().filter(|field| field.read).collect();
    if let Some(field) = fields
        .iter()
        .find(|field| *field.source == *name || field.aliases.iter().any(|alias| **alias == *name))
    {
        return Some(&field.exposed);
    }
    toolschema_text::suggest::closest(&name, fields.iter().map(|field| &*field.exposed))
}

pub(super) fn child(path: &str, name: &str) -> String {
    let mut pointer = String::with_capacity(path.len() + 1 + name.len().min(MAX_PATH_BYTES));
    pointer.push_str(path);
    pointer.push('/');
    for c in name.chars() {
        if pointer.len() > MAX_PATH_BYTES {
            break;
        }
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
    bounded(pointer, MAX_PATH_BYTES)
}

/// Where a violation stands, as a sentence starts it: `` `/path` ``, or
/// "The arguments" for the arguments object itself. Written straight into
/// the message.
pub(super) struct Place<'a>(pub(super) &'a str);

impl fmt::Display for Place<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("The arguments")
        } else {
            f.write_str("`")?;
            f.write_str(self.0)?;
            f.write_str("`")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_escape_names() {
        assert_eq!(child("/a", "b/c~d"), "/a/b~1c~0d");
    }

    #[test]
    fn long_names_are_cut_on_a_character_boundary() {
        let name = "é".repeat(1000);
        let pointer = child("/a", &name);
        assert!(
            pointer.len() <= MAX_PATH_BYTES + '…'.len_utf8(),
            "{}",
            pointer.len()
        );
        assert!(pointer.ends_with('…') && pointer.starts_with("/a/é"));
    }

    #[test]
    fn the_first_violations_by_path_are_kept_and_the_rest_counted() {
        let mut found = Found::new(3);
        for name in ["e", "b", "d", "a", "c", "a"] {
            found.push(Violation::new(format!("/{name}"), Rule::Type, name));
        }
        let (kept, omitted) = found.finish();
        let paths: Vec<&str> = kept.iter().map(Violation::path).collect();
        assert_eq!(paths, ["/a", "/a", "/b"]);
        assert_eq!(omitted, 3);
    }
}
