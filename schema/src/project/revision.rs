//! Protocol revisions: what a tool descriptor and a structured result look
//! like to a client of each MCP revision served.

use serde_json::{Map, Value};

use crate::model::ToolDef;
use crate::render::{Json, Object};

/// An MCP protocol revision, as far as tools differ between them (not the
/// catalog store's revision, a count of its changes, nor a tool's version).
///
/// | revision | tool `icons` | non-object `outputSchema` / `structuredContent` |
/// | --- | --- | --- |
/// | 2025-06-18 | left out | wrapped: `{"result": value}` |
/// | 2025-11-25 | shown | wrapped: `{"result": value}` |
/// | 2026-07-28 | shown | as they are |
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProtocolRevision {
    /// MCP 2025-06-18.
    V2025_06_18,
    /// MCP 2025-11-25.
    V2025_11_25,
    /// MCP 2026-07-28.
    V2026_07_28,
}

/// The property a non-object result is wrapped in for clients before
/// 2026-07-28.
pub const RESULT_PROPERTY: &str = "result";

impl ProtocolRevision {
    /// Every revision, oldest first.
    pub const ALL: [ProtocolRevision; 3] = [
        ProtocolRevision::V2025_06_18,
        ProtocolRevision::V2025_11_25,
        ProtocolRevision::V2026_07_28,
    ];

    /// The newest revision: what a client that names none is shown.
    pub const LATEST: ProtocolRevision = ProtocolRevision::V2026_07_28;

    /// The revision of a protocol version string.
    ///
    /// ```
    /// use toolschema_schema::project::ProtocolRevision;
    /// assert_eq!(ProtocolRevision::from_version("2025-11-25"), Some(ProtocolRevision::V2025_11_25));
    /// assert_eq!(ProtocolRevision::from_version("2024-11-05"), None);
    /// ```
    pub fn from_version(version: &str) -> Option<ProtocolRevision> {
        ProtocolRevision::ALL
            .into_iter()
            .find(|r| r.version() == version)
    }

    /// The protocol version string.
    pub const fn version(self) -> &'static str {
        match self {
            ProtocolRevision::V2025_06_18 => "2025-06-18",
            ProtocolRevision::V2025_11_25 => "2025-11-25",
            ProtocolRevision::V2026_07_28 => "2026-07-28",
        }
    }

    /// Whether tools may carry `icons`.
    pub fn shows_icons(self) -> bool {
        self >= ProtocolRevision::V2025_11_25
    }

    /// Whether an output schema and a structured result may be any JSON
    /// value, not only an object.
    pub fn allows_any_output(self) -> bool {
        self >= ProtocolRevision::V2026_07_28
    }

    /// Whether `tool`'s descriptor differs in this revision from
    /// [`LATEST`](ProtocolRevision::LATEST)'s.
    pub fn changes(self, tool: &ToolDef) -> bool {
        (!self.shows_icons() && !tool.icons.is_empty())
            || (!self.allows_any_output() && !tool.output_is_object())
    }

    /// The MCP `Tool` object `tool_json` (rendered from `tool`, in any mode
    /// and profile) as this revision has it.
    ///
    /// ```
    /// use toolschema_schema::project::{ProtocolRevision, project_tool, Mode};
    /// # use toolschema_schema::model::*;
    /// # static OUTPUT: Node = Node::Boolean;
    /// # static INPUT: Node = Node::Object(ObjectNode {
    /// #     info: TypeInfo { name: Ref::Static("Ping"), type_name: Ref::Static("Ping"), title: None, description: None },
    /// #     fields: Ref::Static(&[]), additional: Additional::Deny,
    /// # });
    /// # let tool = ToolDef {
    /// #     name: Ref::Static("ping"), title: None, description: Ref::Static("Answers."), version: 1,
    /// #     input: Ref::Static(&INPUT), output: Some(Ref::Static(&OUTPUT)), annotations: Annotations::NONE,
    /// #     icons: Ref::Static(&[]), internal: false,
    /// # };
    /// // A tool whose result is `true` or `false`.
    /// let latest = project_tool(&tool, Mode::Full);
    /// assert_eq!(latest.to_value()["outputSchema"]["type"], "boolean");
    /// let older = ProtocolRevision::V2025_11_25.fit(&tool, latest).to_value();
    /// assert_eq!(older["outputSchema"]["properties"]["result"]["type"], "boolean");
    /// assert_eq!(older["outputSchema"]["required"][0], "result");
    /// ```
    pub fn fit(self, tool: &ToolDef, tool_json: Json) -> Json {
        if !self.changes(tool) {
            return tool_json;
        }
        let Json::Object(mut object) = tool_json else {
            return tool_json;
        };
        if !self.shows_icons() {
            object.remove("icons");
        }
        if !self.allows_any_output()
            && !tool.output_is_object()
            && let Some(slot) = object.get_mut("outputSchema")
            && let Json::Object(schema) = std::mem::replace(slot, Json::Null)
        {
            *slot = Json::Object(wrap_schema(schema));
        }
        Json::Object(object)
    }

    /// The `structuredContent` of `tool`'s result `value` as this revision
    /// has it: wrapped in `{"result": ...}` where the revision wants an
    /// object and the tool's output is not always one (or, for a tool
    /// without an output schema, this value is not one).
    ///
    /// ```
    /// # use toolschema_schema::model::*;
    /// use toolschema_schema::project::ProtocolRevision;
    /// # static OUTPUT: Node = Node::Boolean;
    /// # static INPUT: Node = Node::Object(ObjectNode {
    /// #     info: TypeInfo { name: Ref::Static("Ping"), type_name: Ref::Static("Ping"), title: None, description: None },
    /// #     fields: Ref::Static(&[]), additional: Additional::Deny,
    /// # });
    /// # let tool = ToolDef {
    /// #     name: Ref::Static("ping"), title: None, description: Ref::Static("Answers."), version: 1,
    /// #     input: Ref::Static(&INPUT), output: Some(Ref::Static(&OUTPUT)), annotations: Annotations::NONE,
    /// #     icons: Ref::Static(&[]), internal: false,
    /// # };
    /// let value = serde_json::json!(true);
    /// assert_eq!(ProtocolRevision::V2026_07_28.fit_result(&tool, value.clone()), value);
    /// assert_eq!(
    ///     ProtocolRevision::V2025_06_18.fit_result(&tool, value),
    ///     serde_json::json!({"result": true})
    /// );
    /// ```
    pub fn fit_result(self, tool: &ToolDef, value: Value) -> Value {
        if self.allows_any_output() || (tool.output_is_object() && value.is_object()) {
            return value;
        }
        let mut wrapper = Map::new();
        wrapper.insert(RESULT_PROPERTY.to_owned(), value);
        Value::Object(wrapper)
    }
}

/// `{"type": "object", "properties": {"result": schema}, "required":
/// ["result"]}`, with `schema`'s `$defs` (and `$schema`) kept at the root,
/// where its `$ref`s point.
fn wrap_schema(mut schema: Object) -> Object {
    let dialect = schema.remove("$schema");
    let defs = schema.remove("$defs");
    let mut properties = Object::new();
    properties.insert(RESULT_PROPERTY, schema);
    let mut wrapper = Object::new();
    if let Some(dialect) = dialect {
        wrapper.insert("$schema", dialect);
    }
    wrapper.insert("type", "object");
    wrapper.insert("properties", properties);
    wrapper.insert("required", vec![Json::from(RESULT_PROPERTY)]);
    wrapper.insert("additionalProperties", false);
    if let Some(defs) = defs {
        wrapper.insert("$defs", defs);
    }
    wrapper
}
