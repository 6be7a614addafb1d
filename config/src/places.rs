//! Where a problem is in the file's text, found from its location
//! (`client[2].toolsets[0]`) when a problem is found: the sections are read
//! as plain values, with no place kept beside each, and the text's tree is
//! built only for a file that has problems, once.
//!
//! A file read in parts ([`parts`](crate::parts)) is located in parts too:
//! a configured tool's problem in that tool's own section of the text, any
//! other in the rest of the file, so that no tree of the whole file is
//! built for it.

use core::ops::Range;
use std::sync::OnceLock;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::location::{ConfigLocation, Section};
use crate::parts;

/// The places of a configuration's text, found on demand.
pub(crate) struct Places<'a> {
    text: &'a str,
    tree: OnceLock<Tree<'a>>,
}

/// What a location is looked up in.
enum Tree<'a> {
    /// The text's tree, whole; `None` when it is not TOML.
    Whole(Option<Spanned<DeTable<'a>>>),
    /// A large file: its configured tools' sections, and the rest.
    Parts(Parted),
}

/// A large file as it is read: each configured tool's section of the text,
/// and the rest of the file, joined (`pieces` says where each piece of the
/// rest starts in the file).
struct Parted {
    tools: Vec<Range<usize>>,
    rest: String,
    pieces: Vec<(usize, usize)>,
}

impl<'a> Places<'a> {
    /// The places of `text`.
    pub(crate) fn new(text: &'a str) -> Places<'a> {
        Places {
            text,
            tree: OnceLock::new(),
        }
    }

    /// The text.
    pub(crate) fn text(&self) -> &'a str {
        self.text
    }

    /// Where `at` is in the text: the start of its value, or of the
    /// nearest enclosing one that the text holds (an entry, a section);
    /// 0 when the text has none of it.
    pub(crate) fn offset_of(&self, at: &ConfigLocation) -> usize {
        match self.tree.get_or_init(|| Tree::of(self.text)) {
            Tree::Whole(Some(root)) => offset_in(root, at, at.entry()),
            Tree::Whole(None) => 0,
            Tree::Parts(parted) => parted.offset_of(self.text, at),
        }
    }
}

impl<'a> Tree<'a> {
    fn of(text: &'a str) -> Tree<'a> {
        match parts::is_read_in_parts(text)
            .then(|| parts::configured_tool_sections(text))
            .flatten()
        {
            Some(tools) => Tree::Parts(Parted::new(text, tools)),
            None => Tree::Whole(DeTable::parse(text).ok()),
        }
    }
}

impl Parted {
    fn new(text: &str, tools: Vec<Range<usize>>) -> Parted {
        let mut rest = String::new();
        let mut pieces = Vec::new();
        let mut at = 0;
        for tool in tools.iter().chain([&(text.len()..text.len())]) {
            pieces.push((rest.len(), at));
            rest.push_str(&text[at..tool.start]);
            at = tool.end;
        }
        Parted {
            tools,
            rest,
            pieces,
        }
    }

