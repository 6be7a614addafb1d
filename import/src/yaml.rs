//! YAML documents read into the JSON tree, from the parser's events, so
//! that what a document can make the reader build is bounded: an alias
//! copies its anchor's node, and nested anchors copy copies (a few hundred
//! bytes can stand for billions of nodes), so every node built, copies
//! included, counts against a budget proportional to the document's size;
//! nesting is bounded too, and nothing here recurses.

use std::collections::{HashMap, HashSet};

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser, Tag};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use toolschema_runtime::model::{Number, Text};
use toolschema_runtime::render::{Json as Value, Object as Map};

/// The deepest nesting read, as JSON's parser allows.
const MAX_DEPTH: usize = 128;

/// The most nodes a document of `len` bytes may make, aliases' copies
/// included: ten for each of its bytes (a plain document makes fewer than
/// one per byte), and never fewer than a million.
fn budget(len: usize) -> usize {
    len.saturating_mul(10).max(1 << 20)
}

/// The first document of `text`, or why it cannot be read.
pub(super) fn read(text: &str) -> Result<Value, String> {
    let mut builder = Builder {
        budget: budget(text.len()),
        built: 0,
        stack: Vec::new(),
        anchors: HashMap::new(),
        document: None,
        error: None,
    };
    Parser::new_from_str(text)
        .load(&mut builder, false)
        .map_err(|error| error.to_string())?;
    if let Some(error) = builder.error {
        return Err(error);
    }
    builder
        .document
        .map(|(value, _)| value)
        .ok_or_else(|| "the document is empty".to_owned())
}

/// A node being built, and how many nodes it holds so far (itself
/// included).
struct Open {
    node: OpenNode,
    anchor: usize,
    size: usize,
}

enum OpenNode {
    Sequence(Vec<Value>),
    /// A mapping, its keys seen, and the key whose value comes next (`None`
    /// while a key is awaited; `Some(None)` for a key that is not a
    /// scalar, whose entry is left out).
    Mapping(Map, HashSet<Text>, Option<Option<Text>>),
}

struct Builder {
    budget: usize,
    built: usize,
    stack: Vec<Open>,
    /// Each anchor's node, and its size in nodes.
    anchors: HashMap<usize, (Value, usize)>,
    document: Option<(Value, usize)>,
    error: Option<String>,
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, event: Event, mark: Marker) {
        if self.error.is_some() {
            return;
        }
        if let Err(error) = self.take(event) {
            self.error = Some(format!("line {}: {error}", mark.line()));
        }
    }
}

impl Builder {
    fn take(&mut self, event: Event) -> Result<(), String> {
        match event {
            Event::SequenceStart(anchor, _) => self.open(OpenNode::Sequence(Vec::new()), anchor),
            Event::MappingStart(anchor, _) => {
                self.open(OpenNode::Mapping(Map::new(), HashSet::new(), None), anchor)
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let Some(open) = self.stack.pop() else {
                    return Ok(());
                };
                let value = match open.node {
                    OpenNode::Sequence(items) => Value::Array(items),
                    OpenNode::Mapping(map, ..) => Value::Object(map),
                };
                self.place(value, open.size, open.anchor)
            }
            Event::Scalar(text, style, anchor, tag) => {
                self.count(1)?;
                self.place(scalar(text, style, tag.as_ref()), 1, anchor)
            }
            Event::Alias(anchor) => {
                // Counted before it is copied.
                let size = self.anchors.get(&anchor).map_or(1, |(_, size)| *size);
                self.count(size)?;
                let value = self
                    .anchors
                    .get(&anchor)
                    .map_or(Value::Null, |(value, _)| value.clone());
                self.place(value, size, 0)
            }
            Event::Nothing
            | Event::StreamStart
            | Event::StreamEnd
            | Event::DocumentStart
            | Event::DocumentEnd => Ok(()),
        }
    }

    /// Counts `nodes` more built, refusing past the budget (before they
    /// are copied).
    fn count(&mut self, nodes: usize) -> Result<(), String> {
        self.built = self.built.saturating_add(nodes);
        if self.built > self.budget {
            return Err(format!(
                "the document's aliases expand to more than {} nodes (ten for each of its bytes); write the repeated parts out, or use `$ref`",
                self.budget
            ));
        }
        Ok(())
    }

