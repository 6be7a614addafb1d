//! Compatibility between two versions of a schema, as its clients see
//! them: every change from the old JSON Schema to the new one, with a
//! stable rule id, the JSON pointer where it is, and whether it breaks the
//! clients of the old one.
//!
//! An input schema breaks its clients when it refuses a value the old one
//! accepted (it *narrows*); an output schema breaks them when it allows a
//! value the old one did not promise (it *widens*). Each rule knows which
//! way its change goes, so one walk serves both directions. Where the
//! comparison cannot tell (a union whose branches moved, a keyword it does
//! not read, a reference it cannot follow) the change is
//! [`Level::Unknown`], never compatible.
//!
//! ```
//! use serde_json::json;
//! use toolschema_schema::compat::{Direction, Level, compare};
//!
//! let old = json!({
//!     "type": "object",
//!     "properties": {"city": {"type": "string"}},
//!     "additionalProperties": false,
//! });
//! let new = json!({
//!     "type": "object",
//!     "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
//!     "required": ["days"],
//!     "additionalProperties": false,
//! });
//! let report = compare(&old, &new, Direction::Input);
//! assert!(report.breaks());
//! let change = &report.changes()[0];
//! assert_eq!(change.rule, "required-property-added");
//! assert_eq!(change.level, Level::Breaking);
//! assert_eq!(change.pointer, "/required/days");
//!
//! // As a result, a new field always present is a promise kept; but the
//! // old object allowed no other field, so a strict reader breaks.
//! let output = compare(&old, &new, Direction::Output);
//! assert_eq!(output.changes()[0].rule, "property-added");
//! assert_eq!(output.changes()[0].level, Level::Breaking);
//! ```

use core::fmt;
use std::collections::BTreeSet;

use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::model::ToolDef;
use crate::project::{Mode, Profile, project_tool_as};

mod walk;

/// Which side of a tool a schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Arguments: the client writes them, the tool reads them. A change
    /// that refuses what was accepted breaks.
    Input,
    /// Results: the tool writes them, the client reads them. A change that
    /// allows what was not promised breaks.
    Output,
}

/// How a change bears on the clients of the old version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Some client of the old version may fail.
    Breaking,
    /// The comparison cannot tell: treat as breaking until a person looks.
    Unknown,
    /// Not breaking, but worth a look (a value old clients send is now
    /// ignored, say).
    Warning,
    /// Nothing an old client can notice going wrong.
    Info,
}

impl Level {
    /// `breaking`, `unknown`, `warning` or `info`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Breaking => "breaking",
            Level::Unknown => "unknown",
            Level::Warning => "warning",
            Level::Info => "info",
        }
    }
}

impl Serialize for Level {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// One change from the old schema to the new. As JSON:
/// `{"rule", "level", "pointer", "old"?, "new"?}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// The rule's stable id (`type-narrowed`, `enum-value-removed`, …).
    pub rule: &'static str,
    /// What it means for the old version's clients, in this direction.
    pub level: Level,
    /// Where, as a JSON pointer into the schema (`/properties/city/type`;
    /// a required property is named `/required/<name>`).
    pub pointer: String,
    /// The old value at the pointer, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<Value>,
    /// The new value at the pointer, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<Value>,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.level.name(), self.rule)?;
        // A change of the whole (a tool added or removed) has no place.
        if !self.pointer.is_empty() {
            write!(f, " at {}", self.pointer)?;
        }
        let shown = |value: &Option<Value>| {
            value
                .as_ref()
                .map_or_else(|| "(none)".to_owned(), Value::to_string)
        };
        write!(f, ": {} -> {}", shown(&self.old), shown(&self.new))
    }
}

/// Every change between two schemas, most serious first. As JSON:
/// `{"breaks": bool, "changes": [...]}`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    changes: Vec<Change>,
}

impl Report {
    /// The changes, most serious first, then by pointer.
    pub fn changes(&self) -> &[Change] {
        &self.changes
    }

    /// Whether a change may break a client: breaking or unknown.
    pub fn breaks(&self) -> bool {
        self.changes
            .iter()
            .any(|c| matches!(c.level, Level::Breaking | Level::Unknown))
    }

    /// Whether nothing changed that a client could tell apart.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// A tool gone (from an export, a list): breaking for whoever called
    /// it.
    pub fn tool_removed(old: &Value) -> Report {
        Report {
            changes: vec![Change {
                rule: "tool-removed",
                level: Level::Breaking,
                pointer: String::new(),
                old: old.get("name").cloned(),
                new: None,
            }],
        }
    }

    /// A tool new (to an export, a list): nothing an old client relied on.
    pub fn tool_added(new: &Value) -> Report {
        Report {
            changes: vec![Change {
                rule: "tool-added",
                level: Level::Info,
                pointer: String::new(),
                old: None,
                new: new.get("name").cloned(),
            }],
        }
    }
}

impl Serialize for Report {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        let mut report = serializer.serialize_struct("Report", 2)?;
        report.serialize_field("breaks", &self.breaks())?;
        report.serialize_field("changes", &self.changes)?;
        report.end()
    }
}

/// Every change from `old` to `new`, two JSON Schemas (2020-12, as the
/// catalog renders them: local `$ref`s into `$defs`) of one side of a tool.
pub fn compare(old: &Value, new: &Value, direction: Direction) -> Report {
    let mut walk = walk::Walk::new(old, new, direction);
    walk.schema(old, new, &mut String::new());
    let mut changes = walk.into_changes();
    changes.sort_by(|a, b| {
        a.level
            .cmp(&b.level)
            .then_with(|| a.pointer.cmp(&b.pointer))
    });
    Report { changes }
}

