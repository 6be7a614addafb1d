//! `#[tool(input_schema = "file.json")]`: a tool's input schema written by
//! hand. The file is read at compile time, relative to the source file that
//! names it (as `include_str!` reads), and checked: JSON, a schema of an
//! object, JSON Schema 2020-12, no reserved property.

use std::path::PathBuf;

use serde_json::Value;
use syn::LitStr;

/// The `_schema_discovery` hint field, which Lazy mode adds to arguments.
const HINT_FIELD: &str = "_schema_discovery";

/// The 2020-12 dialect, the one arguments are validated in.
const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// A schema file, read and checked.
pub(crate) struct RawSchema {
    /// The file's text, as written.
    pub(crate) text: String,
    /// Where it is, for `include_bytes!` (so that editing it rebuilds).
    pub(crate) path: PathBuf,
}

/// Reads and checks the file `lit` names; the error is one sentence for the
/// attribute.
pub(crate) fn load(lit: &LitStr) -> Result<RawSchema, String> {
    let written = lit.value();
    let path = base_dir(lit).join(&written);
    let text = std::fs::read_to_string(&path).map_err(|error| {
        format!(
            "cannot read the schema file `{written}` ({error}); the path is relative to this source file's directory"
        )
    })?;
    let schema: Value =
        serde_json::from_str(&text).map_err(|error| format!("`{written}` is not JSON: {error}"))?;
    check(&schema).map_err(|problem| format!("`{written}` {problem}"))?;
    Ok(RawSchema { text, path })
}

/// The directory paths are relative to: the source file's, else the
/// crate's. Absolute, for `include_bytes!` reads a relative path from the
/// source file's directory, and the compiler names it from its own.
pub(crate) fn base_dir(lit: &LitStr) -> PathBuf {
    let file = lit.span().unwrap().local_file();
    let dir = match file.as_deref().and_then(std::path::Path::parent) {
        Some(dir) => dir.to_owned(),
        None => PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default()),
    };
    match std::env::current_dir() {
        Ok(cwd) if dir.is_relative() => cwd.join(dir),
        _ => dir,
    }
}

/// The rules a tool's input schema keeps (the error completes "`file` ").
fn check(schema: &Value) -> Result<(), String> {
    let Value::Object(root) = schema else {
        return Err("is not a JSON Schema object; write `{\"type\": \"object\", ...}`".to_owned());
    };
    if root.get("type") != Some(&Value::String("object".to_owned())) {
        return Err(
            "must describe an object at its root (`\"type\": \"object\"`): MCP arguments are a JSON object"
                .to_owned(),
        );
    }
    if let Some(dialect) = root.get("$schema")
        && dialect.as_str() != Some(DIALECT)
    {
        return Err(format!(
            "declares the dialect {dialect}; arguments are validated with JSON Schema 2020-12, so remove `$schema` or write \"{DIALECT}\""
        ));
    }
    if root
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|properties| properties.contains_key(HINT_FIELD))
    {
        return Err(format!(
            "has a property `{HINT_FIELD}`, which is reserved for the schema discovery hint; rename it"
        ));
    }
    Ok(())
}
