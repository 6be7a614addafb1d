//! A large configuration file read a part at a time. The TOML parser
//! builds a tree of the whole document, every value with its place, before
//! anything is read from it: for an imported catalog of 125 MiB (Microsoft
//! Graph's 22,000 operations) that tree alone took about 900 MB. A file of
//! at least [`WHOLE_BELOW`] bytes is read instead as its configured tools'
//! sections, in batches of about [`BATCH`] bytes, and the rest of the file
//! on its own, so that only one batch's tree is alive at a time.
//!
//! Places stay those of the whole file: each part is parsed at its own
//! offset (what comes before it written as spaces), so every span, and every
//! problem's line and column, is the one a whole read gives. A file whose
//! configured tools are also written another way (a `gateway_tool` key outside
//! the `[[gateway_tool]]` sections, a `[[gateway_tool.version]]` away from
//! its tool) is read whole, as TOML defines it.

use core::ops::Range;

use serde::Deserialize;
use toml_parser::Source;
use toml_parser::lexer::TokenKind;

use crate::location::{ConfigLocation, Section};
use crate::sections::{Sections, ToolSection};

/// Files smaller than this are parsed whole.
const WHOLE_BELOW: usize = 8 << 20;

/// About how much of the file's configured tools one parse reads.
const BATCH: usize = 8 << 20;

/// Whether a file of this size is read in parts.
pub(crate) fn is_read_in_parts(text: &str) -> bool {
    text.len() >= WHOLE_BELOW
}

/// The configuration file's sections, read whole or in parts.
pub(super) fn read(text: &str) -> Result<Sections, toml::de::Error> {
    read_in_parts(text, WHOLE_BELOW, BATCH)
}

/// Where in the file `offset` is, as the file's own structure says: the
/// section, its entry, a configured tool's version, and the key within
/// (a problem of reading, such as a value of the wrong type, is then
/// named as the checks name theirs). The file's whole tree is built for it,
/// so a file of [`WHOLE_BELOW`] bytes or more, or one that is not TOML, is
/// named as a whole.
pub(super) fn located(text: &str, offset: usize) -> ConfigLocation {
    use toml::de::{DeTable, DeValue};
    if text.len() >= WHOLE_BELOW {
        return ConfigLocation::file();
    }
    let Ok(document) = DeTable::parse(text) else {
        return ConfigLocation::file();
    };
    // A table's place is where it starts (a `[[client]]` header's span is
    // the header): what holds `offset` is the last place before it.
    let mut places: Vec<(usize, String, Option<usize>, &DeValue<'_>)> = Vec::new();
    for (key, value) in document.get_ref() {
        match value.get_ref() {
            DeValue::Array(entries) if entries.iter().all(|e| e.get_ref().is_table()) => {
                for (i, entry) in entries.iter().enumerate() {
                    places.push((
                        entry.span().start,
                        key.get_ref().to_string(),
                        Some(i),
                        entry.get_ref(),
                    ));
                }
            }
            // A `[server]` table starts at its header's `[`.
            other => places.push((
                key.span().start.min(value.span().start),
                key.get_ref().to_string(),
                None,
                other,
            )),
        }
    }
    let Some((_, key, entry, value)) = last_before(places, offset) else {
        return ConfigLocation::file();
    };
    let Some(section) = Section::from_key(&key) else {
        return ConfigLocation::file().field_of(&key);
    };
    let mut at = match entry {
        Some(i) => ConfigLocation::entry_of(section, i),
        None => ConfigLocation::section_whole(section),
    };
    let DeValue::Table(table) = value else {
        return at;
    };
    let mut places = Vec::new();
    for (key, value) in table {
        let name = key.get_ref().to_string();
        match value.get_ref() {
            DeValue::Array(versions) if at.takes_version(&name) => {
                for (j, version) in versions.iter().enumerate() {
                    places.push((
                        version.span().start,
                        name.clone(),
                        Some(j),
                        version.get_ref(),
                    ));
                }
            }
            other => places.push((key.span().start, name, None, other)),
        }
    }
    match last_before(places, offset) {
        Some((_, _, Some(j), version)) => {
            at = at.in_version(j);
            let DeValue::Table(version) = version else {
                return at;
            };
            let keys = version.iter().map(|(key, value)| {
                (
                    key.span().start,
                    key.get_ref().to_string(),
                    None,
                    value.get_ref(),
                )
            });
            match last_before(keys.collect(), offset) {
                Some((_, key, _, _)) => at.field_of(&key),
                None => at,
            }
        }
        Some((_, key, None, _)) => at.field_of(&key),
        None => at,
    }
}

/// The place starting last at or before `offset`.
fn last_before<T>(
    places: Vec<(usize, String, Option<usize>, T)>,
    offset: usize,
) -> Option<(usize, String, Option<usize>, T)> {
    places
        .into_iter()
        .filter(|place| place.0 <= offset)
        .max_by_key(|place| place.0)
}

/// [`read`] with its sizes given: tests read small files in parts.
fn read_in_parts(
    text: &str,
    whole_below: usize,
    batch: usize,
) -> Result<Sections, toml::de::Error> {
    if text.len() < whole_below {
        return toml::from_str(text);
    }
    match in_parts(text, batch) {
        Some(raw) => Ok(raw),
        // Read whole: the file's shape is not one this reader splits, or a
        // part has an error, which a whole read reports as TOML orders
        // them (the first in the file).
        None => toml::from_str(text),
    }
}

/// The file read in parts, or `None` when it must be read whole.
fn in_parts(text: &str, batch: usize) -> Option<Sections> {
    let sections = configured_tool_sections(text)?;
    if sections.is_empty() {
        return None;
    }
    // The rest of the file, the configured tools' sections blanked.
    let mut rest = String::with_capacity(text.len());
    let mut at = 0;
    for section in &sections {
        rest.push_str(&text[at..section.start]);
        rest.extend(core::iter::repeat_n(' ', section.len()));
        at = section.end;
    }
    rest.push_str(&text[at..]);
    let mut raw: Sections = toml::from_str(&rest).ok()?;
    drop(rest);
    if !raw.gateway_tool.is_empty() {
        return None;
    }
    let mut part = String::new();
    for sections in batches(&sections, batch) {
        // What comes before the batch, and between its sections, as spaces.
        part.clear();
        let mut at = 0;
        for section in sections {
            part.extend(core::iter::repeat_n(' ', section.start - at));
            part.push_str(&text[section.clone()]);
            at = section.end;
        }
        let tools: GatewayTools = toml::from_str(&part).ok()?;
        raw.gateway_tool.extend(tools.gateway_tool);
    }
    Some(raw)
}

/// One part of the file: configured tools only.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GatewayTools {
    gateway_tool: Vec<ToolSection>,
}

