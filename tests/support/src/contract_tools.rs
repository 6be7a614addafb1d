//! Tools over serde's attribute surface and the supported third-party
//! types: the differential test runs them beside the corpus and the demo,
//! and the `contract` fuzz target runs them alone.

#![allow(dead_code, missing_docs)]

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use toolschema::{Schema, Tool};

/// Wraps any schema type as the one argument of a tool, so that enums,
/// tuples and scalars are checked as arguments too.
#[derive(Tool, Serialize, Deserialize, Debug)]
#[tool(name = "contract.of")]
pub struct Of<T> {
    /// The value.
    pub value: T,
}

/// Whole numbers inside every enum representation.
#[derive(Tool, Serialize, Deserialize, Debug)]
#[tool(name = "contract.numbers-in-enums")]
pub struct NumbersInEnums {
    /// Internally tagged.
    pub internal: Internal,
    /// Adjacently tagged.
    pub adjacent: Adjacent,
    /// Untagged.
    pub untagged: Untagged,
    /// Externally tagged.
    pub external: External,
    /// A list of untagged values.
    pub many: Vec<Untagged>,
}

/// Internally tagged.
#[derive(Schema, Serialize, Deserialize, Debug)]
#[serde(tag = "kind")]
pub enum Internal {
    Count { count: u8 },
    Offset { by: i64, step: Option<u16> },
    Nested(Counter),
}

/// A counter.
#[derive(Schema, Serialize, Deserialize, Debug)]
pub struct Counter {
    pub value: u32,
    pub limits: Vec<i16>,
}

/// Adjacently tagged.
#[derive(Schema, Serialize, Deserialize, Debug)]
#[serde(tag = "t", content = "c")]
pub enum Adjacent {
    One(u32),
    Pair(u8, i8),
    Named { n: u64 },
}

/// Untagged.
#[derive(Schema, Serialize, Deserialize, Debug)]
#[serde(untagged)]
pub enum Untagged {
    Small(u8),
    Point { x: i32, y: i32 },
    Text(String),
}

/// Externally tagged.
#[derive(Schema, Serialize, Deserialize, Debug)]
pub enum External {
    Id(u64),
    Range(u16, u16),
    Window { from: i32, to: i32 },
}

/// The largest integer types at their edges.
#[derive(Tool, Serialize, Deserialize, Debug)]
#[tool(name = "contract.wide-integers")]
pub struct WideIntegers {
    pub signed: i64,
    pub unsigned: u64,
    pub signed_list: Vec<i64>,
    pub keyed: BTreeMap<String, u64>,
    pub maybe: Option<i64>,
}

/// Maps keyed by strings and boxed strings.
#[derive(Tool, Serialize, Deserialize, Debug)]
#[tool(name = "contract.number-keys")]
pub struct NumberKeys {
    pub letters: HashMap<String, char>,
    pub boxed: BTreeMap<Box<str>, bool>,
}

/// A flattened map beside named fields.
#[derive(Tool, Serialize, Deserialize, Debug)]
#[tool(name = "contract.flattened-map")]
pub struct FlattenedMap {
    pub name: String,
    #[serde(flatten)]
    pub rest: BTreeMap<String, u32>,
}

/// An optional flattened struct.
#[derive(Tool, Serialize, Deserialize, Debug)]
#[tool(name = "contract.flattened-option")]
pub struct FlattenedOption {
    pub id: u32,
    #[serde(flatten)]
    pub window: Option<Window>,
}

/// A time window.
#[derive(Schema, Serialize, Deserialize, Debug)]
pub struct Window {
    pub start: u32,
    pub end: u32,
}

/// A flattened struct inside a flattened struct.
#[derive(Tool, Serialize, Deserialize, Debug)]
#[tool(name = "contract.flattened-twice")]
pub struct FlattenedTwice {
    pub query: String,
    #[serde(flatten)]
    pub outer: Outer,
}

/// Brings in its own field and a flattened window.
#[derive(Schema, Serialize, Deserialize, Debug)]
pub struct Outer {
    pub label: String,
    #[serde(flatten)]
    pub window: Window,
}

/// An untagged enum whose unit variant serde reads from `null`.
#[derive(Tool, Serialize, Deserialize, Debug)]
#[tool(name = "contract.untagged-unit")]
pub struct UntaggedUnit {
    pub limit: Limit,
    pub limits: Vec<Limit>,
}