    fn offset_of(&self, text: &str, at: &ConfigLocation) -> usize {
        if let (Some(Section::ConfiguredTool), Some(entry)) = (at.section(), at.entry()) {
            let Some(tool) = self.tools.get(entry) else {
                return 0;
            };
            return match DeTable::parse(&text[tool.clone()]) {
                Ok(root) => tool.start + offset_in(&root, at, Some(0)),
                Err(_) => tool.start,
            };
        }
        let Ok(root) = DeTable::parse(&self.rest) else {
            return 0;
        };
        let offset = offset_in(&root, at, at.entry());
        let (piece, start) = self
            .pieces
            .iter()
            .take_while(|(piece, _)| *piece <= offset)
            .last()
            .copied()
            .unwrap_or((0, 0));
        start + (offset - piece)
    }
}

/// Where `at` is in `root`, the entry taken as `entry` (a part of the file
/// holds one configured tool, its entry 0).
fn offset_in(root: &Spanned<DeTable<'_>>, at: &ConfigLocation, entry: Option<usize>) -> usize {
    let mut best = 0;
    let mut value: &DeValue<'_>;
    match at.section() {
        Some(section) => {
            let Some((key, found)) = entry_of(root.get_ref(), section.key()) else {
                return best;
            };
            best = key.start.min(found.span().start);
            value = found.get_ref();
            if let Some(index) = entry {
                let Some(item) = value.as_array().and_then(|items| items.get(index)) else {
                    return best;
                };
                best = item.span().start;
                value = item.get_ref();
            }
            if let (Some(index), Some(versions)) = (at.version(), section.versions_key()) {
                let Some(item) = value
                    .as_table()
                    .and_then(|table| entry_of(table, versions))
                    .and_then(|(_, list)| list.get_ref().as_array())
                    .and_then(|items| items.get(index))
                else {
                    return best;
                };
                best = item.span().start;
                value = item.get_ref();
            }
        }
        None => {
            let mut path = at.field();
            let Some((start, found)) = step(root.get_ref(), &mut path) else {
                return best;
            };
            return walk(found, path, start);
        }
    }
    walk(value, at.field(), best)
}

/// The value at `path` (`argument[3].source`, `modes.billing.refund`)
/// within `value`, or the nearest one on the way.
fn walk(mut value: &DeValue<'_>, mut path: &str, mut best: usize) -> usize {
    loop {
        path = path.strip_prefix('.').unwrap_or(path);
        if path.is_empty() {
            return best;
        }
        if let Some(after) = path.strip_prefix('[') {
            let Some((index, rest)) = after.split_once(']') else {
                return best;
            };
            let Some(item) = index
                .parse::<usize>()
                .ok()
                .and_then(|index| value.as_array()?.get(index))
            else {
                return best;
            };
            best = item.span().start;
            value = item.get_ref();
            path = rest;
            continue;
        }
        let Some(table) = value.as_table() else {
            return best;
        };
        let Some((start, found)) = step(table, &mut path) else {
            return best;
        };
        best = start;
        value = found;
    }
}

/// The key of `table` that `path` starts with (the longest, for keys that
/// hold dots themselves, such as a tool's name), and its value's start;
/// `path` is left at what follows.
fn step<'t, 'a>(table: &'t DeTable<'a>, path: &mut &str) -> Option<(usize, &'t DeValue<'a>)> {
    let (key, value) = table
        .iter()
        .filter(|(key, _)| {
            let key: &str = key.get_ref();
            path.strip_prefix(key)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
        })
        .max_by_key(|(key, _)| key.get_ref().len())?;
    *path = &path[key.get_ref().len()..];
    Some((value.span().start, value.get_ref()))
}

/// The entry of `table` under `key`, with its key's span.
fn entry_of<'t, 'a>(
    table: &'t DeTable<'a>,
    key: &str,
) -> Option<(Range<usize>, &'t Spanned<DeValue<'a>>)> {
    table
        .iter()
        .find(|(name, _)| name.get_ref() == key)
        .map(|(name, value)| (name.span(), value))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Configured tools with other sections before, between and after them.
    const TEXT: &str = r#"[[tenant]]
id = "acme"

[[client]]
id = "acme-app"
tenant = "acme"
toolsets = ["billing", "pets"]

[[gateway_tool]]
name = "pets.list"
downstream = "pets"

[[gateway_tool.version]]
version = 1
status = "draft"
description = "Lists the pets."
headers = { "X-Trace.Id" = "on" }

[[toolset]]
id = "billing"
tenant = "acme"
modes = { "pets.list" = "lazy" }

[[gateway_tool]]
name = "pets.get"
downstream = "pets"

[[gateway_tool.version]]
version = 1
status = "draft"
description = "Gets a pet."

[[gateway_tool.version.argument]]
name = "id"
type = "strnig"
"#;

    fn places_in_parts(text: &str) -> Places<'_> {
        let tools = parts::configured_tool_sections(text).expect("tool sections");
        Places {
            text,
            tree: OnceLock::from(Tree::Parts(Parted::new(text, tools))),
        }
    }

    #[test]
    fn a_location_is_found_where_its_value_is_whole_or_in_parts() {
        let tool = |i| ConfigLocation::entry_of(Section::ConfiguredTool, i);
        let expected = [
            (
                ConfigLocation::entry_of(Section::Client, 0)
                    .field_of("toolsets")
                    .item(1),
                "\"pets\"]",
            ),
            (tool(1).field_of("name"), "\"pets.get\""),
            (
                tool(1)
                    .in_version(0)
                    .field_of("argument")
                    .item(0)
                    .field_of("type"),
                "\"strnig\"",
            ),
            (
                tool(0)
                    .in_version(0)
                    .field_of("headers")
                    .field_of("X-Trace.Id"),
                "\"on\"",
            ),
            (
                ConfigLocation::entry_of(Section::Toolset, 0)
                    .field_of("modes")
                    .field_of("pets.list"),
                "\"lazy\"",
            ),
            // Not in the text: the nearest place that is.
            (
                ConfigLocation::entry_of(Section::Toolset, 0).field_of("scopes"),
                "[[toolset]]",
            ),
            (
                tool(1).in_version(3),
                "[[gateway_tool]]\nname = \"pets.get\"",
            ),
            (tool(7), "[[gateway_tool]]\nname = \"pets.list\""),
        ];
        let whole = Places::new(TEXT);
        let in_parts = places_in_parts(TEXT);
        for (at, snippet) in expected {
            let offset = whole.offset_of(&at);
            assert!(
                TEXT[offset..].starts_with(snippet),
                "{at} at {offset}: {:?}",
                &TEXT[offset..offset + 20]
            );
            if at.entry() != Some(7) {
                assert_eq!(in_parts.offset_of(&at), offset, "{at}, in parts");
            }
        }
    }

    #[test]
    fn text_that_is_not_toml_places_every_problem_at_its_start() {
        let places = Places::new("[[client]\nid = ");
        let at = ConfigLocation::entry_of(Section::Client, 0).field_of("id");
        assert_eq!(places.offset_of(&at), 0);
    }
}
