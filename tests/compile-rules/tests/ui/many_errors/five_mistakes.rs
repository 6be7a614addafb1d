use serde::Deserialize;
use toolschema::Tool;

/// Does several things wrong.
#[derive(Tool, Deserialize)]
#[tool(nmae = "x", version = 0)]
struct Mistakes {
    #[tool(renam = "a")]
    a: u8,
    #[tool(format = "int32")]
    b: String,
    #[tool(rename = "bad name")]
    c: u8,
    #[tool(rename = "a")]
    d: u8,
}

fn main() {
    let _ = toolschema::tool_json::<Mistakes>();
}
