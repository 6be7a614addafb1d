//! Validation of arguments and results against the Full rendered schema.
//!
//! A validator is compiled once per tool (with the `jsonschema` crate, formats
//! checked) and reused. Before validating arguments, the `_schema_discovery`
//! hint is removed and `null` for an optional field is treated as absent.
//! Every violation is reported, each with the exposed JSON pointer, the rule
//! broken and one sentence a model can act on; source names never appear.

mod limits;
mod names;
mod one_pass;
mod pattern_budget;
#[cfg(feature = "documents")]
mod tree;
mod unreadable;
mod violation;

use limits::nesting_exceeds;
pub use limits::{Limits, depth};
pub use names::{Names, rename, strip_absent_nulls};
pub use violation::{ArgumentErrors, OutputErrors, Rule, Violation};

use core::fmt;
use std::sync::OnceLock;

use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::walk::has_renames;
use crate::model::{Direction, Node, NodeRef, Text, ToolDef};
use crate::project::HINT_FIELD;
use crate::render::{Json, render_schema};
use violation::{Found, kind_of};

/// The input side of one tool, compiled once: what `tools/call` arguments
/// go through before the tool's handler sees them.
pub struct InputValidator {
    tool: Text,
    root: NodeRef,
    /// Whether the schema compiles (judged when this is built): the plan
    /// stands in for the validator only where it does.
    compiles: bool,
    /// The full path's validator. With a plan, most calls never need it: it
    /// is compiled on its first use, so that a prepared catalog's tools
    /// that are never refused do not each hold one.
    validator: OnceLock<Result<jsonschema::Validator, String>>,
    /// A schema written by hand (the input root is [`Node::Raw`]), parsed
    /// once: it tells which nulls mean "absent".
    raw: Option<Value>,
    renames: bool,
    limits: Limits,
    /// The one pass's check plan; `None` leaves every call to the full path.
    plan: Option<one_pass::Plan>,
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
    validator_of(schema).map_err(|error| error.to_string())
}

/// Whether the schema `text` (JSON, already parsed as `schema`) compiles,
/// or why not; remembered by its text, since a catalog states the same
/// schema for many fields and checks each configuration more than once
/// (an import checks each tool it writes, then the whole). What is
/// remembered is bounded: past 16 MiB of schema text it starts over.
pub fn schema_compiles(text: &str, schema: &Value) -> Result<(), String> {
    use std::collections::HashMap;
    use std::sync::{Mutex, PoisonError};
    type Remembered = (usize, HashMap<Box<str>, Result<(), String>>);
    static REMEMBERED: Mutex<Option<Remembered>> = Mutex::new(None);
    const MOST_BYTES: usize = 16 << 20;
    let known = REMEMBERED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_ref()
        .and_then(|(_, map)| map.get(text).cloned());
    if let Some(known) = known {
        return known;
    }
    let verdict = compile(schema).map(|_| ());
    let mut remembered = REMEMBERED.lock().unwrap_or_else(PoisonError::into_inner);
    let (bytes, map) = remembered.get_or_insert_with(Default::default);
    if *bytes + text.len() > MOST_BYTES {
        *bytes = 0;
        map.clear();
    }
    *bytes += text.len();
    map.insert(text.into(), verdict.clone());
    verdict
}

/// The backtracking steps a pattern may take on one value, for the
/// patterns only a backtracking engine reads (a backreference, a
/// lookaround); past them the value is refused as too costly to check.
/// One call's values share twice as many ([`pattern_budget`]).
pub(crate) const BACKTRACK_LIMIT: usize = 100_000;

/// The violation of a result that cannot be written as JSON text.
fn unwritable(error: &serde_json::Error) -> Violation {
    Violation::new(
        "",
        Rule::InvalidSchema,
        format!("The result cannot be written as JSON ({error})."),
    )
}