/// A limit, or none.
#[derive(Schema, Serialize, Deserialize, Debug)]
#[serde(untagged)]
pub enum Limit {
    Count(u32),
    Unlimited,
}

/// A tagged enum with a catch-all variant.
#[derive(Tool, Serialize, Deserialize, Debug)]
#[tool(name = "contract.other-variant")]
pub struct OtherVariant {
    pub internal: WithOther,
    pub adjacent: AdjacentOther,
    pub plain: PlainOther,
}

/// Internally tagged, with a catch-all.
#[derive(Schema, Serialize, Deserialize, Debug)]
#[serde(tag = "type")]
pub enum WithOther {
    Known {
        size: u8,
    },
    Empty,
    #[serde(other)]
    Unknown,
}

/// Adjacently tagged, with a catch-all.
#[derive(Schema, Serialize, Deserialize, Debug)]
#[serde(tag = "t", content = "c")]
pub enum AdjacentOther {
    Known(u8),
    #[serde(other)]
    Unknown,
}

/// Unit variants only, with a catch-all.
#[derive(Schema, Serialize, Deserialize, Debug)]
#[serde(rename_all = "lowercase")]
pub enum PlainOther {
    Low,
    High,
    #[serde(other)]
    Unknown,
}

/// Serde's naming and default attributes together.
#[derive(Tool, Serialize, Deserialize, Debug)]
#[tool(name = "contract.names-and-defaults")]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct NamesAndDefaults {
    pub first_name: String,
    #[serde(rename = "SURNAME")]
    pub last_name: String,
    #[serde(alias = "years")]
    pub age: Option<u8>,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default = "five")]
    #[tool(default = 5)]
    pub retries: u8,
    #[serde(skip_deserializing)]
    pub computed: u32,
    #[tool(rename = "exposedName")]
    pub source_name: bool,
}

fn five() -> u8 {
    5
}

/// A container default: every field may be left out.
#[derive(Tool, Serialize, Deserialize, Debug, Default)]
#[tool(name = "contract.container-default")]
#[serde(default)]
pub struct ContainerDefault {
    pub page: u32,
    pub per_page: u16,
    pub query: String,
    pub strict: bool,
}

/// Variants renamed, aliased, skipped, and their fields renamed.
#[derive(Tool, Serialize, Deserialize, Debug)]
#[tool(name = "contract.variant-names")]
pub struct VariantNames {
    pub action: Action,
    pub mode: Mode,
}

/// An action, adjacently tagged, fields in camelCase.
#[derive(Schema, Serialize, Deserialize, Debug)]
#[serde(
    tag = "op",
    content = "args",
    rename_all = "SCREAMING_SNAKE_CASE",
    rename_all_fields = "camelCase"
)]
pub enum Action {
    MoveTo {
        target_id: u32,
        keep_open: bool,
    },
    #[serde(rename = "del", alias = "delete")]
    Delete {
        item_id: u32,
    },
    #[serde(skip)]
    Internal,
}

/// A mode.
#[derive(Schema, Serialize, Deserialize, Debug)]
#[serde(rename_all = "PascalCase")]
pub enum Mode {
    ReadOnly,
    ReadWrite,
    #[serde(rename = "admin")]
    Administrator,
}

/// Bounded and formatted arguments.
#[derive(Tool, Serialize, Deserialize, Debug)]
#[tool(name = "contract.refined")]
pub struct Refined {
    #[tool(minimum = -5, maximum = 5)]
    pub small: i8,
    #[tool(minimum = 0.25, maximum = 0.75)]
    pub ratio: f32,
    #[tool(min_length = 2, max_length = 4)]
    pub code: String,
    #[tool(format = "email")]
    pub email: String,
    #[tool(format = "hostname")]
    pub host: String,
    #[tool(format = "date")]
    pub day: String,
    #[tool(format = "uri")]
    pub link: String,
    #[tool(min_items = 1, max_items = 3)]
    pub picks: Vec<u8>,
    #[tool(pattern = "^[A-Z][a-z]+$")]
    pub word: String,
    pub letter: char,
    pub big: f64,
}

