//! Constant checks of attributes against field types.
//!
//! Whether `min_length` suits a field depends on the field's type, which only
//! the type system knows. Each check is a `const` that evaluates a runtime
//! `const fn` on the type's schema node; a problem it returns fails the
//! constant's evaluation with its sentence, reported at the attribute. Items with type parameters are
//! not checked (a free `const` cannot name them).

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::schema::refine;
use super::{literal, mentions, private, respan};
use crate::ast::Derive;
use crate::ast::{Container, Data, Field, Style};

pub(super) fn checks(item: &Container<'_>, derive: Derive) -> TokenStream {
    if item.attrs.input_schema.is_set() {
        // The file is the schema: no field is described, nothing to check.
        return TokenStream::new();
    }
    let p = private(item);
    let params = item.type_params();
    let mut out = TokenStream::new();
    let mut check = |ty: &syn::Type, span: Span, call: TokenStream| {
        if !mentions(ty, &params) {
            // The whole call carries the attribute's span, so that a failed
            // evaluation is reported at the attribute.
            let call = respan(call, span);
            // The panic is the user's constant's own, so the compiler points
            // at the attribute (the failing call) and at nothing inside the
            // library.
            out.extend(quote_spanned!(span=>
                const _: () = {
                    const fn refuse(problem: &#p::Problem) -> ! {
                        #p::core::panic!("{}", problem.as_str())
                    }
                    if let #p::Some(problem) = &#call {
                        refuse(problem)
                    }
                };
            ));
        }
    };
    let fields: Vec<&Field<'_>> = match &item.data {
        Data::Struct(Style::Named, fields) => fields.iter().collect(),
        Data::Struct(..) => Vec::new(),
        Data::Enum(variants) => variants
            .iter()
            .filter(|v| v.style == Style::Named)
            .flat_map(|v| &v.fields)
            .collect(),
    };
    for field in fields {
        let attrs = &field.attrs;
        let ty = attrs.schema.get().unwrap_or(field.ty);
        let node = quote_spanned!(ty.span()=> <#ty as #p::Schema>::SCHEMA);
        if let Some(span) = attrs.refinement_spans().next() {
            let refine = refine(field, &p);
            check(
                ty,
                span,
                quote_spanned!(span=> #p::check_refine(#node, &#refine)),
            );
        }
        if let Some(span) = attrs.serde.flatten {
            let deny = item.attrs.serde.deny_unknown_fields.is_some();
            check(
                ty,
                span,
                quote_spanned!(span=> #p::check_flatten(#node, #deny)),
            );
        }
        if let Some(span) = attrs.header.span() {
            check(ty, span, quote_spanned!(span=> #p::check_header(#node)));
        }
        let literals: Vec<TokenStream> = attrs
            .default
            .get()
            .and_then(Option::as_ref)
            .into_iter()
            .chain(attrs.examples.get().into_iter().flatten())
            .map(|value| literal(&p, value))
            .collect();
        if !literals.is_empty() {
            let span = first_span(&[attrs.examples.span(), attrs.default.span()]);
            check(
                ty,
                span,
                quote_spanned!(span=> #p::check_literals(#node, &[#(#literals),*])),
            );
        }
        let serde_default = attrs.serde.default || item.attrs.serde.default;
        if let Some(span) = attrs.skip.span()
            && !serde_default
            && attrs.serde.skip_deserializing.is_none()
        {
            check(ty, span, quote_spanned!(span=> #p::check_skippable(#node)));
        }
    }
    if let Data::Struct(Style::Named, fields) = &item.data {
        flattened_names(&p, fields, &params, &mut check);
    }
    if let Data::Enum(variants) = &item.data
        && item.attrs.serde.tag.is_some()
        && item.attrs.serde.content.is_none()
        && item.attrs.serde.untagged.is_none()
    {
        for variant in variants.iter().filter(|v| v.style == Style::Newtype) {
            let ty = variant.fields[0].ty;
            let span = variant.ident.span();
            let node = quote_spanned!(ty.span()=> <#ty as #p::Schema>::SCHEMA);
            check(
                ty,
                span,
                quote_spanned!(span=> #p::check_tagged_payload(#node)),
            );
        }
    }
    if derive == Derive::Tool && params.is_empty() {
        // Evaluates the descriptor, and with it the output check, even if
        // nothing uses the tool yet.
        let ident = item.ident;
        out.extend(quote!(const _: &#p::ToolDef = <#ident as #p::Tool>::TOOL;));
    }
    quote!(#out)
}

/// For each flattened struct, a check that it brings in no property the
/// struct already has (its own fields, or an earlier flattened struct's).
/// Flattened types that mention type parameters are left out.
fn flattened_names(
    p: &TokenStream,
    fields: &[Field<'_>],
    params: &[&syn::Ident],
    check: &mut impl FnMut(&syn::Type, Span, TokenStream),
) {
    if !fields.iter().any(|f| f.attrs.serde.flatten.is_some()) {
        return;
    }
    let own: Vec<TokenStream> = fields
        .iter()
        .filter(|f| f.is_shown() && f.attrs.serde.flatten.is_none())
        .map(|f| {
            let (name, read, written) = (&f.exposed, f.is_read(), !f.attrs.serde.skip_serializing);
            quote!(#p::Property { name: #name, read: #read, written: #written })
        })
        .collect();
    let mut earlier: Vec<TokenStream> = Vec::new();
    for field in fields.iter().filter(|f| f.is_shown()) {
        let Some(span) = field.attrs.serde.flatten else {
            continue;
        };
        let ty = field.attrs.schema.get().unwrap_or(field.ty);
        if mentions(ty, params) {
            continue;
        }
        let node = quote_spanned!(ty.span()=> <#ty as #p::Schema>::SCHEMA);
        check(
            ty,
            span,
            quote_spanned!(span=> #p::check_flattened_names(&[#(#own),*], &[#(#earlier),*], #node)),
        );
        earlier.push(node);
    }
}

fn first_span(spans: &[Option<Span>]) -> Span {
    spans
        .iter()
        .flatten()
        .next()
        .copied()
        .unwrap_or_else(Span::call_site)
}
