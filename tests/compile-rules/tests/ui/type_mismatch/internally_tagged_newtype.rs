use serde::Deserialize;
use toolschema::Schema;

#[derive(Schema, Deserialize)]
#[serde(tag = "kind")]
enum Value {
    Number(f64),
}

fn main() {}