/// Whether `document` holds a `null` anywhere.
#[cfg(feature = "documents")]
fn holds_null(document: &Json) -> bool {
    let mut stack = vec![document];
    while let Some(value) = stack.pop() {
        match value {
            Json::Null => return true,
            Json::Array(items) => stack.extend(items),
            Json::Object(object) => stack.extend(object.iter().map(|(_, value)| value)),
            _ => {}
        }
    }
    false
}

/// Whether `pattern` is outside the `regex` crate's language, so that a
/// backtracking engine (with its step limit) matches it.
pub(crate) fn needs_backtracking(pattern: &str) -> bool {
    let schema = serde_json::json!({"type": "string", "pattern": pattern});
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .with_pattern_options(jsonschema::PatternOptions::regex())
        .build(&schema)
        .is_err()
}

/// The validator of `schema`, as every part of the runtime compiles one:
/// JSON Schema 2020-12 with formats checked, and patterns matched in time
/// linear in the value by the `regex` crate wherever they are in its
/// language. A schema with a pattern only a backtracking engine reads gets
/// one, limited to 100,000 backtracking steps a value, and to 200,000 for
/// all the values of one call's arguments (or one result) together, in
/// each of the (at most two) passes over them.
///
/// Not generic, so that `jsonschema`'s validators are compiled into this
/// crate once for every crate that checks a schema: an optimized build
/// copies a generic function into each crate that calls it.
///
/// ```
/// let validator = toolschema_runtime::validate::validator_of(
///     &serde_json::json!({"type": "string", "format": "date"}),
/// )
/// .expect("the schema compiles");
/// assert!(validator.is_valid(&serde_json::json!("2026-12-06")));
/// assert!(!validator.is_valid(&serde_json::json!("6 December")));
/// ```
pub fn validator_of(
    schema: &Value,
) -> Result<jsonschema::Validator, jsonschema::ValidationError<'static>> {
    validator_for::<jsonschema::json::SerdeJson>(schema)
}

/// [`validator_of`] for any representation `jsonschema` reads.
fn validator_for<F: jsonschema::json::Json>(
    schema: &Value,
) -> Result<jsonschema::Validator<F>, jsonschema::ValidationError<'static>> {
    let options = || {
        jsonschema::options_for::<F>()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .with_format("hostname", is_hostname)
    };
    options()
        .with_pattern_options(jsonschema::PatternOptions::regex())
        .build(schema)
        .or_else(|_| {
            options()
                // `patternProperties` keeps jsonschema's matching, with the
                // limit of a value.
                .with_pattern_options(
                    jsonschema::PatternOptions::fancy_regex().backtrack_limit(BACKTRACK_LIMIT),
                )
                .with_keyword("pattern", pattern_budget::pattern::<F>)
                .build(schema)
        })
}

/// The `hostname` format: a name of RFC 1123 §2.1 labels, which may end
/// with one dot (RFC 1034 §3.1 writes an absolute name so, and the JSON
/// Schema test suite holds `localhost.` valid), in any case (names compare
/// without case, RFC 4343: `XN--NXASMQ6B.COM` is the A-label in capitals);
/// the labels are judged by `jsonschema`'s own check.
fn is_hostname(text: &str) -> bool {
    static LABELS: OnceLock<Option<jsonschema::Validator>> = OnceLock::new();
    let labels = LABELS.get_or_init(|| {
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .build(&serde_json::json!({"format": "hostname"}))
            .ok()
    });
    let name = match text.strip_suffix('.') {
        Some(name) if !name.is_empty() => name,
        _ => text,
    };
    labels
        .as_ref()
        .is_some_and(|labels| labels.is_valid(&Value::String(name.to_ascii_lowercase())))
}

/// Compiles `tool`'s Full input schema, or says why it does not compile.
pub(crate) fn compile_input(tool: &ToolDef) -> Result<(), String> {
    compile(&render_schema(&tool.input, Direction::Input).to_value()).map(|_| ())
}

