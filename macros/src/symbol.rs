//! The names of every attribute key the derives read.

pub(crate) const TOOL: &str = "tool";
pub(crate) const SERDE: &str = "serde";
pub(crate) const DOC: &str = "doc";

// `#[tool(...)]` on a container.
pub(crate) const NAME: &str = "name";
pub(crate) const TITLE: &str = "title";
pub(crate) const DESCRIPTION: &str = "description";
pub(crate) const OUTPUT: &str = "output";
pub(crate) const STATE: &str = "state";
pub(crate) const VERSION: &str = "version";
pub(crate) const RENAME_ALL: &str = "rename_all";
pub(crate) const ANNOTATIONS: &str = "annotations";
pub(crate) const INTERNAL: &str = "internal";
pub(crate) const CRATE: &str = "crate";
pub(crate) const ALLOW_UNKNOWN_FIELDS: &str = "allow_unknown_fields";
pub(crate) const INPUT_SCHEMA: &str = "input_schema";
pub(crate) const ICON: &str = "icon";

// `icon(...)`.
pub(crate) const SRC: &str = "src";
pub(crate) const FILE: &str = "file";
pub(crate) const MIME_TYPE: &str = "mime_type";
pub(crate) const SIZES: &str = "sizes";
pub(crate) const THEME: &str = "theme";

// `annotations(...)`.
pub(crate) const READ_ONLY: &str = "read_only";
pub(crate) const DESTRUCTIVE: &str = "destructive";
pub(crate) const IDEMPOTENT: &str = "idempotent";
pub(crate) const OPEN_WORLD: &str = "open_world";

// `#[tool(...)]` on a field.
pub(crate) const RENAME: &str = "rename";
pub(crate) const DEFAULT: &str = "default";
pub(crate) const REQUIRED: &str = "required";
pub(crate) const SKIP: &str = "skip";
pub(crate) const FORMAT: &str = "format";
pub(crate) const EXAMPLES: &str = "examples";
pub(crate) const MINIMUM: &str = "minimum";
pub(crate) const MAXIMUM: &str = "maximum";
pub(crate) const MIN_LENGTH: &str = "min_length";
pub(crate) const MAX_LENGTH: &str = "max_length";
pub(crate) const PATTERN: &str = "pattern";
pub(crate) const MIN_ITEMS: &str = "min_items";
pub(crate) const MAX_ITEMS: &str = "max_items";
pub(crate) const SCHEMA: &str = "schema";
pub(crate) const HEADER: &str = "header";

// `#[serde(...)]`.
pub(crate) const ALIAS: &str = "alias";
pub(crate) const CONTENT: &str = "content";
pub(crate) const DENY_UNKNOWN_FIELDS: &str = "deny_unknown_fields";
pub(crate) const FLATTEN: &str = "flatten";
pub(crate) const FROM: &str = "from";
pub(crate) const INTO: &str = "into";
pub(crate) const OTHER: &str = "other";
pub(crate) const RENAME_ALL_FIELDS: &str = "rename_all_fields";
pub(crate) const SERIALIZE: &str = "serialize";
pub(crate) const DESERIALIZE: &str = "deserialize";
pub(crate) const SKIP_DESERIALIZING: &str = "skip_deserializing";
pub(crate) const SKIP_SERIALIZING: &str = "skip_serializing";
pub(crate) const SKIP_SERIALIZING_IF: &str = "skip_serializing_if";
pub(crate) const TAG: &str = "tag";
pub(crate) const TRANSPARENT: &str = "transparent";
pub(crate) const TRY_FROM: &str = "try_from";
pub(crate) const UNTAGGED: &str = "untagged";
pub(crate) const WITH: &str = "with";
pub(crate) const SERIALIZE_WITH: &str = "serialize_with";
pub(crate) const DESERIALIZE_WITH: &str = "deserialize_with";
pub(crate) const FIELD_IDENTIFIER: &str = "field_identifier";
pub(crate) const VARIANT_IDENTIFIER: &str = "variant_identifier";
