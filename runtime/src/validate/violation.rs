//! Violations: the rule broken, where (an exposed JSON pointer), and one
//! sentence a model can act on; and how `jsonschema`'s errors become them.

use core::fmt;
use std::collections::BinaryHeap;

use serde_json::Value;

use crate::model::Text;

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

/// The violations of one validation: the first `cap` by path (a path's
/// violations in the order found), and a count of the others. Memory stays
/// bounded however many are found, and a message is written only for a
/// violation that is kept.
pub(crate) struct Found {
    cap: usize,
    /// A max-heap on (path, order): its top is the first to give way.
    kept: BinaryHeap<Ranked>,
    omitted: usize,
    next: u64,
}

struct Ranked {
    order: u64,
    violation: Violation,
}

impl Ranked {
    fn key(&self) -> (&str, u64) {
        (&self.violation.path, self.order)
    }
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Ranked) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Ranked {}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Ranked) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked {
    fn cmp(&self, other: &Ranked) -> core::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

impl Found {
    /// Keeps at most `cap` violations (at least one).
    pub(crate) fn new(cap: usize) -> Found {
        Found {
            cap: cap.max(1),
            kept: BinaryHeap::new(),
            omitted: 0,
            next: 0,
        }
    }

    /// Whether nothing was found.
    pub(crate) fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// Offers a violation at `path`; its message is written only if it is
    /// kept.
    fn offer(&mut self, path: String, rule: Rule, message: impl FnOnce(&str) -> String) {
        let order = self.next;
        self.next += 1;
        if self.kept.len() >= self.cap {
            let later = self
                .kept
                .peek()
                .is_some_and(|top| (path.as_str(), order) > top.key());
            self.omitted += 1;
            if later {
                return;
            }
            self.kept.pop();
        }
        let message = bounded(message(&path), MAX_MESSAGE_BYTES);
        self.kept.push(Ranked {
            order,
            violation: Violation::new(path, rule, message),
        });
    }

    /// Offers one violation already made.
    pub(crate) fn push(&mut self, violation: Violation) {
        let Violation {
            path,
            rule,
            message,
        } = violation;
        self.offer(path, rule, |_| message);
    }

    /// The violations kept, by path, and how many were not.
    fn finish(self) -> (Box<[Violation]>, usize) {
        let kept: Vec<Violation> = self
            .kept
            .into_sorted_vec()
            .into_iter()
            .map(|ranked| ranked.violation)
            .collect();
        (kept.into_boxed_slice(), self.omitted)
    }

    /// Offers the violations one `jsonschema` error stands for.
    pub(crate) fn add(&mut self, error: &jsonschema::ValidationError<'_>) {
        self.add_at("", error);
    }

    /// Offers a missing required property `name` of the object at `object`.
    pub(crate) fn add_required(&mut self, object: &str, name: &str) {
        let path = child(&bounded(object.to_owned(), MAX_PATH_BYTES), name);
        self.offer(path, Rule::Required, |path| {
            format!("`{path}` is required; add it.")
        });
    }

    /// Offers a property `name` the object at `object` does not list.
    pub(crate) fn add_unknown(&mut self, object: &str, name: &str) {
        let path = child(&bounded(object.to_owned(), MAX_PATH_BYTES), name);
        self.offer(path, Rule::UnknownProperty, |path| {
            format!("`{path}` is not a parameter here; remove it or check its spelling.")
        });
    }

    /// Offers an array at `path` with fewer items than `min` (`MinItems`)
    /// or more than `max` (`MaxItems`).
    pub(crate) fn add_items(&mut self, path: &str, rule: Rule, limit: u64) {
        let path = bounded(path.to_owned(), MAX_PATH_BYTES);
        let bound = if rule == Rule::MinItems {
            "least"
        } else {
            "most"
        };
        self.offer(path, rule, |path| {
            format!(
                "{} must have at {bound} {limit} item{}.",
                Place(path),
                plural(limit)
            )
        });
    }

    /// Offers one rule broken by the value at `path` (a JSON pointer,
    /// not longer than a report holds).
    pub(crate) fn add_broken(&mut self, path: &str, broken: Broken<'_>) {
        self.offer(path.to_owned(), broken.rule(), |path| {
            broken.sentence(Place(path))
        });
    }

    /// Offers the violations one `jsonschema` error stands for, its
    /// instance path taken below `prefix`.
    pub(crate) fn add_at(&mut self, prefix: &str, error: &jsonschema::ValidationError<'_>) {
        use jsonschema::error::ValidationErrorKind as Kind;
        let instance = error.instance_path();
        let mut path = String::with_capacity(prefix.len() + instance.as_str().len());
        path.push_str(prefix);
        path.push_str(instance.as_str());
        let path = bounded(path, MAX_PATH_BYTES);
        let mut one = |rule: Rule, message: &dyn Fn(Place<'_>) -> String| {
            self.offer(path.clone(), rule, |path| message(Place(path)));
        };
        match error.kind() {
            Kind::Required { property } => {
                let name = property.as_str().unwrap_or_default();
                self.add_required(&path, name);
            }
            Kind::AdditionalProperties { unexpected } => {
                for name in unexpected {
                    self.add_unknown(&path, name);
                }
            }
            Kind::Type { kind } => {
                let expected = match kind {
                    jsonschema::error::TypeKind::Single(t) => t.to_string(),
                    jsonschema::error::TypeKind::Multiple(set) => set
                        .iter()
                        .map(|t| t.to_string())
                        .collect::<Vec<_>>()
                        .join(" or "),
                };
                let actual = kind_of(error.instance());
                self.add_broken(
                    &path,
                    Broken::Type {
                        expected: &expected,
                        actual,
                    },
                );
            }
            Kind::Format { format } => self.add_broken(&path, Broken::Format(format)),
            Kind::Minimum { limit } => self.add_broken(&path, Broken::Minimum(limit)),
            Kind::Maximum { limit } => self.add_broken(&path, Broken::Maximum(limit)),
            Kind::MinLength { limit } => self.add_broken(&path, Broken::MinLength(*limit)),
            Kind::MaxLength { limit } => self.add_broken(&path, Broken::MaxLength(*limit)),
            Kind::Pattern { pattern } => self.add_broken(&path, Broken::Pattern(pattern)),
            Kind::MinItems { limit } => self.add_items(&path, Rule::MinItems, *limit),
            Kind::MaxItems { limit } => self.add_items(&path, Rule::MaxItems, *limit),
            Kind::UniqueItems => one(Rule::UniqueItems, &|at| {
                format!("{at} must not repeat an item.")
            }),
            Kind::Enum { options } => {
                let options = match options.as_ref() {
                    Value::Array(values) => options_text(values),
                    other => other.to_string(),
                };
                self.add_broken(&path, Broken::Enum(&options));
            }
            Kind::Constant { expected_value } => {
                one(Rule::Const, &|at| format!("{at} must be {expected_value}."))
            }
            Kind::OneOfNotValid { context } | Kind::AnyOf { context } => {
                match choose(error.instance(), instance.as_str(), context) {
                    Choice::Form(errors) => {
                        for error in errors {
                            self.add_at(prefix, error);
                        }
                    }
                    Choice::UnknownTag { key, options } => {
                        let at = child(&path, &key);
                        self.add_broken(&at, Broken::Enum(&options_text(&options)));
                    }
                    Choice::None => one(Rule::Alternatives, &|at| {
                        format!(
                            "{at} matches none of the allowed forms; check the schema of this value."
                        )
                    }),
                }
            }
            Kind::OneOfMultipleValid { .. } => one(Rule::Alternatives, &|at| {
                format!("{at} matches more than one allowed form; make it match exactly one.")
            }),
            Kind::Not { schema } => {
                let excluded = match schema.get("const") {
                    Some(value) => format!(" ({value} is excluded)"),
                    None => String::new(),
                };
                one(Rule::Not, &|at| {
                    format!("{at} has a value that is not allowed here{excluded}.")
                });
            }
            Kind::FalseSchema => one(Rule::UnknownProperty, &|at| {
                format!("{at} is not allowed here; remove it.")
            }),
            Kind::BacktrackLimitExceeded { .. } => one(Rule::Pattern, &|at| {
                format!(
                    "{at} is too costly to check against its pattern; send a shorter or plainer value."
                )
            }),
            // The pattern keyword of schemas that need a backtracking
            // engine (`pattern_budget`): its message says which refusal.
            Kind::Custom { keyword, message } if keyword == "pattern" => match message.as_str() {
                super::pattern_budget::TOO_COSTLY => one(Rule::Pattern, &|at| {
                    format!(
                        "{at} is too costly to check against its pattern; send a shorter or plainer value."
                    )
                }),
                super::pattern_budget::CALL_SPENT => one(Rule::Pattern, &|at| {
                    format!(
                        "{at} was not checked against its pattern: the values before it cost all this call may spend on patterns; send fewer or plainer values."
                    )
                }),
                pattern => self.add_broken(&path, Broken::Pattern(pattern)),
            },
            _ => {
                let keyword = error.kind().keyword();
                one(Rule::Other, &|at| {
                    format!("{at} breaks the schema's `{keyword}` rule.")
                });
            }
        }
    }
}

/// A rule one value breaks, with what its sentence needs.
pub(crate) enum Broken<'a> {
    /// `type`: the type the schema names, and the kind of the value
    /// ([`kind_of`]).
    Type {
        expected: &'a str,
        actual: &'static str,
    },
    Format(&'a str),
    Minimum(&'a Value),
    Maximum(&'a Value),
    MinLength(u64),
    MaxLength(u64),
    Pattern(&'a str),
    /// `enum`, with its values as [`options_text`] writes them.
    Enum(&'a str),
}

impl Broken<'_> {
    fn rule(&self) -> Rule {
        match self {
            Broken::Type { .. } => Rule::Type,
            Broken::Format(_) => Rule::Format,
            Broken::Minimum(_) => Rule::Minimum,
            Broken::Maximum(_) => Rule::Maximum,
            Broken::MinLength(_) => Rule::MinLength,
            Broken::MaxLength(_) => Rule::MaxLength,
            Broken::Pattern(_) => Rule::Pattern,
            Broken::Enum(_) => Rule::Enum,
        }
    }

    fn sentence(&self, at: Place<'_>) -> String {
        match self {
            Broken::Type { expected, actual } => {
                format!("{at} must be of type {expected}, not {actual}.")
            }
            Broken::Format(format) => format!("{at} must be a string in `{format}` format."),
            Broken::Minimum(limit) => format!("{at} must be at least {limit}."),
            Broken::Maximum(limit) => format!("{at} must be at most {limit}."),
            Broken::MinLength(limit) => format!(
                "{at} must have at least {limit} character{}.",
                plural(*limit)
            ),
            Broken::MaxLength(limit) => format!(
                "{at} must have at most {limit} character{}.",
                plural(*limit)
            ),
            Broken::Pattern(pattern) => format!("{at} must match the pattern `{pattern}`."),
            Broken::Enum(options) => format!("{at} must be one of: {options}."),
        }
    }
}

/// The values of an `enum`, as its violation lists them.
/// Which of the allowed forms (`anyOf`, `oneOf`) a value that matches none
/// of them meant, so that its own violations are told.
enum Choice<'e> {
    /// The form the value's tag names (a tagged enum's variant), else the
    /// one it comes closest to (the fewest violations): its violations.
    Form(&'e [jsonschema::ValidationError<'static>]),
    /// Every form wants another value of the property `key` (the tag): the
    /// values it may have.
    UnknownTag { key: String, options: Vec<Value> },
    /// Nothing to choose from.
    None,
}

/// The form a value at `at` (a JSON pointer) meant, from each form's
/// violations (`context`): a form whose only complaint about a property
/// the value has is not its constant (a tag) is one the value did not
/// choose.
fn choose<'e>(
    instance: &Value,
    at: &str,
    context: &'e [Vec<jsonschema::ValidationError<'static>>],
) -> Choice<'e> {
    use jsonschema::error::ValidationErrorKind as Kind;
    // The tag a form wants that the value does not give: the property and
    // the value the form wants.
    let wanted_tag = |errors: &[jsonschema::ValidationError<'static>]| {
        let object = instance.as_object()?;
        errors.iter().find_map(|error| {
            let key = error
                .instance_path()
                .as_str()
                .strip_prefix(at)?
                .strip_prefix('/')?;
            let key = key.replace("~1", "/").replace("~0", "~");
            if !object.contains_key(&key) {
                return None;
            }
            match error.kind() {
                Kind::Constant { expected_value } => {
                    Some((key, vec![Value::clone(expected_value)]))
                }
                Kind::Enum { options } => Some((key, options.as_array()?.clone())),
                _ => None,
            }
        })
    };
    let tags: Vec<Option<(String, Vec<Value>)>> =
        context.iter().map(|errors| wanted_tag(errors)).collect();
    if let Some(Some((key, _))) = tags.first()
        && tags.len() > 1
        && tags
            .iter()
            .all(|tag| tag.as_ref().is_some_and(|(k, _)| k == key))
    {
        let key = key.clone();
        let options = tags
            .into_iter()
            .flatten()
            .flat_map(|(_, values)| values)
            .collect();
        return Choice::UnknownTag { key, options };
    }
    context
        .iter()
        .zip(&tags)
        .filter(|(_, tag)| tag.is_none())
        .map(|(errors, _)| errors)
        .min_by_key(|errors| errors.len())
        .filter(|errors| !errors.is_empty())
        .map_or(Choice::None, |errors| Choice::Form(errors))
}

pub(crate) fn options_text(values: &[Value]) -> String {
    values
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
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
