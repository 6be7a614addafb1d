//! The example corpus: types that together cover every row of the type
//! mapping, every attribute, nesting, each enum representation and recursion.
//! Snapshots, meta-schema checks and round trips all run over this list.

#![allow(dead_code)]

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::num::NonZero;
use std::rc::Rc;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use toolschema::model::Direction;
use toolschema::render::Json;
use toolschema::render::{render_schema, render_tool};
use toolschema::{Schema, Tool};

use crate::input_schema::BookRoom;

/// Every integer width, floats, booleans and characters.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct Scalars {
    pub flag: bool,
    pub tiny: i8,
    pub small: i16,
    pub medium: i32,
    pub large: i64,
    pub pointer_sized: isize,
    pub byte: u8,
    pub word: u16,
    pub double_word: u32,
    pub quad_word: u64,
    pub unsigned_pointer_sized: usize,
    pub positive: NonZero<u32>,
    pub nonzero_signed: NonZero<i64>,
    pub ratio: f32,
    pub precise: f64,
    pub initial: char,
}

/// Every string-like type.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct Strings {
    pub owned: String,
    pub cow: Cow<'static, str>,
    pub boxed: Box<str>,
    pub shared: Arc<str>,
}

/// Absent, optional and required-optional fields.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct Optionals {
    /// Optional: may be left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nickname: Option<String>,
    /// An `Option` made required.
    #[tool(required)]
    pub middle_name: Option<String>,
    /// Optional through `#[serde(default)]`.
    #[serde(default)]
    pub retries: u32,
    /// Items that may each be null.
    pub scores: Vec<Option<u8>>,
}

/// Every collection type.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct Collections {
    pub list: Vec<String>,
    pub queue: VecDeque<i32>,
    pub triple: [u8; 3],
    pub tags: BTreeSet<String>,
    pub labels: HashSet<String>,
    pub counts: BTreeMap<String, u64>,
    pub lookup: HashMap<Box<str>, bool>,
    pub pair: (String, i32),
    pub boxed_slice: Box<[u16]>,
}

/// Pointers are transparent, `Value` accepts anything, `()` is null.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct Pointers {
    pub boxed: Box<u8>,
    pub shared: Arc<String>,
    pub counted: Rc<bool>,
    pub anything: serde_json::Value,
    pub nothing: (),
}

/// Dates and times from chrono.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct ChronoTimes {
    pub day: chrono::NaiveDate,
    pub instant: chrono::DateTime<chrono::Utc>,
    pub offset_instant: chrono::DateTime<chrono::FixedOffset>,
    pub local: chrono::NaiveDateTime,
    pub clock: chrono::NaiveTime,
}

/// Dates and times from the time crate.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct TimeTimes {
    pub day: time::Date,
    /// RFC 3339 through serde's `with`, so the schema is stated.
    #[serde(with = "time::serde::rfc3339")]
    #[tool(schema = toolschema::formats::Rfc3339)]
    pub instant: time::OffsetDateTime,
    pub local: time::PrimitiveDateTime,
    pub clock: time::Time,
}

/// Identifiers, decimals, addresses.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct Identifiers {
    pub id: uuid::Uuid,
    pub amount: rust_decimal::Decimal,
    pub homepage: url::Url,
    pub v4: Ipv4Addr,
    pub v6: Ipv6Addr,
    pub either: IpAddr,
}

/// A primary color.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    /// The color of fire.
    Red,
    /// The color of grass.
    Green,
    #[serde(rename = "azure")]
    Blue,
}

/// A shape, externally tagged (serde's default).
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub enum Shape {
    /// A point has no size.
    Point,
    /// A circle by its radius.
    Circle(f64),
    /// A rectangle by width and height.
    Rectangle(f64, f64),
    /// A polygon by its corners.
    Polygon {
        corners: Vec<(f64, f64)>,
        closed: bool,
    },
}

/// An event, internally tagged.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The service started.
    Started,
    /// A user signed in.
    SignedIn {
        user: String,
        at: chrono::DateTime<chrono::Utc>,
    },
    /// A payment arrived.
    Paid(Payment),
}

/// A payment.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct Payment {
    pub amount_cents: u64,
    pub currency: String,
}

/// A message, adjacently tagged.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
#[serde(tag = "kind", content = "body", rename_all_fields = "camelCase")]
pub enum Message {
    Ping,
    Text(String),
    Move(i32, i32),
    Edit { message_id: u64, new_text: String },
}

/// A setting, untagged: whichever shape fits.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
#[serde(untagged)]
pub enum Setting {
    Unset,
    Flag(bool),
    Many(Vec<String>),
    Detailed { value: String, locked: bool },
}

/// A postal address.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct Address {
    /// Street and number.
    pub street: String,
    pub city: String,
    /// ISO 3166-1 alpha-2.
    #[tool(min_length = 2, max_length = 2, pattern = "^[A-Z]{2}$")]
    pub country: String,
}

