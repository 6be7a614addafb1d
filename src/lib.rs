//! toolschema
pub use toolschema_macros::{Schema, Tool};
#[doc(hidden)]
pub use toolschema_runtime::__private;
pub use toolschema_runtime::{
    Annotations, MapKey, Schema, Tool, ToolDef, json, model, render, schema_json, schema_of,
    tool_json,
};
