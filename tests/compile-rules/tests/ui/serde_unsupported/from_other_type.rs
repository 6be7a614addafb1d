use serde::Deserialize;
use toolschema::Schema;

#[derive(Deserialize)]
struct Raw {
    v: u8,
}

impl From<Raw> for Level {
    fn from(raw: Raw) -> Level {
        Level { value: raw.v }
    }
}

#[derive(Schema, Deserialize)]
#[serde(from = "Raw")]
struct Level {
    value: u8,
}

fn main() {}