/// chrono's dates and times, required and optional.
#[derive(Tool, Serialize, Deserialize, Debug)]
#[tool(name = "contract.chrono")]
pub struct ChronoTypes {
    pub day: chrono::NaiveDate,
    pub at: chrono::NaiveDateTime,
    pub clock: chrono::NaiveTime,
    pub utc: chrono::DateTime<chrono::Utc>,
    pub offset: chrono::DateTime<chrono::FixedOffset>,
    pub maybe: Option<chrono::NaiveDateTime>,
    pub days: Vec<chrono::NaiveDate>,
}

/// The time crate's dates and times in their default serde form.
#[derive(Tool, Serialize, Deserialize, Debug)]
#[tool(name = "contract.time")]
pub struct TimeTypes {
    pub day: time::Date,
    pub at: time::PrimitiveDateTime,
    pub clock: time::Time,
    pub instant: time::OffsetDateTime,
    pub maybe: Option<time::OffsetDateTime>,
}

/// The time crate's RFC 3339 forms, through serde's `with`.
#[derive(Tool, Serialize, Deserialize, Debug)]
#[tool(name = "contract.time-rfc3339")]
pub struct TimeRfc3339 {
    #[serde(with = "time::serde::rfc3339")]
    #[tool(schema = toolschema::formats::Rfc3339)]
    pub instant: time::OffsetDateTime,
}

/// Identifiers, decimals, addresses.
#[derive(Tool, Serialize, Deserialize, Debug)]
#[tool(name = "contract.identifiers")]
pub struct IdentifierTypes {
    pub id: uuid::Uuid,
    pub amount: rust_decimal::Decimal,
    pub link: url::Url,
    pub v4: std::net::Ipv4Addr,
    pub v6: std::net::Ipv6Addr,
    pub any: std::net::IpAddr,
    pub ids: Vec<uuid::Uuid>,
}

/// A field read by a function of the user's, with the schema it reads.
#[derive(Tool, Serialize, Deserialize, Debug)]
#[tool(name = "contract.read-with")]
pub struct ReadWith {
    /// A number written as a string.
    #[serde(
        deserialize_with = "number_from_text",
        serialize_with = "number_as_text"
    )]
    #[tool(schema = String, pattern = "^[0-9]{1,9}$")]
    pub count: u32,
}

fn number_from_text<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    let text = String::deserialize(deserializer)?;
    text.parse().map_err(serde::de::Error::custom)
}

fn number_as_text<S: serde::Serializer>(value: &u32, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&value.to_string())
}

/// Nested options, tuples, arrays and unit.
#[derive(Tool, Serialize, Deserialize, Debug)]
#[tool(name = "contract.shapes")]
pub struct Shapes {
    pub nested: Option<Option<u8>>,
    pub pair: (u8, String),
    pub triple: [i16; 3],
    pub unit: (),
    pub nonzero: std::num::NonZero<u16>,
    pub list_of_options: Vec<Option<bool>>,
    pub map_of_lists: BTreeMap<String, Vec<u8>>,
}

/// Enums whose variants carry defaults, options, aliases and their own
/// field naming.
#[derive(Tool, Serialize, Deserialize, Debug)]
#[tool(name = "contract.variant-fields")]
pub struct VariantFields {
    pub internal: Job,
    pub external: Step,
    pub optional_payload: Option<Step>,
}

/// A job, internally tagged; its variants' fields have defaults.
#[derive(Schema, Serialize, Deserialize, Debug)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Job {
    Build {
        target: String,
        #[serde(default)]
        release: bool,
        #[serde(default)]
        jobs: Option<u8>,
    },
    #[serde(alias = "sleep")]
    Wait {
        seconds: u32,
    },
    #[serde(rename_all = "camelCase")]
    Deploy {
        target_env: String,
        dry_run: Option<bool>,
    },
    Ping,
    Labels(BTreeMap<String, String>),
    Counts(BTreeMap<String, u32>),
    Window(Window),
}

/// A step, externally tagged.
#[derive(Schema, Serialize, Deserialize, Debug)]
#[serde(rename_all = "kebab-case")]
pub enum Step {
    RunScript { path: String, args: Vec<String> },
    Sleep(Option<u16>),
    Pair((u8, i8), bool),
    Skip,
}

/// Untagged variants that overlap.
#[derive(Tool, Serialize, Deserialize, Debug)]
#[tool(name = "contract.untagged-overlap")]
pub struct UntaggedOverlap {
    pub value: Overlap,
    pub values: Vec<Overlap>,
}

