//! Doc comments as data, normalized one way whether the derive knows the
//! text at expansion time (`///` lines) or only the compiler does, during
//! constant evaluation (`#[doc = include_str!("…")]`, `concat!`).
//!
//! Normalizing drops trailing whitespace, joins hard-wrapped paragraphs (and
//! list items) into one line, collapses runs of blank lines and drops blank
//! edges, and keeps code blocks (fenced or indented), lists, headings,
//! tables and quotes as written. The one leading space of each `///` line is
//! stripped by the derive beforehand; text from a file keeps its
//! indentation. Whitespace is ASCII whitespace.
//!
//! For text known only during constant evaluation, the derive emits:
//!
//! ```
//! use toolschema_text::doc::{normalize_doc, doc_prefix, doc_str};
//!
//! const RAW: &str = concat!("Searches the archive\nat length.\n\n", "- one\n", "  item");
//! const LONG: ([u8; RAW.len()], usize) = normalize_doc::<{ RAW.len() }>(RAW);
//! const SHORT: [u8; LONG.1] = doc_prefix::<{ RAW.len() }, { LONG.1 }>(&LONG.0);
//! const DOC: &str = doc_str(&SHORT);
//! assert_eq!(DOC, "Searches the archive at length.\n\n- one item");
//! ```

use alloc::string::String;
use alloc::vec;

/// The normalized text of `raw`, at run time (what the derive calls on
/// `///` lines, after stripping the one leading space of each).
///
/// ```
/// use toolschema_text::doc::normalize;
///
/// assert_eq!(normalize("Returns one invoice\nby its ID."), "Returns one invoice by its ID.");
/// ```
pub fn normalize(raw: &str) -> String {
    let mut out = vec![0u8; raw.len()];
    let len = normalize_into(raw.as_bytes(), &mut out);
    out.truncate(len);
    // Normalizing only removes ASCII whitespace and writes spaces where
    // line breaks were, so the text stays UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// The normalized text of `raw`, in the first `.1` bytes of `.0`; never
/// longer than `raw` (`N` is `raw.len()`).
pub const fn normalize_doc<const N: usize>(raw: &str) -> ([u8; N], usize) {
    let mut out = [0u8; N];
    let len = normalize_into(raw.as_bytes(), &mut out);
    (out, len)
}

/// The first `M` bytes of `long`.
pub const fn doc_prefix<const N: usize, const M: usize>(long: &[u8; N]) -> [u8; M] {
    let mut out = [0u8; M];
    let mut i = 0;
    while i < M {
        out[i] = long[i];
        i += 1;
    }
    out
}

/// `bytes` as text (normalizing keeps UTF-8 valid: it only removes ASCII
/// whitespace and writes spaces where line breaks were).
pub const fn doc_str(bytes: &'static [u8]) -> &'static str {
    match core::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(_) => panic!("a doc comment is not valid UTF-8"),
    }
}

/// The Markdown block the previous line belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Block {
    None,
    Paragraph,
    ListItem,
    Code,
}

/// What has been written so far.
struct Out<'a> {
    bytes: &'a mut [u8],
    len: usize,
    lines: usize,
    last_empty: bool,
}

impl Out<'_> {
    /// Starts a new line holding `raw[from..to]`.
    const fn line(&mut self, raw: &[u8], from: usize, to: usize) {
        if self.lines > 0 {
            self.bytes[self.len] = b'\n';
            self.len += 1;
        }
        self.copy(raw, from, to);
        self.lines += 1;
        self.last_empty = from == to;
    }

    /// Continues the last line with a space and `raw[from..to]`.
    const fn join(&mut self, raw: &[u8], from: usize, to: usize) {
        self.bytes[self.len] = b' ';
        self.len += 1;
        self.copy(raw, from, to);
        self.last_empty = false;
    }

    const fn copy(&mut self, raw: &[u8], from: usize, to: usize) {
        let mut i = from;
        while i < to {
            self.bytes[self.len] = raw[i];
            self.len += 1;
            i += 1;
        }
    }
}

const fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c)
}

