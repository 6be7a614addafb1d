//! The static schema model.
//!
//! Every type that implements [`Schema`] describes itself with a
//! `&'static` [`Node`]. The derives emit these nodes as constant data, so
//! describing a type never allocates; JSON is rendered from the model once,
//! when a catalog is built (see [`render`](crate::render)).
//!
//! The model holds its parts through [`Ref`]: constant data for derived
//! types, or shared data for tools built at run time from configuration,
//! freed when the last catalog that uses them goes. Fields and variant
//! payloads link to derived types lazily ([`Ref::Lazy`] over a
//! [`SchemaFn`]); that indirection is what lets a type refer to itself
//! (recursion) without a cycle in constant evaluation.

use core::fmt;

mod link;
mod members;
mod schema;
mod third_party;
mod tool;
#[doc(hidden)]
pub mod walk;

pub use link::{Ref, Text};
pub use members::Direction;
#[doc(hidden)]
pub use members::{Member, flattened, members};
pub use schema::{MapKey, Schema, SerdeDefault, schema_of};
pub use tool::{Annotations, Icon, IconTheme, Tool, ToolDef};

/// A link to the schema of another type: calling it returns that type's node.
///
/// Obtain one with [`schema_of`]; the model holds it as [`Ref::Lazy`].
pub type SchemaFn = fn() -> &'static Node;

/// A link to a node: constant, lazy (another derived type) or shared.
pub type NodeRef = Ref<Node>;

/// One node of the schema model: the JSON shape of a Rust type.
#[derive(Debug)]
pub enum Node {
    /// Any JSON value (`serde_json::Value`): renders as `{}`.
    Any,
    /// The JSON `null` (the unit type `()`).
    Null,
    /// `true` or `false`.
    Boolean,
    /// A whole number within bounds.
    Integer(IntegerNode),
    /// Any JSON number.
    Number(NumberNode),
    /// A string, with an optional standard format, pattern and length bounds.
    String(StringNode),
    /// A homogeneous array (`Vec<T>`, sets, slices, fixed-size arrays).
    Array(ArrayNode),
    /// A fixed-length array of positional items (tuples, tuple structs).
    Tuple(Ref<[NodeRef]>),
    /// An object with arbitrary string keys (`HashMap<String, V>`).
    Map(MapNode),
    /// An object with named properties (a struct).
    Object(ObjectNode),
    /// An enum, shaped as serde represents it.
    Enum(EnumNode),
    /// `Option<T>`: as a field it makes the field optional; elsewhere the value
    /// may also be `null`.
    Optional(NodeRef),
    /// One of several alternatives, the first that matches (`IpAddr`).
    AnyOf(Ref<[NodeRef]>),
    /// A schema written by hand, as JSON text (`#[tool(input_schema =
    /// "file.json")]`): rendered as written, and the arguments validated
    /// against it alone. Only a tool's input root may be one.
    Raw(Text),
}

impl Node {
    /// Whether this node is `Option<T>`: as a field, it may be absent.
    pub const fn is_optional(&self) -> bool {
        matches!(self, Node::Optional(_))
    }

    /// The node inside `Option<T>`, or this node.
    pub fn unwrap_optional(&self) -> &Node {
        match self {
            Node::Optional(inner) => inner.unwrap_optional(),
            other => other,
        }
    }

    /// Whether every value of this schema is a JSON object (a struct, a
    /// map, an enum whose variants are all objects), as a tool's output had
    /// to be before MCP 2026-07-28.
    ///
    /// ```
    /// use toolschema_schema::model::Schema;
    /// use std::collections::BTreeMap;
    /// assert!(<BTreeMap<String, u8> as Schema>::SCHEMA.is_json_object());
    /// assert!(!<Vec<u8> as Schema>::SCHEMA.is_json_object());
    /// assert!(!<Option<BTreeMap<String, u8>> as Schema>::SCHEMA.is_json_object());
    /// ```
    pub fn is_json_object(&self) -> bool {
        match self {
            Node::Object(_) | Node::Map(_) => true,
            Node::Enum(enumeration) => match enumeration.tagging {
                Tagging::Internal { .. } | Tagging::Adjacent { .. } => true,
                Tagging::External => enumeration
                    .variants
                    .iter()
                    .all(|variant| !matches!(variant.shape, Shape::Unit)),
                Tagging::Untagged => false,
            },
            _ => false,
        }
    }
}

/// A JSON number written in the model: a bound or a literal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    /// A negative or small whole number.
    Int(i64),
    /// A whole number that may exceed `i64::MAX`.
    UInt(u64),
    /// A fractional number.
    Float(f64),
}

impl Number {
    /// `self < other`, exactly across the three kinds of number.
    ///
    /// ```
    /// use toolschema_schema::model::Number;
    ///
    /// assert!(Number::Int(-1).is_less_than(Number::UInt(u64::MAX)));
    /// assert!(Number::UInt(2).is_less_than(Number::Float(2.5)));
    /// assert!(!Number::UInt(u64::MAX).is_less_than(Number::Int(i64::MAX)));
    /// ```
    pub const fn is_less_than(self, other: Number) -> bool {
        match (self, other) {
            (Number::Float(a), b) => a < b.as_f64(),
            (a, Number::Float(b)) => a.as_f64() < b,
            (a, b) => a.as_i128() < b.as_i128(),
        }
    }

