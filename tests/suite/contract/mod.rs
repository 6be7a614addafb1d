//! One contract: the schema a client is shown, the library's check of its
//! arguments, and serde's reading of them agree.
//!
//! For every tool of the corpus, the demo and [`tools`], values are drawn
//! from the advertised schema, mutated, and taken from serde's own output.
//! Each value gets three verdicts: an independent JSON Schema 2020-12
//! validator (boon, formats asserted) on the advertised schema, the
//! library's check, and serde reading what the check passes. Held:
//!
//! - advertised valid ⇒ the library accepts;
//! - the library accepts ⇒ serde reads it (on every path: parsed value,
//!   text, and the one-pass plans);
//! - the library refuses ⇒ every violation names where, and none is the
//!   "could not read" of a schema and type that disagree.

mod calendar;
mod generate;
mod tools;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use toolschema::Tool;
use toolschema::model::Direction;
use toolschema::render::render_schema;
use toolschema::validate::{InputValidator, Limits, Names, Rule, rename};

use generate::Generator;
pub use tools::*;

/// Values drawn per tool: from the schema, then each mutated.
const DRAWS: usize = 160;

/// What happened to one value.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Verdict {
    advertised: bool,
    library: bool,
}

/// Counts of verdicts over a run, for the summary line.
#[derive(Default)]
struct Tally {
    values: usize,
    by_verdict: BTreeMap<Verdict, usize>,
}

/// A broken promise, with the value that broke it.
struct Breach {
    tool: String,
    what: &'static str,
    value: Value,
    detail: String,
}

/// The independent validator of `schema`.
fn independent(schema: &Value) -> (boon::Schemas, boon::SchemaIndex) {
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler.set_default_draft(boon::Draft::V2020_12);
    compiler.enable_format_assertions();
    compiler
        .add_resource("urn:toolschema:contract", schema.clone())
        .expect("the schema is a resource");
    let index = compiler
        .compile("urn:toolschema:contract", &mut schemas)
        .expect("the advertised schema compiles under boon");
    (schemas, index)
}

/// Runs the contract over one tool. `serialize` turns what serde read back
/// into JSON (serde's own output), when the type can be written.
struct Run<'a> {
    tally: &'a mut Tally,
    breaches: &'a mut Vec<Breach>,
}

