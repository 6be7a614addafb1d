//! Client dialect profiles, for clients with stricter schema rules.

use std::collections::HashMap;

use crate::render::{Json, Object};

/// A client's schema dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Profile {
    /// JSON Schema 2020-12, inline.
    Default,
    /// OpenAI strict mode.
    OpenAiStrict,
    /// Gemini's OpenAPI 3.0 subset.
    Gemini,
}

impl Profile {
    /// Every profile.
    pub const ALL: [Profile; 3] = [Profile::Default, Profile::OpenAiStrict, Profile::Gemini];

    /// The profile's name in configuration: `default`, `openai-strict`,
    /// `gemini`.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Default => "default",
            Profile::OpenAiStrict => "openai-strict",
            Profile::Gemini => "gemini",
        }
    }

    /// The profile of a configuration name.
    ///
    /// ```
    /// use toolschema_schema::project::Profile;
    /// assert_eq!(Profile::from_name("gemini"), Some(Profile::Gemini));
    /// assert_eq!(Profile::from_name("claude"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Profile> {
        Profile::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// Keywords OpenAI strict mode accepts.
const OPENAI_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "description",
    "title",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];

/// String formats OpenAI strict mode accepts.
const OPENAI_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Keywords of Gemini's OpenAPI 3.0 schema subset.
const GEMINI_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "properties",
    "required",
    "items",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "anyOf",
    "default",
];

/// String formats Gemini accepts.
const GEMINI_FORMATS: &[&str] = &["date-time", "enum"];

/// Applies `profile` to an MCP `Tool` object's input schema.
///
/// Providers' rules are about the parameters a model may send; the output
/// schema is left as rendered, because MCP clients check `structuredContent`
/// against it and results are shaped by the Full schema (an absent optional
/// property stays absent, where strict mode would demand a `null`).
pub fn apply_profile(tool: Json, profile: Profile) -> Json {
    let Json::Object(mut tool) = tool else {
        return tool;
    };
    if let Some(schema) = tool.remove_keep("inputSchema") {
        let schema = match profile {
            Profile::Default => schema,
            Profile::OpenAiStrict => openai_root(schema),
            Profile::Gemini => gemini_root(schema),
        };
        tool.insert("inputSchema", schema);
    }
    Json::Object(tool)
}

impl Object {
    /// Takes the value of `key` out, leaving `null` in its place (so that
    /// inserting it back keeps the key's position).
    fn remove_keep(&mut self, key: &str) -> Option<Json> {
        let slot = self.get_mut(key)?;
        Some(core::mem::replace(slot, Json::Null))
    }
}

/// Calls `f` on every subschema directly inside `schema`.
fn each_subschema(schema: &mut Object, f: &mut dyn FnMut(&mut Json)) {
    for key in ["properties", "$defs"] {
        if let Some(Json::Object(map)) = schema.get_mut(key) {
            map.values_mut().for_each(&mut *f);
        }
    }
    for key in ["prefixItems", "anyOf", "oneOf", "allOf"] {
        if let Some(Json::Array(items)) = schema.get_mut(key) {
            items.iter_mut().for_each(&mut *f);
        }
    }
    for key in ["items", "additionalProperties", "not"] {
        if let Some(sub @ Json::Object(_)) = schema.get_mut(key) {
            f(sub);
        }
    }
}

/// Keywords for the MCP client or the validator rather than the model: a
/// dialect that refuses them drops them without a note (the server then asks
/// such a client for no `Mcp-Param-*` headers; arguments are validated in
/// 2020-12 whatever a hand-written schema's `$schema` said).
const FOR_THE_CLIENT: &[&str] = &["x-mcp-header", "$schema", "$comment"];

/// Notes on keywords moved into the description.
#[derive(Default)]
struct Notes(Vec<String>);

impl Notes {
    fn push(&mut self, key: &str, value: &Json) {
        if FOR_THE_CLIENT.contains(&key) {
            return;
        }
        let value = match value {
            Json::String(s) => s.to_string(),
            other => other.to_compact_string(),
        };
        self.0.push(format!("{key}: {value}"));
    }