    /// The number as a float (whole numbers beyond 2^53 rounded).
    pub const fn as_f64(self) -> f64 {
        match self {
            Number::Int(n) => n as f64,
            Number::UInt(n) => n as f64,
            Number::Float(n) => n,
        }
    }

    /// A whole number, exactly (a float truncated).
    const fn as_i128(self) -> i128 {
        match self {
            Number::Int(n) => n as i128,
            Number::UInt(n) => n as i128,
            Number::Float(n) => n as i128,
        }
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Number::Int(n) => write!(f, "{n}"),
            Number::UInt(n) => write!(f, "{n}"),
            Number::Float(n) => write!(f, "{n}"),
        }
    }
}

/// A JSON literal written in the model: an example or a default value.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number.
    Number(Number),
    /// A string.
    Str(Text),
}

/// `integer` with inclusive bounds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IntegerNode {
    /// The smallest allowed value.
    pub minimum: Option<Number>,
    /// The largest allowed value.
    pub maximum: Option<Number>,
    /// Whether zero is excluded (signed `NonZero*` types).
    pub nonzero: bool,
}

/// `number` with optional inclusive bounds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NumberNode {
    /// The smallest allowed value.
    pub minimum: Option<Number>,
    /// The largest allowed value.
    pub maximum: Option<Number>,
}

/// `string` with its refinements.
#[derive(Debug, Clone, PartialEq)]
pub struct StringNode {
    /// A standard JSON Schema format (`date`, `uuid`, …).
    pub format: Option<Text>,
    /// An ECMA-262 regular expression the whole value must match.
    pub pattern: Option<Text>,
    /// The least number of characters.
    pub min_length: Option<u64>,
    /// The most characters.
    pub max_length: Option<u64>,
}

impl StringNode {
    /// A plain string with no refinement.
    pub const PLAIN: StringNode = StringNode {
        format: None,
        pattern: None,
        min_length: None,
        max_length: None,
    };

    /// A string with a standard format.
    pub const fn format(format: &'static str) -> StringNode {
        StringNode {
            format: Some(Ref::Static(format)),
            ..StringNode::PLAIN
        }
    }

    /// A string that matches a pattern.
    pub const fn pattern(pattern: &'static str) -> StringNode {
        StringNode {
            pattern: Some(Ref::Static(pattern)),
            ..StringNode::PLAIN
        }
    }
}

/// `array` of one item type.
#[derive(Debug, Clone)]
pub struct ArrayNode {
    /// The schema of every item.
    pub items: NodeRef,
    /// The least number of items.
    pub min_items: Option<u64>,
    /// The most items.
    pub max_items: Option<u64>,
    /// Whether items are unique (sets).
    pub unique_items: bool,
}

/// `object` with string keys and one value type.
#[derive(Debug, Clone)]
pub struct MapNode {
    /// The schema of every value.
    pub values: NodeRef,
}

/// The identity and documentation of a derived type.
#[derive(Debug, Clone)]
pub struct TypeInfo {
    /// The type's Rust name, used to name it under `$defs` when it recurses.
    pub name: Text,
    /// The full type name, with generic arguments: the identity used to detect
    /// recursion (`Ref::Lazy(core::any::type_name::<Self>)`; unique per
    /// object for tools built from configuration).
    pub type_name: Text,
    /// The `title` keyword.
    pub title: Option<Text>,
    /// The type's description (its doc comment).
    pub description: Option<Text>,
}

/// What an object says about properties it does not list.
#[derive(Debug, Clone, Copy)]
pub enum Additional {
    /// Unknown properties are refused (`additionalProperties: false`).
    Deny,
    /// Unknown properties are allowed (the keyword is omitted).
    Allow,
}

/// `object` with named properties: a struct.
#[derive(Debug, Clone)]
pub struct ObjectNode {
    /// The type's name and documentation.
    pub info: TypeInfo,
    /// The properties, in declaration order.
    pub fields: Ref<[Field]>,
    /// What the object says about properties it does not list.
    pub additional: Additional,
}

/// One property of an object.
#[derive(Debug, Clone)]
pub struct Field {
    /// The name a client sees (`#[tool(rename)]`, else the serde name).
    pub exposed: Text,
    /// The name serde reads and writes; never shown to a client.
    pub source: Text,
    /// Other names serde accepts when reading (`#[serde(alias)]`); accepted at
    /// call time, never advertised.
    pub aliases: Ref<[Text]>,
    /// The property's description (its doc comment).
    pub description: Option<Text>,
    /// The field's type.
    pub schema: NodeRef,
    /// Whether a reader must receive the property.
    pub presence: Presence,
    /// `#[serde(flatten)]`: the type's properties are merged into this object.
    pub flatten: bool,
    /// Whether serde reads the field (false with `skip_deserializing`).
    pub read: bool,
    /// Whether serde writes the field (false with `skip_serializing`).
    pub written: bool,
    /// Whether serde may leave the field out when writing
    /// (`skip_serializing_if`).
    pub omitted_when_written: bool,
    /// Refinements written on the field (`format`, bounds, …).
    pub refine: Refine,
    /// The default value advertised to clients.
    pub default: Option<Literal>,
    /// Example values advertised to clients.
    pub examples: Ref<[Literal]>,
    /// The HTTP header a tool argument is mirrored in, as the `x-mcp-header`
    /// keyword says (`#[tool(header = "Region")]`: `Mcp-Param-Region`).
    pub header: Option<Text>,
}

