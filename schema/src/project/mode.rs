//! Discovery modes: how much of a tool's schema a client is shown.

use crate::model::{Text, ToolDef};
use crate::render::{Json, Object, render_tool};

/// The name of the schema discovery meta-tool.
pub const META_TOOL: &str = "discover_tool_schema";

/// The input property that tells a model to discover a tool's schema first.
/// It is never a real argument: it is removed before validation.
pub const HINT_FIELD: &str = "_schema_discovery";

/// What the hint field says. Short, as it is repeated in every reduced
/// tool of a list (15 tokens in `o200k_base`); the meta-tool's own
/// description says when a schema need not be fetched again.
const HINT: &str = "Not an argument. Call `discover_tool_schema` for this tool's input schema before its first use.";

/// How much of a tool's schema a client is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mode {
    /// Only the discovery hint; the model asks for the schema.
    Lazy,
    /// Names, nesting, arrays and required flags, without descriptions or
    /// formats.
    DataStructureOnly,
    /// Everything.
    Full,
}

impl Mode {
    /// Every mode, the most complete first.
    pub const ALL: [Mode; 3] = [Mode::Full, Mode::DataStructureOnly, Mode::Lazy];

    /// The mode's name in configuration: `full`, `data-structure-only`,
    /// `lazy`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Full => "full",
            Mode::DataStructureOnly => "data-structure-only",
            Mode::Lazy => "lazy",
        }
    }

    /// The mode of a configuration name.
    ///
    /// ```
    /// use toolschema_schema::project::Mode;
    /// assert_eq!(Mode::from_name("data-structure-only"), Some(Mode::DataStructureOnly));
    /// assert_eq!(Mode::from_name("Full"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|mode| mode.name() == name)
    }

    /// Whether a list with a tool in this mode needs the meta-tool.
    pub fn needs_discovery(self) -> bool {
        self != Mode::Full
    }
}

/// Keywords that describe a schema's structure: what
/// [`Mode::DataStructureOnly`] keeps. Everything else (descriptions, titles,
/// formats, patterns, bounds, examples, defaults) is left out.
const STRUCTURE: &[&str] = &[
    "type",
    "properties",
    "required",
    "items",
    "prefixItems",
    "additionalProperties",
    "enum",
    "const",
    "oneOf",
    "anyOf",
    "$ref",
    "$defs",
    // What a hand-written (2020-12) schema may also say about its shape:
    // which properties go together, which are required when.
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "patternProperties",
    "unevaluatedProperties",
    "definitions",
    "$anchor",
    // What the client must send as a header (`Mcp-Param-…`).
    "x-mcp-header",
];

/// The MCP `Tool` object of `tool` as a client in `mode` sees it.
///
/// ```
/// use toolschema_schema::project::{project_tool, Mode, HINT_FIELD};
/// # use toolschema_schema::model::*;
/// # static INPUT: Node = Node::Object(ObjectNode {
/// #     info: TypeInfo { name: Ref::Static("Ping"), type_name: Ref::Static("Ping"), title: None, description: None },
/// #     fields: Ref::Static(&[]), additional: Additional::Deny,
/// # });
/// # let tool = ToolDef {
/// #     name: Ref::Static("ping"), title: None, description: Ref::Static("Answers pong."), version: 1,
/// #     input: Ref::Static(&INPUT), output: None, annotations: Annotations::NONE, icons: Ref::Static(&[]), internal: false,
/// # };
/// let lazy = project_tool(&tool, Mode::Lazy).to_value();
/// assert_eq!(lazy["description"], "Answers pong.");
/// assert!(lazy["inputSchema"]["properties"][HINT_FIELD].is_object());
/// ```
pub fn project_tool(tool: &ToolDef, mode: Mode) -> Json {
    let mut json = render_tool(tool);
    if mode == Mode::Full {
        return json;
    }
    let Some(object) = json.as_object_mut() else {
        return json;
    };
    match mode {
        Mode::Full => {}
        Mode::DataStructureOnly => {
            if let Some(Json::Object(input)) = object.get(INPUT).cloned() {
                let mut input = structure(input);
                add_hint(&mut input);
                object.insert(INPUT, input);
            }
            if let Some(Json::Object(output)) = object.get(OUTPUT).cloned() {
                object.insert(OUTPUT, structure(output));
            }
        }
        Mode::Lazy => {
            let mut input = Object::new();
            input.insert("type", "object");
            add_hint(&mut input);
            object.insert(INPUT, input);
            object.remove(OUTPUT);
        }
    }
    json
}

const INPUT: &str = "inputSchema";
const OUTPUT: &str = "outputSchema";

/// Keywords that only annotate: dropping them changes no verdict.
pub(crate) const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "examples",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
];

/// The schema `schema` reduced to its structure keywords, recursively.
///
/// Dropping a constraint only widens what a subschema accepts, which is what
/// the mode means, except where a subschema's verdict is turned around or
/// counted: `not` and `if` are kept whole (a reduced condition would hold
/// for values it did not), and `oneOf` becomes `anyOf` when reducing its
/// alternatives lost a constraint (two of them could then both match).
fn structure(schema: Object) -> Object {
    reduce(&schema, &|key| STRUCTURE.contains(&key))
}

