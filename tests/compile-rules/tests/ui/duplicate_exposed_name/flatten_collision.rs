use serde::Deserialize;
use toolschema::{Schema, Tool};

/// Which page.
#[derive(Schema, Deserialize)]
struct Paging {
    page: u32,
    size: u32,
}

/// What to keep.
#[derive(Schema, Deserialize)]
struct Filter {
    #[serde(rename = "size")]
    minimum_size: u32,
}

/// Lists files.
#[derive(Tool, Deserialize)]
struct ListFiles {
    query: String,
    #[serde(flatten)]
    paging: Paging,
    #[serde(flatten)]
    filter: Filter,
}

/// Lists folders: its own field is exposed as a flattened one is.
#[derive(Tool, Deserialize)]
struct ListFolders {
    #[tool(rename = "page")]
    first_page: u32,
    #[serde(flatten)]
    paging: Paging,
}

fn main() {
    let _ = toolschema::tool_json::<ListFiles>();
    let _ = toolschema::tool_json::<ListFolders>();
}