/// The sections in batches of about `size` bytes of the file each (from a
/// batch's first section to its last, what lies between included): a
/// file whose configured tools alternate with other sections (each tenant's
/// tools after its clients) is still read in a few parts, each padded once.
fn batches(sections: &[Range<usize>], size: usize) -> Vec<Vec<Range<usize>>> {
    let mut out: Vec<Vec<Range<usize>>> = Vec::new();
    for section in sections {
        match out.last_mut() {
            Some(batch) if section.end - batch[0].start <= size => {
                batch.push(section.clone());
            }
            _ => out.push(vec![section.clone()]),
        }
    }
    out
}

/// A table header: where it starts, whether it is `[[…]]`, its key.
struct Header {
    start: usize,
    array: bool,
    key: Vec<String>,
}

/// The byte ranges of the file's `[[gateway_tool]]` sections, each from
/// its header to the next header that is not one of its own subtables;
/// `None` when a configured tool's subtable stands away from its tool, or the
/// file is one [`headers`] leaves whole.
pub(crate) fn configured_tool_sections(text: &str) -> Option<Vec<Range<usize>>> {
    let headers = headers(text)?;
    let mut sections: Vec<Range<usize>> = Vec::new();
    let mut inside = false;
    for (index, header) in headers.iter().enumerate() {
        let end = headers.get(index + 1).map_or(text.len(), |next| next.start);
        let of_tools = header.key.first().is_some_and(|k| k == "gateway_tool");
        let opens = of_tools && header.array && header.key.len() == 1;
        if opens || (inside && of_tools && header.key.len() > 1) {
            inside = true;
            match sections.last_mut() {
                Some(last) if last.end == header.start && !opens => last.end = end,
                _ => sections.push(header.start..end),
            }
        } else if of_tools {
            return None;
        } else {
            inside = false;
        }
    }
    Some(sections)
}

