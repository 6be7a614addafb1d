//! The walk over two schemas side by side: each keyword compared, each
//! change classed by which way it moves the values allowed.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::LazyLock;

use serde_json::{Map, Value};

use super::{Change, Direction, Level, Moves, admits, types};
use crate::project::ANNOTATIONS;

mod objects;

/// Keywords read by the walk below; any other that differs is unknown.
const READ: &[&str] = &[
    "type",
    "enum",
    "const",
    "pattern",
    "format",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "oneOf",
    "$ref",
    "$defs",
    "definitions",
    "uniqueItems",
    "multipleOf",
];

/// Lower bounds: a larger value narrows.
const LOWER: &[&str] = &[
    "minimum",
    "exclusiveMinimum",
    "minLength",
    "minItems",
    "minProperties",
];

/// Upper bounds: a smaller value narrows.
const UPPER: &[&str] = &[
    "maximum",
    "exclusiveMaximum",
    "maxLength",
    "maxItems",
    "maxProperties",
];

/// What clients are shown and cannot break on, beside the projection's
/// annotations.
const IDENTIFIERS: &[&str] = &["$schema", "$id"];

/// Two schemas' roots (what `$ref`s point into), the direction, and the
/// changes found so far.
pub(super) struct Walk<'a> {
    old_root: &'a Value,
    new_root: &'a Value,
    direction: Direction,
    changes: Vec<Change>,
    /// Pairs of references compared already: a recursive type is compared
    /// once.
    followed: HashSet<(String, String)>,
    /// Whether both roots hold the same definitions: then equal schemas
    /// mean the same, references included.
    same_definitions: bool,
}

