//! What a tool call produces: structured JSON (checked against the tool's
//! output schema), or content blocks (text, image, audio, embedded
//! resources, resource links), or both.

use base64::Engine;
use serde::Serialize;
use std::sync::OnceLock;

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

/// One block of a tool's result, as MCP content.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Content {
    /// Text.
    Text(String),
    /// An image: base64 data and its MIME type.
    Image {
        /// The bytes, base64-encoded.
        data: String,
        /// `image/png`, `image/jpeg`, ….
        mime_type: String,
    },
    /// Audio: base64 data and its MIME type.
    Audio {
        /// The bytes, base64-encoded.
        data: String,
        /// `audio/wav`, `audio/mpeg`, ….
        mime_type: String,
    },
    /// A resource embedded in the result.
    Resource(Resource),
    /// A link to a resource the client may read.
    ResourceLink {
        /// Its URI.
        uri: String,
        /// Its name.
        name: String,
        /// What it is.
        description: Option<String>,
        /// Its MIME type.
        mime_type: Option<String>,
    },
}

/// A resource embedded in a result: a URI and its text or bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Resource {
    uri: String,
    mime_type: Option<String>,
    body: Body,
}

#[derive(Debug, Clone, PartialEq)]
enum Body {
    Text(String),
    /// Base64.
    Blob(String),
}