impl InputValidator {
    /// Compiles the validator of `tool`'s Full input schema, and its check
    /// plan. Where the plan judges calls, only the plan is kept: the
    /// schema's validator is compiled again on the first call the plan
    /// leaves to it (about 2 KiB less for a small tool, which a catalog of
    /// 100,000 prepared tools holds 100,000 times).
    pub fn new(tool: &ToolDef, limits: Limits) -> InputValidator {
        let root = &tool.input;
        let schema = render_schema(root, Direction::Input).to_value();
        let plan = one_pass::Plan::compile(root, &schema);
        let compiled = compile(&schema);
        let compiles = compiled.is_ok();
        let validator = OnceLock::new();
        if plan.is_none() || !compiles {
            // Every call takes the full path (or is told the schema does
            // not compile): the validator is kept.
            let _ = validator.set(compiled);
        }
        InputValidator {
            tool: tool.name.clone(),
            compiles,
            validator,
            raw: matches!(**root, Node::Raw(_)).then(|| schema.clone()),
            renames: has_renames(root, Direction::Input),
            limits,
            plan,
            root: root.clone(),
        }
    }

    /// The full path's validator, compiled again from the tool's schema on
    /// its first use when the plan let it go.
    fn validator(&self) -> &Result<jsonschema::Validator, String> {
        self.validator.get_or_init(|| {
            compile(&match &self.raw {
                Some(schema) => schema.clone(),
                None => render_schema(&self.root, Direction::Input).to_value(),
            })
        })
    }

    /// The whole inbound path into `T`: limits, then one checked pass of
    /// serde over the text when that suffices; when it finds the arguments
    /// wrong, a second pass lists their violations from the same plan where
    /// the plan speaks for every slot; else the full path. All three accept
    /// exactly the same arguments and report exactly the same violations.
    pub fn parse<T: serde::de::DeserializeOwned>(&self, text: &str) -> Result<T, ArgumentErrors> {
        self.check_size(text)?;
        let plan = self.plan.as_ref().filter(|_| self.compiles);
        // What the one pass accepts nests no deeper than its plan; only
        // when that is unbounded, or too deep, are the bytes scanned first.
        let bounded = plan.is_some_and(|plan| plan.bounds_depth(self.limits.max_depth));
        if !bounded {
            self.check_depth(text)?;
        }
        if let Some(value) = plan.and_then(|plan| one_pass::parse::<T>(text, plan)) {
            return Ok(value);
        }
        self.parse_missed(text, bounded)
    }

    /// What [`parse`](Self::parse) says of `text` (within the size limit)
    /// once its one pass did not accept it: the plan's listing of the
    /// violations, else the full path's verdict.
    fn parse_missed<T: serde::de::DeserializeOwned>(
        &self,
        text: &str,
        bounded: bool,
    ) -> Result<T, ArgumentErrors> {
        let plan = self.plan.as_ref().filter(|_| self.compiles);
        if bounded {
            self.check_depth(text)?;
        }
        let cap = self.limits.max_violations;
        if let Some(found) = plan.and_then(|plan| one_pass::violations(text, plan, cap)) {
            return Err(ArgumentErrors::from_found(found).with_suggestions(&self.root));
        }
        let value = self.parse_then_check(text, text.contains("null"))?;
        self.deserialize(value)
    }

