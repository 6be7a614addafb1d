//! Reading `#[tool(...)]` and `#[serde(...)]` attributes.
//!
//! Every key is parsed by hand with `parse_nested_meta`. Each mistake is
//! recorded at its own token and parsing goes on with the next key, so one
//! build reports every mistake of an item.

mod container;
mod field;
mod parse;
mod serde;
mod variant;

pub(crate) use container::{Annotations, Container, IconAttr};
pub(crate) use field::Field;
pub(crate) use variant::Variant;

use proc_macro2::Span;

use crate::ctxt::Ctxt;

/// An attribute value that may be given at most once, with the span of its key.
pub(crate) struct Slot<T> {
    name: &'static str,
    value: Option<(T, Span)>,
}

impl<T> Slot<T> {
    fn new(name: &'static str) -> Slot<T> {
        Slot { name, value: None }
    }

    fn set(&mut self, cx: &Ctxt, span: Span, value: T) {
        if self.value.is_some() {
            cx.error_span(span, format!("duplicate `tool` attribute `{}`", self.name));
        } else {
            self.value = Some((value, span));
        }
    }

    pub(crate) fn get(&self) -> Option<&T> {
        self.value.as_ref().map(|(value, _)| value)
    }

    pub(crate) fn span(&self) -> Option<Span> {
        self.value.as_ref().map(|(_, span)| *span)
    }

    pub(crate) fn is_set(&self) -> bool {
        self.value.is_some()
    }
}

/// A literal written in an attribute: an example or a default value.
#[derive(Clone)]
pub(crate) enum LitValue {
    Bool(bool),
    /// A whole number; negative ones fit `i64`.
    Int(i128),
    Float(f64),
    Str(String),
}

/// The standard formats of JSON Schema 2020-12.
pub(crate) use toolschema_text::formats::FORMATS;
