use std::collections::HashMap;

use serde::Deserialize;
use toolschema::Tool;

/// Counts letters; serde reads a `char` key only from one character.
#[derive(Tool, Deserialize)]
pub struct CountLetters {
    pub counts: HashMap<char, u32>,
}

fn main() {}