/// `schema` with only the keywords `keep` admits, recursively through every
/// keyword that holds subschemas.
fn reduce(schema: &Object, keep: &dyn Fn(&str) -> bool) -> Object {
    let mut out = Object::new();
    for (key, value) in schema.iter() {
        if !keep(key) {
            continue;
        }
        let sub = |schema: &Json| match schema {
            Json::Object(object) => Json::Object(reduce(object, keep)),
            other => other.clone(),
        };
        let (key, value) = match (key, value) {
            // Conditions, whole.
            ("not" | "if", condition) => (key, condition.clone()),
            // Maps of names to subschemas.
            (
                "properties" | "$defs" | "definitions" | "patternProperties" | "dependentSchemas",
                Json::Object(map),
            ) => {
                // Built in one pass: a map may hold thousands of names.
                let reduced = map
                    .iter()
                    .map(|(name, schema)| (Text::from(name.to_owned()), sub(schema)))
                    .collect();
                (key, Json::Object(Object::from_entries(reduced)))
            }
            ("oneOf", Json::Array(alternatives)) => {
                let reduced: Vec<Json> = alternatives.iter().map(sub).collect();
                let kept = |schema: &Json| match schema {
                    Json::Object(object) => {
                        Json::Object(reduce(object, &|key| !ANNOTATIONS.contains(&key)))
                    }
                    other => other.clone(),
                };
                let exclusive = alternatives.iter().map(kept).eq(reduced.iter().cloned());
                (
                    if exclusive { "oneOf" } else { "anyOf" },
                    Json::Array(reduced),
                )
            }
            // Lists of subschemas.
            ("prefixItems" | "anyOf" | "allOf", Json::Array(items)) => {
                (key, Json::Array(items.iter().map(sub).collect()))
            }
            // One subschema (`additionalProperties: false` stays as it is).
            (
                "items" | "additionalProperties" | "unevaluatedProperties" | "then" | "else",
                schema,
            ) => (key, sub(schema)),
            (_, other) => (key, other.clone()),
        };
        out.insert(key.to_owned(), value);
    }
    out
}

/// Adds the optional `_schema_discovery` hint property to an input schema.
fn add_hint(input: &mut Object) {
    let mut hint = Object::new();
    hint.insert("type", "string");
    hint.insert("description", HINT);
    let mut properties = match input.remove("properties") {
        Some(Json::Object(properties)) => properties,
        _ => Object::new(),
    };
    properties.insert(HINT_FIELD, hint);
    // Keep `properties` right after `type`, where it was.
    let mut reordered = Object::new();
    for (key, value) in input.iter() {
        reordered.insert(key.to_owned(), value.clone());
        if key == "type" {
            reordered.insert("properties", properties.clone());
        }
    }
    if reordered.get("properties").is_none() {
        reordered.insert("properties", properties);
    }
    *input = reordered;
}

/// The descriptor of the `discover_tool_schema` meta-tool: input `{ "name" }`,
/// output the full descriptor of one tool.
///
/// ```
/// let meta = toolschema_schema::project::meta_tool().to_value();
/// assert_eq!(meta["name"], "discover_tool_schema");
/// assert_eq!(meta["inputSchema"]["required"][0], "name");
/// ```
pub fn meta_tool() -> Json {
    let string = || {
        let mut s = Object::new();
        s.insert("type", "string");
        s
    };
    let object = || {
        let mut s = Object::new();
        s.insert("type", "object");
        s
    };

    let mut name = string();
    name.insert(
        "description",
        "The name of the tool whose schema to return.",
    );
    let mut input_properties = Object::new();
    input_properties.insert("name", name);
    let mut input = object();
    input.insert("properties", input_properties);
    input.insert("required", vec![Json::from("name")]);
    input.insert("additionalProperties", false);

    let mut output_properties = Object::new();
    output_properties.insert("name", string());
    output_properties.insert("title", string());
    output_properties.insert("description", string());
    output_properties.insert("inputSchema", object());
    output_properties.insert("outputSchema", object());
    output_properties.insert("annotations", object());
    let mut output = object();
    output.insert(
        "description",
        "The tool's full MCP descriptor, with complete input and output schemas.",
    );
    output.insert("properties", output_properties);
    output.insert(
        "required",
        vec![Json::from("name"), Json::from("inputSchema")],
    );

    let mut tool = Object::new();
    tool.insert("name", META_TOOL);
    tool.insert(
        "description",
        "Returns the full schema of one tool in this list. Call it before the first use of a tool whose input schema is incomplete, unless that schema is already in this conversation.",
    );
    tool.insert("inputSchema", input);
    tool.insert("outputSchema", output);
    let mut annotations = Object::new();
    annotations.insert("readOnlyHint", true);
    annotations.insert("idempotentHint", true);
    annotations.insert("openWorldHint", false);
    tool.insert("annotations", annotations);
    Json::Object(tool)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_hint_names_the_meta_tool() {
        assert!(super::HINT.contains(&format!("`{}`", super::META_TOOL)));
    }
}
