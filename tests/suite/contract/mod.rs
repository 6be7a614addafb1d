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
mod unreadable;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use toolschema::Tool;
use toolschema::model::Direction;
use toolschema::render::render_schema;
use toolschema::validate::{Names, Rule, rename};
use toolschema_test_support::contract::{Judges, Verdicts, holds_signed_date_time, judge};

use generate::Generator;
use toolschema_test_support::contract::tools::{self, *};

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
        let judges = Judges::of::<T>();
        let validator = &judges.library;
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
            let verdicts = self.judge::<T>(&judges, value);
            if let (Some(write), true) = (&write, verdicts.read)
                && let Ok(read) = validator.read::<T>(value.clone())
            {
                let mut json = write(&read);
                rename(&tool.input, &mut json, Names::Exposed, Direction::Input);
                written.push(json);
            }
        }
        for value in &written {
            self.judge::<T>(&judges, value);
            // What serde itself wrote is read back, but for the fields it
            // writes and never reads (`skip_deserializing`, `#[tool(skip)]`),
            // and a date chrono writes with a signed year (a time zone
            // moved it before year 0), which RFC 3339 cannot hold.
            if let Err(errors) = validator.check_value(value.clone())
                && errors.iter().any(|v| v.rule() != Rule::UnknownProperty)
                && !holds_signed_date_time(value)
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

    /// Judges one value, counting its verdicts and keeping its breaches.
    fn judge<T: Tool + DeserializeOwned>(&mut self, judges: &Judges, value: &Value) -> Verdicts {
        let verdicts = judge::<T>(judges, value);
        self.tally.values += 1;
        let verdict = Verdict {
            advertised: verdicts.advertised,
            library: verdicts.library,
        };
        *self.tally.by_verdict.entry(verdict).or_default() += 1;
        for (what, detail) in &verdicts.breaches {
            self.breach(T::TOOL.name.as_ref(), what, value, detail.clone());
        }
        verdicts
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
    run.tool_written::<VariantFields>(seed);
    run.tool_written::<UntaggedOverlap>(seed);
    run.tool_written::<Nested>(seed);
    run.tool_written::<ScalarEdges>(seed);
    run.tool_written::<LastEdges>(seed);
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
    // Three fixed seeds, or the one `CONTRACT_SEED` names.
    let seeds: Vec<u64> = match std::env::var("CONTRACT_SEED") {
        Ok(seed) => vec![seed.parse().expect("CONTRACT_SEED is a number")],
        Err(_) => vec![0x70_01_5c_4e, 0x5e_4d_e0_01, 0xc0_47_4a_c7],
    };
    let mut tally = Tally::default();
    let mut breaches = Vec::new();
    for seed in seeds {
        run_all(seed, &mut tally, &mut breaches);
    }
    let report = report(&tally, &breaches);
    eprintln!("{report}");
    assert!(breaches.is_empty(), "{report}");
}
