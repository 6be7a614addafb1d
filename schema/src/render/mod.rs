//! Rendering the schema model to JSON Schema (2020-12).
//!
//! Rendering walks the static model once and builds a [`Json`] tree; a catalog
//! does it when it is built and keeps the result. Nested types are inlined;
//! a type that contains itself is the one case that is written once under
//! `$defs` and referred to with a local `$ref`.

use std::collections::{HashMap, HashSet};

mod json;

pub use json::{Json, Object};

use crate::model::walk::{recursive_types, type_info};
use crate::model::{
    Additional, Direction, EnumNode, Field, Icon, Node, NodeRef, ObjectNode, Refine, Shape,
    Tagging, ToolDef, TypeInfo, Variant, flattened,
};

/// Renders the JSON Schema of `node`.
///
/// ```
/// use toolschema_schema::{model::{Direction, Schema}, render::render_schema};
///
/// let json = render_schema(<Vec<bool> as Schema>::SCHEMA, Direction::Input);
/// assert_eq!(json.to_compact_string(), r#"{"type":"array","items":{"type":"boolean"}}"#);
/// ```
pub fn render_schema(node: &Node, direction: Direction) -> Json {
    let mut renderer = Renderer::new(node, direction);
    let mut json = renderer.body(node);
    renderer.attach_defs(&mut json);
    json
}

/// Renders a tool as an MCP `Tool` object with its full schemas.
///
/// Keys: `name`, `title` (if set), `description`, `inputSchema`,
/// `outputSchema` (if the tool declares an output), `annotations` (if any hint
/// is set).
pub fn render_tool(tool: &ToolDef) -> Json {
    let mut object = Object::new();
    object.insert("name", &tool.name);
    if let Some(title) = &tool.title {
        object.insert("title", title);
    }
    object.insert("description", &tool.description);
    object.insert("inputSchema", render_schema(&tool.input, Direction::Input));
    if let Some(output) = &tool.output {
        object.insert("outputSchema", render_schema(output, Direction::Output));
    }
    let hints = [
        ("readOnlyHint", tool.annotations.read_only),
        ("destructiveHint", tool.annotations.destructive),
        ("idempotentHint", tool.annotations.idempotent),
        ("openWorldHint", tool.annotations.open_world),
    ];
    if hints.iter().any(|(_, hint)| hint.is_some()) {
        let mut annotations = Object::new();
        for (key, hint) in hints {
            if let Some(hint) = hint {
                annotations.insert(key, hint);
            }
        }
        object.insert("annotations", annotations);
    }
    if !tool.icons.is_empty() {
        let icons: Vec<Json> = tool.icons.iter().map(render_icon).collect();
        object.insert("icons", icons);
    }
    Json::Object(object)
}

/// An MCP `Icon` object.
fn render_icon(icon: &Icon) -> Json {
    let mut object = Object::new();
    object.insert("src", &icon.src);
    if let Some(mime_type) = &icon.mime_type {
        object.insert("mimeType", mime_type);
    }
    if !icon.sizes.is_empty() {
        let sizes: Vec<Json> = icon.sizes.iter().map(Json::from).collect();
        object.insert("sizes", sizes);
    }
    if let Some(theme) = icon.theme {
        object.insert("theme", theme.name());
    }
    Json::Object(object)
}

struct Renderer<'a> {
    direction: Direction,
    root: Option<&'a str>,
    recursive: HashSet<&'a str>,
    /// `$defs` key of each recursive type rendered so far.
    def_keys: HashMap<&'a str, String>,
    defs: Object,
}