fn encode(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

impl Content {
    /// A text block.
    ///
    /// ```
    /// use toolschema_runtime::call::Content;
    ///
    /// assert_eq!(Content::text("hi").to_json(), serde_json::json!({"type": "text", "text": "hi"}));
    /// ```
    pub fn text(text: impl Into<String>) -> Content {
        Content::Text(text.into())
    }

    /// An image block of `bytes` (encoded as base64 here).
    ///
    /// ```
    /// use toolschema_runtime::call::Content;
    ///
    /// let block = Content::image(&[1, 2, 3], "image/png").to_json();
    /// assert_eq!(block["data"], "AQID");
    /// assert_eq!(block["mimeType"], "image/png");
    /// ```
    pub fn image(bytes: &[u8], mime_type: impl Into<String>) -> Content {
        Content::Image {
            data: encode(bytes),
            mime_type: mime_type.into(),
        }
    }

    /// An audio block of `bytes` (encoded as base64 here).
    pub fn audio(bytes: &[u8], mime_type: impl Into<String>) -> Content {
        Content::Audio {
            data: encode(bytes),
            mime_type: mime_type.into(),
        }
    }

    /// An embedded resource with text.
    pub fn resource_text(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Content {
        Content::Resource(Resource {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            body: Body::Text(text.into()),
        })
    }

    /// An embedded resource with bytes (encoded as base64 here).
    pub fn resource_blob(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        bytes: &[u8],
    ) -> Content {
        Content::Resource(Resource {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            body: Body::Blob(encode(bytes)),
        })
    }

    /// A link to a resource.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Content {
        Content::ResourceLink {
            uri: uri.into(),
            name: name.into(),
            description: None,
            mime_type: None,
        }
    }

    /// [`to_json`](Self::to_json), taking the block: a text's string is
    /// moved, not copied.
    fn into_json(self) -> Value {
        match self {
            Content::Text(text) => {
                let mut block = Map::new();
                block.insert("type".into(), Value::from("text"));
                block.insert("text".into(), Value::String(text));
                Value::Object(block)
            }
            other => other.to_json(),
        }
    }

    /// The block as MCP JSON (`{"type": "text", ...}`).
    pub fn to_json(&self) -> Value {
        match self {
            Content::Text(text) => json!({"type": "text", "text": text}),
            Content::Image { data, mime_type } => {
                json!({"type": "image", "data": data, "mimeType": mime_type})
            }
            Content::Audio { data, mime_type } => {
                json!({"type": "audio", "data": data, "mimeType": mime_type})
            }
            Content::Resource(resource) => {
                let mut inner = Map::new();
                inner.insert("uri".into(), json!(resource.uri));
                if let Some(mime_type) = &resource.mime_type {
                    inner.insert("mimeType".into(), json!(mime_type));
                }
                match &resource.body {
                    Body::Text(text) => inner.insert("text".into(), json!(text)),
                    Body::Blob(blob) => inner.insert("blob".into(), json!(blob)),
                };
                json!({"type": "resource", "resource": inner})
            }
            Content::ResourceLink {
                uri,
                name,
                description,
                mime_type,
            } => {
                let mut link = json!({"type": "resource_link", "uri": uri, "name": name});
                if let Some(description) = description {
                    link["description"] = json!(description);
                }
                if let Some(mime_type) = mime_type {
                    link["mimeType"] = json!(mime_type);
                }
                link
            }
        }
    }
}

/// What a tool call produced: content blocks, and structured JSON when the
/// tool declares an output type.
///
/// A handler of a tool without `#[tool(output = T)]` returns one:
///
/// ```
/// use toolschema_runtime::call::{Content, ToolResult};
///
/// let result = ToolResult::text("Found 2 invoices.").with(Content::image(&[0x89, b'P'], "image/png"));
/// assert_eq!(result.content().len(), 2);
/// assert!(result.structured().is_none());
/// ```
#[derive(Debug, Clone, Default)]
pub struct ToolResult {
    content: Vec<Content>,
    structured: Structured,
}

/// A result's structured JSON: a value, or (a large result mapped from a
/// downstream's answer) its text, read into a value only if asked.
#[derive(Debug, Clone, Default)]
enum Structured {
    #[default]
    None,
    Value(Value),
    Text {
        json: Box<RawValue>,
        read: OnceLock<Value>,
    },
}

impl PartialEq for ToolResult {
    fn eq(&self, other: &ToolResult) -> bool {
        self.content == other.content && self.structured() == other.structured()
    }
}

/// A result's structured JSON, as a transport writes it.
#[derive(Debug)]
#[non_exhaustive]
pub enum StructuredJson {
    /// A value.
    Value(Value),
    /// JSON text, written as it is.
    Text(Box<RawValue>),
}

impl ToolResult {
    /// No content yet.
    pub fn new() -> ToolResult {
        ToolResult::default()
    }

    /// One text block.
    pub fn text(text: impl Into<String>) -> ToolResult {
        ToolResult::new().with(Content::text(text))
    }

    /// A JSON value as one text block (for a tool without an output
    /// schema; a tool with one returns its output type instead).
    pub fn json(value: &impl Serialize) -> ToolResult {
        ToolResult::text(serde_json::to_string(value).unwrap_or_default())
    }

    /// The same, with one more block.
    pub fn with(mut self, content: Content) -> ToolResult {
        self.content.push(content);
        self
    }

    /// The content blocks, in order.
    pub fn content(&self) -> &[Content] {
        &self.content
    }

    /// The structured result (`structuredContent`), for a tool with an
    /// output schema: already checked against it, in exposed names.
    pub fn structured(&self) -> Option<&Value> {
        match &self.structured {
            Structured::None => None,
            Structured::Value(value) => Some(value),
            Structured::Text { json, read } => {
                Some(read.get_or_init(|| serde_json::from_str(json.get()).unwrap_or(Value::Null)))
            }
        }
    }

    /// The structured result, taken out.
    pub fn into_structured(self) -> Option<Value> {
        match self.structured {
            Structured::None => None,
            Structured::Value(value) => Some(value),
            Structured::Text { json, read } => Some(
                read.into_inner()
                    .unwrap_or_else(|| serde_json::from_str(json.get()).unwrap_or(Value::Null)),
            ),
        }
    }

    /// The `content` array as MCP JSON, and the structured result as it is
    /// kept (text stays text): what a transport writes, taken out without
    /// a copy.
    ///
    /// ```
    /// use toolschema_runtime::call::{StructuredJson, ToolResult};
    ///
    /// let (content, structured) = ToolResult::text("done").into_json();
    /// assert_eq!(content, serde_json::json!([{"type": "text", "text": "done"}]));
    /// assert!(structured.is_none());
    /// ```
    pub fn into_json(self) -> (Value, Option<StructuredJson>) {
        let content = Value::Array(self.content.into_iter().map(Content::into_json).collect());
        let structured = match self.structured {
            Structured::None => None,
            Structured::Value(value) => Some(StructuredJson::Value(value)),
            Structured::Text { json, .. } => Some(StructuredJson::Text(json)),
        };
        (content, structured)
    }

    /// A result of structured JSON (checked), with the same JSON as text.
    pub(crate) fn structured_value(value: Value) -> ToolResult {
        ToolResult {
            content: vec![Content::text(value.to_string())],
            structured: Structured::Value(value),
        }
    }

    /// A result of structured JSON kept as its (checked) text, with the
    /// same JSON as a text block.
    pub(crate) fn structured_text(json: Box<RawValue>) -> ToolResult {
        ToolResult {
            content: vec![Content::text(json.get())],
            structured: Structured::Text {
                json,
                read: OnceLock::new(),
            },
        }
    }

    /// The `content` array as MCP JSON.
    pub fn content_json(&self) -> Value {
        Value::Array(self.content.iter().map(Content::to_json).collect())
    }
}

/// What a handler returns, made into a result: a serializable output type
/// becomes structured JSON (checked against the output schema); a
/// [`ToolResult`] is sent as it is.
pub trait ToolOutput: Send {
    /// The result, or serde's message when the output cannot be serialized.
    fn into_produced(self) -> Result<Produced, String>;
}

/// A handler's output, before the registry checks it.
#[derive(Debug)]
#[non_exhaustive]
pub enum Produced {
    /// JSON with source names, to be mapped and checked against the output
    /// schema.
    Structured(Value),
    /// JSON in exposed names in the runtime's own tree, to be checked
    /// against the output schema where it is and sent as its text (a
    /// gateway tool's result, mapped from a downstream's answer: a large
    /// one costs no `serde_json::Value` copy).
    Document(crate::render::Json),
    /// Content blocks, sent as they are.
    Content(ToolResult),
}

impl<T: Serialize + Send> ToolOutput for T {
    fn into_produced(self) -> Result<Produced, String> {
        serde_json::to_value(&self)
            .map(Produced::Structured)
            .map_err(|e| e.to_string())
    }
}

impl ToolOutput for ToolResult {
    fn into_produced(self) -> Result<Produced, String> {
        Ok(Produced::Content(self))
    }
}
