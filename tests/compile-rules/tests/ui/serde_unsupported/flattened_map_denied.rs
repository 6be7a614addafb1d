use std::collections::BTreeMap;

use serde::Deserialize;
use toolschema::Tool;

/// Tags a record; serde would refuse every tag.
#[derive(Tool, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TagRecord {
    pub id: u32,
    #[serde(flatten)]
    pub tags: BTreeMap<String, String>,
}

fn main() {}
