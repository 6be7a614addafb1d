use serde::Deserialize;
use toolschema::Tool;

use std::collections::HashMap;

/// Counts by number.
#[derive(Tool, Deserialize)]
struct Count {
    by_number: HashMap<u32, u32>,
}

fn main() {}
