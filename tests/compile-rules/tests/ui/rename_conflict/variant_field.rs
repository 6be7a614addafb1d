use serde::Deserialize;
use toolschema::Schema;

#[derive(Schema, Deserialize)]
enum Filter {
    ByName {
        #[tool(rename = "n")]
        name: String,
    },
}

fn main() {}
