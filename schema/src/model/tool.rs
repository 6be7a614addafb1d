//! The [`Tool`] trait: a struct that is the input of an MCP tool.

use super::{NodeRef, Ref, Schema, Text};

/// An MCP tool whose input is `Self`.
///
/// Implement it with `#[derive(Tool)]`; the descriptor is a constant built at
/// compile time.
///
/// ```
/// use toolschema_schema::Tool;
///
/// fn tool_name<T: Tool>() -> &'static str {
///     &T::TOOL.name
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool",
    label = "`{Self}` does not implement `toolschema::Tool`",
    note = "add `#[derive(toolschema::Tool)]` to the struct that holds the tool's arguments"
)]
pub trait Tool: Schema {
    /// The tool's descriptor.
    const TOOL: &'static ToolDef;

    /// What the tool returns: the `#[tool(output = T)]` type, else any JSON
    /// value. (Its schema is [`ToolDef::output`].)
    type Output;

    /// The application state its handler reads from its `Context`: the
    /// `#[tool(state = S)]` type, else `()`.
    type State: Send + Sync + 'static;
}

/// Everything known about a tool at compile time.
#[derive(Debug, Clone)]
pub struct ToolDef {
    /// The tool's name (`#[tool(name)]`, else the struct name in kebab-case).
    pub name: Text,
    /// A human-readable title.
    pub title: Option<Text>,
    /// What the tool does, for the model (the struct's doc comment).
    pub description: Text,
    /// The version of the tool's mapping this type provides.
    pub version: u32,
    /// The input schema: the struct itself.
    pub input: NodeRef,
    /// The output schema (`#[tool(output = T)]`).
    pub output: Option<NodeRef>,
    /// Hints about the tool's behaviour.
    pub annotations: Annotations,
    /// Images a client may show beside the tool (`#[tool(icon(...))]`).
    pub icons: Ref<[Icon]>,
    /// Whether the tool is internal: never exposed, whatever configuration says.
    pub internal: bool,
}

impl ToolDef {
    /// Whether the tool's structured result is always a JSON object, as
    /// clients before MCP 2026-07-28 require; otherwise they get it wrapped
    /// (see [`ProtocolRevision`](crate::project::ProtocolRevision)). A tool without an
    /// output schema returns content blocks, and counts as one.
    pub fn output_is_object(&self) -> bool {
        self.output
            .as_ref()
            .is_none_or(|schema| schema.is_json_object())
    }
}

/// An image a client may show for a tool (MCP `Icon`, from revision
/// 2025-11-25).
///
/// ```
/// use toolschema_schema::model::{Icon, IconTheme, Ref};
///
/// const INVOICE: Icon = Icon {
///     src: Ref::Static("https://acme.example/icons/invoice.svg"),
///     mime_type: Some(Ref::Static("image/svg+xml")),
///     sizes: Ref::Static(&[Ref::Static("any")]),
///     theme: Some(IconTheme::Light),
/// };
/// assert_eq!(INVOICE.theme.map(IconTheme::name), Some("light"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Icon {
    /// An `https:` (or `http:`) URL, or a `data:` URI with the image in
    /// base64.
    pub src: Text,
    /// The image's MIME type, when the source does not say it well.
    pub mime_type: Option<Text>,
    /// The sizes it suits, each `WxH` (`48x48`) or `any`; none is any size.
    pub sizes: Ref<[Text]>,
    /// The background it is drawn for; `None` suits both.
    pub theme: Option<IconTheme>,
}

/// The background an [`Icon`] is drawn for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IconTheme {
    /// A light background.
    Light,
    /// A dark background.
    Dark,
}

impl IconTheme {
    /// The name MCP uses: `light` or `dark`.
    pub const fn name(self) -> &'static str {
        match self {
            IconTheme::Light => "light",
            IconTheme::Dark => "dark",
        }
    }
}

/// MCP tool annotations: hints about a tool's behaviour. `None` leaves a hint
/// out, so clients apply the protocol's default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Annotations {
    /// The tool does not modify its environment (`readOnlyHint`).
    pub read_only: Option<bool>,
    /// The tool may perform destructive updates (`destructiveHint`).
    pub destructive: Option<bool>,
    /// Calling the tool again with the same arguments has no further effect
    /// (`idempotentHint`).
    pub idempotent: Option<bool>,
    /// The tool interacts with an open world of external entities
    /// (`openWorldHint`).
    pub open_world: Option<bool>,
}

impl Annotations {
    /// No hints.
    pub const NONE: Annotations = Annotations {
        read_only: None,
        destructive: None,
        idempotent: None,
        open_world: None,
    };

    /// Whether no hint is set.
    pub const fn is_empty(&self) -> bool {
        self.read_only.is_none()
            && self.destructive.is_none()
            && self.idempotent.is_none()
            && self.open_world.is_none()
    }
}
