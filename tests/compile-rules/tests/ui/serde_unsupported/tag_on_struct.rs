use serde::Deserialize;
use toolschema::Schema;

#[derive(Schema, Deserialize)]
#[serde(tag = "type")]
struct Point {
    x: i32,
}

fn main() {}