    /// [`parse`](Self::parse) of the JSON value at the start of `text`
    /// (arguments inside a message, read where they stand: what follows
    /// them is left unread), with how many bytes the value took: its one
    /// pass reads them there, with no scan of their text first; when it does
    /// not accept them, the value's end is found and `parse`'s verdict on
    /// exactly those bytes is given.
    ///
    /// `None` when `text` does not start with a JSON value, or when the
    /// plan does not bound the nesting (the bytes would have to be
    /// scanned first): the caller finds the value and calls `parse`.
    ///
    /// ```
    /// # use toolschema_runtime::model::*;
    /// # #[derive(serde::Deserialize, Debug)] struct Ping { count: u8 }
    /// # impl Schema for Ping {
    /// #     const SCHEMA: &'static Node = &Node::Object(ObjectNode {
    /// #         info: TypeInfo { name: Ref::Static("Ping"), type_name: Ref::Lazy(core::any::type_name::<Ping>), title: None, description: None },
    /// #         fields: Ref::Static(&[Field { exposed: Ref::Static("count"), source: Ref::Static("count"), schema: Ref::Lazy(schema_of::<u8>), ..Field::BLANK }]),
    /// #         additional: Additional::Deny,
    /// #     });
    /// # }
    /// # impl Tool for Ping {
    /// #     const TOOL: &'static ToolDef = &ToolDef { name: Ref::Static("ping"), title: None, description: Ref::Static("Pings."),
    /// #         version: 1, input: Ref::Lazy(schema_of::<Ping>), output: None, annotations: Annotations::NONE, icons: Ref::Static(&[]), internal: false };
    /// #     type Output = serde_json::Value;
    /// #     type State = ();
    /// # }
    /// use toolschema_runtime::validate::{InputValidator, Limits};
    ///
    /// let validator = InputValidator::new(Ping::TOOL, Limits::default());
    /// let message = r#"{"count": 3}}, "id": 7}"#;
    /// let (ping, used) = validator.parse_leading::<Ping>(message).unwrap();
    /// assert_eq!((ping.unwrap().count, &message[..used]), (3, r#"{"count": 3}"#));
    ///
    /// let (refused, _) = validator.parse_leading::<Ping>(r#"{"count": 300}]"#).unwrap();
    /// assert_eq!(refused.unwrap_err().iter().next().unwrap().path(), "/count");
    /// ```
    pub fn parse_leading<T: serde::de::DeserializeOwned>(
        &self,
        text: &str,
    ) -> Option<(Result<T, ArgumentErrors>, usize)> {
        let plan = self.plan.as_ref().filter(|_| self.compiles)?;
        if !plan.bounds_depth(self.limits.max_depth) {
            return None;
        }
        if let Some((value, used)) = one_pass::parse_leading::<T>(text, plan)
            && used <= self.limits.max_bytes
        {
            return Some((Ok(value), used));
        }
        // The listing pass finds the value's end as it lists; what `parse`
        // checks before it (size, nesting) is checked of those bytes then,
        // and comes first, as it does there.
        let cap = self.limits.max_violations;
        if let Some((found, used)) = one_pass::violations_leading(text, plan, cap)
            && let Some(value) = text.get(..used)
        {
            let verdict = match self
                .check_size(value)
                .and_then(|()| self.check_depth(value))
            {
                Ok(()) if found.is_empty() => self.parse_then_check(value, value.contains("null")),
                Ok(()) => Err(ArgumentErrors::from_found(found).with_suggestions(&self.root)),
                Err(refused) => Err(refused),
            };
            return Some((verdict.and_then(|value| self.deserialize(value)), used));
        }
        let (value, used) = one_pass::leading_value(text)?;
        let verdict = match self.check_size(value) {
            Ok(()) => self.parse_missed(value, true),
            Err(too_large) => Err(too_large),
        };
        Some((verdict, used))
    }

    /// The whole inbound path into `T` for arguments already parsed (as they
    /// arrive inside a JSON-RPC request): nesting, then one checked pass of
    /// serde over the value when that suffices (and the plan's listing of
    /// violations when it finds them), else the full path. Accepts exactly
    /// what [`check_value`](Self::check_value) accepts, with the same
    /// violations.
    pub fn read<T: serde::de::DeserializeOwned>(&self, value: Value) -> Result<T, ArgumentErrors> {
        let plan = self.plan.as_ref().filter(|_| self.compiles);
        if let Some(plan) = plan {
            let bounded = plan.bounds_depth(self.limits.max_depth);
            if !bounded && depth(&value) > self.limits.max_depth {
                return Err(self.too_deep());
            }
            if let Some(arguments) = one_pass::read::<T>(&value, plan) {
                return Ok(arguments);
            }
            if bounded && depth(&value) > self.limits.max_depth {
                return Err(self.too_deep());
            }
            let cap = self.limits.max_violations;
            if let Some(found) = one_pass::violations_in(&value, plan, cap) {
                return Err(ArgumentErrors::from_found(found).with_suggestions(&self.root));
            }
        }
        let value = self.check_value(value)?;
        self.deserialize(value)
    }