/// The file's table headers, found by the TOML lexer: a `[` first on its
/// line, outside any value (arrays and inline tables may span lines).
/// `None` when the file has a header whose key this scan does not decode
/// (escapes, an unclosed quote), or writes `gateway_tool` as a key of the
/// root table: such a file is read whole.
fn headers(text: &str) -> Option<Vec<Header>> {
    let source = Source::new(text);
    let mut tokens = source.lex().peekable();
    let mut out = Vec::new();
    let (mut line_start, mut in_value, mut depth) = (true, false, 0usize);
    while let Some(token) = tokens.next() {
        match token.kind() {
            TokenKind::Newline => {
                if depth == 0 {
                    in_value = false;
                }
                line_start = true;
                continue;
            }
            TokenKind::Whitespace | TokenKind::Comment => continue,
            TokenKind::LeftSquareBracket if line_start && !in_value => {
                let start = token.span().start();
                let array = tokens
                    .next_if(|t| t.kind() == TokenKind::LeftSquareBracket)
                    .is_some();
                let mut key = Vec::new();
                for part in tokens.by_ref() {
                    let span = part.span();
                    let raw = text.get(span.start()..span.end()).unwrap_or_default();
                    match part.kind() {
                        TokenKind::RightSquareBracket | TokenKind::Newline | TokenKind::Eof => {
                            break;
                        }
                        TokenKind::Atom => key.push(raw.to_owned()),
                        TokenKind::BasicString | TokenKind::LiteralString => {
                            key.push(quoted(raw)?.to_owned());
                        }
                        _ => {}
                    }
                }
                out.push(Header { start, array, key });
            }
            // A key of the root table (before any header).
            TokenKind::Atom | TokenKind::BasicString | TokenKind::LiteralString
                if line_start && !in_value && out.is_empty() =>
            {
                let span = token.span();
                let raw = text.get(span.start()..span.end()).unwrap_or_default();
                let key = match token.kind() {
                    TokenKind::Atom => Some(raw),
                    _ => quoted(raw),
                };
                if key.is_none_or(|key| key == "gateway_tool") {
                    return None;
                }
            }
            TokenKind::Equals if depth == 0 => in_value = true,
            TokenKind::LeftSquareBracket | TokenKind::LeftCurlyBracket => depth += 1,
            TokenKind::RightSquareBracket | TokenKind::RightCurlyBracket => {
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
        line_start = false;
    }
    Some(out)
}

/// A quoted key's text, when it has no escapes and its closing quote.
fn quoted(raw: &str) -> Option<&str> {
    let quote = raw.chars().next()?;
    let inner = raw.strip_prefix(quote)?.strip_suffix(quote)?;
    (matches!(quote, '"' | '\'') && !inner.contains('\\') && !inner.is_empty()).then_some(inner)
}

#[cfg(test)]
mod tests {
    use core::fmt::Write as _;

    use toolschema_runtime::call::Registry;

    use super::super::check::check;
    use super::super::errors::Problems;
    use super::read_in_parts;

    /// A catalog of `tools` configured tools, a toolset between them, the
    /// rest of the file before and after; `mistake` puts a wrong value in
    /// that tool.
    fn catalog(tools: usize, mistake: Option<usize>) -> String {
        let mut text = String::from(
            "# a catalog read in parts\n[[tenant]]\nid = \"t\"\n\n[[client]]\nid = \"c\"\ntenant = \"t\"\ntoolsets = [\n  \"first\",\n  \"second\",\n]\n\n[[downstream]]\nid = \"api\"\nbase_url = \"https://api.example.com\"\n",
        );
        for i in 0..tools {
            if i == tools / 2 {
                let _ = write!(
                    text,
                    "\n[[toolset]]\nid = \"first\"\ntenant = \"t\"\ntools = [\n\"tool-0\",\n]\n"
                );
            }
            let kind = if mistake == Some(i) {
                "strnig"
            } else {
                "string"
            };
            let _ = write!(
                text,
                r#"
[[ gateway_tool ]]
name = "tool-{i}"
downstream = "api"

[[gateway_tool.version]]
version = 1
status = "published"
description = """A tool whose description holds a header:
[[gateway_tool]]
and {{ braces }}."""
method = "GET"
path = "/items/{{id}}"
headers = {{ "X-Trace" = "on" }}

[["gateway_tool".version.argument]]
name = "id"
in = "path"
type = "{kind}"
required = true
"#
            );
        }
        text.push_str("\n[[toolset]]\nid = \"second\"\ntenant = \"t\"\ntools = [\"tool-1\"]\n");
        text
    }

    /// The file read in parts of about `batch` bytes, checked: the
    /// configuration's debug form, or the problems as printed.
    fn read(text: &str, whole_below: usize, batch: usize) -> String {
        let raw = match read_in_parts(text, whole_below, batch) {
            Ok(raw) => raw,
            Err(error) => return format!("parse error at {:?}: {}", error.span(), error.message()),
        };
        let mut problems = Problems::new("catalog.toml", text);
        let config = check(raw, Vec::new(), &Registry::new(), &mut problems);
        match problems.is_empty() {
            true => format!("{config:?}"),
            false => problems.into_errors().to_string(),
        }
    }

    #[test]
    fn a_file_read_in_parts_is_the_file_read_whole() {
        let text = catalog(40, None);
        // Forty sections, a toolset among them: one batch, or one each.
        let sections = super::configured_tool_sections(&text).expect("in sections");
        assert_eq!(sections.len(), 40);
        assert_eq!(super::batches(&sections, usize::MAX).len(), 1);
        assert_eq!(super::batches(&sections, 0).len(), 40);
        let whole = read(&text, usize::MAX, 0);
        assert!(whole.contains("tool-39"), "{whole}");
        assert!(!whole.contains("problem"), "{whole}");
        for batch in [1, 700, 5_000] {
            assert_eq!(read(&text, 0, batch), whole, "in parts of {batch} bytes");
        }
    }

    #[test]
    fn problems_in_parts_are_placed_as_in_the_whole_file() {
        for mistake in [0, 25, 39] {
            let text = catalog(40, Some(mistake));
            let whole = read(&text, usize::MAX, 0);
            assert!(whole.contains("strnig"), "{whole}");
            assert_eq!(read(&text, 0, 700), whole);
        }
        // A TOML error inside a part: the same place and message.
        let broken =
            catalog(40, None).replacen("version = 1\nstatus", "version = 1\nstatus = ", 30);
        let whole = read(&broken, usize::MAX, 0);
        assert!(whole.starts_with("parse error"), "{whole}");
        assert_eq!(read(&broken, 0, 700), whole);
    }

    #[test]
    fn headers_are_found_outside_values_and_strings() {
        let text = "a = [\n[1],\n[[2]],\n]\nb = { c = [\n[3]] }\ns = \'\'\'\n[[gateway_tool]]\n\'\'\'\n[[gateway_tool]] # one\nx = 1\n[gateway_tool.y]\n  [[ 'gateway_tool' ]]\n[other]\n";
        let sections = super::configured_tool_sections(text).expect("in sections");
        let found: Vec<&str> = sections.iter().map(|range| &text[range.clone()]).collect();
        assert_eq!(
            found,
            [
                "[[gateway_tool]] # one\nx = 1\n[gateway_tool.y]\n  ",
                "[[ 'gateway_tool' ]]\n"
            ]
        );
        assert!(super::configured_tool_sections("[t]\n[gateway_tool.y]\n").is_none());
    }

    #[test]
    fn files_this_reader_does_not_split_are_read_whole() {
        let tools = catalog(4, None);
        // A key this scan does not decode, an unclosed quote, a root key
        // named gateway_tool: no sections, so read whole.
        for text in [
            format!("{tools}\n[\"gateway\\u005ftool\".x]\n"),
            format!("{tools}\n[\"é\n"),
            format!("gateway_tool = []\n{tools}"),
        ] {
            assert!(super::configured_tool_sections(&text).is_none(), "{text}");
            assert_eq!(read(&text, 0, 100), read(&text, usize::MAX, 0));
        }
        // TOML forbids adding tables to a static array, even an empty one.
        let refused = read(&format!("gateway_tool = []\n{tools}"), 0, 100);
        assert!(refused.starts_with("parse error"), "{refused}");
        // Windows line endings split as the others do.
        let crlf = tools.replace('\n', "\r\n");
        assert_eq!(
            super::configured_tool_sections(&crlf).map(|s| s.len()),
            super::configured_tool_sections(&tools).map(|s| s.len())
        );
        assert_eq!(read(&crlf, 0, 100), read(&crlf, usize::MAX, 0));
    }

    #[test]
    fn the_first_error_of_the_file_is_the_one_reported() {
        // A TOML error in a tool before a wrong type in a later section:
        // a whole read reports the first; so does a read in parts.
        let text = catalog(10, None).replacen("version = 1\nstatus", "version = 1\nstatus = ", 2)
            + "\n[[tenant]]\nid = 5\n";
        let whole = read(&text, usize::MAX, 0);
        assert!(whole.starts_with("parse error"), "{whole}");
        assert_eq!(read(&text, 0, 100), whole);
    }

    #[test]
    fn gateway_tools_written_apart_are_read_whole() {
        // A version table after another section belongs to the last tool
        // (TOML's rule): only a whole read sees it.
        let mut text = catalog(4, None);
        text.push_str(
            "\n[[gateway_tool.version]]\nversion = 2\nstatus = \"draft\"\ndescription = \"Two.\"\nmethod = \"GET\"\npath = \"/two\"\n",
        );
        assert!(super::configured_tool_sections(&text).is_none());
        let whole = read(&text, usize::MAX, 0);
        assert!(whole.contains("version: 2"), "{whole}");
        assert_eq!(read(&text, 0, 100), whole);
        // A configured tool written as a dotted key of the rest.
        let dotted = format!(
            "gateway_tool = [{{ name = \"early\", downstream = \"api\" }}]\n{}",
            catalog(4, None)
        );
        let whole = read(&dotted, usize::MAX, 0);
        assert_eq!(read(&dotted, 0, 100), whole);
    }
}
