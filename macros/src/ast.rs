//! The item a derive sees, with its attributes read and its names resolved.
//! It borrows the original syntax so that errors point at the user's tokens.

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::attr;
use crate::case::RenameRule;
use crate::ctxt::Ctxt;
use crate::docs::{self, Doc};

/// Which derive is expanding: `#[derive(Tool)]` or `#[derive(Schema)]`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Derive {
    Tool,
    Schema,
}

pub(crate) struct Container<'a> {
    pub(crate) ident: &'a syn::Ident,
    pub(crate) generics: &'a syn::Generics,
    pub(crate) attrs: attr::Container,
    pub(crate) doc: Option<Doc>,
    pub(crate) data: Data<'a>,
    /// The `struct` or `enum` keyword, for errors about the item's kind.
    pub(crate) keyword: Span,
}

pub(crate) enum Data<'a> {
    Struct(Style, Vec<Field<'a>>),
    Enum(Vec<Variant<'a>>),
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// `{ a: A, b: B }`
    Named,
    /// `(A, B)`
    Tuple,
    /// `(A)`
    Newtype,
    /// No fields.
    Unit,
}

pub(crate) struct Field<'a> {
    pub(crate) ident: Option<&'a syn::Ident>,
    pub(crate) ty: &'a syn::Type,
    pub(crate) attrs: attr::Field,
    pub(crate) doc: Option<Doc>,
    pub(crate) original: &'a syn::Field,
    /// The name serde reads.
    pub(crate) source: String,
    /// The name a client sees.
    pub(crate) exposed: String,
}

pub(crate) struct Variant<'a> {
    pub(crate) ident: &'a syn::Ident,
    pub(crate) attrs: attr::Variant,
    pub(crate) doc: Option<Doc>,
    pub(crate) style: Style,
    pub(crate) fields: Vec<Field<'a>>,
    /// The name serde reads.
    pub(crate) name: String,
}

impl<'a> Container<'a> {
    pub(crate) fn from_ast(cx: &Ctxt, item: &'a syn::DeriveInput) -> Container<'a> {
        let attrs = attr::Container::from_ast(cx, &item.attrs);
        let container_attrs = &attrs;
        let (data, keyword) = match &item.data {
            syn::Data::Struct(data) => {
                let (style, fields) = fields(cx, &data.fields);
                let mut fields = fields;
                let source_rule = attrs.serde.rename_all;
                let exposed_rule = attrs.rename_all.get().copied();
                name_fields(&mut fields, source_rule, exposed_rule);
                (Data::Struct(style, fields), data.struct_token.span)
            }
            syn::Data::Enum(data) => {
                let variants = data
                    .variants
                    .iter()
                    .map(|variant| {
                        let attrs = Variant::attrs(cx, variant);
                        let (style, mut fields) = fields(cx, &variant.fields);
                        let rule = attrs
                            .serde
                            .rename_all
                            .or(container_attrs.serde.rename_all_fields);
                        name_fields(&mut fields, rule, None);
                        let name = match attrs.serde.read_name() {
                            Some(name) => name.to_owned(),
                            None => {
                                let ident = unraw(&variant.ident);
                                match container_attrs.serde.rename_all {
                                    Some(rule) => rule.apply_to_variant(&ident),
                                    None => ident,
                                }
                            }
                        };
                        Variant {
                            ident: &variant.ident,
                            doc: docs::read(&variant.attrs),
                            attrs,
                            style,
                            fields,
                            name,
                        }
                    })
                    .collect();
                (Data::Enum(variants), data.enum_token.span)
            }
            syn::Data::Union(data) => {
                cx.error_span(
                    data.union_token.span,
                    "a union has no JSON representation; use a struct or an enum",
                );
                (Data::Struct(Style::Unit, Vec::new()), data.union_token.span)
            }
        };
        Container {
            ident: &item.ident,
            generics: &item.generics,
            doc: docs::read(&item.attrs),
            attrs,
            data,
            keyword,
        }
    }

    /// The names of the item's type parameters.
    pub(crate) fn type_params(&self) -> Vec<&syn::Ident> {
        self.generics.type_params().map(|p| &p.ident).collect()
    }
}

impl Variant<'_> {
    fn attrs(cx: &Ctxt, variant: &syn::Variant) -> attr::Variant {
        attr::Variant::from_ast(cx, &variant.attrs)
    }
}

fn fields<'a>(cx: &Ctxt, fields: &'a syn::Fields) -> (Style, Vec<Field<'a>>) {
    let style = match fields {
        syn::Fields::Named(_) => Style::Named,
        syn::Fields::Unnamed(f) if f.unnamed.len() == 1 => Style::Newtype,
        syn::Fields::Unnamed(_) => Style::Tuple,
        syn::Fields::Unit => Style::Unit,
    };
    let fields = fields
        .iter()
        .map(|field| Field {
            ident: field.ident.as_ref(),
            ty: &field.ty,
            attrs: attr::Field::from_ast(cx, &field.attrs),
            doc: docs::read(&field.attrs),
            original: field,
            source: String::new(),
            exposed: String::new(),
        })
        .collect();
    (style, fields)
}

/// Resolves each field's source name (serde's) and exposed name (a client's).
fn name_fields(
    fields: &mut [Field<'_>],
    source_rule: Option<RenameRule>,
    exposed_rule: Option<RenameRule>,
) {
    for field in fields {
        let Some(ident) = field.ident else { continue };
        let ident = unraw(ident);
        field.source = match field.attrs.serde.read_name() {
            Some(name) => name.to_owned(),
            None => match source_rule {
                Some(rule) => rule.apply_to_field(&ident),
                None => ident.clone(),
            },
        };
        field.exposed = match (field.attrs.rename.get(), exposed_rule) {
            (Some(name), _) => name.value(),
            (None, Some(rule)) => rule.apply_to_field(&ident),
            (None, None) => field.source.clone(),
        };
    }
}

pub(crate) fn unraw(ident: &syn::Ident) -> String {
    ident.to_string().trim_start_matches("r#").to_owned()
}

impl Field<'_> {
    /// The span for errors about the field's name.
    pub(crate) fn name_span(&self) -> Span {
        match self.attrs.rename.get() {
            Some(lit) => lit.span(),
            None => match self.ident {
                Some(ident) => ident.span(),
                None => self.original.span(),
            },
        }
    }

    /// Whether serde reads this field.
    pub(crate) fn is_read(&self) -> bool {
        self.attrs.serde.skip_deserializing.is_none()
    }

    /// Whether the field appears in the schema at all.
    pub(crate) fn is_shown(&self) -> bool {
        !self.attrs.skip.is_set()
    }
}