impl Field {
    /// A field with every option at its neutral value; the derives start from
    /// this and set what the source says.
    pub const BLANK: Field = Field {
        exposed: Ref::Static(""),
        source: Ref::Static(""),
        aliases: Ref::Static(&[]),
        description: None,
        schema: Ref::Static(&Node::Any),
        presence: Presence::FromType,
        flatten: false,
        read: true,
        written: true,
        omitted_when_written: false,
        refine: Refine::NONE,
        default: None,
        examples: Ref::Static(&[]),
        header: None,
    };
}

impl Field {
    /// Whether a reader must receive the property.
    ///
    /// With [`Presence::FromType`] this looks at the field's type, at render
    /// time: evaluating it in the derived constant could close a cycle when
    /// the type contains itself.
    pub fn is_required(&self) -> bool {
        match self.presence {
            Presence::Required => true,
            Presence::Optional => false,
            Presence::FromType => !self.schema.is_optional(),
        }
    }
}

/// Whether a field must be present.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    /// Required, even if its type is `Option<T>` (`#[tool(required)]`).
    Required,
    /// May be left out: it has a default, or serde skips it.
    Optional,
    /// Required unless its type is `Option<T>`.
    FromType,
}

/// Refinements of a field's type, written as field attributes.
#[derive(Debug, Clone, PartialEq)]
pub struct Refine {
    /// Overrides the string format.
    pub format: Option<Text>,
    /// Overrides the string pattern.
    pub pattern: Option<Text>,
    /// The least number of characters.
    pub min_length: Option<u64>,
    /// The most characters.
    pub max_length: Option<u64>,
    /// The smallest number allowed.
    pub minimum: Option<Number>,
    /// The largest number allowed.
    pub maximum: Option<Number>,
    /// The least number of items.
    pub min_items: Option<u64>,
    /// The most items.
    pub max_items: Option<u64>,
}

impl Refine {
    /// No refinement.
    pub const NONE: Refine = Refine {
        format: None,
        pattern: None,
        min_length: None,
        max_length: None,
        minimum: None,
        maximum: None,
        min_items: None,
        max_items: None,
    };

    /// Whether any string keyword is set.
    pub const fn has_string_keywords(&self) -> bool {
        self.format.is_some()
            || self.pattern.is_some()
            || self.min_length.is_some()
            || self.max_length.is_some()
    }

    /// Whether any number keyword is set.
    pub const fn has_number_keywords(&self) -> bool {
        self.minimum.is_some() || self.maximum.is_some()
    }

    /// Whether any array keyword is set.
    pub const fn has_array_keywords(&self) -> bool {
        self.min_items.is_some() || self.max_items.is_some()
    }
}

/// How serde tags the variants of an enum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tagging {
    /// `{"Variant": payload}`, and unit variants as strings (serde's default).
    External,
    /// `#[serde(tag = "t")]`: `{"t": "Variant", ...fields}`.
    Internal {
        /// The tag property.
        tag: Text,
    },
    /// `#[serde(tag = "t", content = "c")]`: `{"t": "Variant", "c": payload}`.
    Adjacent {
        /// The tag property.
        tag: Text,
        /// The content property.
        content: Text,
    },
    /// `#[serde(untagged)]`: the payload alone.
    Untagged,
}

/// An enum.
#[derive(Debug, Clone)]
pub struct EnumNode {
    /// The type's name and documentation.
    pub info: TypeInfo,
    /// How variants are tagged.
    pub tagging: Tagging,
    /// The variants serde reads, in declaration order.
    pub variants: Ref<[Variant]>,
}

impl EnumNode {
    /// Whether every variant is a unit variant and the enum is externally
    /// tagged: serde reads it as a plain string.
    pub fn is_string_enum(&self) -> bool {
        self.tagging == Tagging::External
            && self.variants.iter().all(|v| matches!(v.shape, Shape::Unit))
    }
}

/// One variant of an enum.
#[derive(Debug, Clone)]
pub struct Variant {
    /// The variant's name as serde writes it.
    pub name: Text,
    /// The variant's description (its doc comment).
    pub description: Option<Text>,
    /// What the variant carries.
    pub shape: Shape,
}

/// What a variant carries.
#[derive(Debug, Clone)]
pub enum Shape {
    /// Nothing.
    Unit,
    /// One unnamed value.
    Newtype(NodeRef),
    /// Several unnamed values.
    Tuple(Ref<[NodeRef]>),
    /// Named fields.
    Struct(Ref<[Field]>),
}
