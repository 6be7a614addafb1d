//! The contract between a tool's advertised schema, the library's check of
//! its arguments and serde's reading of them, judged on one value at a
//! time: the test suite's differential test and the `contract` fuzz target
//! hold the same promises.
//!
//! - advertised valid (by an independent JSON Schema 2020-12 validator,
//!   boon, formats asserted) ⇒ the library accepts, but for the refusals
//!   [`refused_by_design`] names;
//! - the library accepts ⇒ serde reads it, on every path (the parsed value,
//!   the text, the one-pass plans);
//! - the library refuses ⇒ no violation is a path-less "could not read".

#[path = "contract_tools.rs"]
pub mod tools;

use serde::de::DeserializeOwned;
use serde_json::Value;
use toolschema::Tool;
use toolschema::model::{Direction, Node};
use toolschema::render::render_schema;
use toolschema::validate::{InputValidator, Limits, Rule};
use toolschema::{ArgumentErrors, Violation};

/// One tool's two judges: the independent validator of its advertised
/// input schema, and the library's.
pub struct Judges {
    schemas: boon::Schemas,
    index: boon::SchemaIndex,
    /// The library's validator.
    pub library: InputValidator,
}

impl Judges {
    /// The judges of `T`'s arguments.
    pub fn of<T: Tool>() -> Judges {
        let schema = render_schema(&T::TOOL.input, Direction::Input).to_value();
        let mut schemas = boon::Schemas::new();
        let mut compiler = boon::Compiler::new();
        compiler.set_default_draft(boon::Draft::V2020_12);
        compiler.enable_format_assertions();
        compiler
            .add_resource("urn:toolschema:contract", schema)
            .expect("the schema is a resource");
        let index = compiler
            .compile("urn:toolschema:contract", &mut schemas)
            .expect("the advertised schema compiles under boon");
        Judges {
            schemas,
            index,
            library: InputValidator::new(T::TOOL, Limits::default()),
        }
    }

    /// Whether the independent validator accepts `value`.
    pub fn advertised(&self, value: &Value) -> bool {
        self.schemas.validate(value, self.index).is_ok()
    }
}

/// The verdicts on one value, and each promise it broke.
#[derive(Debug, Default)]
pub struct Verdicts {
    /// The independent validator accepts it.
    pub advertised: bool,
    /// The library's check accepts it.
    pub library: bool,
    /// What serde read, when the whole inbound path accepted it.
    pub read: bool,
    /// Each broken promise: what, and the evidence.
    pub breaches: Vec<(&'static str, String)>,
}

/// Judges `value` (arguments in exposed names) as `T`'s arguments.
pub fn judge<T: Tool + DeserializeOwned>(judges: &Judges, value: &Value) -> Verdicts {
    let validator = &judges.library;
    let checked = validator.check_value(value.clone());
    let mut verdicts = Verdicts {
        advertised: judges.advertised(value),
        library: checked.is_ok(),
        ..Verdicts::default()
    };
    let mut breach = |what: &'static str, detail: String| verdicts.breaches.push((what, detail));
    if verdicts.advertised
        && let Err(errors) = &checked
        && !refused_by_design(value, errors)
    {
        breach(
            "advertised valid, refused by the library",
            format!("{errors:?}"),
        );
    }
    let read = validator.read::<T>(value.clone());
    let parsed = validator.parse::<T>(&value.to_string());
    let hand_written = matches!(*T::TOOL.input, Node::Raw(_));
    match (&checked, &read) {
        // A schema written by hand may promise what the type cannot read:
        // the author's defect, answered with where.
        (Ok(_), Err(errors)) if hand_written && errors.iter().all(|v| !v.path().is_empty()) => {}
        (Ok(source), Err(errors)) => {
            let serde = serde_json::from_value::<T>(source.clone()).err();
            breach(
                "accepted by the library, not read",
                format!("{errors:?}; serde: {serde:?}"),
            );
        }
        (Err(_), Ok(_)) => breach("read, though the library's check refuses it", String::new()),
        _ => {}
    }
    if read.is_ok() != parsed.is_ok() {
        breach("the text and the value are judged apart", String::new());
    }
    if let Err(errors) = &read {
        for violation in errors.iter() {
            if violation.rule() == Rule::Unreadable && violation.path().is_empty() {
                breach(
                    "refused without saying where",
                    violation.message().to_owned(),
                );
            }
        }
    }
    verdicts.read = read.is_ok();
    verdicts
}

/// Whether the library refuses `value` on purpose where the independent
/// validator accepts it, each decided by the standard:
///
/// - A whole number of magnitude 2^53 or more written as a float (`1e19`,
///   or an integer past 64 bits, which serde_json reads as a float): it may
///   be a rounding of the number written, so it is refused rather than read
///   as another value. boon also compares such numbers as floats, so its
///   verdict on them is not exact.
/// - An email address whose domain ends with a dot (`a@b.`): RFC 5321
///   §4.1.2 writes a domain as sub-domains joined by dots, with no trailing
///   dot; boon accepts it.
/// - A host name with a label of `--` in third and fourth place that is not
///   Punycode (`xn--a.com`, `9n--b.com`): RFC 5890 §2.3.1 reserves such
///   labels, and only a valid A-label (`xn--`, decoding, RFC 5891 §5.4) may
///   be used; the JSON Schema test suite refuses invalid Punycode; boon
///   does not decode it.
pub fn refused_by_design(value: &Value, errors: &ArgumentErrors) -> bool {
    fn large_float(value: &Value) -> bool {
        match value {
            Value::Number(n) => {
                n.is_f64()
                    && n.as_f64()
                        .is_some_and(|f| f.abs() >= 9_007_199_254_740_992.0)
            }
            Value::Array(items) => items.iter().any(large_float),
            Value::Object(map) => map.values().any(large_float),
            _ => false,
        }
    }
    if large_float(value) {
        return true;
    }
    errors.iter().all(|violation: &Violation| {
        violation.rule() == Rule::Format
            && value
                .pointer(violation.path())
                .and_then(Value::as_str)
                .is_some_and(|text| {
                    (text.contains('@') && text.ends_with('.'))
                        || text.split('.').any(|label| label.get(2..4) == Some("--"))
                })
    })
}

/// Whether `value` holds a date and time with a signed year, as chrono
/// writes one before year 0 (RFC 3339 cannot hold it, so serde's own output
/// of such a date is refused).
pub fn holds_signed_date_time(value: &Value) -> bool {
    match value {
        Value::String(text) => {
            text.starts_with(['-', '+'])
                && text.get(5..8).is_some_and(|s| s.starts_with('-'))
                && text.contains('T')
        }
        Value::Array(items) => items.iter().any(holds_signed_date_time),
        Value::Object(map) => map.values().any(holds_signed_date_time),
        _ => false,
    }
}