    /// Whether the one-pass path alone accepts `text` (for tests that hold
    /// it to the full path).
    #[doc(hidden)]
    pub fn fast_path_accepts<T: serde::de::DeserializeOwned>(&self, text: &str) -> bool {
        self.plan
            .as_ref()
            .is_some_and(|plan| one_pass::parse::<T>(text, plan).is_some())
    }

    /// Whether the one-pass path alone accepts `value` (for tests that hold
    /// it to the full path).
    #[doc(hidden)]
    pub fn fast_path_accepts_value<T: serde::de::DeserializeOwned>(&self, value: &Value) -> bool {
        self.plan
            .as_ref()
            .is_some_and(|plan| one_pass::read::<T>(value, plan).is_some())
    }

    /// Whether the one-pass plan alone lists the violations of `text` (for
    /// tests that hold it to the full path).
    #[doc(hidden)]
    pub fn fast_path_lists(&self, text: &str) -> bool {
        let cap = self.limits.max_violations;
        self.plan
            .as_ref()
            .is_some_and(|plan| one_pass::violations(text, plan, cap).is_some())
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
        let value: Value = serde_json::from_str(text).map_err(|error| unparsable(text, &error))?;
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
            match &self.raw {
                Some(schema) => names::strip_unaccepted_nulls(schema, &mut value),
                None => strip_absent_nulls(&self.root, &mut value, Direction::Input),
            }
        }
        let validator = self.validator().as_ref().map_err(|error| {
            ArgumentErrors::one(Violation::new(
                "",
                Rule::InvalidSchema,
                format!(
                    "Tool `{}` has an input schema that does not compile ({error}); the server must be fixed.",
                    self.tool
                ),
            ))
        })?;
        // Whole numbers written as floats become integers first: the schema
        // judges both alike, and serde reads only the integer.
        let inexact = match &self.raw {
            Some(schema) => names::whole_numbers_by_schema(schema, &mut value),
            None => names::whole_numbers(&self.root, &mut value),
        };
        // Valid arguments, the common case, skip building error reports.
        // Each pass has the call's budget of pattern steps.
        if !inexact.is_empty() || !pattern_budget::within_call(|| validator.is_valid(&value)) {
            let mut found = Found::new(self.limits.max_violations);
            let mut broken = Vec::new();
            pattern_budget::within_call(|| {
                for error in validator.iter_errors(&value) {
                    broken.push(error.instance_path().as_str().to_owned());
                    found.add(&error);
                }
            });
            // A number out of its bounds is told so; only one within them
            // is refused for being inexact.
            for path in inexact.into_iter().filter(|path| !broken.contains(path)) {
                found.push(Violation::inexact(path));
            }
            return Err(ArgumentErrors::from_found(found).with_suggestions(&self.root));
        }
        if self.renames {
            rename(&self.root, &mut value, Names::Source, Direction::Input);
        }
        Ok(value)
    }

    /// Reads checked arguments (source names). serde refusing what the
    /// schema passed means the schema and the type disagree: the answer
    /// names the exposed path of the value serde could not read and its
    /// reason in the model's terms, and the defect is logged (`tracing`,
    /// level error, with the `log` feature, which the catalog turns on).
    fn deserialize<T: serde::de::DeserializeOwned>(
        &self,
        value: Value,
    ) -> Result<T, ArgumentErrors> {
        match T::deserialize(&value) {
            Ok(arguments) => Ok(arguments),
            Err(_) => Err(ArgumentErrors::one(unreadable::violation::<T>(
                &self.root, &self.tool, &value,
            ))),
        }
    }

    /// The violation for arguments that passed the schema but that serde
    /// could not read, when where is not known. serde's own message may
    /// name source fields, so it is not passed on.
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
    tool: Text,
    root: NodeRef,
    validator: Result<jsonschema::Validator, String>,
    /// The validator of results in the runtime's own tree, compiled on the
    /// first such result.
    #[cfg(feature = "documents")]
    tree: OnceLock<Result<jsonschema::Validator<tree::Tree>, String>>,
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
        let root = tool.output.as_ref()?;
        let schema = render_schema(root, Direction::Output).to_value();
        Some(OutputValidator {
            tool: tool.name.clone(),
            validator: compile(&schema),
            #[cfg(feature = "documents")]
            tree: OnceLock::new(),
            renames: has_renames(root, Direction::Output),
            root: root.clone(),
        })
    }

    /// Checks a result in exposed names held in the runtime's own tree
    /// against the output schema and gives its JSON text. With the
    /// `documents` feature (on with the gateway), the tree is checked where
    /// it stands, without first becoming a `serde_json::Value`; a result the
    /// one check could not judge alike (names to map, a `null` to strip),
    /// and every result without the feature, goes the way of
    /// [`check`](Self::check).
    pub fn check_document(&self, document: Json) -> Result<Box<RawValue>, OutputErrors> {
        #[cfg(feature = "documents")]
        if !self.renames && !holds_null(&document) {
            return self.check_in_place(document);
        }
        let value = self.check(document.to_value())?;
        RawValue::from_string(value.to_string()).map_err(|error| {
            let mut found = Found::new(1);
            found.push(unwritable(&error));
            OutputErrors::from_found(self.tool.clone(), found)
        })
    }

    /// [`check_document`](Self::check_document) in the runtime's own tree.
    #[cfg(feature = "documents")]
    fn check_in_place(&self, document: Json) -> Result<Box<RawValue>, OutputErrors> {
        // Rendered again rather than held: a prepared catalog holds one
        // output validator for each of its tools, most never called.
        let validator = self.tree.get_or_init(|| {
            let schema = render_schema(&self.root, Direction::Output).to_value();
            validator_for(&schema).map_err(|error| error.to_string())
        });
        let mut found = Found::new(Limits::default().max_violations);
        // Each pass has the result's budget of pattern steps.
        let valid = match validator {
            Ok(validator) if pattern_budget::within_call(|| validator.is_valid(&document)) => true,
            Ok(validator) => {
                pattern_budget::within_call(|| {
                    for error in validator.iter_errors(&document) {
                        found.add(&error);
                    }
                });
                false
            }
            Err(error) => {
                found.push(Violation::new(
                    "",
                    Rule::InvalidSchema,
                    format!("The output schema does not compile ({error})."),
                ));
                false
            }
        };
        if valid {
            let text = document.to_compact_string();
            drop(document);
            match RawValue::from_string(text) {
                Ok(json) => return Ok(json),
                // The tree's own text is JSON; kept for safety.
                Err(error) => found.push(unwritable(&error)),
            }
        }
        Err(OutputErrors::from_found(self.tool.clone(), found))
    }

    /// Maps a serialized result (source names) to exposed names and checks it
    /// against the output schema.
    pub fn check(&self, mut value: Value) -> Result<Value, OutputErrors> {
        if self.renames {
            rename(&self.root, &mut value, Names::Exposed, Direction::Output);
        }
        strip_absent_nulls(&self.root, &mut value, Direction::Output);
        let mut found = Found::new(Limits::default().max_violations);
        // Each pass has the result's budget of pattern steps.
        let valid = match &self.validator {
            // A valid result, the common case, skips building error reports.
            Ok(validator) if pattern_budget::within_call(|| validator.is_valid(&value)) => true,
            Ok(validator) => {
                pattern_budget::within_call(|| {
                    for error in validator.iter_errors(&value) {
                        found.add(&error);
                    }
                });
                false
            }
            Err(error) => {
                found.push(Violation::new(
                    "",
                    Rule::InvalidSchema,
                    format!("The output schema does not compile ({error})."),
                ));
                false
            }
        };
        if valid || found.is_empty() {
            Ok(value)
        } else {
            Err(OutputErrors::from_found(self.tool.clone(), found))
        }
    }
}