    fn open(&mut self, node: OpenNode, anchor: usize) -> Result<(), String> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(format!(
                "the document is nested deeper than {MAX_DEPTH} levels"
            ));
        }
        self.count(1)?;
        self.stack.push(Open {
            node,
            anchor,
            size: 1,
        });
        Ok(())
    }

    /// Puts a finished node in its parent (or makes it the document).
    fn place(&mut self, value: Value, size: usize, anchor: usize) -> Result<(), String> {
        if anchor > 0 {
            // Kept only while copies of it may still be made.
            self.anchors.insert(anchor, (value.clone(), size));
        }
        let Some(parent) = self.stack.last_mut() else {
            self.document = Some((value, size));
            return Ok(());
        };
        parent.size = parent.size.saturating_add(size);
        match &mut parent.node {
            OpenNode::Sequence(items) => items.push(value),
            OpenNode::Mapping(map, keys, pending) => match pending.take() {
                None => {
                    *pending = Some(match value {
                        Value::String(text) => Some(text),
                        Value::Number(number) => Some(Text::from(number_text(number))),
                        Value::Bool(flag) => Some(Text::from(flag.to_string())),
                        _ => None,
                    });
                }
                Some(None) => {}
                Some(Some(key)) => {
                    if !keys.insert(key.clone()) {
                        return Err(format!("the key `{}` appears twice in one mapping", &*key));
                    }
                    map.insert(key, value);
                }
            },
        }
        Ok(())
    }
}

fn number_text(number: Number) -> String {
    match number {
        Number::Int(n) => n.to_string(),
        Number::UInt(n) => n.to_string(),
        Number::Float(n) => n.to_string(),
    }
}

/// A scalar's value as YAML 1.2's core schema reads it: quoted text is
/// text; a plain one may be null, a boolean or a number; a core tag says
/// which.
fn scalar(text: String, style: TScalarStyle, tag: Option<&Tag>) -> Value {
    use yaml_rust2::Yaml;
    let yaml = if style != TScalarStyle::Plain {
        Yaml::String(text)
    } else if let Some(tag) = tag {
        if tag.handle != "tag:yaml.org,2002:" {
            Yaml::String(text)
        } else {
            match tag.suffix.as_str() {
                "str" => Yaml::String(text),
                "bool" | "int" | "float" | "null" => Yaml::from_str(&text),
                _ => Yaml::String(text),
            }
        }
    } else {
        Yaml::from_str(&text)
    };
    match yaml {
        Yaml::Real(text) => match text.parse::<f64>() {
            Ok(n) if n.is_finite() => Value::Number(Number::Float(n)),
            _ => Value::String(Text::from(text)),
        },
        Yaml::Integer(n) => Value::Number(Number::Int(n)),
        Yaml::String(text) => Value::String(Text::from(text)),
        Yaml::Boolean(flag) => Value::Bool(flag),
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::read;

    #[test]
    fn scalars_mappings_sequences_and_aliases_read_as_json() {
        let value = read(
            "a: 1\nb: '1'\nc: [true, ~, 1.5, x]\nd: &shared {k: v}\ne: *shared\n0x1F: hex key\n",
        )
        .expect("reads");
        assert_eq!(
            value.to_compact_string(),
            r#"{"a":1,"b":"1","c":[true,null,1.5,"x"],"d":{"k":"v"},"e":{"k":"v"},"31":"hex key"}"#
        );
    }

    #[test]
    fn an_alias_bomb_is_refused_within_its_budget() {
        // Each level doubles the one before: 2^40 nodes from 420 bytes.
        let mut text = String::from("a0: &a0 [x, x]\n");
        for level in 1..40 {
            let previous = level - 1;
            text.push_str(&format!(
                "a{level}: &a{level} [*a{previous}, *a{previous}]\n"
            ));
        }
        let error = read(&text).expect_err("refused");
        assert!(
            error.contains("aliases expand to more than 1048576 nodes"),
            "{error}"
        );
    }

    #[test]
    fn nesting_and_duplicate_keys_are_refused_with_their_line() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let error = read(&deep).expect_err("refused");
        assert!(error.contains("nested deeper than 128 levels"), "{error}");
        let error = read("a: 1\nb: 2\na: 3\n").expect_err("refused");
        assert_eq!(error, "line 3: the key `a` appears twice in one mapping");
    }
}
