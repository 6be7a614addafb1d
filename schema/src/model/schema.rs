//! The [`Schema`] trait and its implementations for standard types.

use super::{ArrayNode, IntegerNode, MapNode, Node, Number, NumberNode, Ref, StringNode};

/// A type whose JSON shape is known at compile time.
///
/// Implement it with `#[derive(Schema)]` (structs and enums) or
/// `#[derive(Tool)]` (tool input structs). The schema is a constant: reading
/// it allocates nothing.
///
/// ```
/// use toolschema_schema::{Schema, model::Node};
///
/// assert!(matches!(<Vec<u8> as Schema>::SCHEMA, Node::Array(_)));
/// assert!(<Option<String> as Schema>::SCHEMA.is_optional());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no JSON Schema",
    label = "`{Self}` does not implement `toolschema::Schema`",
    note = "add `#[derive(toolschema::Schema)]` to its definition; for chrono, time, uuid, rust_decimal or url types, turn on the toolschema feature of that name"
)]
pub trait Schema {
    /// The type's schema node.
    const SCHEMA: &'static Node;

    /// The defaults serde gives this type's fields when a call leaves them
    /// out, for registration to compare with the defaults the schema
    /// advertises. Written by the derives; empty for other types.
    #[doc(hidden)]
    const SERDE_DEFAULTS: &'static [SerdeDefault] = &[];
}

/// What serde makes of a field left out of a call, as the derives describe
/// it (see [`Schema::SERDE_DEFAULTS`]).
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub enum SerdeDefault {
    /// The field exposed as `exposed` defaults to what `value` gives, as
    /// JSON (`None` when its type cannot be written as JSON: not compared).
    Field {
        /// The field's exposed name.
        exposed: &'static str,
        /// serde's default, written as JSON.
        value: fn() -> Option<serde_json::Value>,
    },
    /// The defaults of the fields of the type of the field exposed as
    /// `exposed`.
    Within {
        /// The field's exposed name.
        exposed: &'static str,
        /// Its type's defaults.
        defaults: fn() -> &'static [SerdeDefault],
    },
}

/// The [`SchemaFn`](crate::model::SchemaFn) link to `T`'s schema.
///
/// ```
/// use toolschema_schema::{schema_of, model::Node};
///
/// let link = schema_of::<bool>;
/// assert!(matches!(link(), Node::Boolean));
/// ```
pub fn schema_of<T: Schema + ?Sized>() -> &'static Node {
    T::SCHEMA
}

/// Key types of maps that serde writes as JSON object keys (strings), and
/// reads back from any key. Numbers and `char` are not among them: serde
/// reads them from keys of a certain form (`"12"`, one character), which a
/// map's schema does not state.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a JSON object key in a schema",
    label = "map keys must be string-like",
    note = "use `String` (or `&str`, `Box<str>`, `Arc<str>`, `Cow<str>`) as the map's key type"
)]
pub trait MapKey {}

macro_rules! integers {
    ($($ty:ty => $min:expr, $max:expr;)*) => {$(
        impl Schema for $ty {
            const SCHEMA: &'static Node = &Node::Integer(IntegerNode {
                minimum: Some($min),
                maximum: Some($max),
                nonzero: false,
            });
        }
    )*};
}

integers! {
    i8 => Number::Int(i8::MIN as i64), Number::Int(i8::MAX as i64);
    i16 => Number::Int(i16::MIN as i64), Number::Int(i16::MAX as i64);
    i32 => Number::Int(i32::MIN as i64), Number::Int(i32::MAX as i64);
    i64 => Number::Int(i64::MIN), Number::Int(i64::MAX);
    isize => Number::Int(isize::MIN as i64), Number::Int(isize::MAX as i64);
    u8 => Number::UInt(0), Number::UInt(u8::MAX as u64);
    u16 => Number::UInt(0), Number::UInt(u16::MAX as u64);
    u32 => Number::UInt(0), Number::UInt(u32::MAX as u64);
    u64 => Number::UInt(0), Number::UInt(u64::MAX);
    usize => Number::UInt(0), Number::UInt(usize::MAX as u64);
}

macro_rules! nonzero_unsigned {
    ($($ty:ty),*) => {$(
        impl Schema for core::num::NonZero<$ty> {
            const SCHEMA: &'static Node = &Node::Integer(IntegerNode {
                minimum: Some(Number::UInt(1)),
                maximum: Some(Number::UInt(<$ty>::MAX as u64)),
                nonzero: false,
            });
        }
    )*};
}

nonzero_unsigned!(u8, u16, u32, u64, usize);

macro_rules! nonzero_signed {
    ($($ty:ty),*) => {$(
        impl Schema for core::num::NonZero<$ty> {
            const SCHEMA: &'static Node = &Node::Integer(IntegerNode {
                minimum: Some(Number::Int(<$ty>::MIN as i64)),
                maximum: Some(Number::Int(<$ty>::MAX as i64)),
                nonzero: true,
            });
        }
    )*};
}

nonzero_signed!(i8, i16, i32, i64, isize);

const NUMBER: &Node = &Node::Number(NumberNode {
    minimum: None,
    maximum: None,
});

/// Bounded by the largest finite `f32` as serde writes it (`3.4028235e38`,
/// a little above `f32::MAX` itself, and read back as it): serde would read
/// a number much past it as infinity, which JSON cannot carry back.
impl Schema for f32 {
    const SCHEMA: &'static Node = &Node::Number(NumberNode {
        minimum: Some(Number::Float(-F32_MAX_WRITTEN)),
        maximum: Some(Number::Float(F32_MAX_WRITTEN)),
    });
}

