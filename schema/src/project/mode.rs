//! Discovery modes: how much of a tool's schema a client is shown.

use crate::model::{Text, ToolDef};
use crate::render::{Json, Object, render_tool};

/// The name of the schema discovery meta-tool.
pub const META_TOOL: &str = "discover_tool_schema";

/// The name of the meta-tool that finds the tools a client is shown in
/// [`Mode::Search`].
pub const SEARCH_TOOL: &str = "search_tools";

/// The most tools one `search_tools` call returns, and the most names one
/// `discover_tool_schema` call takes.
pub const MOST_FOUND: usize = 32;

/// How many tools `search_tools` returns when the call does not say.
pub const DEFAULT_FOUND: usize = 8;

/// The longest query `search_tools` takes, in characters.
pub const LONGEST_QUERY: usize = 1_000;

/// The input property that tells a model to discover a tool's schema first.
/// It is never a real argument: it is removed before validation.
pub const HINT_FIELD: &str = "_schema_discovery";

/// What the hint field says. Short, as it is repeated in every reduced
/// tool of a list (15 tokens in `o200k_base`); the meta-tool's own
/// description says when a schema need not be fetched again.
const HINT: &str = "Not an argument. Call `discover_tool_schema` for this tool's input schema before its first use.";

/// How much of a tool's schema a client is shown. Modes are ordered from
/// the least shown to the most: where several toolsets show one tool, the
/// greatest wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mode {
    /// Not listed: found by the [`search_tools`](SEARCH_TOOL) meta-tool,
    /// described by [`discover_tool_schema`](META_TOOL), called by name.
    Search,
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
    pub const ALL: [Mode; 4] = [
        Mode::Full,
        Mode::DataStructureOnly,
        Mode::Lazy,
        Mode::Search,
    ];

    /// The mode's name in configuration: `full`, `data-structure-only`,
    /// `lazy`, `search`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Full => "full",
            Mode::DataStructureOnly => "data-structure-only",
            Mode::Lazy => "lazy",
            Mode::Search => "search",
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

    /// Whether a tool in this mode is in the list (all but
    /// [`Mode::Search`]).
    pub fn is_listed(self) -> bool {
        self != Mode::Search
    }

    /// Whether a client shown a tool in this mode sees its arguments
    /// ([`Mode::Full`] and [`Mode::DataStructureOnly`]).
    pub fn shows_arguments(self) -> bool {
        self >= Mode::DataStructureOnly
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

/// The MCP `Tool` object of `tool` as a client in `mode` sees it. A tool
/// in [`Mode::Search`] is not listed; it is projected as in
/// [`Mode::Lazy`], its name and description with the hint.
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
        Mode::Lazy | Mode::Search => {
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

/// A schema of `type`.
fn typed(kind: &'static str) -> Object {
    let mut schema = Object::new();
    schema.insert("type", kind);
    schema
}

/// `schema` with a description.
fn described(mut schema: Object, description: &'static str) -> Object {
    schema.insert("description", description);
    schema
}

/// The object schema of `properties`, `required` of them required, closed.
fn closed(properties: Vec<(&'static str, Object)>, required: &[&'static str]) -> Object {
    let mut map = Object::new();
    for (name, schema) in properties {
        map.insert(name, schema);
    }
    let mut object = typed("object");
    object.insert("properties", map);
    if !required.is_empty() {
        object.insert(
            "required",
            required
                .iter()
                .map(|name| Json::from(*name))
                .collect::<Vec<_>>(),
        );
    }
    object.insert("additionalProperties", false);
    object
}

/// The properties of a tool's MCP descriptor, as `discover_tool_schema`
/// returns it.
fn descriptor_properties() -> Vec<(&'static str, Object)> {
    vec![
        ("name", typed("string")),
        ("title", typed("string")),
        ("description", typed("string")),
        ("inputSchema", typed("object")),
        ("outputSchema", typed("object")),
        ("annotations", typed("object")),
    ]
}

/// A meta-tool's descriptor: it only reads, and only this server.
fn meta_descriptor(
    name: &'static str,
    description: &'static str,
    input: Object,
    output: Object,
) -> Json {
    let mut tool = Object::new();
    tool.insert("name", name);
    tool.insert("description", description);
    tool.insert("inputSchema", input);
    tool.insert("outputSchema", output);
    let mut annotations = Object::new();
    annotations.insert("readOnlyHint", true);
    annotations.insert("idempotentHint", true);
    annotations.insert("openWorldHint", false);
    tool.insert("annotations", annotations);
    Json::Object(tool)
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
    let name = described(
        typed("string"),
        "The name of the tool whose schema to return.",
    );
    let mut output = typed("object");
    output.insert(
        "description",
        "The tool's full MCP descriptor, with complete input and output schemas.",
    );
    let mut properties = Object::new();
    for (key, schema) in descriptor_properties() {
        properties.insert(key, schema);
    }
    output.insert("properties", properties);
    output.insert(
        "required",
        vec![Json::from("name"), Json::from("inputSchema")],
    );
    meta_descriptor(
        META_TOOL,
        "Returns the full schema of one tool in this list. Call it before the first use of a tool whose input schema is incomplete, unless that schema is already in this conversation.",
        closed(vec![("name", name)], &["name"]),
        output,
    )
}

/// The descriptor of `discover_tool_schema` in a list with tools in
/// [`Mode::Search`]: it takes one `name` (and returns that tool's full
/// descriptor, as [`meta_tool`]'s does) or up to [`MOST_FOUND`] `names`
/// (and returns `{"tools": [descriptor, ...]}`, in the order asked).
///
/// ```
/// let meta = toolschema_schema::project::meta_tool_with_names().to_value();
/// assert_eq!(meta["name"], "discover_tool_schema");
/// assert_eq!(meta["inputSchema"]["properties"]["names"]["maxItems"], 32);
/// assert!(meta["outputSchema"]["properties"]["tools"].is_object());
/// ```
pub fn meta_tool_with_names() -> Json {
    let name = described(
        typed("string"),
        "The name of one tool whose schema to return.",
    );
    let mut names = described(
        typed("array"),
        "The names of several tools whose schemas to return (instead of `name`).",
    );
    names.insert("items", typed("string"));
    names.insert("minItems", 1u64);
    names.insert("maxItems", MOST_FOUND as u64);
    names.insert("uniqueItems", true);
    let mut tools = typed("array");
    tools.insert(
        "items",
        closed(descriptor_properties(), &["name", "inputSchema"]),
    );
    let mut output = described(
        typed("object"),
        "For `name`, the tool's full MCP descriptor; for `names`, `tools`: each tool's, in the order asked.",
    );
    let mut properties = Object::new();
    for (key, schema) in descriptor_properties() {
        properties.insert(key, schema);
    }
    properties.insert("tools", tools);
    output.insert("properties", properties);
    meta_descriptor(
        META_TOOL,
        "Returns the full schema of tools found by `search_tools` or listed with an incomplete input schema: `name` for one, `names` for several. Call it before a tool's first use, unless its schema is already in this conversation.",
        closed(vec![("name", name), ("names", names)], &[]),
        output,
    )
}

/// The descriptor of the [`search_tools`](SEARCH_TOOL) meta-tool, which a
/// list carries when some of its client's tools are in [`Mode::Search`]:
/// input `{query, limit?, detail?}`, output `{total, returned, tools:
/// [{name, title?, description, score, inputSchema?}]}`.
///
/// ```
/// use toolschema_schema::project::{SEARCH_TOOL, search_tool};
/// let search = search_tool().to_value();
/// assert_eq!(search["name"], SEARCH_TOOL);
/// assert_eq!(search["inputSchema"]["required"][0], "query");
/// assert_eq!(search["inputSchema"]["properties"]["limit"]["maximum"], 32);
/// ```
pub fn search_tool() -> Json {
    let mut query = described(
        typed("string"),
        "What you want to do, in a few words (for example \"refund an invoice\").",
    );
    query.insert("minLength", 1u64);
    query.insert("maxLength", LONGEST_QUERY as u64);
    let mut limit = described(typed("integer"), "How many tools to return at most.");
    limit.insert("minimum", 1u64);
    limit.insert("maximum", MOST_FOUND as u64);
    limit.insert("default", DEFAULT_FOUND as u64);
    let mut detail = described(
        typed("string"),
        "`brief`: each tool's name and description; `schema`: its input schema too, so that it can be called at once.",
    );
    detail.insert("enum", vec![Json::from("brief"), Json::from("schema")]);
    detail.insert("default", "brief");
    let input = closed(
        vec![("query", query), ("limit", limit), ("detail", detail)],
        &["query"],
    );
    let mut score = typed("number");
    score.insert("minimum", 0u64);
    let found = closed(
        vec![
            ("name", typed("string")),
            ("title", typed("string")),
            ("description", typed("string")),
            ("score", score),
            ("inputSchema", typed("object")),
        ],
        &["name", "description", "score"],
    );
    let mut tools = described(typed("array"), "The tools found, best first.");
    tools.insert("items", found);
    let mut count = typed("integer");
    count.insert("minimum", 0u64);
    let output = closed(
        vec![
            (
                "total",
                described(count.clone(), "How many tools match the query."),
            ),
            (
                "returned",
                described(count, "How many of them are returned."),
            ),
            ("tools", tools),
        ],
        &["total", "returned", "tools"],
    );
    meta_descriptor(
        SEARCH_TOOL,
        "Finds the tools of this server that are not in this list, by what they do: the best matches first. Call a tool found by its name, after `discover_tool_schema` (or ask for detail `schema`).",
        input,
        output,
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_hint_names_the_meta_tool() {
        assert!(super::HINT.contains(&format!("`{}`", super::META_TOOL)));
    }
}
