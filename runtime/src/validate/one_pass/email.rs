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
    // The local part up to the first `@`, in the same pass: atoms, with no
    // dot first, last or twice in a row.
    let mut previous = b'.';
    let mut at = None;
    for (i, &byte) in bytes.iter().enumerate() {
        let ok = match byte {
            b'@' => {
                at = Some(i);
                break;
            }
            b'.' => previous != b'.',
            _ => ATOM[usize::from(byte)],
        };
        if !ok {
            return false;
        }
        previous = byte;
    }
    let Some(at) = at else {
        return false;
    };
    let host = &bytes[at + 1..];
    (1..=64).contains(&at) && previous != b'.' && host.len() <= 253 && plain_host(host)
}

/// A host name of labels, each byte looked at once.
#[inline]
fn plain_host(host: &[u8]) -> bool {
    let mut start = 0;
    for (i, &byte) in host.iter().enumerate() {
        if byte == b'.' {
            if !plain_label(&host[start..i]) {
                return false;
            }
            start = i + 1;
        } else if !LABEL[usize::from(byte)] {
            return false;
        }
    }
    plain_label(&host[start..])
}

/// A host name label of letters, digits and inner hyphens (its bytes
/// checked by the caller), not an A-label (`xn--`) nor anything else with
/// hyphens in third and fourth place.
#[inline]
fn plain_label(label: &[u8]) -> bool {
    match (label.first(), label.last()) {
        (Some(&first), Some(&last)) => {
            label.len() <= 63
                && first != b'-'
                && last != b'-'
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

#[cfg(test)]
mod tests {
    use super::plain_email;

    #[test]
    fn plain_addresses_are_vouched_for_and_others_left_to_the_validator() {
        let long_local = format!("{}@x.io", "a".repeat(64));
        let longer_local = format!("{}@x.io", "a".repeat(65));
        let long_label = format!("a@{}.io", "b".repeat(63));
        let longer_label = format!("a@{}.io", "b".repeat(64));
        for plain in [
            "ada@example.com",
            "a.b+c@x-y.io",
            "a@b",
            "x!#$%&'*+-/=?^_`{|}~@h1.h2",
            &long_local,
            &long_label,
        ] {
            assert!(plain_email(plain), "{plain}");
        }
        for other in [
            "",
            "ada",
            "@x.io",
            "a@",
            ".a@x.io",
            "a.@x.io",
            "a..b@x.io",
            "a@-x.io",
            "a@x-.io",
            "a@xn--abc.io",
            "a@ab--c.io",
            "a@x..io",
            "a@x.io.",
            "a@.x.io",
            "a@b@c.io",
            "a b@x.io",
            "é@x.io",
            "a@é.io",
            "\"a\"@x.io",
            "a@[127.0.0.1]",
            &longer_local,
            &longer_label,
        ] {
            assert!(!plain_email(other), "{other}");
        }
    }
}