impl<'a> Renderer<'a> {
    fn new(root: &'a Node, direction: Direction) -> Renderer<'a> {
        Renderer {
            direction,
            root: type_info(root).map(|info| &*info.type_name),
            recursive: recursive_types(root, direction),
            def_keys: HashMap::new(),
            defs: Object::new(),
        }
    }

    fn attach_defs(&mut self, json: &mut Json) {
        if self.defs.is_empty() {
            return;
        }
        if let Some(object) = json.as_object_mut() {
            object.insert("$defs", core::mem::take(&mut self.defs));
        }
    }

    /// The schema of `node` at a place that refers to it: a `$ref` for a
    /// recursive type, else the node inline.
    fn node(&mut self, node: &'a Node) -> Json {
        if let Some(info) = type_info(node) {
            let name: &'a str = &info.type_name;
            if self.recursive.contains(name) {
                return self.reference(node, info, name);
            }
        }
        self.body(node)
    }

    fn reference(&mut self, node: &'a Node, info: &TypeInfo, name: &'a str) -> Json {
        let mut object = Object::new();
        if self.root == Some(name) {
            object.insert("$ref", "#");
            return Json::Object(object);
        }
        let key = match self.def_keys.get(name) {
            Some(key) => key.clone(),
            None => {
                let key = self.free_def_key(&info.name);
                self.def_keys.insert(name, key.clone());
                // Reserve the slot first so that the body's own references
                // find the key and the definition keeps its place.
                self.defs.insert(key.clone(), Json::Null);
                let body = self.body(node);
                self.defs.insert(key.clone(), body);
                key
            }
        };
        object.insert("$ref", format!("#/$defs/{key}"));
        Json::Object(object)
    }

    /// `name`, or `name2`, `name3`… when another type took it.
    fn free_def_key(&self, name: &str) -> String {
        let taken = |key: &str| self.def_keys.values().any(|k| k == key);
        if !taken(name) {
            return name.to_owned();
        }
        (2..)
            .map(|n| format!("{name}{n}"))
            .find(|key| !taken(key))
            .unwrap_or_else(|| name.to_owned())
    }

    /// The schema of `node` itself, inline.
    fn body(&mut self, node: &'a Node) -> Json {
        let mut out = Object::new();
        match node {
            Node::Any => {}
            Node::Null => out.insert("type", "null"),
            Node::Boolean => out.insert("type", "boolean"),
            Node::Integer(integer) => {
                out.insert("type", "integer");
                if let Some(minimum) = integer.minimum {
                    out.insert("minimum", minimum);
                }
                if let Some(maximum) = integer.maximum {
                    out.insert("maximum", maximum);
                }
                if integer.nonzero {
                    let mut zero = Object::new();
                    zero.insert("const", 0u64);
                    out.insert("not", zero);
                }
            }
            Node::Number(number) => {
                out.insert("type", "number");
                if let Some(minimum) = number.minimum {
                    out.insert("minimum", minimum);
                }
                if let Some(maximum) = number.maximum {
                    out.insert("maximum", maximum);
                }
            }
            Node::String(string) => {
                out.insert("type", "string");
                if let Some(format) = &string.format {
                    out.insert("format", format);
                }
                if let Some(pattern) = &string.pattern {
                    out.insert("pattern", pattern);
                }
                if let Some(min) = string.min_length {
                    out.insert("minLength", min);
                }
                if let Some(max) = string.max_length {
                    out.insert("maxLength", max);
                }
            }
            Node::Array(array) => {
                out.insert("type", "array");
                out.insert("items", self.node(&array.items));
                if let Some(min) = array.min_items {
                    out.insert("minItems", min);
                }
                if let Some(max) = array.max_items {
                    out.insert("maxItems", max);
                }
                if array.unique_items {
                    out.insert("uniqueItems", true);
                }
            }
            Node::Tuple(items) => return self.tuple(items),
            Node::Map(map) => {
                out.insert("type", "object");
                out.insert("additionalProperties", self.node(&map.values));
            }
            Node::Optional(inner) => {
                let mut null = Object::new();
                null.insert("type", "null");
                let inner = self.node(inner);
                out.insert("anyOf", vec![inner, Json::Object(null)]);
            }
            Node::AnyOf(alternatives) => {
                let alternatives = alternatives.iter().map(|alt| self.node(alt)).collect();
                out.insert("anyOf", Json::Array(alternatives));
            }
            Node::Object(object) => return self.object(object),
            Node::Enum(enumeration) => return self.enumeration(enumeration),
            // Registration refused a file that does not parse.
            Node::Raw(text) => return Json::parse(text).unwrap_or(Json::Object(out)),
        }
        Json::Object(out)
    }

    fn tuple(&mut self, items: &'a [NodeRef]) -> Json {
        let mut out = Object::new();
        let len = items.len() as u64;
        out.insert("type", "array");
        // `prefixItems` may not be empty (JSON Schema 2020-12): a tuple of
        // nothing (`struct Z();`, `()` in a tuple) is the empty array alone.
        if !items.is_empty() {
            let items = items.iter().map(|item| self.node(item)).collect();
            out.insert("prefixItems", Json::Array(items));
        }
        out.insert("minItems", len);
        out.insert("maxItems", len);
        Json::Object(out)
    }

    fn info(out: &mut Object, info: &TypeInfo) {
        if let Some(title) = &info.title {
            out.insert("title", title);
        }
        if let Some(description) = &info.description {
            out.insert("description", description);
        }
    }

    fn object(&mut self, object: &'a ObjectNode) -> Json {
        let mut out = Object::new();
        out.insert("type", "object");
        Self::info(&mut out, &object.info);
        let mut members = Members::default();
        self.members(&object.fields, &mut members);
        members.finish(&mut out, object.additional);
        Json::Object(out)
    }

    /// Collects the properties of `fields` (flattened fields merged).
    fn members(&mut self, fields: &'a [Field], members: &mut Members) {
        let (list, map) = flattened(fields, self.direction);
        for member in list {
            let property = self.property(member.field);
            members
                .properties
                .push((member.field.exposed.clone(), property));
            if member.is_required(self.direction) {
                members.required.push(Json::from(&member.field.exposed));
            }
        }
        if let Some(values) = map {
            members.extra = Some(self.node(values));
        }
    }

    /// The schema of one property: its type's, refined by the field's
    /// attributes and documented by the field's doc comment.
    fn property(&mut self, field: &'a Field) -> Json {
        let target: &'a Node = &field.schema;
        // As a property, `Option<T>` is `T` and the property is not required.
        let target = target.unwrap_optional();
        let mut json = self.node(target);
        let Some(out) = json.as_object_mut() else {
            return json;
        };
        refine(out, &field.refine);
        if let Some(description) = &field.description {
            let description = match target {
                Node::Enum(enumeration) => match value_list(enumeration) {
                    Some(values) => Json::from(format!("{description}\n\n{values}")),
                    None => Json::from(description),
                },
                _ => Json::from(description),
            };
            out.insert("description", description);
        }
        if let Some(default) = &field.default {
            out.insert("default", default);
        }
        if !field.examples.is_empty() {
            let examples = field.examples.iter().map(Json::from).collect();
            out.insert("examples", Json::Array(examples));
        }
        if let Some(header) = &field.header {
            out.insert("x-mcp-header", header);
        }
        json
    }

    fn enumeration(&mut self, enumeration: &'a EnumNode) -> Json {
        let mut out = Object::new();
        if enumeration.is_string_enum() {
            out.insert("type", "string");
            if let Some(title) = &enumeration.info.title {
                out.insert("title", title);
            }
            let description = match (&enumeration.info.description, value_list(enumeration)) {
                (Some(doc), Some(values)) => Some(Json::from(format!("{doc}\n\n{values}"))),
                (Some(doc), None) => Some(Json::from(doc)),
                (None, Some(values)) => Some(Json::from(values)),
                (None, None) => None,
            };
            if let Some(description) = description {
                out.insert("description", description);
            }
            let values = enumeration.variants.iter().map(|v| Json::from(&v.name));
            out.insert("enum", Json::Array(values.collect()));
            return Json::Object(out);
        }
        let all_objects = match enumeration.tagging {
            Tagging::Internal { .. } | Tagging::Adjacent { .. } => true,
            Tagging::External => enumeration
                .variants
                .iter()
                .all(|v| !matches!(v.shape, Shape::Unit)),
            Tagging::Untagged => false,
        };
        if all_objects {
            out.insert("type", "object");
        }
        Self::info(&mut out, &enumeration.info);
        let branches = enumeration
            .variants
            .iter()
            .map(|variant| self.variant(&enumeration.tagging, variant))
            .collect();
        let keyword = match enumeration.tagging {
            Tagging::Untagged => "anyOf",
            _ => "oneOf",
        };
        out.insert(keyword, Json::Array(branches));
        Json::Object(out)
    }

    /// The schema of a variant's payload on its own.
    fn payload(&mut self, shape: &'a Shape) -> Option<Json> {
        Some(match shape {
            Shape::Unit => return None,
            Shape::Newtype(payload) => self.node(payload),
            Shape::Tuple(items) => self.tuple(items),
            Shape::Struct(fields) => {
                let mut out = Object::new();
                out.insert("type", "object");
                let mut members = Members::default();
                self.members(fields, &mut members);
                members.finish(&mut out, Additional::Deny);
                Json::Object(out)
            }
        })
    }

    fn variant(&mut self, tagging: &Tagging, variant: &'a Variant) -> Json {
        let mut out = Object::new();
        let tag_value = || {
            let mut tag = Object::new();
            tag.insert("type", "string");
            tag.insert("const", &variant.name);
            Json::Object(tag)
        };
        match tagging {
            Tagging::External => match self.payload(&variant.shape) {
                None => {
                    out.insert("type", "string");
                    out.insert("const", &variant.name);
                }
                Some(payload) => {
                    out.insert("type", "object");
                    let mut properties = Object::new();
                    properties.insert(variant.name.clone(), payload);
                    out.insert("properties", properties);
                    out.insert("required", vec![Json::from(&variant.name)]);
                    out.insert("additionalProperties", false);
                }
            },
            Tagging::Internal { tag } => {
                out.insert("type", "object");
                let mut members = Members::default();
                members.properties.push((tag.clone(), tag_value()));
                members.required.push(Json::from(tag));
                let mut additional = Additional::Deny;
                match &variant.shape {
                    Shape::Unit => {}
                    Shape::Struct(fields) => self.members(fields, &mut members),
                    Shape::Newtype(payload) => match payload.unwrap_optional() {
                        Node::Object(inner) => {
                            additional = inner.additional;
                            self.members(&inner.fields, &mut members);
                        }
                        Node::Map(map) => members.extra = Some(self.node(&map.values)),
                        // The derive refuses other payloads under an internal tag.
                        _ => {}
                    },
                    // serde refuses tuple variants under an internal tag.
                    Shape::Tuple(_) => {}
                }
                members.finish(&mut out, additional);
            }
            Tagging::Adjacent { tag, content } => {
                out.insert("type", "object");
                let mut properties = Object::new();
                properties.insert(tag.clone(), tag_value());
                let mut required = vec![Json::from(tag)];
                if let Some(payload) = self.payload(&variant.shape) {
                    properties.insert(content.clone(), payload);
                    required.push(Json::from(content));
                }
                out.insert("properties", properties);
                out.insert("required", required);
                out.insert("additionalProperties", false);
            }
            Tagging::Untagged => match self.payload(&variant.shape) {
                None => out.insert("type", "null"),
                Some(Json::Object(payload)) => out = payload,
                Some(other) => return other,
            },
        }
        if let Some(description) = &variant.description {
            out.insert("description", description);
        }
        Json::Object(out)
    }
}

/// Properties gathered for one object, in order (an object of thousands
/// of properties is built in one pass at the end, not key by key).
#[derive(Default)]
struct Members {
    properties: Vec<(crate::model::Text, Json)>,
    required: Vec<Json>,
    /// The value schema of a flattened map: unknown keys then take it.
    extra: Option<Json>,
}

impl Members {
    fn finish(self, out: &mut Object, additional: Additional) {
        out.insert("properties", Object::from_entries(self.properties));
        if !self.required.is_empty() {
            out.insert("required", self.required);
        }
        match (self.extra, additional) {
            (Some(extra), _) => out.insert("additionalProperties", extra),
            (None, Additional::Deny) => out.insert("additionalProperties", false),
            (None, Additional::Allow) => {}
        }
    }
}

/// Writes a field's refinements over its type's keywords.
fn refine(out: &mut Object, refine: &Refine) {
    if let Some(format) = &refine.format {
        out.insert("format", format);
    }
    if let Some(pattern) = &refine.pattern {
        out.insert("pattern", pattern);
    }
    let numbers = [
        ("minLength", refine.min_length),
        ("maxLength", refine.max_length),
        ("minItems", refine.min_items),
        ("maxItems", refine.max_items),
    ];
    for (key, value) in numbers {
        if let Some(value) = value {
            out.insert(key, value);
        }
    }
    if let Some(minimum) = refine.minimum {
        out.insert("minimum", minimum);
    }
    if let Some(maximum) = refine.maximum {
        out.insert("maximum", maximum);
    }
}

/// The documented values of a string enum, as a Markdown list.
fn value_list(enumeration: &EnumNode) -> Option<String> {
    if !enumeration.is_string_enum() || enumeration.variants.iter().all(|v| v.description.is_none())
    {
        return None;
    }
    let mut list = String::from("Values:");
    for variant in &enumeration.variants {
        list.push_str("\n- `");
        list.push_str(&variant.name);
        list.push('`');
        if let Some(description) = &variant.description {
            list.push_str(": ");
            list.push_str(description);
        }
    }
    Some(list)
}
