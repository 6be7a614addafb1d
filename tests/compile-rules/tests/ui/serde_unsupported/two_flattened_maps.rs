use std::collections::BTreeMap;

use serde::Deserialize;
use toolschema::Tool;

/// Counts and labels by name; serde gives both maps every other key.
#[derive(Tool, Deserialize)]
pub struct CountAndLabel {
    pub id: u32,
    #[serde(flatten)]
    pub counts: BTreeMap<String, u32>,
    #[serde(flatten)]
    pub labels: BTreeMap<String, String>,
}

fn main() {}
