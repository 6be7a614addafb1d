use serde::Deserialize;
use toolschema::Schema;

#[derive(Schema, Deserialize)]
enum Value {
    Named { name: String },
    #[serde(untagged)]
    Other(String),
}

fn main() {}