impl Run<'_> {
    fn tool<T: Tool + DeserializeOwned>(&mut self, seed: u64) {
        self.check::<T>(seed, None::<fn(&T) -> Value>);
    }

    fn tool_written<T: Tool + DeserializeOwned + Serialize>(&mut self, seed: u64) {
        self.check::<T>(
            seed,
            Some(|value: &T| serde_json::to_value(value).expect("serde writes what it read")),
        );
    }

    fn check<T: Tool + DeserializeOwned>(
        &mut self,
        seed: u64,
        write: Option<impl Fn(&T) -> Value>,
    ) {
        let tool = T::TOOL;
        if std::env::var_os("CONTRACT_TRACE").is_some() {
            eprintln!("contract: {}", tool.name);
        }
        let schema = render_schema(&tool.input, Direction::Input).to_value();
        let (schemas, index) = independent(&schema);
        let validator = InputValidator::new(tool, Limits::default());
        let mut runner = runner(seed);
        let mut values = Vec::new();
        {
            let mut generator = Generator::new(&schema, &mut runner);
            for _ in 0..DRAWS {
                let drawn = generator.value(&schema, 0);
                let mutated = generator.mutate(&drawn);
                values.push(drawn);
                values.push(mutated);
            }
        }
        let mut written = Vec::new();
        for value in &values {
            let verdict = self.judge::<T>(&validator, &schemas, index, value);
            if let (Some(write), true) = (&write, verdict.library)
                && let Ok(read) = validator.read::<T>(value.clone())
            {
                let mut json = write(&read);
                rename(&tool.input, &mut json, Names::Exposed, Direction::Input);
                written.push(json);
            }
        }
        for value in &written {
            self.judge::<T>(&validator, &schemas, index, value);
            // What serde itself wrote is read back, but for the fields it
            // writes and never reads (`skip_deserializing`, `#[tool(skip)]`).
            if let Err(errors) = validator.check_value(value.clone())
                && errors.iter().any(|v| v.rule() != Rule::UnknownProperty)
            {
                self.breach(
                    tool.name.as_ref(),
                    "serde's own output refused",
                    value,
                    format!("{errors:?}"),
                );
            }
        }
    }

    /// The verdicts on one value, and the promises they must keep.
    fn judge<T: Tool + DeserializeOwned>(
        &mut self,
        validator: &InputValidator,
        schemas: &boon::Schemas,
        index: boon::SchemaIndex,
        value: &Value,
    ) -> Verdict {
        let name = T::TOOL.name.as_ref();
        let advertised = schemas.validate(value, index).is_ok();
        let checked = validator.check_value(value.clone());
        let verdict = Verdict {
            advertised,
            library: checked.is_ok(),
        };
        self.tally.values += 1;
        *self.tally.by_verdict.entry(verdict).or_default() += 1;
        if advertised
            && let Err(errors) = &checked
            && !refused_by_design(value, errors)
        {
            self.breach(
                name,
                "advertised valid, refused by the library",
                value,
                format!("{errors:?}"),
            );
        }
        let read = validator.read::<T>(value.clone());
        let parsed = validator.parse::<T>(&value.to_string());
        let hand_written = matches!(*T::TOOL.input, toolschema::model::Node::Raw(_));
        match (&checked, &read) {
            // A schema written by hand may promise what the type cannot
            // read: the author's defect, answered with where.
            (Ok(_), Err(errors)) if hand_written && errors.iter().all(|v| !v.path().is_empty()) => {
            }
            (Ok(source), Err(errors)) => {
                let serde = serde_json::from_value::<T>(source.clone()).err();
                self.breach(
                    name,
                    "accepted by the library, not read",
                    value,
                    format!("{errors:?}; serde: {serde:?}"),
                );
            }
            (Err(_), Ok(_)) => self.breach(
                name,
                "read, though the library's check refuses it",
                value,
                String::new(),
            ),
            _ => {}
        }
        if read.is_ok() != parsed.is_ok() {
            self.breach(
                name,
                "the text and the value are judged apart",
                value,
                String::new(),
            );
        }
        if let Err(errors) = &read {
            for violation in errors.iter() {
                if violation.rule() == Rule::Unreadable && violation.path().is_empty() {
                    self.breach(
                        name,
                        "refused without saying where",
                        value,
                        violation.message().to_owned(),
                    );
                }
            }
        }
        verdict
    }

    fn breach(&mut self, tool: &str, what: &'static str, value: &Value, detail: String) {
        self.breaches.push(Breach {
            tool: tool.to_owned(),
            what,
            value: value.clone(),
            detail,
        });
    }
}

/// Whether the library refuses `value` on purpose where the independent
/// validator accepts it, each decided by the standard:
///
/// - A whole number of magnitude 2^53 or more written as a float
///   (`1e19`, or an integer past 64 bits, which serde_json reads as a
///   float): it may be a rounding of the number written, so it is refused
///   rather than read as another value. boon also compares such numbers as
///   floats, so its verdict on them is not exact.
/// - An email address whose domain ends with a dot (`a@b.`): RFC 5321
///   §4.1.2 writes a domain as sub-domains joined by dots, with no
///   trailing dot; boon accepts it.
fn refused_by_design(value: &Value, errors: &toolschema::ArgumentErrors) -> bool {
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
    errors.iter().all(|violation| {
        violation.rule() == Rule::Format
            && value
                .pointer(violation.path())
                .and_then(Value::as_str)
                .is_some_and(|text| text.contains('@') && text.ends_with('.'))
    })
}

/// A runner whose random source is fixed by `seed`.
fn runner(seed: u64) -> TestRunner {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
    )
}

