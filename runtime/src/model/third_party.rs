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

#[cfg(feature = "chrono")]
mod chrono_impls {
    use super::{DATE, DATE_TIME};
    use crate::model::{Node, Schema, StringNode};

    impl Schema for chrono::NaiveDate {
        const SCHEMA: &'static Node = DATE;
    }

    impl<Tz: chrono::TimeZone> Schema for chrono::DateTime<Tz> {
        const SCHEMA: &'static Node = DATE_TIME;
    }

    /// No standard format names a date and time without an offset.
    impl Schema for chrono::NaiveDateTime {
        const SCHEMA: &'static Node = &Node::String(StringNode::pattern(
            r"^[+-]?[0-9]{4,}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?$",
        ));
    }

    /// `time` in JSON Schema requires an offset, which a `NaiveTime` lacks.
    impl Schema for chrono::NaiveTime {
        const SCHEMA: &'static Node = &Node::String(StringNode::pattern(
            r"^[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?$",
        ));
    }
}

/// The `time` crate writes these types as human-readable strings when its
/// `serde-human-readable` feature is on; the `time` feature of this crate turns
/// it on. `OffsetDateTime` is RFC 3339 only through
/// `#[serde(with = "time::serde::rfc3339")]`.
#[cfg(feature = "time")]
mod time_impls {
    use super::{DATE, DATE_TIME};
    use crate::model::{Node, Schema, StringNode};

    impl Schema for time::Date {
        const SCHEMA: &'static Node = DATE;
    }

    impl Schema for time::OffsetDateTime {
        const SCHEMA: &'static Node = DATE_TIME;
    }

    impl Schema for time::PrimitiveDateTime {
        const SCHEMA: &'static Node = &Node::String(StringNode::pattern(
            r"^[+-]?[0-9]{4,}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{1,9}$",
        ));
    }

    impl Schema for time::Time {
        const SCHEMA: &'static Node = &Node::String(StringNode::pattern(
            r"^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{1,9}$",
        ));
    }
}

#[cfg(feature = "uuid")]
impl Schema for uuid::Uuid {
    const SCHEMA: &'static Node = &Node::String(StringNode::format("uuid"));
}

/// `rust_decimal` writes decimals as strings to keep their precision.
#[cfg(feature = "rust_decimal")]
impl Schema for rust_decimal::Decimal {
    const SCHEMA: &'static Node = &Node::String(StringNode::pattern(r"^-?[0-9]+(\.[0-9]+)?$"));
}

#[cfg(feature = "url")]
impl Schema for url::Url {
    const SCHEMA: &'static Node = &Node::String(StringNode::format("uri"));
}
