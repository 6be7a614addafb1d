//! Projection of a tool into a schema discovery mode (DESIGN §4).
//!
//! | mode | `inputSchema` | `outputSchema` |
//! | --- | --- | --- |
//! | [`Mode::Full`] | the whole schema | the whole schema |
//! | [`Mode::DataStructureOnly`] | structure only, plus the `_schema_discovery` hint | structure only |
//! | [`Mode::Lazy`] | only the hint; other properties allowed | omitted |
//! | [`Mode::Search`] | not listed: found by [`search_tools`](SEARCH_TOOL), then as Lazy | omitted |
//!
//! The tool's own description is kept in every mode. A client that sees a
//! tool in a reduced mode learns its full schema from the
//! [`discover_tool_schema`](META_TOOL) meta-tool.
//!
//! Client dialect profiles ([`Profile`]) are a second projection,
//! independent of the discovery mode, for clients with stricter schema
//! rules:
//!
//! - [`Profile::Default`]: JSON Schema 2020-12, as rendered.
//! - [`Profile::OpenAiStrict`]: OpenAI's strict mode. Every property is
//!   required and the optional ones are nullable; closed objects stay
//!   closed (`additionalProperties: false`); `oneOf` becomes `anyOf`;
//!   keywords and formats the provider refuses are moved into the
//!   description. An object the tool leaves open (a map, a struct that
//!   allows unknown fields, a Lazy tool's arguments) stays open: no
//!   advertised schema may refuse a real call.
//! - [`Profile::Gemini`]: Gemini's OpenAPI 3.0 subset. No `$ref`/`$defs`
//!   (references are inlined; recursion is cut with a described placeholder),
//!   no `oneOf`, `const` or `additionalProperties`; `null` is `nullable`;
//!   enums are strings; other keywords are moved into the description.
//!
//! Profiles apply to input schemas, the parameters a provider constrains;
//! output schemas stay as rendered so that results conform to them.
//! Validation always uses the Full default schema: a profile changes what a
//! client is shown, never what a call is checked against. A value the
//! client sends as `null` for an optional property is absent, so the
//! nullable forms these profiles add are read back correctly.

mod mode;

pub(crate) use mode::ANNOTATIONS;
mod profile;
mod revision;

pub use mode::{
    DEFAULT_FOUND, HINT_FIELD, LONGEST_QUERY, META_TOOL, MOST_FOUND, Mode, SEARCH_TOOL, meta_tool,
    meta_tool_with_names, project_tool, search_tool,
};
pub use profile::{Profile, apply_profile};
pub use revision::{ProtocolRevision, RESULT_PROPERTY};

use crate::model::ToolDef;
use crate::render::Json;

/// The MCP `Tool` object of `tool` as a client in `mode` with `profile`
/// sees it: [`project_tool`], then [`apply_profile`].
pub fn project_tool_as(tool: &ToolDef, mode: Mode, profile: Profile) -> Json {
    let json = project_tool(tool, mode);
    match profile {
        Profile::Default => json,
        other => apply_profile(json, other),
    }
}
