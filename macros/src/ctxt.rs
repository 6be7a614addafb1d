//! The error collector of one expansion.

use core::cell::RefCell;
use core::fmt::Display;

use quote::ToTokens;

/// Collects every error of one expansion, so that a user sees all of them in
/// one build. It must be [finished](Ctxt::finish): dropping it with its
/// errors unread is a bug of the derive (the user would get code that
/// compiles without the errors), and panics.
pub(crate) struct Ctxt {
    /// `None` once finished.
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Default for Ctxt {
    fn default() -> Ctxt {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if self.errors.get_mut().is_some() && !std::thread::panicking() {
            panic!("the derive dropped its errors without reporting them (Ctxt::finish)");
        }
    }
}

impl Ctxt {
    /// Records an error pointing at `tokens`.
    pub(crate) fn error_at<T: ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.push(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Records an error at `span`.
    pub(crate) fn error_span<M: Display>(&self, span: proc_macro2::Span, message: M) {
        self.push(syn::Error::new(span, message));
    }

    /// Records a parse error as it is.
    pub(crate) fn syn_error(&self, error: syn::Error) {
        self.push(error);
    }

    /// Whether any error was recorded.
    pub(crate) fn has_errors(&self) -> bool {
        self.errors
            .borrow()
            .as_ref()
            .is_some_and(|errors| !errors.is_empty())
    }

    fn push(&self, error: syn::Error) {
        if let Some(errors) = self.errors.borrow_mut().as_mut() {
            errors.push(error);
        }
    }

    /// All errors combined into one, if any.
    pub(crate) fn finish(self) -> Option<syn::Error> {
        let mut errors = self
            .errors
            .borrow_mut()
            .take()
            .unwrap_or_default()
            .into_iter();
        let mut combined = errors.next()?;
        for error in errors {
            combined.combine(error);
        }
        Some(combined)
    }
}

#[cfg(test)]
mod tests {
    use super::Ctxt;

    #[test]
    fn finishing_hands_over_every_error() {
        let cx = Ctxt::default();
        cx.error_span(proc_macro2::Span::call_site(), "first");
        cx.error_span(proc_macro2::Span::call_site(), "second");
        assert!(cx.has_errors());
        let combined = cx.finish().expect("the errors");
        let messages: Vec<String> = combined.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(messages, ["first", "second"]);
    }

    #[test]
    #[should_panic(expected = "without reporting them")]
    fn dropping_unread_errors_panics() {
        let cx = Ctxt::default();
        cx.error_span(proc_macro2::Span::call_site(), "lost");
        drop(cx);
    }
}
