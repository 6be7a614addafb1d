//! Validation of arguments and results against the Full rendered schema.
//!
//! A validator is compiled once per tool (with the `jsonschema` crate, formats
//! checked) and reused. Before validating arguments, the `_schema_discovery`
//! hint is removed and `null` for an optional field is treated as absent.
//! Every violation is reported, each with the exposed JSON pointer, the rule
//! broken and one sentence a model can act on; source names never appear.

use core::fmt;

use serde_json::Value;

use crate::model::Node;
use crate::project::HINT_FIELD;
use crate::render::{Direction, render_schema};
use crate::tool::ToolDef;
use crate::values::{Names, has_renames, rename, strip_absent_nulls};

/// Limits that guard the validator against oversized input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The largest payload accepted, in bytes (default 1 MiB).
    pub max_bytes: usize,
    /// The deepest nesting of arrays and objects accepted (default 64).
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_bytes: 1 << 20,
            max_depth: 64,
        }
    }
}

/// The rule a violation breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Rule {
    /// The payload is not JSON.
    InvalidJson,
    /// The payload exceeds [`Limits::max_bytes`].
    TooLarge,
    /// The payload nests deeper than [`Limits::max_depth`].
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
    fn new(path: impl Into<String>, rule: Rule, message: impl Into<String>) -> Violation {
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
    fn one(violation: Violation) -> ArgumentErrors {
        ArgumentErrors {
            violations: Box::new([violation]),
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

/// The input side of one tool, compiled once: what `tools/call` arguments
/// go through before the tool's handler sees them.
pub struct InputValidator {
    tool: &'static str,
    root: &'static Node,
    validator: Result<jsonschema::Validator, String>,
    renames: bool,
    limits: Limits,
    /// The one pass's check plan; `None` leaves every call to the full path.
    plan: Option<crate::fast::Plan>,
}

impl fmt::Debug for InputValidator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InputValidator")
            .field("tool", &self.tool)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

fn compile(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(schema)
        .map_err(|error| error.to_string())
}

impl InputValidator {
    /// Compiles the validator of `tool`'s Full input schema.
    pub fn new(tool: &ToolDef, limits: Limits) -> InputValidator {
        let root = (tool.input)();
        let schema = render_schema(root, Direction::Input).to_value();
        InputValidator {
            tool: tool.name,
            root,
            validator: compile(&schema),
            renames: has_renames(root),
            limits,
            plan: crate::fast::Plan::compile(root),
        }
    }

    /// The whole inbound path into `T`: limits, then one checked pass of
    /// serde over the text when that suffices, else the full path (every
    /// violation reported). Both accept exactly the same arguments.
    pub fn parse<T: serde::de::DeserializeOwned>(&self, text: &str) -> Result<T, ArgumentErrors> {
        self.check_size(text)?;
        let plan = self.plan.as_ref().filter(|_| self.validator.is_ok());
        // What the one pass accepts nests no deeper than its plan; only
        // when that is unbounded, or too deep, are the bytes scanned first.
        let bounded = plan.is_some_and(|plan| plan.bounds_depth(self.limits.max_depth));
        if !bounded {
            self.check_depth(text)?;
        }
        if let Some(value) = plan.and_then(|plan| crate::fast::parse::<T>(text, plan)) {
            return Ok(value);
        }
        if bounded {
            self.check_depth(text)?;
        }
        let value = self.parse_then_check(text, text.contains("null"))?;
        serde_json::from_value(value).map_err(|_| self.unreadable())
    }

    /// The whole inbound path into `T` for arguments already parsed (as they
    /// arrive inside a JSON-RPC request): nesting, then one checked pass of
    /// serde over the value when that suffices, else the full path. Accepts
    /// exactly what [`check_value`](Self::check_value) accepts.
    pub fn read<T: serde::de::DeserializeOwned>(&self, value: Value) -> Result<T, ArgumentErrors> {
        let plan = self.plan.as_ref().filter(|_| self.validator.is_ok());
        if let Some(plan) = plan {
            let bounded = plan.bounds_depth(self.limits.max_depth);
            if !bounded && depth(&value) > self.limits.max_depth {
                return Err(self.too_deep());
            }
            if let Some(arguments) = crate::fast::read::<T>(&value, plan) {
                return Ok(arguments);
            }
        }
        let value = self.check_value(value)?;
        serde_json::from_value(value).map_err(|_| self.unreadable())
    }

    /// Whether the one-pass path alone accepts `text` (for tests that hold
    /// it to the full path).
    #[doc(hidden)]
    pub fn fast_path_accepts<T: serde::de::DeserializeOwned>(&self, text: &str) -> bool {
        self.plan
            .as_ref()
            .is_some_and(|plan| crate::fast::parse::<T>(text, plan).is_some())
    }

    /// Whether the one-pass path alone accepts `value` (for tests that hold
    /// it to the full path).
    #[doc(hidden)]
    pub fn fast_path_accepts_value<T: serde::de::DeserializeOwned>(&self, value: &Value) -> bool {
        self.plan
            .as_ref()
            .is_some_and(|plan| crate::fast::read::<T>(value, plan).is_some())
    }

    /// Checks a payload of JSON text: size, nesting, syntax, then the schema.
    /// On success, returns the arguments with source names, ready for serde.
    pub fn check_str(&self, text: &str) -> Result<Value, ArgumentErrors> {
        self.check_limits(text)?;
        // Text without a `null` literal has no null to strip.
        self.parse_then_check(text, text.contains("null"))
    }

    /// The size and nesting limits, checked on the bytes before parsing.
    fn check_limits(&self, text: &str) -> Result<(), ArgumentErrors> {
        self.check_size(text)?;
        self.check_depth(text)
    }

    fn check_size(&self, text: &str) -> Result<(), ArgumentErrors> {
        if text.len() > self.limits.max_bytes {
            return Err(ArgumentErrors::one(Violation::new(
                "",
                Rule::TooLarge,
                format!(
                    "The arguments are {} bytes, more than the {} allowed; send less data.",
                    text.len(),
                    self.limits.max_bytes
                ),
            )));
        }
        Ok(())
    }

    fn check_depth(&self, text: &str) -> Result<(), ArgumentErrors> {
        if nesting_exceeds(text.as_bytes(), self.limits.max_depth) {
            return Err(self.too_deep());
        }
        Ok(())
    }

    fn parse_then_check(&self, text: &str, may_hold_nulls: bool) -> Result<Value, ArgumentErrors> {
        let value: Value = serde_json::from_str(text).map_err(|error| {
            ArgumentErrors::one(Violation::new(
                "",
                Rule::InvalidJson,
                format!("The arguments are not valid JSON ({error}); send a JSON object."),
            ))
        })?;
        self.check_parsed(value, may_hold_nulls)
    }

    /// Checks arguments that are already parsed. On success, returns them with
    /// source names, ready for serde.
    pub fn check_value(&self, value: Value) -> Result<Value, ArgumentErrors> {
        if depth(&value) > self.limits.max_depth {
            return Err(self.too_deep());
        }
        self.check_parsed(value, true)
    }

    fn too_deep(&self) -> ArgumentErrors {
        ArgumentErrors::one(Violation::new(
            "",
            Rule::TooDeep,
            format!(
                "The arguments nest arrays and objects more than {} levels deep; flatten them.",
                self.limits.max_depth
            ),
        ))
    }

    fn check_parsed(
        &self,
        mut value: Value,
        may_hold_nulls: bool,
    ) -> Result<Value, ArgumentErrors> {
        let Some(object) = value.as_object_mut() else {
            return Err(ArgumentErrors::one(Violation::new(
                "",
                Rule::NotAnObject,
                format!(
                    "The arguments must be a JSON object, not {}; send {{\"name\": value, ...}}.",
                    kind_of(&value)
                ),
            )));
        };
        object.remove(HINT_FIELD);
        if may_hold_nulls {
            strip_absent_nulls(self.root, &mut value, Direction::Input);
        }
        let validator = self.validator.as_ref().map_err(|error| {
            ArgumentErrors::one(Violation::new(
                "",
                Rule::InvalidSchema,
                format!(
                    "Tool `{}` has an input schema that does not compile ({error}); the server must be fixed.",
                    self.tool
                ),
            ))
        })?;
        // Valid arguments, the common case, skip building error reports.
        let mut violations: Vec<Violation> = if validator.is_valid(&value) {
            Vec::new()
        } else {
            validator.iter_errors(&value).flat_map(violations).collect()
        };
        if !violations.is_empty() {
            violations.sort_by(|a, b| a.path.cmp(&b.path));
            return Err(ArgumentErrors {
                violations: violations.into_boxed_slice(),
            });
        }
        if self.renames {
            rename(self.root, &mut value, Names::Source, Direction::Input);
        }
        Ok(value)
    }

    /// The violation for arguments that passed the schema but that serde
    /// could not read. serde's own message may name source fields, so it is
    /// not passed on.
    pub fn unreadable(&self) -> ArgumentErrors {
        ArgumentErrors::one(Violation::new(
            "",
            Rule::Unreadable,
            "The arguments match the schema, but the tool could not read them; check the values against the field descriptions.",
        ))
    }
}

/// The output side of one tool, compiled once: what a result goes through
/// before it leaves.
pub struct OutputValidator {
    tool: &'static str,
    root: &'static Node,
    validator: Result<jsonschema::Validator, String>,
    renames: bool,
}

impl fmt::Debug for OutputValidator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutputValidator")
            .field("tool", &self.tool)
            .finish_non_exhaustive()
    }
}

impl OutputValidator {
    /// Compiles the validator of `tool`'s output schema, if it declares one.
    pub fn new(tool: &ToolDef) -> Option<OutputValidator> {
        let root = (tool.output?)();
        let schema = render_schema(root, Direction::Output).to_value();
        Some(OutputValidator {
            tool: tool.name,
            root,
            validator: compile(&schema),
            renames: has_renames(root),
        })
    }

    /// Maps a serialized result (source names) to exposed names and checks it
    /// against the output schema.
    pub fn check(&self, mut value: Value) -> Result<Value, OutputErrors> {
        if self.renames {
            rename(self.root, &mut value, Names::Exposed, Direction::Output);
        }
        strip_absent_nulls(self.root, &mut value, Direction::Output);
        let violations: Vec<Violation> = match &self.validator {
            Ok(validator) => validator.iter_errors(&value).flat_map(violations).collect(),
            Err(error) => vec![Violation::new(
                "",
                Rule::InvalidSchema,
                format!("The output schema does not compile ({error})."),
            )],
        };
        if violations.is_empty() {
            Ok(value)
        } else {
            let mut violations = violations;
            violations.sort_by(|a, b| a.path.cmp(&b.path));
            Err(OutputErrors {
                tool: self.tool,
                violations: violations.into_boxed_slice(),
            })
        }
    }
}

/// Whether JSON text nests arrays and objects deeper than `max`: a scan of the
/// bytes, before anything is allocated for them.
fn nesting_exceeds(bytes: &[u8], max: usize) -> bool {
    // Fewer opening brackets than the limit cannot nest past it; counting
    // them is much cheaper than tracking strings.
    let openings = bytes.iter().filter(|&&b| b == b'[' || b == b'{').count();
    if openings <= max {
        return false;
    }
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &byte in bytes {
        if in_string {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// The nesting depth of a value (a scalar is 0).
fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((value, level)) = stack.pop() {
        match value {
            Value::Array(items) => {
                deepest = deepest.max(level + 1);
                stack.extend(items.iter().map(|v| (v, level + 1)));
            }
            Value::Object(map) => {
                deepest = deepest.max(level + 1);
                stack.extend(map.values().map(|v| (v, level + 1)));
            }
            _ => {}
        }
    }
    deepest
}

fn kind_of(value: &Value) -> &'static str {
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
fn violations(error: jsonschema::ValidationError<'_>) -> Vec<Violation> {
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
    fn nesting_scan_ignores_brackets_in_strings() {
        assert!(!nesting_exceeds(br#"{"a": "[[[[[[", "b": [1]}"#, 2));
        assert!(nesting_exceeds(br#"{"a": [[1]]}"#, 2));
        assert!(!nesting_exceeds(br#"{"a": "\"[[[", "b": {}}"#, 2));
    }

    #[test]
    fn depth_counts_containers() {
        assert_eq!(depth(&serde_json::json!(1)), 0);
        assert_eq!(depth(&serde_json::json!({"a": [{"b": []}]})), 4);
    }

    #[test]
    fn pointers_escape_names() {
        assert_eq!(child("/a", "b/c~d"), "/a/b~1c~0d");
    }
}
