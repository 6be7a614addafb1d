//! The default a tool advertises is the one its handler gets: registration
//! refuses a `#[tool(default)]` that differs from what serde makes of a
//! field a call leaves out, naming the field's exposed path and both values.

// The handlers never read their arguments: registration is what is tested.
#![allow(dead_code)]

use serde::Deserialize;
use toolschema::call::{Context, Handler, Registry, RegistryError, ToolError, ToolResult};
use toolschema::{Schema, Tool};

fn twenty_five() -> u32 {
    25
}

fn twenty() -> u32 {
    20
}

/// Lists invoices.
#[derive(Tool, Deserialize)]
#[tool(name = "defaults.disagree", rename_all = "camelCase")]
struct Disagree {
    /// How many.
    #[tool(default = 20)]
    #[serde(default = "twenty_five")]
    page_size: u32,
}

/// Lists invoices.
#[derive(Tool, Deserialize)]
#[tool(name = "defaults.agree")]
struct Agree {
    /// How many.
    #[tool(default = 20)]
    #[serde(default = "twenty")]
    limit: u32,
    /// Include voided ones.
    #[tool(default = false)]
    #[serde(default)]
    voided: bool,
    /// A ratio (20 and 20.0 are one value).
    #[tool(default = 0.0)]
    #[serde(default)]
    ratio: f64,
    /// A kind whose type serde cannot write: not compared.
    #[tool(default = "plain")]
    #[serde(default)]
    kind: Kind,
}

/// A kind of listing.
#[derive(Schema, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
enum Kind {
    #[default]
    Detailed,
    Plain,
}

/// Paging, nested in a tool's arguments.
#[derive(Schema, Deserialize, Default)]
#[serde(default)]
struct Paging {
    /// How many a page.
    #[tool(default = 50)]
    size: u32,
}

/// Lists with paging.
#[derive(Tool, Deserialize)]
#[tool(name = "defaults.nested")]
struct Nested {
    /// The paging.
    paging: Option<Paging>,
}

fn seven() -> u32 {
    7
}

/// Reads a count written as text.
fn from_text<'de, D: serde::Deserializer<'de>>(reader: D) -> Result<u32, D::Error> {
    let text = String::deserialize(reader)?;
    text.parse().map_err(serde::de::Error::custom)
}

/// Counts, the count written as text.
#[derive(Tool, Deserialize)]
#[tool(name = "defaults.with")]
struct WrittenOtherwise {
    /// How many, as text.
    #[tool(schema = String, default = "7")]
    #[serde(default = "seven", deserialize_with = "from_text")]
    count: u32,
}

macro_rules! handle {
    ($($tool:ty),*) => {$(
        impl Handler for $tool {
            async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
                Ok(ToolResult::text("ok"))
            }
        }
    )*};
}
handle!(Disagree, Agree, Nested, WrittenOtherwise);

#[test]
fn an_advertised_default_serde_does_not_give_is_refused_with_both_values() {
    let mut registry = Registry::new();
    let refused = registry
        .register::<Disagree>()
        .map(|_| ())
        .expect_err("refused");
    let RegistryError::DefaultDisagrees {
        field,
        advertised,
        serde,
        ..
    } = &refused
    else {
        panic!("{refused:?}");
    };
    assert_eq!(
        (field.as_str(), advertised.as_str(), serde.as_str()),
        ("/pageSize", "20", "25")
    );
    let message = refused.to_string();
    assert!(
        message.contains("`/pageSize` advertises the default 20, but serde gives 25"),
        "{message}"
    );
    assert!(!message.contains("page_size"), "{message}");
    assert!(registry.tools().next().is_none(), "nothing registered");
}

#[test]
fn agreeing_defaults_register() {
    let mut registry = Registry::new();
    registry.register::<Agree>().expect("every default agrees");
}

#[test]
fn a_nested_types_default_is_checked_at_its_path() {
    // `Paging` defaults `size` to 0 (its `Default`), and advertises 50.
    let mut registry = Registry::new();
    let refused = registry
        .register::<Nested>()
        .map(|_| ())
        .expect_err("refused");
    assert!(
        matches!(&refused, RegistryError::DefaultDisagrees { field, advertised, serde, .. }
            if field == "/paging/size" && advertised == "50" && serde == "0"),
        "{refused:?}"
    );
}

#[test]
fn a_field_serde_reads_through_other_code_is_not_compared() {
    // Its type would write 7 where the schema's string "7" stands.
    let mut registry = Registry::new();
    registry
        .register::<WrittenOtherwise>()
        .expect("not compared: serde writes it otherwise");
}
