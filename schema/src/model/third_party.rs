//! [`Schema`] for types of other crates, each behind a cargo feature named
//! after its crate.
//!
//! Each schema describes exactly what the crate's serde implementation writes
//! to JSON; the round-trip tests hold them to it.

#[allow(unused_imports)]
use crate::model::{Node, Schema, StringNode};

/// A string in RFC 3339 `date` form.
#[allow(dead_code)]
const DATE: &Node = &Node::String(StringNode::format("date"));

/// A string in RFC 3339 `date-time` form.
#[allow(dead_code)]
const DATE_TIME: &Node = &Node::String(StringNode::format("date-time"));

// The patterns below spell out the calendar, so that a date the crate
// refuses (`2023-02-29`, month 13) is refused by the schema too. A leap year
// is told by its last four digits: the last two a multiple of 4 other than
// `00`, or `00` after two digits that are a multiple of 4.

/// `MM-DD` with each month's days, February to the 28th.
#[allow(unused_macros)]
macro_rules! month_day {
    () => {
        "(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))"
    };
}

/// Four digits that end a leap year.
#[allow(unused_macros)]
macro_rules! leap_year {
    () => {
        "(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)"
    };
}

/// `HH:MM` of a day.
#[allow(unused_macros)]
macro_rules! hour_minute {
    () => {
        "(?:[01][0-9]|2[0-3]):[0-5][0-9]"
    };
}

#[cfg(feature = "chrono")]
mod chrono_impls {
    use super::{DATE, DATE_TIME};
    use crate::model::{Node, Schema, StringNode};

    /// A date as chrono reads it: four digits of year, or a sign and four
    /// or five (chrono writes years past 9999 and before 0 so).
    macro_rules! date {
        () => {
            concat!(
                "(?:(?:[+-]?[0-9]{4}|[+-][0-9]{5})-",
                month_day!(),
                "|(?:[+-]?|[+-][0-9])",
                leap_year!(),
                "-02-29)"
            )
        };
    }

    /// A time of day as chrono reads it: `60` seconds is a leap second, and
    /// up to nine digits of fraction.
    macro_rules! time {
        () => {
            concat!(hour_minute!(), r":(?:[0-5][0-9]|60)(?:\.[0-9]{1,9})?")
        };
    }

    impl Schema for chrono::NaiveDate {
        const SCHEMA: &'static Node = DATE;
    }

    impl<Tz: chrono::TimeZone> Schema for chrono::DateTime<Tz> {
        const SCHEMA: &'static Node = DATE_TIME;
    }

    /// No standard format names a date and time without an offset.
    impl Schema for chrono::NaiveDateTime {
        const SCHEMA: &'static Node = &Node::String(StringNode::pattern(concat!(
            "^",
            date!(),
            "T",
            time!(),
            "$"
        )));
    }

    /// `time` in JSON Schema requires an offset, which a `NaiveTime` lacks.
    impl Schema for chrono::NaiveTime {
        const SCHEMA: &'static Node =
            &Node::String(StringNode::pattern(concat!("^", time!(), "$")));
    }
}

/// The `time` crate writes these types as human-readable strings when its
/// `serde-human-readable` feature is on; the `time` feature of this crate
/// turns it on. Years run from -9999 to 9999 (the crate's `large-dates` is
/// not assumed), seconds from 00 to 59, and a fraction of one to nine
/// digits is always written. `OffsetDateTime` is RFC 3339 through
/// `#[serde(with = "time::serde::rfc3339")]`: state that field's schema with
/// `#[tool(schema = toolschema::formats::Rfc3339)]`.
#[cfg(feature = "time")]
mod time_impls {
    use super::DATE;
    use crate::model::{Node, Schema, StringNode};

    macro_rules! date {
        () => {
            concat!(
                "(?:[+-]?[0-9]{4}-",
                month_day!(),
                "|[+-]?",
                leap_year!(),
                "-02-29)"
            )
        };
    }

    macro_rules! time {
        () => {
            concat!(hour_minute!(), r":[0-5][0-9]\.[0-9]{1,9}")
        };
    }

