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

/// Whether JSON text nests arrays and objects deeper than `max`: a scan of the
/// bytes, before anything is allocated for them.
pub(super) fn nesting_exceeds(bytes: &[u8], max: usize) -> bool {
    // Fewer opening brackets than the limit cannot nest past it; counting
    // them is much cheaper than tracking strings.
    let openings = bytes.iter().filter(|&&b| b == b'[' || b == b'{').count();
    if openings <= max {
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

/// The nesting depth of a value (a scalar is 0).
pub(super) fn depth(value: &Value) -> usize {
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

    #[test]
    fn depth_counts_containers() {
        assert_eq!(depth(&serde_json::json!(1)), 0);
        assert_eq!(depth(&serde_json::json!({"a": [{"b": []}]})), 4);
    }
}
