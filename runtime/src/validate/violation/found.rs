//! The violations of one validation, kept to a bound, and the one a
//! refusal names when a value breaks several branches of a choice.

use super::{MAX_MESSAGE_BYTES, MAX_PATH_BYTES, Place, Rule, Violation, bounded, child, kind_of};
use serde_json::Value;
use std::collections::BinaryHeap;

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

pub(super) struct Ranked {
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
    pub(super) fn finish(self) -> (Box<[Violation]>, usize) {
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
                super::super::pattern_budget::TOO_COSTLY => one(Rule::Pattern, &|at| {
                    format!(
                        "{at} is too costly to check against its pattern; send a shorter or plainer value."
                    )
                }),
                super::super::pattern_budget::CALL_SPENT => one(Rule::Pattern, &|at| {
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
        use core::fmt::Write as _;
        // Room for the sentence at once: no copy as it grows.
        let mut out = String::with_capacity(128);
        let _ = match self {
            Broken::Type { expected, actual } => {
                write!(out, "{at} must be of type {expected}, not {actual}.")
            }
            Broken::Format(format) => write!(out, "{at} must be a string in `{format}` format."),
            Broken::Minimum(limit) => write!(out, "{at} must be at least {limit}."),
            Broken::Maximum(limit) => write!(out, "{at} must be at most {limit}."),
            Broken::MinLength(limit) => write!(
                out,
                "{at} must have at least {limit} character{}.",
                plural(*limit)
            ),
            Broken::MaxLength(limit) => write!(
                out,
                "{at} must have at most {limit} character{}.",
                plural(*limit)
            ),
            Broken::Pattern(pattern) => write!(out, "{at} must match the pattern `{pattern}`."),
            Broken::Enum(options) => write!(out, "{at} must be one of: {options}."),
        };
        out
    }
}

/// The values of an `enum`, as its violation lists them.
/// Which of the allowed forms (`anyOf`, `oneOf`) a value that matches none
/// of them meant, so that its own violations are told.
pub(super) enum Choice<'e> {
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
pub(super) fn choose<'e>(
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

pub(super) fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}
