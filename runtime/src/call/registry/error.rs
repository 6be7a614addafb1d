//! Why a tool is not registered.

use core::fmt;

use crate::model::Text;

/// Refusals of [`Registry::register`](super::Registry::register).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegistryError {
    /// Another type already provides this tool name and version.
    Duplicate {
        /// The tool name.
        name: Text,
        /// The version.
        version: u32,
    },
    /// Two members of one object in the tool's arguments or result are
    /// exposed under the same name (through flattening the derive could not
    /// see into, or a hand-written schema).
    DuplicateProperty {
        /// The tool name.
        name: Text,
        /// The type holding the two members.
        type_name: String,
        /// The exposed name they share.
        property: String,
    },
    /// A schema written by hand (`#[tool(input_schema = "...")]`) that
    /// cannot serve: it does not compile as JSON Schema 2020-12 (a `$ref`
    /// that resolves nowhere), or it is nested inside another schema.
    InvalidSchema {
        /// The tool name.
        name: Text,
        /// What is wrong.
        problem: String,
    },
    /// A field's advertised default (`#[tool(default = …)]`) is not what
    /// serde gives it when a call leaves it out: clients would be told one
    /// value and the handler would get another.
    DefaultDisagrees {
        /// The tool name.
        name: Text,
        /// The field's exposed path (`/limit`, `/page/size`).
        field: String,
        /// The advertised default, as JSON.
        advertised: String,
        /// serde's default, as JSON.
        serde: String,
    },
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryError::Duplicate { name, version } => write!(
                f,
                "tool `{name}` version {version} is registered twice; give one type another `#[tool(version = N)]`"
            ),
            RegistryError::DuplicateProperty {
                name,
                type_name,
                property,
            } => write!(
                f,
                "tool `{name}`: `{type_name}` has two members exposed as `{property}`; give one of them another name with `#[tool(rename = \"...\")]`"
            ),
            RegistryError::InvalidSchema { name, problem } => {
                write!(f, "tool `{name}`: {problem}")
            }
            RegistryError::DefaultDisagrees {
                name,
                field,
                advertised,
                serde,
            } => write!(
                f,
                "tool `{name}`: `{field}` advertises the default {advertised}, but serde gives {serde} when a call leaves it out; make `#[tool(default = …)]` and `#[serde(default …)]` agree"
            ),
        }
    }
}

impl std::error::Error for RegistryError {}
