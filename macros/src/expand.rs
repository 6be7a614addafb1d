//! The derive entry: parse -> check -> generate.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::{Container, Derive};
use crate::check;
use crate::ctxt::Ctxt;
use crate::generate;

pub(crate) fn derive(input: &syn::DeriveInput, derive: Derive) -> TokenStream {
    let cx = Ctxt::default();
    let item = Container::from_ast(&cx, input);
    check::check(&cx, &item, derive);
    let body = if cx.has_errors() {
        generate::stub(&item, derive)
    } else {
        generate::expand(&item, derive)
    };
    let errors = cx.finish().map(|error| error.to_compile_error());
    quote! {
        #errors
        #[doc(hidden)]
        const _: () = {
            #body
        };
    }
}
