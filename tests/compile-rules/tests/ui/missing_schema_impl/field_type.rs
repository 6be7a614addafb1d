use serde::Deserialize;
use toolschema::Tool;

#[derive(Deserialize)]
struct Opaque {
    inner: u8,
}

/// Stores a value.
#[derive(Tool, Deserialize)]
struct Store {
    value: Opaque,
}

fn main() {}
