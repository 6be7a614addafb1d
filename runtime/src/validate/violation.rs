//! Violations: the rule broken, where (an exposed JSON pointer), and one
//! sentence a model can act on; and how `jsonschema`'s errors become them.

use core::fmt;

use serde_json::Value;

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

/// Every violation found in one set of arguments (never empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentErrors {
    violations: Box<[Violation]>,
}

impl ArgumentErrors {
    pub(crate) fn one(violation: Violation) -> ArgumentErrors {
        ArgumentErrors {
            violations: Box::new([violation]),
        }
    }

    /// `violations` (at least one), ordered by path.
    pub(crate) fn sorted(mut violations: Vec<Violation>) -> ArgumentErrors {
        violations.sort_by(|a, b| a.path.cmp(&b.path));
        ArgumentErrors {
            violations: violations.into_boxed_slice(),
        }
    }

    /// The violations, ordered by path (one value's violations in the order
    /// the schema lists its rules).
    pub fn iter(&self) -> core::slice::Iter<'_, Violation> {
        self.violations.iter()
    }

    /// How many violations there are.
    pub fn len(&self) -> usize {
        self.violations.len()
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
        let n = self.violations.len();
        write!(
            f,
            "the arguments break {n} rule{}:",
            if n == 1 { "" } else { "s" }
        )?;
        for violation in self.iter() {
            write!(f, "\n- {violation}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ArgumentErrors {}

/// A tool's result that breaks the tool's own output schema: a server-side
/// defect, never sent as if valid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputErrors {
    tool: &'static str,
    violations: Box<[Violation]>,
}

impl OutputErrors {
    /// `violations` of `tool`'s result (at least one), ordered by path.
    pub(crate) fn sorted(tool: &'static str, mut violations: Vec<Violation>) -> OutputErrors {
        violations.sort_by(|a, b| a.path.cmp(&b.path));
        OutputErrors {
            tool,
            violations: violations.into_boxed_slice(),
        }
    }

    /// The violations, with paths in exposed names.
    pub fn iter(&self) -> core::slice::Iter<'_, Violation> {
        self.violations.iter()
    }
}

impl fmt::Display for OutputErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tool `{}` returned a result that breaks its own output schema; this is a server-side defect:",
            self.tool
        )?;
        for violation in self.violations.iter() {
            write!(f, "\n- {violation}")?;
        }
        Ok(())
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

/// Appends a property name to a JSON pointer.
fn child(path: &str, name: &str) -> String {
    format!("{path}/{}", name.replace('~', "~0").replace('/', "~1"))
}

fn place(path: &str) -> String {
    if path.is_empty() {
        "The arguments".to_owned()
    } else {
        format!("`{path}`")
    }
}

/// The violations one `jsonschema` error stands for.
pub(super) fn violations(error: jsonschema::ValidationError<'_>) -> Vec<Violation> {
    use jsonschema::error::ValidationErrorKind as Kind;
    let path = error.instance_path().as_str().to_owned();
    let at = place(&path);
    let one = |rule, message: String| vec![Violation::new(path.clone(), rule, message)];
    match error.kind() {
        Kind::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            let path = child(&path, name);
            vec![Violation::new(
                path.clone(),
                Rule::Required,
                format!("`{path}` is required; add it."),
            )]
        }
        Kind::AdditionalProperties { unexpected } => unexpected
            .iter()
            .map(|name| {
                let path = child(&path, name);
                Violation::new(
                    path.clone(),
                    Rule::UnknownProperty,
                    format!("`{path}` is not a parameter here; remove it or check its spelling."),
                )
            })
            .collect(),
        Kind::Type { kind } => {
            let expected = match kind {
                jsonschema::error::TypeKind::Single(t) => t.to_string(),
                jsonschema::error::TypeKind::Multiple(set) => set
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(" or "),
            };
            one(
                Rule::Type,
                format!(
                    "{at} must be of type {expected}, not {}.",
                    kind_of(error.instance())
                ),
            )
        }
        Kind::Format { format } => one(
            Rule::Format,
            format!("{at} must be a string in `{format}` format."),
        ),
        Kind::Minimum { limit } => one(Rule::Minimum, format!("{at} must be at least {limit}.")),
        Kind::Maximum { limit } => one(Rule::Maximum, format!("{at} must be at most {limit}.")),
        Kind::MinLength { limit } => one(
            Rule::MinLength,
            format!(
                "{at} must have at least {limit} character{}.",
                plural(*limit)
            ),
        ),
        Kind::MaxLength { limit } => one(
            Rule::MaxLength,
            format!(
                "{at} must have at most {limit} character{}.",
                plural(*limit)
            ),
        ),
        Kind::Pattern { pattern } => one(
            Rule::Pattern,
            format!("{at} must match the pattern `{pattern}`."),
        ),
        Kind::MinItems { limit } => one(
            Rule::MinItems,
            format!("{at} must have at least {limit} item{}.", plural(*limit)),
        ),
        Kind::MaxItems { limit } => one(
            Rule::MaxItems,
            format!("{at} must have at most {limit} item{}.", plural(*limit)),
        ),
        Kind::UniqueItems => one(Rule::UniqueItems, format!("{at} must not repeat an item.")),
        Kind::Enum { options } => {
            let options = match options.as_ref() {
                Value::Array(values) => values
                    .iter()
                    .map(Value::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
                other => other.to_string(),
            };
            one(Rule::Enum, format!("{at} must be one of: {options}."))
        }
        Kind::Constant { expected_value } => {
            one(Rule::Const, format!("{at} must be {expected_value}."))
        }
        Kind::OneOfNotValid { .. } | Kind::AnyOf { .. } => one(
            Rule::Alternatives,
            format!("{at} matches none of the allowed forms; check the schema of this value."),
        ),
        Kind::OneOfMultipleValid { .. } => one(
            Rule::Alternatives,
            format!("{at} matches more than one allowed form; make it match exactly one."),
        ),
        Kind::Not { .. } => one(
            Rule::Not,
            format!("{at} has a value that is not allowed here (0 is excluded)."),
        ),
        Kind::FalseSchema => one(
            Rule::UnknownProperty,
            format!("{at} is not allowed here; remove it."),
        ),
        _ => one(Rule::Other, format!("{at} is not valid: {error}.")),
    }
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
}