/// Every change between two versions of a tool as a client shown it in
/// `mode` and `profile` sees them: its name, its input schema (as
/// arguments, in the mode's projection of the default dialect, which calls
/// are validated against whatever a profile shows) and its output schema
/// (as results, as the profile shows them), each change's pointer into the
/// MCP `Tool` object (`/inputSchema/required/reason`).
///
/// ```
/// use toolschema_schema::compat::{Level, compare_tools};
/// use toolschema_schema::model::{Annotations, Node, Ref, Text, ToolDef};
/// use toolschema_schema::project::{Mode, Profile};
///
/// let tool = |name: &str, output: Option<Ref<Node>>| ToolDef {
///     name: Text::from(name.to_owned()),
///     title: None,
///     description: Ref::Static("Reads the forecast."),
///     version: 1,
///     input: Ref::new(Node::Any),
///     output,
///     annotations: Annotations::NONE,
///     icons: Ref::Static(&[]),
///     internal: false,
/// };
/// let old = tool("weather.get", Some(Ref::new(Node::Any)));
/// let new = tool("weather.read", None);
/// let report = compare_tools(&old, &new, Mode::Full, Profile::Default);
/// let rules: Vec<(&str, Level)> = report.changes().iter().map(|c| (c.rule, c.level)).collect();
/// assert_eq!(rules, [("tool-renamed", Level::Breaking), ("output-schema-removed", Level::Breaking)]);
/// ```
pub fn compare_tools(old: &ToolDef, new: &ToolDef, mode: Mode, profile: Profile) -> Report {
    let shown = |def: &ToolDef| {
        let mut tool = project_tool_as(def, mode, profile).to_value();
        // A call's arguments are validated against the default dialect
        // (`null` for an optional argument meaning absent): a profile
        // changes how they are shown, not what is accepted.
        if profile != Profile::Default {
            let validated = project_tool_as(def, mode, Profile::Default).to_value();
            if let (Some(tool), Some(input)) = (tool.as_object_mut(), validated.get("inputSchema"))
            {
                tool.insert("inputSchema".to_owned(), input.clone());
            }
        }
        tool
    };
    compare_tool_objects(&shown(old), &shown(new))
}

/// Every change between two MCP `Tool` objects (as `tools/list` or an
/// export lists them): the name, the input schema as arguments, the
/// output schema as results.
///
/// ```
/// use serde_json::json;
/// use toolschema_schema::compat::compare_tool_objects;
///
/// let old = json!({"name": "forecast", "inputSchema": {"type": "object"}});
/// let new = json!({"name": "forecast", "inputSchema": {"type": "object", "required": ["city"]}});
/// let report = compare_tool_objects(&old, &new);
/// assert_eq!(report.changes()[0].pointer, "/inputSchema/required/city");
/// ```
pub fn compare_tool_objects(old: &Value, new: &Value) -> Report {
    let mut changes = Vec::new();
    if old.get("name") != new.get("name") {
        changes.push(Change {
            rule: "tool-renamed",
            level: Level::Breaking,
            pointer: "/name".into(),
            old: old.get("name").cloned(),
            new: new.get("name").cloned(),
        });
    }
    for key in ["title", "description", "annotations", "icons", "_meta"] {
        if old.get(key) != new.get(key) {
            changes.push(Change {
                rule: "annotation-changed",
                level: Level::Info,
                pointer: format!("/{key}"),
                old: old.get(key).cloned(),
                new: new.get(key).cloned(),
            });
        }
    }
    for (key, direction) in [
        ("inputSchema", Direction::Input),
        ("outputSchema", Direction::Output),
    ] {
        let (before, after) = (old.get(key), new.get(key));
        let (rule, level) = match (before, after) {
            (Some(before), Some(after)) => {
                for mut change in compare(before, after, direction).changes {
                    change.pointer.insert_str(0, &format!("/{key}"));
                    changes.push(change);
                }
                continue;
            }
            (None, None) => continue,
            // Clients that read structured results lose what was promised.
            (Some(_), None) => ("output-schema-removed", Level::Breaking),
            (None, Some(_)) => ("output-schema-added", Level::Info),
        };
        changes.push(Change {
            rule,
            level,
            pointer: format!("/{key}"),
            old: before.cloned(),
            new: after.cloned(),
        });
    }
    sorted(changes)
}

/// The changes most serious first, then by pointer.
fn sorted(mut changes: Vec<Change>) -> Report {
    changes.sort_by(|a, b| {
        a.level
            .cmp(&b.level)
            .then_with(|| a.pointer.cmp(&b.pointer))
    });
    Report { changes }
}

/// Which way a change moves the set of values a schema allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Moves {
    /// Fewer values allowed.
    Narrows,
    /// More values allowed.
    Widens,
    /// Some lost and some gained (a pattern replaced).
    Both,
}

impl Moves {
    fn level(self, direction: Direction) -> Level {
        match (self, direction) {
            (Moves::Both, _)
            | (Moves::Narrows, Direction::Input)
            | (Moves::Widens, Direction::Output) => Level::Breaking,
            _ => Level::Info,
        }
    }
}

/// The types a schema allows (`integer` included in `number`); `None`
/// when it names none (any type).
fn types(schema: &Map<String, Value>) -> Option<BTreeSet<&str>> {
    match schema.get("type")? {
        Value::String(one) => Some(BTreeSet::from([one.as_str()])),
        Value::Array(many) => Some(many.iter().filter_map(Value::as_str).collect()),
        _ => None,
    }
}

/// Whether the type set `allowed` admits `kind`.
fn admits(allowed: &BTreeSet<&str>, kind: &str) -> bool {
    allowed.contains(kind) || (kind == "integer" && allowed.contains("number"))
}
