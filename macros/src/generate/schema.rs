//! The `Schema` impl: the type's schema node as constant data.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::{list, literal, number, option, private, split, text};
use crate::ast::Derive;
use crate::ast::{Container, Data, Field, Style, Variant};

pub(super) fn schema_impl(item: &Container<'_>, derive: Derive) -> TokenStream {
    let p = private(item);
    let (impl_generics, ty_generics, where_clause) = split(item);
    let ident = item.ident;
    if let Some(path) = item.attrs.input_schema.get() {
        return raw_schema_impl(item, path);
    }
    let node = node(item, derive, &p);
    let defaults = serde_defaults(item, &p);
    quote! {
        #[automatically_derived]
        impl #impl_generics #p::Schema for #ident #ty_generics #where_clause {
            const SCHEMA: &'static #p::Node = #node;
            #defaults
        }
    }
}

/// What serde makes of each field a call leaves out, for registration to
/// compare with the advertised defaults: for a field with `#[tool(default)]`,
/// serde's default written as JSON; for the others, their types' own
/// defaults. Structs with type parameters are left out.
fn serde_defaults(item: &Container<'_>, p: &TokenStream) -> TokenStream {
    let Data::Struct(Style::Named, fields) = &item.data else {
        return TokenStream::new();
    };
    if !item.type_params().is_empty() {
        return TokenStream::new();
    }
    let entries = fields.iter().filter_map(|field| {
        let attrs = &field.attrs;
        if attrs.serde.skip_deserializing.is_some() || attrs.serde.flatten.is_some() {
            return None;
        }
        let ty = field.ty;
        let exposed = &field.exposed;
        let advertised = attrs.default.get().is_some_and(Option::is_some);
        if !advertised {
            let described = attrs.schema.get().unwrap_or(ty);
            return Some(quote! {
                #p::SerdeDefault::Within {
                    exposed: #exposed,
                    defaults: || <#described as #p::Schema>::SERDE_DEFAULTS,
                }
            });
        }
        if attrs.serde.with.is_some() {
            // serde writes this field through other code than its type's
            // `Serialize`: its default's JSON cannot be known here.
            return None;
        }
        let made = match (&attrs.serde.default_path, attrs.serde.default) {
            (Some(path), _) => quote!(#path()),
            (None, true) => quote!(::core::default::Default::default()),
            (None, false) if item.attrs.serde.default => {
                let member = field.ident?;
                quote!(<Self as ::core::default::Default>::default().#member)
            }
            (None, false) => return None,
        };
        Some(quote! {
            #p::SerdeDefault::Field {
                exposed: #exposed,
                value: || {
                    use #p::{FallbackProbe as _, SerializeProbe as _};
                    (&&#p::Probe::<#ty>(|| #made)).json()
                },
            }
        })
    });
    quote! {
        const SERDE_DEFAULTS: &'static [#p::SerdeDefault] = &[#(#entries),*];
    }
}

/// The schema of a tool whose input schema is a file: the file's text, and
/// an `include_bytes!` of it so that editing the file rebuilds the crate.
fn raw_schema_impl(item: &Container<'_>, path: &syn::LitStr) -> TokenStream {
    let p = private(item);
    let (impl_generics, ty_generics, where_clause) = split(item);
    let ident = item.ident;
    // The check has read the file; a file that changed since is read again.
    let Ok(raw) = crate::raw::load(path) else {
        return quote! {
            impl #impl_generics #p::Schema for #ident #ty_generics #where_clause {
                const SCHEMA: &'static #p::Node = &#p::Node::Any;
            }
        };
    };
    let text = raw.text;
    let file = raw.path.to_string_lossy().into_owned();
    quote! {
        const _: &[u8] = ::core::include_bytes!(#file);
        #[automatically_derived]
        impl #impl_generics #p::Schema for #ident #ty_generics #where_clause {
            const SCHEMA: &'static #p::Node = &#p::Node::Raw(#p::Ref::Static(#text));
        }
    }
}