impl<'a> Walk<'a> {
    pub(super) fn new(old_root: &'a Value, new_root: &'a Value, direction: Direction) -> Walk<'a> {
        Walk {
            old_root,
            new_root,
            direction,
            changes: Vec::new(),
            followed: HashSet::new(),
            same_definitions: ["$defs", "definitions"]
                .iter()
                .all(|k| old_root.get(*k) == new_root.get(*k)),
        }
    }

    pub(super) fn into_changes(self) -> Vec<Change> {
        self.changes
    }

    fn push(
        &mut self,
        rule: &'static str,
        moves: Moves,
        at: &str,
        old: Option<&Value>,
        new: Option<&Value>,
    ) {
        self.push_level(rule, moves.level(self.direction), at, old, new);
    }

    fn push_level(
        &mut self,
        rule: &'static str,
        level: Level,
        at: &str,
        old: Option<&Value>,
        new: Option<&Value>,
    ) {
        self.changes.push(Change {
            rule,
            level,
            pointer: at.to_owned(),
            old: old.cloned(),
            new: new.cloned(),
        });
    }

    /// Whether two values (schemas, or keywords holding schemas) are the
    /// same: equal text, and no reference in them to definitions that
    /// changed.
    fn unchanged(&self, old: Option<&Value>, new: Option<&Value>) -> bool {
        old == new && (self.same_definitions || !old.is_some_and(refers))
    }

    /// Compares `old` and `new` at the pointer `at`.
    pub(super) fn schema(&mut self, old: &'a Value, new: &'a Value, at: &mut String) {
        // Equal text means equal schemas, unless a reference in it leads
        // to definitions that changed.
        if old == new && (self.same_definitions || !refers(old)) {
            return;
        }
        let (old, new) = match self.follow(old, new, at) {
            Some(pair) => pair,
            None => return,
        };
        match (old, new) {
            (Value::Object(o), Value::Object(n)) => self.object_schema((old, o), (new, n), at),
            (Value::Bool(true), Value::Object(n)) if n.is_empty() => {}
            (Value::Object(o), Value::Bool(true)) if o.is_empty() => {}
            (Value::Bool(false), _) | (_, Value::Bool(true)) => {
                self.push("schema-widened", Moves::Widens, at, Some(old), Some(new));
            }
            (_, Value::Bool(false)) | (Value::Bool(true), _) => {
                self.push("schema-narrowed", Moves::Narrows, at, Some(old), Some(new));
            }
            _ => self.push_level(
                "schema-unreadable",
                Level::Unknown,
                at,
                Some(old),
                Some(new),
            ),
        }
    }

    /// Both sides with their `$ref`s followed; `None` when there is
    /// nothing more to compare (a pair of references compared already, or
    /// one that does not resolve, reported).
    fn follow(
        &mut self,
        old: &'a Value,
        new: &'a Value,
        at: &str,
    ) -> Option<(&'a Value, &'a Value)> {
        let reference =
            |value: &Value| value.get("$ref").and_then(Value::as_str).map(str::to_owned);
        let (old_ref, new_ref) = (reference(old), reference(new));
        if old_ref.is_none() && new_ref.is_none() {
            return Some((old, new));
        }
        // A side without a reference is known by where it is in its
        // schema: the same reference met beside another inline schema is
        // another comparison.
        let place = |value: &Value| format!("@{:p}", core::ptr::from_ref(value));
        let key = (
            old_ref.clone().unwrap_or_else(|| place(old)),
            new_ref.clone().unwrap_or_else(|| place(new)),
        );
        // Keywords beside a `$ref` apply too (2020-12). Where they are the
        // same on both sides, comparing what the references lead to is
        // enough; otherwise the walk, which follows the reference alone,
        // cannot tell.
        let (old_beside, new_beside) = (beside_reference(old), beside_reference(new));
        let beside_differs = match (&old_ref, &new_ref) {
            (Some(_), Some(_)) => old_beside != new_beside,
            (Some(_), None) => !old_beside.is_empty(),
            (None, _) => !new_beside.is_empty(),
        };
        if beside_differs {
            self.push_level(
                "reference-siblings-changed",
                Level::Unknown,
                at,
                Some(old),
                Some(new),
            );
            return None;
        }
        // Each pair is compared once (a recursive definition ends).
        if !self.followed.insert(key) {
            return None;
        }
        let resolved_old = match &old_ref {
            Some(pointer) => resolve_chain(self.old_root, pointer),
            None => Ok(old),
        };
        let resolved_new = match &new_ref {
            Some(pointer) => resolve_chain(self.new_root, pointer),
            None => Ok(new),
        };
        match (resolved_old, resolved_new) {
            (Ok(o), Ok(n)) => Some((o, n)),
            (Err(rule), _) | (_, Err(rule)) => {
                self.push_level(rule, Level::Unknown, at, Some(old), Some(new));
                None
            }
        }
    }

    fn object_schema(
        &mut self,
        (old_value, old): (&'a Value, &'a Map<String, Value>),
        (new_value, new): (&'a Value, &'a Map<String, Value>),
        at: &mut String,
    ) {
        let has = |keyword: &str| (old.contains_key(keyword), new.contains_key(keyword));
        if has("oneOf") != (false, false) {
            if !self.unchanged(old.get("oneOf"), new.get("oneOf")) {
                // Exactly one branch must match: a widened branch may make
                // a value match two. Not decided.
                self.push_level(
                    "union-changed",
                    Level::Unknown,
                    at,
                    old.get("oneOf"),
                    new.get("oneOf"),
                );
                return;
            }
            // The same branches: the keywords beside them decide.
            self.keywords(old, new, at);
            return;
        }
        let (old_union, new_union) = has("anyOf");
        if old_union || new_union {
            // A value relied on meets the keywords beside its side's
            // branches and one branch. Where the other side has branches
            // too, the keywords beside them are compared; where it has
            // none, each relied-on branch is compared with it whole.
            let other_has = match self.direction {
                Direction::Input => new_union,
                Direction::Output => old_union,
            };
            if other_has {
                self.keywords(old, new, at);
            }
            self.union((old_value, old), (new_value, new), at);
            return;
        }
        self.keywords(old, new, at);
    }

    /// Every keyword but the unions' branches.
    fn keywords(
        &mut self,
        old: &'a Map<String, Value>,
        new: &'a Map<String, Value>,
        at: &mut String,
    ) {
        self.types(old, new, at);
        self.values(old, new, at);
        self.bounds(old, new, at);
        self.words(old, new, at);
        self.objects(old, new, at);
        if let (Some(o), Some(n)) = (old.get("items"), new.get("items")) {
            let len = at.len();
            at.push_str("/items");
            self.schema(o, n, at);
            at.truncate(len);
        } else {
            self.presence("items", old.get("items"), new.get("items"), at);
        }
        self.others(old, new, at);
    }

    /// `type`: kinds no longer admitted narrow, kinds newly admitted widen.
    fn types(&mut self, old: &Map<String, Value>, new: &Map<String, Value>, at: &str) {
        let (o, n) = (types(old), types(new));
        let pointer = format!("{at}/type");
        let (before, after) = (old.get("type"), new.get("type"));
        match (&o, &n) {
            (None, None) => {}
            (None, Some(_)) => self.push("type-narrowed", Moves::Narrows, &pointer, before, after),
            (Some(_), None) => self.push("type-widened", Moves::Widens, &pointer, before, after),
            (Some(o), Some(n)) => {
                let lost: Vec<&&str> = o.iter().filter(|kind| !admits(n, kind)).collect();
                let gained: Vec<&&str> = n.iter().filter(|kind| !admits(o, kind)).collect();
                let only_null = |kinds: &[&&str]| kinds.len() == 1 && **kinds[0] == *"null";
                if !lost.is_empty() {
                    let rule = if only_null(&lost) {
                        "nullable-removed"
                    } else {
                        "type-narrowed"
                    };
                    self.push(rule, Moves::Narrows, &pointer, before, after);
                }
                if !gained.is_empty() {
                    let rule = if only_null(&gained) {
                        "nullable-added"
                    } else {
                        "type-widened"
                    };
                    self.push(rule, Moves::Widens, &pointer, before, after);
                }
            }
        }
    }

    /// `enum` and `const`.
    fn values(&mut self, old: &Map<String, Value>, new: &Map<String, Value>, at: &str) {
        let pointer = format!("{at}/enum");
        match (
            old.get("enum").and_then(Value::as_array),
            new.get("enum").and_then(Value::as_array),
        ) {
            (Some(o), Some(n)) => {
                for value in o.iter().filter(|v| !n.contains(v)) {
                    self.push(
                        "enum-value-removed",
                        Moves::Narrows,
                        &pointer,
                        Some(value),
                        None,
                    );
                }
                for value in n.iter().filter(|v| !o.contains(v)) {
                    self.push(
                        "enum-value-added",
                        Moves::Widens,
                        &pointer,
                        None,
                        Some(value),
                    );
                }
            }
            (None, Some(_)) => self.push(
                "enum-added",
                Moves::Narrows,
                &pointer,
                None,
                new.get("enum"),
            ),
            (Some(_), None) => self.push(
                "enum-removed",
                Moves::Widens,
                &pointer,
                old.get("enum"),
                None,
            ),
            (None, None) => {}
        }
        let pointer = format!("{at}/const");
        match (old.get("const"), new.get("const")) {
            (Some(o), Some(n)) if o != n => {
                self.push("const-changed", Moves::Both, &pointer, Some(o), Some(n))
            }
            (None, Some(n)) => self.push("const-added", Moves::Narrows, &pointer, None, Some(n)),
            (Some(o), None) => self.push("const-removed", Moves::Widens, &pointer, Some(o), None),
            _ => {}
        }
    }

    /// Numeric and length bounds, `multipleOf`, `uniqueItems`.
    fn bounds(&mut self, old: &Map<String, Value>, new: &Map<String, Value>, at: &str) {
        for (keywords, lower) in [(LOWER, true), (UPPER, false)] {
            for keyword in keywords {
                let (o, n) = (old.get(*keyword), new.get(*keyword));
                let pointer = format!("{at}/{keyword}");
                match (o.and_then(Value::as_f64), n.and_then(Value::as_f64)) {
                    (Some(a), Some(b)) if a != b => {
                        let tighter = if lower { b > a } else { b < a };
                        let (rule, moves) = match tighter {
                            true => ("bound-tightened", Moves::Narrows),
                            false => ("bound-loosened", Moves::Widens),
                        };
                        self.push(rule, moves, &pointer, o, n);
                    }
                    (None, Some(_)) => self.push("bound-added", Moves::Narrows, &pointer, o, n),
                    (Some(_), None) => self.push("bound-removed", Moves::Widens, &pointer, o, n),
                    _ => {}
                }
            }
        }
        let pointer = format!("{at}/multipleOf");
        let (o, n) = (old.get("multipleOf"), new.get("multipleOf"));
        match (o.and_then(Value::as_f64), n.and_then(Value::as_f64)) {
            (Some(a), Some(b)) if a != b => {
                // Multiples of `a` are all multiples of `b` when `b` divides `a`.
                let moves = if (a / b).fract() == 0.0 {
                    Moves::Widens
                } else {
                    Moves::Both
                };
                let rule = if moves == Moves::Widens {
                    "bound-loosened"
                } else {
                    "multiple-changed"
                };
                self.push(rule, moves, &pointer, o, n);
            }
            (None, Some(_)) => self.push("bound-added", Moves::Narrows, &pointer, o, n),
            (Some(_), None) => self.push("bound-removed", Moves::Widens, &pointer, o, n),
            _ => {}
        }
        let unique =
            |schema: &Map<String, Value>| schema.get("uniqueItems") == Some(&Value::Bool(true));
        let pointer = format!("{at}/uniqueItems");
        match (unique(old), unique(new)) {
            (false, true) => self.push(
                "bound-added",
                Moves::Narrows,
                &pointer,
                old.get("uniqueItems"),
                new.get("uniqueItems"),
            ),
            (true, false) => self.push(
                "bound-removed",
                Moves::Widens,
                &pointer,
                old.get("uniqueItems"),
                new.get("uniqueItems"),
            ),
            _ => {}
        }
    }

    /// `pattern` and `format`: added narrows, removed widens, replaced
    /// both (whether one language contains the other is not decided).
    fn words(&mut self, old: &Map<String, Value>, new: &Map<String, Value>, at: &str) {
        for (keyword, added, removed, changed) in [
            (
                "pattern",
                "pattern-added",
                "pattern-removed",
                "pattern-changed",
            ),
            ("format", "format-added", "format-removed", "format-changed"),
        ] {
            let (o, n) = (old.get(keyword), new.get(keyword));
            let pointer = format!("{at}/{keyword}");
            match (o, n) {
                (Some(a), Some(b)) if a != b => self.push(changed, Moves::Both, &pointer, o, n),
                (None, Some(_)) => self.push(added, Moves::Narrows, &pointer, o, n),
                (Some(_), None) => self.push(removed, Moves::Widens, &pointer, o, n),
                _ => {}
            }
        }
    }

    /// `anyOf` / `oneOf`: every branch a client may have relied on must
    /// fit one branch of the other side with no breaking change, else the
    /// change is unknown (a union may cover what no one branch does).
    fn union(
        &mut self,
        (old_value, old): (&'a Value, &'a Map<String, Value>),
        (new_value, new): (&'a Value, &'a Map<String, Value>),
        at: &str,
    ) {
        if self.unchanged(old.get("anyOf"), new.get("anyOf")) {
            return;
        }
        let side = |value: &'a Value, schema: &'a Map<String, Value>| -> Vec<&'a Value> {
            match schema.get("anyOf").and_then(Value::as_array) {
                Some(list) => list.iter().collect(),
                None => vec![value],
            }
        };
        let (olds, news) = (side(old_value, old), side(new_value, new));
        // What the clients relied on, and where it must fit.
        let (from, into) = match self.direction {
            Direction::Input => (&olds, &news),
            Direction::Output => (&news, &olds),
        };
        let fits = from.iter().all(|branch| {
            into.iter().any(|other| {
                let (o, n) = match self.direction {
                    Direction::Input => (*branch, *other),
                    Direction::Output => (*other, *branch),
                };
                let mut trial = Walk::new(self.old_root, self.new_root, self.direction);
                trial.followed = self.followed.clone();
                trial.schema(o, n, &mut at.to_owned());
                !trial
                    .changes
                    .iter()
                    .any(|c| matches!(c.level, Level::Breaking | Level::Unknown))
            })
        });
        let level = if fits { Level::Info } else { Level::Unknown };
        let pointer = format!("{at}/anyOf");
        self.push_level(
            "union-changed",
            level,
            &pointer,
            old.get("anyOf"),
            new.get("anyOf"),
        );
    }

    /// A keyword present on one side only that the walk reads as a
    /// schema (`items`): present now narrows, gone widens.
    fn presence(&mut self, keyword: &str, old: Option<&Value>, new: Option<&Value>, at: &str) {
        let pointer = format!("{at}/{keyword}");
        match (old, new) {
            (None, Some(n)) if !is_anything(n) => {
                self.push("schema-narrowed", Moves::Narrows, &pointer, None, Some(n))
            }
            (Some(o), None) if !is_anything(o) => {
                self.push("schema-widened", Moves::Widens, &pointer, Some(o), None)
            }
            _ => {}
        }
    }

    /// Annotations that changed (info), and keywords the walk does not
    /// read that differ (unknown).
    fn others(&mut self, old: &Map<String, Value>, new: &Map<String, Value>, at: &str) {
        let keys: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
        for key in keys {
            let known = READ.contains(&key.as_str())
                || LOWER.contains(&key.as_str())
                || UPPER.contains(&key.as_str());
            if known || self.unchanged(old.get(key), new.get(key)) {
                continue;
            }
            let pointer = format!("{at}/{}", escape(key));
            if ANNOTATIONS.contains(&key.as_str())
                || IDENTIFIERS.contains(&key.as_str())
                || key.starts_with("x-")
            {
                self.push_level(
                    "annotation-changed",
                    Level::Info,
                    &pointer,
                    old.get(key),
                    new.get(key),
                );
            } else {
                self.push_level(
                    "keyword-changed",
                    Level::Unknown,
                    &pointer,
                    old.get(key),
                    new.get(key),
                );
            }
        }
    }
}

