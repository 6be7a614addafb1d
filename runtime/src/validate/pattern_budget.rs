//! The `pattern` keyword of schemas whose patterns need a backtracking
//! engine (a backreference, a lookaround), with a budget of backtracking
//! steps for each check of one call's values, not only for each value.
//!
//! The contract: a value costs at most [`BACKTRACK_LIMIT`] steps, as
//! before; and all the pattern checks made inside one [`within_call`]
//! (one pass over a call's arguments, or over a result; a refused call
//! takes two) together cost at most [`CALL_BUDGET`] steps, so that a call
//! of many costly values costs one budget, not one per value. A value whose check would take the call past
//! its budget is refused unchecked, saying so; the others are judged.
//!
//! The engine does not say how many steps a match took, only whether it
//! stayed within its limit: each pattern is compiled with rising limits
//! ([`TIERS`]), a value is matched with the smallest first and again with
//! the next while the limit is met, and each try is charged its limit in
//! full. What is charged is thus at least what was spent; a value cheap to
//! check costs the smallest limit.

use core::cell::Cell;

use jsonschema::json::{Json, Node};
use jsonschema::paths::Location;
use jsonschema::{Keyword, ValidationError};
use serde_json::{Map, Value};

use super::BACKTRACK_LIMIT;

/// The steps all the pattern checks of one call may take together: two
/// values' worth at most.
pub(crate) const CALL_BUDGET: usize = 2 * BACKTRACK_LIMIT;

/// The limits a value is matched with, in turn: the last is the value's
/// own.
const TIERS: [usize; 4] = [16, 256, 4_096, BACKTRACK_LIMIT];

/// The message of a value over its own limit.
pub(super) const TOO_COSTLY: &str = "\u{0}pattern: too costly";
/// The message of a value left unchecked because its call's budget is
/// spent.
pub(super) const CALL_SPENT: &str = "\u{0}pattern: the call's budget is spent";

thread_local! {
    /// The steps left to the call being checked on this thread; `None`
    /// outside one (a value then has only its own limit).
    static LEFT: Cell<Option<usize>> = const { Cell::new(None) };
    /// How many matches were run on this thread with a value's own limit,
    /// the costly ones (for tests, which count the work a call did rather
    /// than time it).
    static COSTLY_RUNS: Cell<usize> = const { Cell::new(0) };
}

/// Runs `check` (the validation of one call's arguments, or of one result)
/// with a budget of [`CALL_BUDGET`] steps for all its pattern checks.
/// Validation is synchronous, so the budget is the thread's while `check`
/// runs; the one before is restored after (a check inside a check).
pub(crate) fn within_call<R>(check: impl FnOnce() -> R) -> R {
    struct Restore(Option<usize>);
    impl Drop for Restore {
        fn drop(&mut self) {
            LEFT.with(|left| left.set(self.0));
        }
    }
    let _restore = Restore(LEFT.with(|left| left.replace(Some(CALL_BUDGET))));
    check()
}

/// How many matches were run on this thread so far with a value's own
/// limit.
#[cfg(test)]
pub(crate) fn costly_runs() -> usize {
    COSTLY_RUNS.with(Cell::get)
}

/// Charges `steps` to the call, if it has that many left.
fn charge(steps: usize) -> bool {
    LEFT.with(|left| match left.get() {
        None => true,
        Some(have) if have >= steps => {
            left.set(Some(have - steps));
            true
        }
        Some(_) => false,
    })
}

/// Why a value does not match.
enum Refused {
    /// It does not match the pattern.
    Mismatch,
    /// It needs more steps than a value may take.
    TooCostly,
    /// Its call has spent its budget.
    CallSpent,
}

/// One `pattern`, compiled with each of the [`TIERS`] limits.
struct BudgetedPattern {
    source: String,
    /// The pattern compiles in the `regex` crate's language: matched in
    /// linear time, no step ever taken, nothing charged.
    linear: bool,
    tiers: Vec<fancy_regex::Regex>,
}

impl BudgetedPattern {
    fn check(&self, text: &str) -> Result<(), Refused> {
        for (limit, regex) in TIERS.iter().zip(&self.tiers) {
            if !self.linear && !charge(*limit) {
                return Err(Refused::CallSpent);
            }
            if *limit == BACKTRACK_LIMIT {
                COSTLY_RUNS.with(|runs| runs.set(runs.get() + 1));
            }
            match regex.is_match(text) {
                Ok(true) => return Ok(()),
                Ok(false) => return Err(Refused::Mismatch),
                Err(fancy_regex::Error::RuntimeError(
                    fancy_regex::RuntimeError::BacktrackLimitExceeded,
                )) => continue,
                // Another limit of the engine: too costly all the same.
                Err(_) => return Err(Refused::TooCostly),
            }
        }
        Err(Refused::TooCostly)
    }
}

impl<'i, F: Json> Keyword<'i, F> for BudgetedPattern {
    fn validate(&self, instance: F::Node<'i>) -> Result<(), ValidationError<'i>> {
        let Some(text) = instance.as_string() else {
            return Ok(());
        };
        match self.check(&text) {
            Ok(()) => Ok(()),
            Err(Refused::Mismatch) => Err(ValidationError::custom(self.source.clone())),
            Err(Refused::TooCostly) => Err(ValidationError::custom(TOO_COSTLY)),
            Err(Refused::CallSpent) => Err(ValidationError::custom(CALL_SPENT)),
        }
    }

    fn is_valid(&self, instance: F::Node<'i>) -> bool {
        instance
            .as_string()
            .is_none_or(|text| self.check(&text).is_ok())
    }
}

/// The factory of the `pattern` keyword, for a schema with a pattern only
/// a backtracking engine reads (every pattern of that schema goes through
/// it, those in the `regex` crate's language charged nothing).
pub(super) fn pattern<'a, F: Json>(
    _parent: &'a Map<String, Value>,
    value: &'a Value,
    _path: Location,
) -> Result<Box<dyn for<'i> Keyword<'i, F>>, ValidationError<'a>> {
    let Some(source) = value.as_str() else {
        return Err(ValidationError::schema("`pattern` must be a string"));
    };
    // The ECMA-262 pattern as Rust's engines read it, as jsonschema
    // translates it.
    let translated = jsonschema_regex::to_rust_regex(source)
        .map_err(|()| ValidationError::schema(format!("`{source}` is not a pattern")))?;
    let tiers = TIERS
        .iter()
        .map(|limit| {
            fancy_regex::RegexBuilder::new(&translated)
                .backtrack_limit(*limit)
                .build()
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| ValidationError::schema(format!("`{source}`: {error}")))?;
    Ok(Box::new(BudgetedPattern {
        source: source.to_owned(),
        linear: !super::needs_backtracking(source),
        tiers,
    }))
}
