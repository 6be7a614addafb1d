use serde::Deserialize;
use toolschema::Tool;

#[derive(Deserialize)]
struct Opaque {
    inner: u8,
}

/// Stores values.
#[derive(Tool, Deserialize)]
struct Store {
    values: Vec<Opaque>,
}

fn main() {}
