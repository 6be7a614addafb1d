//! Build-time export of a catalog as `server.json`, kept true by a check.
//!
//! `cargo run --example export` compares `examples/server.json` with the
//! demo catalog (the billing and support tools under `examples/catalog.toml`)
//! and fails with a readable diff when the committed file is stale;
//! `TOOLSCHEMA_BLESS=1 cargo run --example export` rewrites it. The same
//! call works in a test or a build step; this repository runs it in
//! `tests/suite/export.rs`, so CI keeps the file true.

use toolschema::export::{Scope, Verdict, export, verify_file};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let catalog = toolschema_demo::catalog();
    let document = export(&catalog.snapshot(), Scope::Catalog)?;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/server.json");
    match verify_file(path, &document)? {
        Verdict::Fresh => println!("{path} is up to date"),
        Verdict::Blessed => println!("{path} rewritten"),
    }
    Ok(())
}
