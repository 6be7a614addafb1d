//! The `Tool` impl: the tool descriptor as constant data.

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;

use super::{list, option, private, split, text};
use crate::ast::Container;
use crate::check::tool_name;

pub(super) fn tool_impl(item: &Container<'_>) -> TokenStream {
    let p = private(item);
    let (impl_generics, ty_generics, where_clause) = split(item);
    let ident = item.ident;
    let attrs = &item.attrs;
    let name = text(&p, tool_name(item));
    let title = option(&p, attrs.title.get().map(|title| text(&p, title)));
    let description = text(
        &p,
        match (attrs.description.get(), &item.doc) {
            (Some(lit), _) => quote!(#lit),
            (None, Some(doc)) => doc.to_tokens(&p),
            // The check refuses a tool without a description.
            (None, None) => quote!(""),
        },
    );
    let version = attrs.version.get().copied().unwrap_or(1);
    // The output's schema is reached, and checked to be an object, in one
    // place, so that a mistake about it is reported once, at the type.
    let output = option(
        &p,
        attrs.output.get().map(|ty| {
            // The bound is the user's own projection, so a type without a
            // schema is reported at `output = …` with no note inside the
            // library.
            let call = quote!(#p::Ref::Lazy(|| <#ty as #p::Schema>::SCHEMA));
            super::respan(call, ty.span())
        }),
    );
    let output_type = match attrs.output.get() {
        Some(ty) => quote!(#ty),
        None => quote!(#p::ToolResult),
    };
    let hints = attrs.annotations.get();
    let hint =
        |pick: fn(&crate::attr::Annotations) -> Option<bool>| option(&p, hints.and_then(pick));
    let read_only = hint(|h| h.read_only);
    let destructive = hint(|h| h.destructive);
    let idempotent = hint(|h| h.idempotent);
    let open_world = hint(|h| h.open_world);
    let annotations = if hints.is_some() {
        quote! {
            #p::Annotations {
                read_only: #read_only,
                destructive: #destructive,
                idempotent: #idempotent,
                open_world: #open_world,
            }
        }
    } else {
        quote!(#p::Annotations::NONE)
    };
    let internal = attrs.internal.is_set();
    // Checked already: an icon that does not resolve stopped the expansion.
    let icons = attrs
        .icons
        .iter()
        .filter_map(|icon| crate::icon::resolve(icon).ok())
        .map(|icon| {
            let src = text(&p, &icon.src);
            let mime_type = option(&p, icon.mime_type.as_ref().map(|mime| text(&p, mime)));
            let sizes = list(&p, icon.sizes.iter().map(|size| text(&p, size)));
            let theme = option(
                &p,
                icon.theme.map(|theme| match theme {
                    "dark" => quote!(#p::IconTheme::Dark),
                    _ => quote!(#p::IconTheme::Light),
                }),
            );
            let rebuild = icon.file.as_ref().map(|path| {
                let path = path.to_string_lossy();
                quote!(
                    const _: &[u8] = include_bytes!(#path);
                )
            });
            quote! {
                {
                    #rebuild
                    #p::Icon {
                        src: #src,
                        mime_type: #mime_type,
                        sizes: #sizes,
                        theme: #theme,
                    }
                }
            }
        });
    let icons = list(&p, icons);
    let state = super::state_type(item);
    quote! {
        #[automatically_derived]
        impl #impl_generics #p::Tool for #ident #ty_generics #where_clause {
            const TOOL: &'static #p::ToolDef = &#p::ToolDef {
                name: #name,
                title: #title,
                description: #description,
                version: #version,
                input: #p::Ref::Lazy(#p::schema_of::<Self>),
                output: #output,
                annotations: #annotations,
                icons: #icons,
                internal: #internal,
            };
            type Output = #output_type;
            type State = #state;
        }
    }
}
