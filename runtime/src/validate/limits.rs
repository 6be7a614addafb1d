//! The limits that guard validation against oversized input, checked on
//! the bytes before anything is allocated for them.

use serde_json::Value;

/// Limits that guard the validator against oversized input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The largest payload accepted, in bytes (default 1 MiB).
    pub max_bytes: usize,
    /// The deepest nesting of arrays and objects accepted (default 64).
    pub max_depth: usize,
    /// At most how many violations are reported, the first by path; the
    /// others are counted (default 100). However many a payload breaks, the
    /// report stays small.
    pub max_violations: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_bytes: 1 << 20,
            max_depth: 64,
            max_violations: 100,
        }
    }
}

/// Whether JSON text nests arrays and objects deeper than `max`: a scan of
/// the bytes, before anything is allocated for them (brackets in strings
/// do not count).
pub(super) fn nesting_exceeds(bytes: &[u8], max: usize) -> bool {
    // Fewer opening brackets than the limit cannot nest past it; counting
    // them is much cheaper than tracking strings.
    if bytes.len() <= max || opening_brackets(bytes) <= max {
        return false;
    }
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &byte in bytes {
        if in_string {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// How many `[` and `{` `bytes` holds (in strings or not), eight bytes at
/// a time: the two differ by one bit (0x5B, 0x7B), so a byte is one of
/// them when it is `{` with that bit set, a zero byte of
/// `word | 0x20… ^ "{{{{{{{{"` (one byte at a time, the count cost about
/// six instructions a byte).
fn opening_brackets(bytes: &[u8]) -> usize {
    const LOW: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let mut chunks = bytes.chunks_exact(8);
    let mut count = 0;
    for chunk in &mut chunks {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let found = (u64::from_ne_bytes(word) | 0x2020_2020_2020_2020) ^ 0x7b7b_7b7b_7b7b_7b7b;
        // The high bit of each byte that is not zero.
        let nonzero = (((found & LOW) + LOW) | found) & !LOW;
        count += 8 - nonzero.count_ones() as usize;
    }
    count
        + chunks
            .remainder()
            .iter()
            .filter(|&&b| b | 0x20 == b'{')
            .count()
}

/// The nesting depth of a value: how many arrays and objects it nests (a
/// scalar is 0).
///
/// ```
/// use toolschema_runtime::validate::depth;
///
/// assert_eq!(depth(&serde_json::json!({"a": [{"b": []}]})), 4);
/// assert_eq!(depth(&serde_json::json!("[[[")), 0);
/// ```
pub fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((value, level)) = stack.pop() {
        match value {
            Value::Array(items) => {
                deepest = deepest.max(level + 1);
                stack.extend(items.iter().map(|v| (v, level + 1)));
            }
            Value::Object(map) => {
                deepest = deepest.max(level + 1);
                stack.extend(map.values().map(|v| (v, level + 1)));
            }
            _ => {}
        }
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_scan_ignores_brackets_in_strings() {
        assert!(!nesting_exceeds(br#"{"a": "[[[[[[", "b": [1]}"#, 2));
        assert!(nesting_exceeds(br#"{"a": [[1]]}"#, 2));
        assert!(!nesting_exceeds(br#"{"a": "\"[[[", "b": {}}"#, 2));
    }

    fn one_at_a_time(bytes: &[u8]) -> usize {
        bytes.iter().filter(|&&b| b == b'{' || b == b'[').count()
    }

    #[test]
    fn brackets_are_counted_as_one_byte_at_a_time_counts_them() {
        for text in [
            "",
            "{",
            "[[[{",
            r#"{"a":[1,{"b":[]}],"c":"[{"}"#,
            "{{{{{{{{{{{{{{{{{",
            "é{ü[ and \u{7b}\u{5b} and ;;;;;;;;{{{{{{{{[[[[[[[[]]]]]]",
        ] {
            assert_eq!(
                opening_brackets(text.as_bytes()),
                one_at_a_time(text.as_bytes()),
                "{text}"
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_count_alike(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..100)) {
            proptest::prop_assert_eq!(opening_brackets(&bytes), one_at_a_time(&bytes));
        }
    }

    #[test]
    fn depth_counts_containers() {
        assert_eq!(depth(&serde_json::json!(1)), 0);
        assert_eq!(depth(&serde_json::json!({"a": [{"b": []}]})), 4);
    }
}
