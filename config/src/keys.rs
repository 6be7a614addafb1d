//! API keys: configured as SHA-256 hashes, never as keys.

use sha2::{Digest, Sha256};

/// The hash under which an API key is configured: `sha256:<hex>`.
///
/// ```
/// let hash = toolschema_config::hash_api_key("secret");
/// assert!(hash.starts_with("sha256:") && hash.len() == 7 + 64);
/// ```
pub fn hash_api_key(key: &str) -> String {
    let digest = Sha256::digest(key.as_bytes());
    let mut out = String::from("sha256:");
    for byte in digest.iter() {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// The raw SHA-256 of an API key, as the catalog indexes it.
pub fn key_digest(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

pub(super) fn parse_hash(text: &str) -> Option<[u8; 32]> {
    let hex = text.strip_prefix("sha256:")?;
    if hex.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, slot) in out.iter_mut().enumerate() {
        *slot = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_round_trip() {
        let hash = hash_api_key("k");
        assert_eq!(parse_hash(&hash), Some(key_digest("k")));
        assert_eq!(parse_hash("sha256:zz"), None);
        assert_eq!(parse_hash("k"), None);
    }
}
