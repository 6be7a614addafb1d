//! Plain e-mail addresses, vouched for by hand: the commonest format
//! check on the one pass, and one whose acceptances are a subset of
//! `jsonschema`'s `email` format (a property test holds it to that).

/// A plain e-mail address: a dot-atom local part of at most 64 ASCII
/// characters, `@`, and a host name of letters, digits and hyphens (labels
/// of 1 to 63, none starting or ending with a hyphen, none with hyphens in
/// third and fourth place, at most 253 in all). Every such address passes
/// `jsonschema`'s `email` format; the converse does not hold (quoted local
/// parts, address literals, IDNs), and those go to the validator.
pub(crate) fn plain_email(text: &str) -> bool {
    let bytes = text.as_bytes();
    let Some(at) = bytes.iter().position(|&b| b == b'@') else {
        return false;
    };
    let (local, host) = (&bytes[..at], &bytes[at + 1..]);
    if local.is_empty() || local.len() > 64 || host.is_empty() || host.len() > 253 {
        return false;
    }
    // Atoms: no dot first, last or twice in a row.
    let mut previous = b'.';
    for &byte in local {
        let ok = if byte == b'.' {
            previous != b'.'
        } else {
            ATOM[usize::from(byte)]
        };
        if !ok {
            return false;
        }
        previous = byte;
    }
    previous != b'.' && host.split(|&b| b == b'.').all(plain_label)
}

/// A host name label of letters, digits and inner hyphens, not an A-label
/// (`xn--`) nor anything else with hyphens in third and fourth place.
#[inline]
fn plain_label(label: &[u8]) -> bool {
    match (label.first(), label.last()) {
        (Some(&first), Some(&last)) => {
            label.len() <= 63
                && first != b'-'
                && last != b'-'
                && label.iter().all(|&b| LABEL[usize::from(b)])
                && !(label.len() >= 4 && label[2] == b'-' && label[3] == b'-')
        }
        _ => false,
    }
}

/// The bytes of an RFC 5322 atom, ASCII only.
static ATOM: [bool; 256] = byte_set(b"!#$%&'*+-/=?^_`{|}~");
/// The bytes of a host name label.
static LABEL: [bool; 256] = byte_set(b"-");

/// ASCII letters and digits, and `extra`.
const fn byte_set(extra: &[u8]) -> [bool; 256] {
    let mut set = [false; 256];
    let mut byte = 0;
    while byte < 128 {
        set[byte] = (byte as u8).is_ascii_alphanumeric();
        byte += 1;
    }
    let mut i = 0;
    while i < extra.len() {
        set[extra[i] as usize] = true;
        i += 1;
    }
    set
}