/// A customer, with nested objects inlined.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct Customer {
    pub name: String,
    /// Where invoices go.
    pub billing: Address,
    /// Where parcels go, if elsewhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shipping: Option<Address>,
    pub favourite: Color,
}

/// A tree: the type contains itself.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct Tree {
    pub label: String,
    pub children: Vec<Tree>,
}

/// A folder that holds a tree and its own parent (two recursive types).
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct Folder {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<Box<Folder>>,
    pub tree: Tree,
}

/// An arithmetic expression: recursion through an enum.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum Expr {
    Literal { value: i64 },
    Add { left: Box<Expr>, right: Box<Expr> },
    Negate { operand: Box<Expr> },
}

/// Two recursive types of the same name, from two modules: their `$defs`
/// keys must differ.
pub mod left {
    use super::*;

    /// A node of the left tree.
    #[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
    pub struct Node {
        #[serde(skip_serializing_if = "Option::is_none")]
        pub next: Option<Box<Node>>,
    }
}

pub mod right {
    use super::*;

    /// A node of the right tree.
    #[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
    pub struct Node {
        pub children: Vec<Node>,
    }
}

/// Holds both trees.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct TwoTrees {
    pub left: left::Node,
    pub right: right::Node,
}

/// Serde's naming attributes.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SerdeNames {
    pub first_name: String,
    #[serde(rename = "surname")]
    pub last_name: String,
    #[serde(alias = "mail")]
    pub email_address: String,
    #[serde(skip)]
    pub cache: u32,
    #[serde(skip_deserializing)]
    pub computed: u32,
}

/// Common paging parameters, flattened into requests.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct Paging {
    /// Items per page.
    #[tool(minimum = 1, maximum = 500)]
    pub per_page: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// A search with flattened paging and free-form filters.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct Flattened {
    pub query: String,
    #[serde(flatten)]
    pub paging: Paging,
    #[serde(flatten)]
    pub filters: BTreeMap<String, String>,
}

/// An ID that serializes as its string.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
#[serde(transparent)]
pub struct Sku {
    pub code: String,
}

/// Newtype, tuple and unit structs.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct Meters(pub f64);

/// A point on a grid.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct GridPoint(pub i32, pub i32);

/// Nothing at all.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct Nothing;

/// Wrappers of the three struct shapes.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct Shapes {
    pub sku: Sku,
    pub length: Meters,
    pub at: GridPoint,
    pub marker: Nothing,
}

/// A page of items of any type.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub total: u64,
}

/// Pages of two item types.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct Generic {
    pub colors: Page<Color>,
    pub addresses: Page<Address>,
}

/// Structured documentation.
///
/// This paragraph is
/// hard-wrapped in the source
/// and reads as one line.
///
/// Steps:
/// - open the ledger
///   at the first page
/// - count the rows
///
/// ```text
/// total = sum(rows)
///   indented stays
/// ```
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct Documented {
    /// One
    /// field doc.
    pub value: u8,
}

#[doc = include_str!("included.md")]
#[doc = concat!("Built for version ", "1", ".")]
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct IncludedDocs {
    pub query: String,
}

#[doc = include_str!("included_rich.md")]
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct RichIncluded {
    pub period: String,
}

/// # Exports invoices
///
/// Writes every invoice of a period to a file,
/// one line per invoice, and returns where the
/// file is.
///
/// - `csv`: comma-separated values, with a
///   header line
/// - `json`: one object per line
/// 1. pick a period
/// 2) pick a format
///
/// | format | header |
/// | --- | --- |
/// | csv | yes |
///
/// > Large periods take
/// > a while.
///
/// ```text
/// 2026-01-01,INV-1,  125.00
///   indented inside the fence
/// ```
///
///     an indented block
///       keeps its indent
///
/// The end,
///    with a wrapped line.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct RichWritten {
    pub period: String,
}

/// Accepts properties it does not list.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
#[tool(allow_unknown_fields, title = "Open record")]
pub struct OpenRecord {
    pub id: u32,
}

/// Every field attribute.
#[derive(Tool, Serialize, Deserialize, Debug, PartialEq)]
#[tool(name = "corpus.field-attributes")]
pub struct FieldAttributes {
    /// The exposed name differs from the source name; it also travels in
    /// the `Mcp-Param-User` header.
    #[tool(rename = "userId", header = "User")]
    pub user_id: u64,
    #[tool(description = "Stated in the attribute, not a doc comment.")]
    pub note: String,
    /// Has a default value.
    #[serde(default = "default_page_size")]
    #[tool(default = 25)]
    pub page_size: u32,
    /// Has a default, not advertised.
    #[serde(default)]
    #[tool(default)]
    pub verbose: bool,
    /// Hidden from clients.
    #[serde(default)]
    #[tool(skip)]
    pub trace_id: String,
    #[tool(format = "email", examples = ["ada@example.com", "alan@example.com"])]
    pub email: String,
    #[tool(minimum = -10, maximum = 10)]
    pub offset: i32,
    #[tool(minimum = 0.5, maximum = 99.5)]
    pub percent: f64,
    #[tool(min_length = 3, max_length = 20, pattern = "^[a-z0-9-]+$")]
    pub slug: String,
    #[tool(min_items = 1, max_items = 5)]
    pub tags: Vec<String>,
    /// Required although an `Option`.
    #[tool(required)]
    pub reason: Option<String>,
}

