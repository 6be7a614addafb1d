use serde::Deserialize;
use toolschema::Schema;

/// A share of a whole.
#[derive(Schema, Deserialize)]
#[serde(transparent)]
struct Percent {
    #[tool(minimum = 0, maximum = 100)]
    value: u8,
}

fn main() {}
