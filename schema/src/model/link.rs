//! [`Ref`]: how the model holds its parts, static or shared.

use core::cmp::Ordering;
use core::fmt;
use core::hash::{Hash, Hasher};
use core::ops::Deref;
use std::sync::Arc;

/// A part of the schema model: a node, a list, a name.
///
/// The derives build the model as constant data ([`Ref::Static`], and
/// [`Ref::Lazy`] for links to other types, which may recurse); tools built
/// at run time from configuration hold their parts in
/// [`Ref::Shared`], freed with the last catalog that uses them. Every
/// layer reads both the same way, through [`Deref`].
///
/// ```
/// use toolschema_schema::model::{Ref, Text};
///
/// const NAME: Text = Ref::Static("invoice_id");
/// let configured = Text::from(String::from("invoice_id"));
/// assert_eq!(NAME, configured);
/// assert_eq!(&*configured, "invoice_id");
/// ```
pub enum Ref<T: ?Sized + 'static> {
    /// Constant data.
    Static(&'static T),
    /// A link to constant data, followed when read (a derived type's schema,
    /// which may contain itself).
    Lazy(fn() -> &'static T),
    /// Data built at run time, shared by the catalogs that use it.
    Shared(Arc<T>),
}

/// A string of the model: a name, a description, a pattern.
pub type Text = Ref<str>;

impl<T: ?Sized> Ref<T> {
    /// The data, when it is constant (not [`Ref::Shared`]).
    pub fn as_static(&self) -> Option<&'static T> {
        match self {
            Ref::Static(value) => Some(value),
            Ref::Lazy(link) => Some(link()),
            Ref::Shared(_) => None,
        }
    }
}

impl<T: ?Sized> Ref<T> {
    /// Whether `a` and `b` lead to the very same data, not only equal
    /// data: what a catalog rebuilt after a change checks to share what
    /// did not change.
    ///
    /// ```
    /// use toolschema_schema::model::Ref;
    ///
    /// let one = Ref::new(String::from("forecast"));
    /// let same = one.clone();
    /// let equal = Ref::new(String::from("forecast"));
    /// assert!(Ref::same(&one, &same));
    /// assert!(!Ref::same(&one, &equal));
    /// assert_eq!(one, equal);
    /// ```
    pub fn same(a: &Ref<T>, b: &Ref<T>) -> bool {
        core::ptr::eq::<T>(&**a, &**b)
    }
}

impl<T> Ref<T> {
    /// Holds `value`, built at run time.
    pub fn new(value: T) -> Ref<T> {
        Ref::Shared(Arc::new(value))
    }
}

impl<T: ?Sized> Deref for Ref<T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        match self {
            Ref::Static(value) => value,
            Ref::Lazy(link) => link(),
            Ref::Shared(value) => value,
        }
    }
}

impl<T: ?Sized> Clone for Ref<T> {
    fn clone(&self) -> Ref<T> {
        match self {
            Ref::Static(value) => Ref::Static(value),
            Ref::Lazy(link) => Ref::Lazy(*link),
            Ref::Shared(value) => Ref::Shared(Arc::clone(value)),
        }
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Ref<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A lazy link may lead back to the type being printed.
        match self {
            Ref::Lazy(_) => f.write_str("<link>"),
            _ => fmt::Debug::fmt(&**self, f),
        }
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for Ref<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

impl<T: ?Sized + PartialEq> PartialEq for Ref<T> {
    fn eq(&self, other: &Ref<T>) -> bool {
        **self == **other
    }
}

impl<T: ?Sized + Eq> Eq for Ref<T> {}

impl<T: ?Sized + PartialOrd> PartialOrd for Ref<T> {
    fn partial_cmp(&self, other: &Ref<T>) -> Option<Ordering> {
        (**self).partial_cmp(&**other)
    }
}

impl<T: ?Sized + Ord> Ord for Ref<T> {
    fn cmp(&self, other: &Ref<T>) -> Ordering {
        (**self).cmp(&**other)
    }
}

impl<T: ?Sized + Hash> Hash for Ref<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (**self).hash(state);
    }
}

impl PartialEq<str> for Ref<str> {
    fn eq(&self, other: &str) -> bool {
        &**self == other
    }
}

impl PartialEq<&str> for Ref<str> {
    fn eq(&self, other: &&str) -> bool {
        &**self == *other
    }
}

impl core::borrow::Borrow<str> for Ref<str> {
    fn borrow(&self) -> &str {
        self
    }
}

impl From<String> for Ref<str> {
    fn from(text: String) -> Ref<str> {
        Ref::Shared(Arc::from(text))
    }
}

impl<T: ?Sized> From<&'static T> for Ref<T> {
    fn from(value: &'static T) -> Ref<T> {
        Ref::Static(value)
    }
}

impl<T> From<Vec<T>> for Ref<[T]> {
    fn from(items: Vec<T>) -> Ref<[T]> {
        Ref::Shared(Arc::from(items))
    }
}

impl<'a, T> IntoIterator for &'a Ref<[T]> {
    type Item = &'a T;
    type IntoIter = core::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: ?Sized> AsRef<T> for Ref<T> {
    fn as_ref(&self) -> &T {
        self
    }
}