/// `f32::MAX` as serde writes it: the shortest decimal that reads back as
/// it. Every number up to it is read as a finite `f32`.
const F32_MAX_WRITTEN: f64 = 3.4028235e38;

impl Schema for f64 {
    const SCHEMA: &'static Node = NUMBER;
}

impl Schema for bool {
    const SCHEMA: &'static Node = &Node::Boolean;
}

impl Schema for () {
    const SCHEMA: &'static Node = &Node::Null;
}

impl Schema for char {
    const SCHEMA: &'static Node = &Node::String(StringNode {
        min_length: Some(1),
        max_length: Some(1),
        ..StringNode::PLAIN
    });
}

const STRING: &Node = &Node::String(StringNode::PLAIN);

macro_rules! strings {
    ($($ty:ty),*) => {$(
        impl Schema for $ty {
            const SCHEMA: &'static Node = STRING;
        }
        impl MapKey for $ty {}
    )*};
}

strings!(str, String, alloc::borrow::Cow<'_, str>);

// `Box<str>`, `Arc<str>` and `Rc<str>` get their schema through the smart
// pointer impls below; they are still string-like keys.
impl MapKey for alloc::boxed::Box<str> {}
impl MapKey for alloc::sync::Arc<str> {}
impl MapKey for alloc::rc::Rc<str> {}
impl<K: MapKey + ?Sized> MapKey for &K {}

impl<T: Schema> Schema for Option<T> {
    const SCHEMA: &'static Node = &Node::Optional(Ref::Static(T::SCHEMA));
    const SERDE_DEFAULTS: &'static [SerdeDefault] = T::SERDE_DEFAULTS;
}

macro_rules! transparent {
    ($($ty:ty),*) => {$(
        impl<T: Schema + ?Sized> Schema for $ty {
            const SCHEMA: &'static Node = T::SCHEMA;
        }
    )*};
}

transparent!(
    alloc::boxed::Box<T>,
    alloc::sync::Arc<T>,
    alloc::rc::Rc<T>,
    &T,
    &mut T
);

// `Cow<'_, T>` for owned `T`; `Cow<'_, str>` is a string above.
impl<T: Schema + Clone> Schema for alloc::borrow::Cow<'_, [T]> {
    const SCHEMA: &'static Node = <[T]>::SCHEMA;
}

const fn array(items: &'static Node, unique_items: bool) -> ArrayNode {
    ArrayNode {
        items: Ref::Static(items),
        min_items: None,
        max_items: None,
        unique_items,
    }
}

macro_rules! sequences {
    ($($ty:ty => $unique:expr),*) => {$(
        impl<T: Schema> Schema for $ty {
            const SCHEMA: &'static Node = &Node::Array(array(T::SCHEMA, $unique));
        }
    )*};
}

sequences!(
    [T] => false,
    alloc::vec::Vec<T> => false,
    alloc::collections::VecDeque<T> => false,
    alloc::collections::LinkedList<T> => false,
    alloc::collections::BTreeSet<T> => true
);

impl<T: Schema, S> Schema for std::collections::HashSet<T, S> {
    const SCHEMA: &'static Node = &Node::Array(array(T::SCHEMA, true));
}

impl<T: Schema, const N: usize> Schema for [T; N] {
    const SCHEMA: &'static Node = &Node::Array(ArrayNode {
        items: Ref::Static(T::SCHEMA),
        min_items: Some(N as u64),
        max_items: Some(N as u64),
        unique_items: false,
    });
}

impl<K: MapKey, V: Schema> Schema for alloc::collections::BTreeMap<K, V> {
    const SCHEMA: &'static Node = &Node::Map(MapNode {
        values: Ref::Static(V::SCHEMA),
    });
}

impl<K: MapKey, V: Schema, S> Schema for std::collections::HashMap<K, V, S> {
    const SCHEMA: &'static Node = &Node::Map(MapNode {
        values: Ref::Static(V::SCHEMA),
    });
}

impl Schema for serde_json::Value {
    const SCHEMA: &'static Node = &Node::Any;
}

impl Schema for serde_json::Map<String, serde_json::Value> {
    const SCHEMA: &'static Node = &Node::Map(MapNode {
        values: Ref::Static(<serde_json::Value as Schema>::SCHEMA),
    });
}

macro_rules! tuples {
    ($($name:ident)+) => {
        impl<$($name: Schema),+> Schema for ($($name,)+) {
            const SCHEMA: &'static Node = &Node::Tuple(Ref::Static(&[$(Ref::Static($name::SCHEMA)),+]));
        }
    };
}

tuples!(A);
tuples!(A B);
tuples!(A B C);
tuples!(A B C D);
tuples!(A B C D E);
tuples!(A B C D E F);

impl Schema for std::net::Ipv4Addr {
    const SCHEMA: &'static Node = &Node::String(StringNode::format("ipv4"));
}

impl Schema for std::net::Ipv6Addr {
    const SCHEMA: &'static Node = &Node::String(StringNode::format("ipv6"));
}

impl Schema for std::net::IpAddr {
    const SCHEMA: &'static Node = &Node::AnyOf(Ref::Static(&[
        Ref::Static(<std::net::Ipv4Addr as Schema>::SCHEMA),
        Ref::Static(<std::net::Ipv6Addr as Schema>::SCHEMA),
    ]));
}