fn default_page_size() -> u32 {
    25
}

/// Every container attribute.
///
/// This doc is replaced by the `description` attribute.
#[derive(Tool, Serialize, Deserialize, Debug, PartialEq)]
#[tool(
    name = "corpus.container-attributes",
    title = "Container attributes",
    description = "Archives a document.",
    output = Receipt,
    version = 3,
    rename_all = "camelCase",
    annotations(read_only = false, destructive, idempotent, open_world = false),
    internal
)]
pub struct ContainerAttributes {
    pub document_id: uuid::Uuid,
    pub keep_for_days: Option<u16>,
}

/// Proof that a document was archived.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct Receipt {
    pub archived_at: chrono::DateTime<chrono::Utc>,
}

/// A tool whose name comes from the struct and whose output is an enum.
#[derive(Tool, Serialize, Deserialize, Debug, PartialEq)]
#[tool(output = Event)]
pub struct PollEvents {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<chrono::DateTime<chrono::Utc>>,
}

/// A tool over recursive input.
#[derive(Tool, Serialize, Deserialize, Debug, PartialEq)]
#[tool(name = "corpus.evaluate", output = Evaluation)]
pub struct Evaluate {
    /// The expression to evaluate.
    pub expression: Expr,
    /// Shows the work as a tree.
    pub explain: Option<bool>,
}

/// The value of an expression.
#[derive(Schema, Serialize, Deserialize, Debug, PartialEq)]
pub struct Evaluation {
    pub value: i64,
    pub steps: BTreeMap<String, Tree>,
}

/// A tool whose input is itself recursive.
#[derive(Tool, Serialize, Deserialize, Debug, PartialEq)]
#[tool(name = "corpus.self-referential")]
pub struct SelfReferential {
    pub name: String,
    #[serde(default)]
    pub next: Option<Box<SelfReferential>>,
}

/// One corpus entry: a snapshot name and its rendered schema.
pub struct Entry {
    pub name: &'static str,
    pub json: Json,
}

fn schema<T: Schema>(name: &'static str) -> Entry {
    Entry {
        name,
        json: render_schema(T::SCHEMA, Direction::Input),
    }
}

fn tool<T: Tool>(name: &'static str) -> Entry {
    Entry {
        name,
        json: render_tool(T::TOOL),
    }
}

/// Every schema type of the corpus.
pub fn schemas() -> Vec<Entry> {
    vec![
        schema::<Scalars>("scalars"),
        schema::<Strings>("strings"),
        schema::<Optionals>("optionals"),
        schema::<Collections>("collections"),
        schema::<Pointers>("pointers"),
        schema::<ChronoTimes>("chrono_times"),
        schema::<TimeTimes>("time_times"),
        schema::<Identifiers>("identifiers"),
        schema::<Color>("color"),
        schema::<Shape>("shape"),
        schema::<Event>("event"),
        schema::<Message>("message"),
        schema::<Setting>("setting"),
        schema::<Customer>("customer"),
        schema::<Tree>("tree"),
        schema::<Folder>("folder"),
        schema::<Expr>("expr"),
        schema::<TwoTrees>("two_trees"),
        schema::<SerdeNames>("serde_names"),
        schema::<Flattened>("flattened"),
        schema::<Shapes>("shapes"),
        schema::<Generic>("generic"),
        schema::<Documented>("documented"),
        schema::<IncludedDocs>("included_docs"),
        schema::<OpenRecord>("open_record"),
    ]
}

/// The tool definitions of the corpus, by snapshot name.
pub fn tool_defs() -> Vec<(&'static str, &'static toolschema::ToolDef)> {
    vec![
        ("tool_field_attributes", FieldAttributes::TOOL),
        ("tool_container_attributes", ContainerAttributes::TOOL),
        ("tool_poll_events", PollEvents::TOOL),
        ("tool_evaluate", Evaluate::TOOL),
        ("tool_self_referential", SelfReferential::TOOL),
        ("tool_book_room", BookRoom::TOOL),
    ]
}

/// Every tool of the corpus.
pub fn tools() -> Vec<Entry> {
    vec![
        tool::<FieldAttributes>("tool_field_attributes"),
        tool::<ContainerAttributes>("tool_container_attributes"),
        tool::<PollEvents>("tool_poll_events"),
        tool::<Evaluate>("tool_evaluate"),
        tool::<SelfReferential>("tool_self_referential"),
        tool::<BookRoom>("tool_book_room"),
    ]
}
