//! What generated code names. Not a public API: it changes without notice.
//!
//! The derives emit constant data built from these items, and constant checks
//! that reject, at compile time, attributes the field's type cannot honour.
//! Each check returns the [`Problem`] it finds, a sentence that names the
//! attribute and says what to change; the derive's own constant panics with
//! it, so the compiler shows it at the attribute in the user's code (a panic
//! in here would add a note pointing into this file).

pub use crate::call::context::no_state;
pub use crate::call::{RunsWith, ToolResult};
pub use crate::model::{
    Additional, EnumNode, Field, Literal, Node, Number, ObjectNode, Presence, Ref, Refine, Shape,
    Tagging, TypeInfo, Variant,
};
pub use crate::model::{Icon, IconTheme, SerdeDefault};
pub use crate::{Annotations, Schema, Tool, ToolDef, schema_of};
pub use core;
pub use core::option::Option::{None, Some};
pub use serde_json::Value;
pub use std::sync::Arc;
pub use toolschema_text::doc::{doc_prefix, doc_str, normalize_doc};
// The constant checks of attributes against field types.
pub use toolschema_schema::checks::{
    Problem, Property, check_flatten, check_flattened_names, check_header, check_literals,
    check_refine, check_skippable, check_tagged_payload,
};

/// serde's default of a field, made by `0`, for [`SerdeDefault::Field`]:
/// written as JSON when the field's type is `Serialize`
/// ([`SerializeProbe`]), else not compared ([`FallbackProbe`]). The derive
/// calls `(&&Probe(make)).json()`, and method lookup picks the first that
/// applies.
pub struct Probe<T>(pub fn() -> T);

/// [`Probe`] of a `Serialize` type.
pub trait SerializeProbe {
    /// The default as JSON.
    fn json(&self) -> Option<Value>;
}

impl<T: serde::Serialize> SerializeProbe for &Probe<T> {
    fn json(&self) -> Option<Value> {
        serde_json::to_value((self.0)()).ok()
    }
}

/// [`Probe`] of any other type.
pub trait FallbackProbe {
    /// Nothing to compare.
    fn json(&self) -> Option<Value>;
}

impl<T> FallbackProbe for Probe<T> {
    fn json(&self) -> Option<Value> {
        None
    }
}