/// The first variant that reads the value is the one serde picks.
#[derive(Schema, Serialize, Deserialize, Debug)]
#[serde(untagged)]
pub enum Overlap {
    Exact { id: u32, name: String },
    Named { name: String },
    Pair(u8, u8),
    Number(f64),
    Integer(i64),
    Flag(bool),
    Nothing,
}

/// Nested containers and wrappers.
#[derive(Tool, Serialize, Deserialize, Debug)]
#[tool(name = "contract.nested")]
pub struct Nested {
    /// Deep on purpose: each layer has its own schema.
    #[allow(clippy::type_complexity)]
    pub deep: Option<Vec<Option<BTreeMap<String, Vec<i8>>>>>,
    pub tuple: (u8, (i16, bool), [u8; 2]),
    pub boxed: Box<[u16]>,
    pub queue: std::collections::VecDeque<u32>,
    pub set: std::collections::BTreeSet<i32>,
    pub maybe_nonzero: Option<std::num::NonZero<i8>>,
    pub map: serde_json::Map<String, serde_json::Value>,
    pub any: serde_json::Value,
    #[tool(required)]
    pub required_option: Option<u8>,
    #[serde(default)]
    #[tool(default = "none", examples = ["none", "all"])]
    pub with_default: String,
    pub wrapper: Meters,
    pub grid: GridPoint,
    pub marker: Marker,
}

/// A length, as serde writes its one field.
#[derive(Schema, Serialize, Deserialize, Debug)]
#[serde(transparent)]
pub struct Meters {
    pub value: f32,
}

/// A point.
#[derive(Schema, Serialize, Deserialize, Debug)]
pub struct GridPoint(pub i32, pub u16);

/// Nothing.
#[derive(Schema, Serialize, Deserialize, Debug)]
pub struct Marker;

/// Every scalar at its edges, bounded further by attributes.
#[derive(Tool, Serialize, Deserialize, Debug)]
#[tool(name = "contract.scalar-edges")]
pub struct ScalarEdges {
    pub tiny: i8,
    pub byte: u8,
    pub short: i16,
    pub word: u16,
    pub int: i32,
    pub uint: u32,
    pub size: usize,
    pub isize: isize,
    pub single: f32,
    #[tool(minimum = 1, maximum = 100)]
    pub percent: u8,
    #[tool(minimum = -1.5, maximum = 1.5)]
    pub unit: f32,
    #[tool(minimum = 1000)]
    pub big: u64,
    pub nonzero: std::num::NonZero<u64>,
    pub letter: char,
}

/// The edges the last round found where two reads of one value disagreed:
/// an f32 bound near its rounding, an untagged choice between an integer
/// and a float, an `Option` with a default of its own beside other fields,
/// an empty tuple struct, and tagged enums whose variants carry fields.
#[derive(Tool, Serialize, Deserialize, Debug)]
#[tool(name = "contract.last-edges")]
pub struct LastEdges {
    #[tool(minimum = -1.0)]
    pub y: f32,
    pub widest: f32,
    pub int_or_float: IntOrFloat,
    pub numbers: Vec<IntOrFloat>,
    #[serde(default = "some_five")]
    pub c: Option<u8>,
    pub unrelated: Option<String>,
    pub empty: Empty,
    pub reason: Reason,
    pub adjacent: Why,
    pub external: Because,
}

/// What serde reads: the integer variant for a whole number, the float
/// for the rest.
#[derive(Schema, Serialize, Deserialize, Debug)]
#[serde(untagged)]
pub enum IntOrFloat {
    I(u8),
    F(f64),
}

/// `c`'s own default.
#[allow(clippy::unnecessary_wraps)]
fn some_five() -> Option<u8> {
    Some(5)
}

/// A tuple struct of nothing.
#[derive(Schema, Serialize, Deserialize, Debug)]
pub struct Empty();

/// Internally tagged, a variant with a required field.
#[derive(Schema, Serialize, Deserialize, Debug)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reason {
    Bored,
    Other { note: String },
}

/// Adjacently tagged, the same.
#[derive(Schema, Serialize, Deserialize, Debug)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
pub enum Why {
    Bored,
    Other { note: String, count: u8 },
}

/// Externally tagged, the same.
#[derive(Schema, Serialize, Deserialize, Debug)]
#[serde(rename_all = "snake_case")]
pub enum Because {
    Bored,
    Other { note: String },
}