/// The schema every value passes.
static ANYTHING: Value = Value::Bool(true);

/// No properties.
static EMPTY: LazyLock<Map<String, Value>> = LazyLock::new(Map::new);

/// Whether `value` holds a `$ref` anywhere.
fn refers(value: &Value) -> bool {
    match value {
        Value::Object(map) => map
            .iter()
            .any(|(key, value)| key == "$ref" || refers(value)),
        Value::Array(items) => items.iter().any(refers),
        _ => false,
    }
}

/// Whether `schema` allows every value (`true` or `{}`).
fn is_anything(schema: &Value) -> bool {
    match schema {
        Value::Bool(true) => true,
        Value::Object(map) => map.is_empty(),
        _ => false,
    }
}

/// The schema a local reference (`#/$defs/Name`) points to in `root`.
fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    root.pointer(reference.strip_prefix('#')?)
}

/// The keywords beside a schema's `$ref` that constrain values (not its
/// definitions, annotations or identifiers).
fn beside_reference(schema: &Value) -> BTreeMap<&str, &Value> {
    let Some(map) = schema.as_object().filter(|map| map.contains_key("$ref")) else {
        return BTreeMap::new();
    };
    map.iter()
        .filter(|(key, _)| {
            !matches!(key.as_str(), "$ref" | "$defs" | "definitions")
                && !ANNOTATIONS.contains(&key.as_str())
                && !IDENTIFIERS.contains(&key.as_str())
        })
        .map(|(key, value)| (key.as_str(), value))
        .collect()
}

/// The schema a local reference leads to in `root`, through any chain of
/// references (a definition that is itself `{"$ref": ...}`). Else the rule
/// that says why not: a reference that does not resolve or a chain that
/// comes back on itself (`reference-unresolved`), or a link of the chain
/// with keywords of its own beside its reference
/// (`reference-siblings-unread`: the walk would leave them out).
fn resolve_chain<'a>(root: &'a Value, reference: &str) -> Result<&'a Value, &'static str> {
    const UNRESOLVED: &str = "reference-unresolved";
    let mut seen = vec![reference];
    let mut target = resolve(root, reference).ok_or(UNRESOLVED)?;
    while let Some(next) = target.get("$ref").and_then(Value::as_str) {
        if !beside_reference(target).is_empty() {
            return Err("reference-siblings-unread");
        }
        if seen.contains(&next) {
            return Err(UNRESOLVED);
        }
        seen.push(next);
        target = resolve(root, next).ok_or(UNRESOLVED)?;
    }
    Ok(target)
}

/// A name as a JSON pointer token.
fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}
