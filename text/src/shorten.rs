//! Text a client or a downstream chose, cut short before it is echoed: a
//! name, a header or a value can be megabytes, and a reply that repeats it
//! is bounded.

use alloc::borrow::Cow;
use alloc::string::String;

/// `text` cut to at most `max` bytes on a character boundary, and marked
/// with `…` when cut.
///
/// ```
/// use toolschema_text::shorten::shorten;
///
/// assert_eq!(shorten("billing.refund", 64), "billing.refund");
/// assert_eq!(shorten("ééé", 3), "é…");
/// assert_eq!(shorten(&"x".repeat(100_000), 8), "xxxxxxxx…");
/// ```
pub fn shorten(text: &str, max: usize) -> Cow<'_, str> {
    if text.len() <= max {
        return Cow::Borrowed(text);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = String::with_capacity(end + '…'.len_utf8());
    out.push_str(&text[..end]);
    out.push('…');
    Cow::Owned(out)
}