/// Arguments serde_json cannot read. A number beyond a 64-bit float
/// (`1e400`) or a lone surrogate escape (`"\ud800"`) is JSON no value can
/// be read from: told at its field, found by reading again with the keys
/// and indexes on the way kept. Any other fault is the text's as a whole.
fn unparsable(text: &str, error: &serde_json::Error) -> ArgumentErrors {
    let reason = error.to_string();
    let number = reason.starts_with("number out of range");
    // serde_json says "lone leading surrogate" or "unexpected end of hex
    // escape" (a leading surrogate with no trailing one after it).
    let surrogate = reason.contains("surrogate") || reason.contains("hex escape");
    if !number && !surrogate {
        let message = format!("The arguments are not valid JSON ({error}); send a JSON object.");
        return ArgumentErrors::one(Violation::new("", Rule::InvalidJson, message));
    }
    let mut reader = serde_json::Deserializer::from_str(text);
    let path = match serde_path_to_error::deserialize::<_, Value>(&mut reader) {
        Err(error) => error
            .path()
            .iter()
            .fold(String::new(), |path, segment| match segment {
                serde_path_to_error::Segment::Seq { index } => {
                    violation::child(&path, &index.to_string())
                }
                serde_path_to_error::Segment::Map { key } => violation::child(&path, key),
                _ => path,
            }),
        Ok(_) => String::new(),
    };
    let at = violation::Place(&path);
    let message = if number {
        format!(
            "{at} holds a number too large to read; numbers must fit in a 64-bit float or integer."
        )
    } else {
        format!(
            "{at} holds an escape that is no character (a lone surrogate such as \\ud800, or a cut-off \\u escape); send the text as UTF-8, or a character beyond the first plane as its pair of escapes."
        )
    };
    ArgumentErrors::one(Violation::new(path, Rule::InvalidJson, message))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{InputValidator, Limits};
    use crate::model::{
        Additional, Annotations, Field, Node, ObjectNode, Presence, Ref, StringNode, Text, ToolDef,
        TypeInfo,
    };

    /// A tool whose arguments `input` describes.
    fn tool(input: Node) -> ToolDef {
        ToolDef {
            name: Text::from("get".to_owned()),
            title: None,
            description: Ref::Static("Gets an item."),
            version: 1,
            input: Ref::new(input),
            output: None,
            annotations: Annotations::NONE,
            icons: Ref::Static(&[]),
            internal: false,
        }
    }

    /// Arguments `{"id": string}`, required, nothing else.
    fn object_of_id() -> Node {
        Node::Object(ObjectNode {
            info: TypeInfo {
                name: Text::from("Get".to_owned()),
                type_name: Text::from("tests::Get".to_owned()),
                title: None,
                description: None,
            },
            fields: Ref::from(vec![Field {
                exposed: Ref::Static("id"),
                source: Ref::Static("id"),
                schema: Ref::new(Node::String(StringNode::PLAIN)),
                presence: Presence::Required,
                ..Field::BLANK
            }]),
            additional: Additional::Deny,
        })
    }

    /// A gateway's answer (a document in the runtime's own tree) is judged
    /// as the same answer as a value is, with or without `documents`.
    #[test]
    fn a_document_result_is_judged_as_its_value_is() {
        use super::OutputValidator;
        use crate::render::{Json, Object};
        let mut def = tool(object_of_id());
        def.output = Some(Ref::new(object_of_id()));
        let output = OutputValidator::new(&def).expect("an output schema");
        let document = |id: Json| {
            let mut object = Object::new();
            object.insert("id", id);
            Json::from(object)
        };
        let written = output
            .check_document(document(Json::from("a-1")))
            .expect("valid");
        assert_eq!(written.get(), r#"{"id":"a-1"}"#);
        let by_document = output
            .check_document(document(Json::from(7u64)))
            .expect_err("a number where a string is");
        let by_value = output.check(json!({"id": 7})).expect_err("the same");
        assert_eq!(by_document.to_string(), by_value.to_string());
        assert!(by_document.to_string().contains("/id"), "{by_document}");
    }

    #[test]
    fn a_planned_tool_compiles_the_full_paths_validator_on_its_first_use_only() {
        let validator = InputValidator::new(&tool(object_of_id()), Limits::default());
        assert!(validator.plan.is_some() && validator.compiles);
        assert!(validator.validator.get().is_none(), "not compiled up front");
        // Calls the plan judges, accepted or refused, leave it uncompiled.
        let read: serde_json::Value = validator.read(json!({"id": "a"})).expect("valid");
        assert_eq!(read, json!({"id": "a"}));
        let refused = validator
            .read::<serde_json::Value>(json!({"id": 1}))
            .expect_err("a number");
        assert!(validator.validator.get().is_none());
        // The full path compiles it, and says what the plan said.
        let full = validator
            .check_value(json!({"id": 1}))
            .expect_err("a number");
        assert!(validator.validator.get().is_some_and(Result::is_ok));
        assert_eq!(full.to_string(), refused.to_string());
        assert!(full.to_string().contains("id"), "{full}");
    }

    #[test]
    fn the_pattern_checks_of_one_call_share_one_budget() {
        // A backreference: only a backtracking engine reads it.
        let raw = Node::Raw(Text::from(
            r#"{"type": "object", "properties": {"values": {"type": "array",
                "items": {"type": "string", "pattern": "^(a+)+\\1$"}}}}"#
                .to_owned(),
        ));
        let validator = InputValidator::new(&tool(raw), Limits::default());
        assert!(
            validator
                .check_value(json!({"values": ["aa", "aaaa"]}))
                .is_ok()
        );
        // No match, found in more steps than the smaller limits allow
        // (some 3,300): checked with the value's own limit.
        let costly = "a".repeat(10_001);
        let costly_runs = super::pattern_budget::costly_runs;
        for count in [1, 8, 32] {
            let before = costly_runs();
            let refused = validator
                .check_value(json!({"values": vec![costly.as_str(); count]}))
                .expect_err("too costly");
            // Each of the two passes ran one value with its own limit,
            // however many values the call sent.
            assert_eq!(costly_runs() - before, 2, "{count} values");
            // The first value is judged; the others are refused unchecked,
            // each at its place.
            let mut paths: Vec<&str> = Vec::new();
            for violation in refused.iter() {
                assert_eq!(violation.rule(), super::Rule::Pattern);
                let said = match violation.path() {
                    "/values/0" => "must match the pattern",
                    _ => "was not checked against its pattern",
                };
                assert!(violation.message().contains(said), "{refused}");
                paths.push(violation.path());
            }
            paths.sort_by_key(|path| path[8..].parse::<usize>().unwrap_or(usize::MAX));
            let expected: Vec<String> = (0..count).map(|at| format!("/values/{at}")).collect();
            assert_eq!(paths, expected, "{refused}");
        }
        // A cheap value after the costly one is still judged: the budget
        // left pays for it.
        let refused = validator
            .check_value(json!({"values": [costly, "aa", "b"]}))
            .expect_err("too costly");
        let paths: Vec<&str> = refused.iter().map(|v| v.path()).collect();
        assert_eq!(paths, ["/values/0", "/values/2"], "{refused}");
        assert!(
            refused.to_string().contains("must match the pattern"),
            "{refused}"
        );
    }

    #[test]
    fn a_schema_that_does_not_compile_is_told_without_a_plan() {
        let raw = Node::Raw(Text::from(
            r#"{"type": "object", "minProperties": "two"}"#.to_owned(),
        ));
        let validator = InputValidator::new(&tool(raw), Limits::default());
        assert!(!validator.compiles);
        let refused = validator
            .read::<serde_json::Value>(json!({}))
            .expect_err("no compiled schema");
        assert!(
            refused.to_string().contains("does not compile"),
            "{refused}"
        );
    }
}
