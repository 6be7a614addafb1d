//! The inbound path of one tool type, without a registry: [`parse_args`].

use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};

use serde::de::DeserializeOwned;

use crate::model::Tool;
use crate::validate::{ArgumentErrors, InputValidator, Limits};

/// The input validator of `T`, compiled on first use and kept for the life
/// of the process (one per tool type).
///
/// Keyed by the address of `T`'s descriptor. The first [`SLOTS`] tool types
/// live in a table read without locks or reference counts (one acquire load
/// per probe); any beyond that share a map behind a lock.
fn input_validator<T: Tool>() -> &'static InputValidator {
    const SLOTS: usize = 256;
    type Slot = OnceLock<(usize, &'static InputValidator)>;
    static TABLE: [Slot; SLOTS] = [const { OnceLock::new() }; SLOTS];
    static OVERFLOW: OnceLock<RwLock<HashMap<usize, &'static InputValidator>>> = OnceLock::new();

    let key = core::ptr::from_ref(T::TOOL) as usize;
    let compile = || -> &'static InputValidator {
        Box::leak(Box::new(InputValidator::new(T::TOOL, Limits::default())))
    };
    // Descriptors are at least 8-byte aligned: drop the bits that never vary.
    let start = (key >> 3).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (usize::BITS - 8);
    for probe in 0..SLOTS {
        let slot = &TABLE[(start + probe) % SLOTS];
        let (found, validator) = *slot.get_or_init(|| (key, compile()));
        if found == key {
            return validator;
        }
    }
    let overflow = OVERFLOW.get_or_init(RwLock::default);
    if let Some(found) = overflow.read().ok().and_then(|map| map.get(&key).copied()) {
        return found;
    }
    match overflow.write() {
        Ok(mut map) => map.entry(key).or_insert_with(compile),
        Err(_) => compile(),
    }
}

/// The whole inbound path of one tool, without the handler: limits, JSON,
/// the `_schema_discovery` hint, null-as-absent, schema validation (every
/// violation), exposed-to-source names, and serde.
///
/// ```
/// # use toolschema_runtime::model::*;
/// # #[derive(serde::Deserialize, Debug)] struct Ping { count: u8 }
/// # impl Schema for Ping {
/// #     const SCHEMA: &'static Node = &Node::Object(ObjectNode {
/// #         info: TypeInfo { name: Ref::Static("Ping"), type_name: Ref::Lazy(core::any::type_name::<Ping>), title: None, description: None },
/// #         fields: Ref::Static(&[Field { exposed: Ref::Static("count"), source: Ref::Static("count"), schema: Ref::Lazy(schema_of::<u8>), ..Field::BLANK }]),
/// #         additional: Additional::Deny,
/// #     });
/// # }
/// # impl Tool for Ping {
/// #     const TOOL: &'static ToolDef = &ToolDef { name: Ref::Static("ping"), title: None, description: Ref::Static("Pings."),
/// #         version: 1, input: Ref::Lazy(schema_of::<Ping>), output: None, annotations: Annotations::NONE, icons: Ref::Static(&[]), internal: false };
/// #     type Output = serde_json::Value;
/// #     type State = ();
/// # }
/// use toolschema_runtime::call::parse_args;
///
/// let ping: Ping = parse_args(r#"{"count": 3}"#).unwrap();
/// assert_eq!(ping.count, 3);
///
/// let errors = parse_args::<Ping>(r#"{"count": 300, "extra": true}"#).unwrap_err();
/// let paths: Vec<&str> = errors.iter().map(|v| v.path()).collect();
/// assert_eq!(paths, ["/count", "/extra"]);
/// ```
pub fn parse_args<T: Tool + DeserializeOwned>(json: &str) -> Result<T, ArgumentErrors> {
    input_validator::<T>().parse(json)
}

/// [`parse_args`] of arguments already read as a JSON tree (as another MCP
/// library hands them over): the same checks, the same violations.
///
/// ```
/// # use toolschema_runtime::model::*;
/// # #[derive(serde::Deserialize, Debug)] struct Ping { count: u8 }
/// # impl Schema for Ping {
/// #     const SCHEMA: &'static Node = &Node::Object(ObjectNode {
/// #         info: TypeInfo { name: Ref::Static("Ping"), type_name: Ref::Lazy(core::any::type_name::<Ping>), title: None, description: None },
/// #         fields: Ref::Static(&[Field { exposed: Ref::Static("count"), source: Ref::Static("count"), schema: Ref::Lazy(schema_of::<u8>), ..Field::BLANK }]),
/// #         additional: Additional::Deny,
/// #     });
/// # }
/// # impl Tool for Ping {
/// #     const TOOL: &'static ToolDef = &ToolDef { name: Ref::Static("ping"), title: None, description: Ref::Static("Pings."),
/// #         version: 1, input: Ref::Lazy(schema_of::<Ping>), output: None, annotations: Annotations::NONE, icons: Ref::Static(&[]), internal: false };
/// #     type Output = serde_json::Value;
/// #     type State = ();
/// # }
/// use toolschema_runtime::call::read_args;
///
/// let ping: Ping = read_args(serde_json::json!({"count": 3})).unwrap();
/// assert_eq!(ping.count, 3);
/// let errors = read_args::<Ping>(serde_json::json!({"count": 300})).unwrap_err();
/// assert_eq!(errors.iter().next().unwrap().path(), "/count");
/// ```
pub fn read_args<T: Tool + DeserializeOwned>(
    arguments: serde_json::Value,
) -> Result<T, ArgumentErrors> {
    input_validator::<T>().read(arguments)
}