    fn write(self, schema: &mut Object) {
        if self.0.is_empty() {
            return;
        }
        let notes = format!("Constraints: {}.", self.0.join("; "));
        let description = match schema.get("description") {
            Some(Json::String(doc)) => format!("{doc}\n\n{notes}"),
            _ => notes,
        };
        schema.insert("description", description);
    }
}

fn is_object_schema(schema: &Object) -> bool {
    matches!(schema.get("type"), Some(Json::String(t)) if t == "object")
        || schema.get("properties").is_some()
}

fn is_null_schema(schema: &Json) -> bool {
    matches!(schema, Json::Object(o) if matches!(o.get("type"), Some(Json::String(t)) if t == "null"))
}

/// A list of exactly these items, in order: not expressible by either
/// provider, so items may be any of the types and the order is described.
fn tuple_to_items(schema: &mut Object, notes: &mut Notes) {
    if let Some(Json::Array(prefix)) = schema.remove("prefixItems") {
        notes.0.push(format!(
            "exactly {} items, in this order: {}",
            prefix.len(),
            prefix
                .iter()
                .map(Json::to_compact_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
        let mut any = Object::new();
        any.insert("anyOf", Json::Array(prefix));
        schema.insert("items", any);
    }
}

fn openai_root(schema: Json) -> Json {
    let mut schema = schema;
    openai(&mut schema);
    schema
}

fn openai(schema: &mut Json) {
    let Json::Object(object) = schema else { return };
    each_subschema(object, &mut openai);
    let mut notes = Notes::default();
    if let Some(one_of) = object.remove_keep("oneOf") {
        object.rename_key("oneOf", "anyOf", one_of);
    }
    tuple_to_items(object, &mut notes);
    if is_object_schema(object) {
        if object.get("properties").is_none() {
            object.insert("properties", Object::new());
        }
        let required: Vec<String> = match object.get("required") {
            Some(Json::Array(names)) => names
                .iter()
                .filter_map(|n| match n {
                    Json::String(s) => Some(s.to_string()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        let mut all = Vec::new();
        if let Some(Json::Object(properties)) = object.get_mut("properties") {
            for (name, property) in properties.iter_mut() {
                if !required.iter().any(|r| r == name) {
                    nullable(property);
                }
                all.push(Json::from(name.to_owned()));
            }
        }
        object.insert("required", Json::Array(all));
        // A closed object stays closed. One the tool leaves open (a map, a
        // struct that allows unknown fields, a Lazy tool's arguments) stays
        // open: closing it would refuse the tool's real arguments.
    }
    if let Some(Json::String(format)) = object.get("format")
        && !OPENAI_FORMATS.contains(&format.as_ref())
        && let Some(format) = object.remove("format")
    {
        notes.push("format", &format);
    }
    let refused: Vec<String> = object
        .iter()
        .map(|(k, _)| k.to_owned())
        .filter(|k| !OPENAI_KEYWORDS.contains(&k.as_str()))
        .collect();
    for key in refused {
        if let Some(value) = object.remove(&key) {
            notes.push(&key, &value);
        }
    }
    notes.write(object);
}

/// Lets a schema also accept `null` (OpenAI strict mode).
fn nullable(schema: &mut Json) {
    let Json::Object(object) = schema else { return };
    match object.get("type").cloned() {
        Some(Json::String(t)) if t != "null" => {
            object.insert("type", vec![Json::String(t), Json::from("null")]);
            if let Some(Json::Array(values)) = object.get_mut("enum") {
                values.push(Json::Null);
            }
        }
        Some(_) => {}
        None => {
            if let Some(Json::Array(alternatives)) = object.get_mut("anyOf") {
                if !alternatives.iter().any(is_null_schema) {
                    alternatives.push(null_schema());
                }
                return;
            }
            let inner = core::mem::replace(schema, Json::Null);
            let mut wrapper = Object::new();
            wrapper.insert("anyOf", vec![inner, null_schema()]);
            *schema = Json::Object(wrapper);
        }
    }
}

fn null_schema() -> Json {
    let mut null = Object::new();
    null.insert("type", "null");
    Json::Object(null)
}

fn gemini_root(schema: Json) -> Json {
    let mut schema = inline_refs(schema);
    gemini(&mut schema);
    schema
}

/// Replaces every local `$ref` by the schema it points to; a reference
/// inside its own definition becomes a described placeholder.
fn inline_refs(schema: Json) -> Json {
    let Json::Object(mut root) = schema else {
        return schema;
    };
    let defs: HashMap<String, Json> = match root.remove("$defs") {
        Some(Json::Object(defs)) => defs
            .iter()
            .map(|(k, v)| (format!("#/$defs/{k}"), v.clone()))
            .collect(),
        _ => HashMap::new(),
    };
    let root_copy = Json::Object(root.clone());
    let mut stack = vec!["#".to_owned()];
    let mut out = Json::Object(root);
    inline(&mut out, &defs, &root_copy, &mut stack);
    out
}

fn inline(schema: &mut Json, defs: &HashMap<String, Json>, root: &Json, stack: &mut Vec<String>) {
    let Json::Object(object) = schema else { return };
    if let Some(Json::String(target)) = object.get("$ref").cloned() {
        let target = target.to_string();
        let mut siblings = object.clone();
        siblings.remove("$ref");
        if stack.contains(&target) {
            let mut placeholder = Object::new();
            placeholder.insert("type", "object");
            placeholder.insert(
                "description",
                "The same shape as the enclosing object (the structure is recursive).",
            );
            *schema = Json::Object(placeholder);
            return;
        }
        let found = if target == "#" {
            Some(root.clone())
        } else {
            defs.get(&target).cloned()
        };
        if let Some(mut body) = found {
            stack.push(target);
            inline(&mut body, defs, root, stack);
            stack.pop();
            if let Json::Object(body_object) = &mut body {
                for (key, value) in siblings.iter() {
                    body_object.insert(key.to_owned(), value.clone());
                }
            }
            *schema = body;
        }
        return;
    }
    each_subschema(object, &mut |sub| inline(sub, defs, root, stack));
}

fn gemini(schema: &mut Json) {
    let Json::Object(object) = schema else { return };
    each_subschema(object, &mut gemini);
    let mut notes = Notes::default();
    if let Some(one_of) = object.remove_keep("oneOf") {
        object.rename_key("oneOf", "anyOf", one_of);
    }
    tuple_to_items(object, &mut notes);
    // `anyOf [T, null]` is `T` with `nullable`.
    if let Some(Json::Array(alternatives)) = object.get("anyOf").cloned()
        && alternatives.iter().any(is_null_schema)
    {
        let rest: Vec<Json> = alternatives
            .into_iter()
            .filter(|a| !is_null_schema(a))
            .collect();
        object.remove("anyOf");
        match <[Json; 1]>::try_from(rest) {
            Ok([Json::Object(only)]) => {
                for (key, value) in only.iter() {
                    if object.get(key).is_none() {
                        object.insert(key.to_owned(), value.clone());
                    }
                }
            }
            Ok([other]) => object.insert("anyOf", vec![other]),
            Err(rest) => object.insert("anyOf", Json::Array(rest)),
        }
        object.insert("nullable", true);
    }
    if matches!(object.get("type"), Some(Json::String(t)) if t == "null") {
        object.remove("type");
        object.insert("nullable", true);
        notes.0.push("always null".to_owned());
    }
    if let Some(constant) = object.remove("const") {
        match constant {
            Json::String(_) => object.insert("enum", vec![constant]),
            other => notes.push("const", &other),
        }
    }
    if let Some(additional) = object.remove("additionalProperties")
        && let Json::Object(values) = additional
    {
        notes.0.push(format!(
            "any property names; each value: {}",
            Json::Object(values).to_compact_string()
        ));
    }
    if let Some(Json::String(format)) = object.get("format")
        && !GEMINI_FORMATS.contains(&format.as_ref())
        && let Some(format) = object.remove("format")
    {
        notes.push("format", &format);
    }
    let refused: Vec<String> = object
        .iter()
        .map(|(k, _)| k.to_owned())
        .filter(|k| !GEMINI_KEYWORDS.contains(&k.as_str()))
        .collect();
    for key in refused {
        if let Some(value) = object.remove(&key) {
            notes.push(&key, &value);
        }
    }
    notes.write(object);
}
