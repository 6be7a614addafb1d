use serde::Deserialize;
use toolschema::Tool;

mod as_text {
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        let s: String = serde::Deserialize::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Stores a count.
#[derive(Tool, Deserialize)]
struct Store {
    #[serde(deserialize_with = "as_text::deserialize")]
    count: u32,
}

fn main() {}