/// Whether `raw[from..to]` starts with `prefix`.
const fn starts_with(raw: &[u8], from: usize, to: usize, prefix: &[u8]) -> bool {
    if to - from < prefix.len() {
        return false;
    }
    let mut i = 0;
    while i < prefix.len() {
        if raw[from + i] != prefix[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// `- x`, `* x`, `+ x`, `1. x` or `1) x`.
const fn is_list_item(raw: &[u8], from: usize, to: usize) -> bool {
    if to - from >= 3 && matches!(raw[from], b'-' | b'*' | b'+') && raw[from + 1] == b' ' {
        return true;
    }
    let mut digits = from;
    while digits < to && raw[digits].is_ascii_digit() {
        digits += 1;
    }
    digits > from && (starts_with(raw, digits, to, b". ") || starts_with(raw, digits, to, b") "))
}

/// Normalizes `raw` into `out` (at least as long as `raw`); returns the
/// length written.
const fn normalize_into(raw: &[u8], out: &mut [u8]) -> usize {
    let mut out = Out {
        bytes: out,
        len: 0,
        lines: 0,
        last_empty: false,
    };
    let mut block = Block::None;
    // The fence character of an open code fence (`` ` `` or `~`), or 0.
    let mut fence = 0u8;
    let mut start = 0;
    while start < raw.len() {
        let mut end = start;
        while end < raw.len() && raw[end] != b'\n' {
            end += 1;
        }
        let next = end + 1;
        if end > start && raw[end - 1] == b'\r' {
            end -= 1;
        }
        // The line without trailing whitespace, and where its text starts.
        let from = start;
        let mut to = end;
        while to > from && is_space(raw[to - 1]) {
            to -= 1;
        }
        let mut text = from;
        while text < to && is_space(raw[text]) {
            text += 1;
        }
        start = next;

        if fence != 0 {
            out.line(raw, from, to);
            if starts_with(raw, text, to, &[fence, fence, fence]) {
                fence = 0;
                block = Block::None;
            }
            continue;
        }
        if starts_with(raw, text, to, b"```") || starts_with(raw, text, to, b"~~~") {
            fence = raw[text];
            out.line(raw, from, to);
            block = Block::Code;
            continue;
        }
        if text == to {
            if out.lines > 0 && !out.last_empty {
                out.line(raw, to, to);
            }
            block = Block::None;
            continue;
        }
        if text - from >= 4 && matches!(block, Block::None | Block::Code) {
            // An indented code block.
            out.line(raw, from, to);
            block = Block::Code;
            continue;
        }
        if is_list_item(raw, text, to) {
            out.line(raw, from, to);
            block = Block::ListItem;
            continue;
        }
        if matches!(raw[text], b'#' | b'|' | b'>') {
            out.line(raw, from, to);
            block = Block::None;
            continue;
        }
        if matches!(block, Block::Paragraph | Block::ListItem) && out.lines > 0 {
            out.join(raw, text, to);
        } else {
            out.line(raw, text, to);
            block = Block::Paragraph;
        }
    }
    if out.last_empty && out.lines > 0 {
        // The separator of a trailing blank line.
        out.len -= 1;
    }
    out.len
}

#[cfg(test)]
mod tests {
    use super::normalize;

    #[test]
    fn joins_hard_wrapped_paragraphs() {
        let doc = "Returns one invoice\nby its ID.\n\nSecond paragraph\n  continues.";
        assert_eq!(
            normalize(doc),
            "Returns one invoice by its ID.\n\nSecond paragraph continues."
        );
    }

    #[test]
    fn keeps_lists_and_code() {
        let doc = "Steps:\n- first\n  wrapped\n- second\n\n```\nlet x = 1;\n  let y = 2;\n```\n\n    indented code\n    more";
        assert_eq!(
            normalize(doc),
            "Steps:\n- first wrapped\n- second\n\n```\nlet x = 1;\n  let y = 2;\n```\n\n    indented code\n    more"
        );
    }

    #[test]
    fn blank_edges_and_runs_go() {
        assert_eq!(normalize("\n  two spaces\n\n\n"), "two spaces");
        assert_eq!(normalize("a\n\n\nb"), "a\n\nb");
        assert_eq!(normalize(""), "");
        assert_eq!(normalize("\n\n"), "");
    }

    #[test]
    fn headings_tables_quotes_and_numbered_lists_stay_on_their_lines() {
        let doc = "# Title\ntext\n1. one\n2) two\n| a | b |\n> quoted\nmore";
        assert_eq!(
            normalize(doc),
            "# Title\ntext\n1. one\n2) two\n| a | b |\n> quoted\nmore"
        );
    }

    #[test]
    fn windows_line_ends_and_non_ascii_text() {
        assert_eq!(normalize("Grüße\r\naus Köln.\r\n"), "Grüße aus Köln.");
        assert_eq!(
            normalize("~~~\r\ncode\r\n~~~\r\nafter"),
            "~~~\ncode\n~~~\nafter"
        );
    }

    #[test]
    fn a_dash_alone_is_text_not_a_list_item() {
        assert_eq!(normalize("a\n-\nb"), "a - b");
    }
}