    impl Schema for time::Date {
        const SCHEMA: &'static Node = DATE;
    }

    /// `2000-01-01 00:00:00.5 +01:30:00`: the offset to the second.
    impl Schema for time::OffsetDateTime {
        const SCHEMA: &'static Node = &Node::String(StringNode::pattern(concat!(
            "^",
            date!(),
            " ",
            time!(),
            " [+-](?:[01][0-9]|2[0-5]):[0-5][0-9]:[0-5][0-9]$"
        )));
    }

    impl Schema for time::PrimitiveDateTime {
        const SCHEMA: &'static Node = &Node::String(StringNode::pattern(concat!(
            "^",
            date!(),
            " ",
            time!(),
            "$"
        )));
    }

    impl Schema for time::Time {
        const SCHEMA: &'static Node =
            &Node::String(StringNode::pattern(concat!("^", time!(), "$")));
    }
}

#[cfg(feature = "uuid")]
impl Schema for uuid::Uuid {
    const SCHEMA: &'static Node = &Node::String(StringNode::format("uuid"));
}

/// `rust_decimal` writes decimals as strings to keep their precision. It
/// reads a whole part below 2^96 (any 28 digits, after leading zeros) and
/// rounds a longer fraction to fit.
#[cfg(feature = "rust_decimal")]
impl Schema for rust_decimal::Decimal {
    const SCHEMA: &'static Node =
        &Node::String(StringNode::pattern(r"^-?0*[0-9]{1,28}(\.[0-9]+)?$"));
}

#[cfg(feature = "url")]
mod url_impl {
    //! `url` parses by the WHATWG URL standard, which refuses some URIs of RFC
    //! 3986 (`http:` with no host, `http://256.256.256.256/`, percent signs in
    //! a host, an `xn--` label that is not Punycode, a port past 65535). The
    //! schema is the `uri` format narrowed to what it reads of those: an
    //! `http`, `https`, `ws`, `wss` or `ftp` URL whose host is a name (letters,
    //! digits and hyphens, the last label starting with a letter, no `xn--`
    //! label) or an IPv6 literal, with an optional port. Other URLs it reads
    //! (`mailto:`, `file:`) are refused by the schema: a field of those takes a
    //! `String` with `#[tool(format = "uri")]`.

    use crate::model::{Node, Schema, StringNode};

    /// A host label that does not start with `xn--` (which `url` decodes as
    /// Punycode, refusing what does not decode).
    macro_rules! url_label {
        () => {
            "(?:[A-WYZa-wyz0-9][A-Za-z0-9-]*|[Xx](?:[A-MO-Za-mo-z0-9-][A-Za-z0-9-]*|[Nn](?:[A-Za-z0-9][A-Za-z0-9-]*|-(?:[A-Za-z0-9][A-Za-z0-9-]*)?)?)?)"
        };
    }

    impl Schema for url::Url {
        const SCHEMA: &'static Node = &Node::String(StringNode {
            format: Some(crate::model::Ref::Static("uri")),
            pattern: Some(crate::model::Ref::Static(concat!(
                "^(?:[Hh][Tt][Tt][Pp][Ss]?|[Ww][Ss][Ss]?|[Ff][Tt][Pp])://",
                "(?:[A-Za-z0-9._~!$&'()*+,;=:-]*@)?",
                "(?:(?:",
                url_label!(),
                r"\.)*",
                // The last label starts with a letter: one of digits would be
                // read as an IPv4 address.
                "(?:[A-WYZa-wyz][A-Za-z0-9-]*|[Xx](?:[A-MO-Za-mo-z0-9-][A-Za-z0-9-]*|[Nn](?:[A-Za-z0-9][A-Za-z0-9-]*|-(?:[A-Za-z0-9][A-Za-z0-9-]*)?)?)?)",
                r"|\[[0-9A-Fa-f:.]+\])",
                "(?::(?:[0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?",
                r"(?:[/?#][^\s]*)?$"
            ))),
            ..StringNode::PLAIN
        });
    }
}
