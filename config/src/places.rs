//! Where a problem is in the file's text, found from its location
//! (`client[2].toolsets[0]`) when a problem is found: the sections are read
//! as plain values, with no place kept beside each, and the places of the
//! text's values are indexed only for a file that has problems, once.
//!
//! A file read in parts ([`parts`](crate::parts)) is indexed in parts too:
//! the rest of the file once, and a configured tool's own section of the
//! text when one of its problems is placed (the last one kept), so that no
//! tree of the whole file is built for it.

use core::ops::Range;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock, PoisonError};

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::location::{ConfigLocation, Section};
use crate::parts;

/// The places of a configuration's text, found on demand.
pub(crate) struct Places<'a> {
    text: &'a str,
    index: OnceLock<Index>,
}

/// Where each value of the text starts, by its path as a location shows it
/// (`client[2].toolsets[0]`, `gateway_tool[0].version[1].argument[3]`).
type Paths = HashMap<String, usize>;

/// What a location is looked up in.
enum Index {
    /// Every value of the text (none when the text is not TOML).
    Whole(Paths),
    /// A large file: its configured tools' sections, and the values of the
    /// rest of the file.
    Parts(Parted),
}

/// A large file as it is read: each configured tool's section of the text,
/// the rest of the file's values, and the last tool's values placed.
struct Parted {
    tools: Vec<Range<usize>>,
    rest: Paths,
    last_tool: Mutex<Option<(usize, Paths)>>,
}

impl<'a> Places<'a> {
    /// The places of `text`.
    pub(crate) fn new(text: &'a str) -> Places<'a> {
        Places {
            text,
            index: OnceLock::new(),
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
        let path = at.to_string();
        match self.index.get_or_init(|| Index::of(self.text)) {
            Index::Whole(paths) => nearest(paths, &path).unwrap_or(0),
            Index::Parts(parted) => parted.offset_of(self.text, at, &path),
        }
    }
}

impl Index {
    fn of(text: &str) -> Index {
        let tools = parts::is_read_in_parts(text)
            .then(|| parts::configured_tool_sections(text))
            .flatten()
            .filter(|tools| !tools.is_empty());
        match tools {
            Some(tools) => Index::Parts(Parted::new(text, tools)),
            None => Index::Whole(paths_of(text, 0)),
        }
    }
}

impl Parted {
    fn new(text: &str, tools: Vec<Range<usize>>) -> Parted {
        // The rest of the file, joined: each piece's start in it and in
        // the file, to place its values where the file holds them.
        let mut joined = String::new();
        let mut pieces = Vec::new();
        let mut at = 0;
        for tool in tools.iter().chain([&(text.len()..text.len())]) {
            pieces.push((joined.len(), at));
            joined.push_str(&text[at..tool.start]);
            at = tool.end;
        }
        let mut rest = paths_of(&joined, 0);
        for offset in rest.values_mut() {
            let (piece, start) = pieces
                .iter()
                .take_while(|(piece, _)| *piece <= *offset)
                .last()
                .copied()
                .unwrap_or((0, 0));
            *offset = start + (*offset - piece);
        }
        Parted {
            tools,
            rest,
            last_tool: Mutex::new(None),
        }
    }

    fn offset_of(&self, text: &str, at: &ConfigLocation, path: &str) -> usize {
        let tool = match (at.section(), at.entry()) {
            (Some(Section::ConfiguredTool), Some(entry)) => {
                self.tools.get(entry).map(|t| (entry, t))
            }
            _ => None,
        };
        let Some((entry, range)) = tool else {
            return nearest(&self.rest, path).unwrap_or(0);
        };
        // Within its own section, the tool is the first (and only) entry.
        let key = Section::ConfiguredTool.key();
        let own = path
            .strip_prefix(&format!("{key}[{entry}]"))
            .map(|within| format!("{key}[0]{within}"))
            .unwrap_or_default();
        let mut last = self
            .last_tool
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if last.as_ref().is_none_or(|(held, _)| *held != entry) {
            *last = Some((entry, paths_of(&text[range.clone()], range.start)));
        }
        last.as_ref()
            .and_then(|(_, paths)| nearest(paths, &own))
            .unwrap_or(range.start)
    }
}

/// The place of `path`, or of the nearest path enclosing it that is there.
fn nearest(paths: &Paths, path: &str) -> Option<usize> {
    let mut path = path;
    loop {
        if let Some(offset) = paths.get(path) {
            return Some(*offset);
        }
        path = &path[..path.rfind(['.', '['])?];
    }
}

/// Every value of `text` by its path, placed `base` bytes into the file;
/// none when the text is not TOML.
fn paths_of(text: &str, base: usize) -> Paths {
    let mut paths = Paths::new();
    if let Ok(root) = DeTable::parse(text) {
        for (key, value) in root.get_ref() {
            // A `[server]` table starts at its header's `[`.
            let start = key.span().start.min(value.span().start);
            index(&mut paths, key.get_ref().to_string(), start, value, base);
        }
    }
    paths
}

/// `value` at `path` and what it holds, each by its path.
fn index(paths: &mut Paths, path: String, start: usize, value: &Spanned<DeValue<'_>>, base: usize) {
    match value.get_ref() {
        DeValue::Table(table) => {
            for (key, inner) in table {
                let inner_path = format!("{path}.{}", key.get_ref());
                index(paths, inner_path, inner.span().start, inner, base);
            }
        }
        DeValue::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                index(paths, format!("{path}[{i}]"), item.span().start, item, base);
            }
        }
        _ => {}
    }
    paths.insert(path, base + start);
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
            index: OnceLock::from(Index::Parts(Parted::new(text, tools))),
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
                "[[gateway_tool.version]]\nversion = 1\nstatus = \"draft\"\ndescription = \"Gets",
            ),
            (
                tool(1).field_of("title"),
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
    fn what_a_file_in_parts_does_not_hold_is_at_its_start() {
        // The file starts with a configured tool: the rest's first piece
        // is empty, and a place the rest lacks is not mapped through it.
        let text = "[[gateway_tool]]\nname = \"a\"\ndownstream = \"d\"\n\n[[tenant]]\nid = \"t\"\n";
        let in_parts = places_in_parts(text);
        let absent = ConfigLocation::entry_of(Section::Mapping, 0).field_of("tool");
        assert_eq!(in_parts.offset_of(&absent), 0);
        assert_eq!(Places::new(text).offset_of(&absent), 0);
        let tenant = ConfigLocation::entry_of(Section::Tenant, 0).field_of("id");
        let offset = in_parts.offset_of(&tenant);
        assert!(text[offset..].starts_with("\"t\""), "{offset}");
    }

    #[test]
    fn text_that_is_not_toml_places_every_problem_at_its_start() {
        let places = Places::new("[[client]\nid = ");
        let at = ConfigLocation::entry_of(Section::Client, 0).field_of("id");
        assert_eq!(places.offset_of(&at), 0);
    }
}
