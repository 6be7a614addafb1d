//! Schemas of string forms a field's Rust type does not tell: for a field
//! that serde reads through `#[serde(with = "...")]` or
//! `#[serde(deserialize_with = "...")]`, name the schema of what that code
//! reads with `#[tool(schema = ...)]`.
//!
//! ```
//! use toolschema_schema::formats::Rfc3339;
//! use toolschema_schema::model::{Node, Schema};
//!
//! let Node::String(string) = <Rfc3339 as Schema>::SCHEMA else { unreachable!() };
//! assert_eq!(string.format.as_deref(), Some("date-time"));
//! ```
//!
//! In a derive, with the time crate's RFC 3339 form:
//!
//! ```text
//! #[serde(with = "time::serde::rfc3339")]
//! #[tool(schema = toolschema::formats::Rfc3339)]
//! pub created: time::OffsetDateTime,
//! ```

use crate::model::{Node, Ref, Schema, StringNode};

/// An RFC 3339 date and time (`format: date-time`) without a leap second:
/// what `time::serde::rfc3339` reads (it refuses second `60`, which the
/// format allows).
#[derive(Debug, Clone, Copy)]
pub enum Rfc3339 {}

impl Schema for Rfc3339 {
    const SCHEMA: &'static Node = &Node::String(StringNode {
        format: Some(Ref::Static("date-time")),
        pattern: Some(Ref::Static(
            "^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-5][0-9]",
        )),
        ..StringNode::PLAIN
    });
}