/// Every tool the contract covers, each run with `seed`.
fn run_all(seed: u64, tally: &mut Tally, breaches: &mut Vec<Breach>) {
    use crate::corpus::*;
    let mut run = Run { tally, breaches };
    // The corpus's schema types, each as a tool's one argument.
    run.tool_written::<Of<Scalars>>(seed);
    run.tool_written::<Of<Strings>>(seed);
    run.tool_written::<Of<Optionals>>(seed);
    run.tool_written::<Of<Collections>>(seed);
    run.tool_written::<Of<Pointers>>(seed);
    run.tool_written::<Of<ChronoTimes>>(seed);
    run.tool_written::<Of<TimeTimes>>(seed);
    run.tool_written::<Of<Identifiers>>(seed);
    run.tool_written::<Of<Color>>(seed);
    run.tool_written::<Of<Shape>>(seed);
    run.tool_written::<Of<Event>>(seed);
    run.tool_written::<Of<Message>>(seed);
    run.tool_written::<Of<Setting>>(seed);
    run.tool_written::<Of<Customer>>(seed);
    run.tool_written::<Of<Tree>>(seed);
    run.tool_written::<Of<Folder>>(seed);
    run.tool_written::<Of<Expr>>(seed);
    run.tool_written::<Of<TwoTrees>>(seed);
    run.tool_written::<Of<SerdeNames>>(seed);
    run.tool_written::<Of<Flattened>>(seed);
    run.tool_written::<Of<Shapes>>(seed);
    run.tool_written::<Of<Generic>>(seed);
    run.tool_written::<Of<OpenRecord>>(seed);
    // The corpus's tools.
    run.tool_written::<FieldAttributes>(seed);
    run.tool_written::<ContainerAttributes>(seed);
    run.tool_written::<PollEvents>(seed);
    run.tool_written::<Evaluate>(seed);
    run.tool_written::<SelfReferential>(seed);
    run.tool::<crate::input_schema::BookRoom>(seed);
    // The demo's tools.
    {
        use toolschema_demo::*;
        run.tool::<GetInvoice>(seed);
        run.tool::<ListInvoices>(seed);
        run.tool::<VoidInvoice>(seed);
        run.tool::<RefundV1>(seed);
        run.tool::<RefundV2>(seed);
        run.tool::<Reindex>(seed);
        run.tool::<StatementChart>(seed);
        run.tool::<OpenBalances>(seed);
        run.tool::<ClosePeriod>(seed);
        run.tool::<OpenTicket>(seed);
        run.tool::<SearchTickets>(seed);
    }
    // serde's attribute surface and the third-party types.
    run.tool_written::<NumbersInEnums>(seed);
    run.tool_written::<WideIntegers>(seed);
    run.tool_written::<NumberKeys>(seed);
    run.tool_written::<FlattenedMap>(seed);
    run.tool_written::<FlattenedOption>(seed);
    run.tool_written::<FlattenedTwice>(seed);
    run.tool_written::<UntaggedUnit>(seed);
    run.tool_written::<OtherVariant>(seed);
    run.tool_written::<NamesAndDefaults>(seed);
    run.tool_written::<ContainerDefault>(seed);
    run.tool_written::<VariantNames>(seed);
    run.tool_written::<Refined>(seed);
    run.tool_written::<ChronoTypes>(seed);
    run.tool_written::<TimeTypes>(seed);
    run.tool_written::<TimeRfc3339>(seed);
    run.tool_written::<IdentifierTypes>(seed);
    run.tool_written::<ReadWith>(seed);
    run.tool_written::<tools::Shapes>(seed);
}

fn report(tally: &Tally, breaches: &[Breach]) -> String {
    let mut out = format!("{} values:", tally.values);
    for (verdict, count) in &tally.by_verdict {
        let _ = write!(
            out,
            " advertised {} / library {}: {count};",
            verdict.advertised, verdict.library
        );
    }
    let mut kinds: BTreeMap<(&str, &str), (usize, &Breach)> = BTreeMap::new();
    for breach in breaches {
        kinds
            .entry((&breach.tool, breach.what))
            .or_insert((0, breach))
            .0 += 1;
    }
    for ((tool, what), (count, first)) in kinds {
        let _ = write!(
            out,
            "\n{tool}: {what} ({count}), e.g. {} {}",
            first.value, first.detail
        );
    }
    out
}

#[test]
fn the_schema_the_check_and_serde_agree() {
    let seed = std::env::var("CONTRACT_SEED")
        .ok()
        .and_then(|seed| seed.parse().ok())
        .unwrap_or(0x70_01_5c_4e);
    let mut tally = Tally::default();
    let mut breaches = Vec::new();
    run_all(seed, &mut tally, &mut breaches);
    let report = report(&tally, &breaches);
    eprintln!("{report}");
    assert!(breaches.is_empty(), "{report}");
}