/// A `&'static Node` expression for the item.
fn node(item: &Container<'_>, derive: Derive, p: &TokenStream) -> TokenStream {
    match &item.data {
        Data::Struct(Style::Named, fields) if item.attrs.serde.transparent.is_some() => {
            match fields.iter().find(|f| f.is_read()) {
                Some(field) => type_schema(p, field.ty),
                None => quote!(&#p::Node::Null),
            }
        }
        Data::Struct(Style::Named, fields) => {
            let info = info(item, derive, p);
            let fields = list(p, fields.iter().filter_map(|f| field(item, f, p)));
            let additional = if item.attrs.allow_unknown_fields.is_set() {
                quote!(#p::Additional::Allow)
            } else {
                quote!(#p::Additional::Deny)
            };
            quote! {
                &#p::Node::Object(#p::ObjectNode {
                    info: #info,
                    fields: #fields,
                    additional: #additional,
                })
            }
        }
        Data::Struct(Style::Newtype, fields) => match fields.first() {
            Some(field) => type_schema(p, field.ty),
            None => quote!(&#p::Node::Null),
        },
        Data::Struct(Style::Tuple, fields) => {
            let items = list(p, fields.iter().map(|f| text(p, type_schema(p, f.ty))));
            quote!(&#p::Node::Tuple(#items))
        }
        Data::Struct(Style::Unit, _) => quote!(&#p::Node::Null),
        Data::Enum(variants) => {
            let info = info(item, derive, p);
            let serde = &item.attrs.serde;
            let tagging = match (&serde.untagged, &serde.tag, &serde.content) {
                (Some(_), _, _) => quote!(#p::Tagging::Untagged),
                (None, Some((tag, _)), Some((content, _))) => {
                    let (tag, content) = (text(p, tag), text(p, content));
                    quote!(#p::Tagging::Adjacent { tag: #tag, content: #content })
                }
                (None, Some((tag, _)), None) => {
                    let tag = text(p, tag);
                    quote!(#p::Tagging::Internal { tag: #tag })
                }
                (None, None, _) => quote!(#p::Tagging::External),
            };
            let variants = list(
                p,
                variants
                    .iter()
                    .filter(|v| v.attrs.serde.skip_deserializing.is_none() && !v.attrs.serde.other)
                    .map(|v| variant(item, v, p)),
            );
            quote! {
                &#p::Node::Enum(#p::EnumNode {
                    info: #info,
                    tagging: #tagging,
                    variants: #variants,
                })
            }
        }
    }
}

/// `<T as Schema>::SCHEMA`, spanned at the type so that a missing impl is
/// reported there.
fn type_schema(p: &TokenStream, ty: &syn::Type) -> TokenStream {
    quote_spanned!(ty.span()=> <#ty as #p::Schema>::SCHEMA)
}

/// The lazy link to a type's schema, spanned at the type.
fn type_link(p: &TokenStream, ty: &syn::Type) -> TokenStream {
    // The bound is the user's own projection: a type without a schema is
    // reported at the field's type with no note inside the library.
    quote_spanned!(ty.span()=> #p::Ref::Lazy(|| <#ty as #p::Schema>::SCHEMA))
}

fn info(item: &Container<'_>, derive: Derive, p: &TokenStream) -> TokenStream {
    let name = crate::ast::unraw(item.ident);
    let is_tool_input = derive == Derive::Tool;
    let title = option(
        p,
        item.attrs
            .title
            .get()
            .filter(|_| !is_tool_input)
            .map(|title| text(p, title)),
    );
    // A tool's doc is the tool's description; its input schema does not repeat it.
    let description = if is_tool_input {
        option::<TokenStream>(p, None)
    } else {
        description(item.attrs.description.get(), item.doc.as_ref(), p)
    };
    let name = text(p, name);
    quote! {
        #p::TypeInfo {
            name: #name,
            type_name: #p::Ref::Lazy(#p::core::any::type_name::<Self>),
            title: #title,
            description: #description,
        }
    }
}

fn description(
    attr: Option<&syn::LitStr>,
    doc: Option<&crate::docs::Doc>,
    p: &TokenStream,
) -> TokenStream {
    match (attr, doc) {
        (Some(lit), _) => option(p, Some(text(p, lit))),
        (None, Some(doc)) => option(p, Some(text(p, doc.to_tokens(p)))),
        (None, None) => option::<TokenStream>(p, None),
    }
}

/// A `Field` expression, or `None` if the field is never shown.
fn field(item: &Container<'_>, field: &Field<'_>, p: &TokenStream) -> Option<TokenStream> {
    let attrs = &field.attrs;
    let serde = &attrs.serde;
    let read = serde.skip_deserializing.is_none();
    let written = !serde.skip_serializing;
    if !field.is_shown() || !(read || written) {
        return None;
    }
    let ty = attrs.schema.get().unwrap_or(field.ty);
    let exposed = text(p, &field.exposed);
    let source = text(p, &field.source);
    let link = type_link(p, ty);
    // Only what differs from `Field::BLANK` is written: less for the
    // compiler to read.
    let mut rest = TokenStream::new();
    let aliases = &serde.aliases;
    if !aliases.is_empty() {
        let aliases = list(p, aliases.iter().map(|alias| text(p, alias)));
        rest.extend(quote!(aliases: #aliases,));
    }
    if attrs.description.is_set() || field.doc.is_some() {
        let description = description(attrs.description.get(), field.doc.as_ref(), p);
        rest.extend(quote!(description: #description,));
    }
    let has_default = attrs.default.is_set() || serde.default || item.attrs.serde.default;
    if attrs.required.is_set() {
        rest.extend(quote!(presence: #p::Presence::Required,));
    } else if has_default || !read {
        rest.extend(quote!(presence: #p::Presence::Optional,));
    }
    if serde.flatten.is_some() {
        rest.extend(quote!(flatten: true,));
    }
    if !read {
        rest.extend(quote!(read: false,));
    }
    if !written {
        rest.extend(quote!(written: false,));
    }
    if serde.skip_serializing_if {
        rest.extend(quote!(omitted_when_written: true,));
    }
    if attrs.has_refinements() {
        let refine = refine(field, p);
        rest.extend(quote!(refine: #refine,));
    }
    if let Some(Some(value)) = attrs.default.get() {
        let value = literal(p, value);
        rest.extend(quote!(default: #p::Some(#value),));
    }
    if let Some(examples) = attrs.examples.get() {
        let examples = list(p, examples.iter().map(|v| literal(p, v)));
        rest.extend(quote!(examples: #examples,));
    }
    if let Some(header) = attrs.header.get() {
        let header = text(p, header);
        rest.extend(quote!(header: #p::Some(#header),));
    }
    Some(quote! {
        #p::Field {
            exposed: #exposed,
            source: #source,
            schema: #link,
            #rest
            ..#p::Field::BLANK
        }
    })
}

/// The field's `Refine` expression.
pub(super) fn refine(field: &Field<'_>, p: &TokenStream) -> TokenStream {
    let attrs = &field.attrs;
    let format = option(p, attrs.format.get().map(|format| text(p, format)));
    let pattern = option(p, attrs.pattern.get().map(|pattern| text(p, pattern)));
    let min_length = option(p, attrs.min_length.get());
    let max_length = option(p, attrs.max_length.get());
    let min_items = option(p, attrs.min_items.get());
    let max_items = option(p, attrs.max_items.get());
    let minimum = option(p, attrs.minimum.get().map(|v| number(p, v)));
    let maximum = option(p, attrs.maximum.get().map(|v| number(p, v)));
    quote! {
        #p::Refine {
            format: #format,
            pattern: #pattern,
            min_length: #min_length,
            max_length: #max_length,
            minimum: #minimum,
            maximum: #maximum,
            min_items: #min_items,
            max_items: #max_items,
        }
    }
}

fn variant(item: &Container<'_>, variant: &Variant<'_>, p: &TokenStream) -> TokenStream {
    let name = text(p, &variant.name);
    let description = description(variant.attrs.description.get(), variant.doc.as_ref(), p);
    let shape = match variant.style {
        Style::Unit => quote!(#p::Shape::Unit),
        Style::Newtype => {
            let link = type_link(p, variant.fields[0].ty);
            quote!(#p::Shape::Newtype(#link))
        }
        Style::Tuple => {
            let links = list(p, variant.fields.iter().map(|f| type_link(p, f.ty)));
            quote!(#p::Shape::Tuple(#links))
        }
        Style::Named => {
            let fields = list(p, variant.fields.iter().filter_map(|f| field(item, f, p)));
            quote!(#p::Shape::Struct(#fields))
        }
    };
    quote! {
        #p::Variant {
            name: #name,
            description: #description,
            shape: #shape,
        }
    }
}
