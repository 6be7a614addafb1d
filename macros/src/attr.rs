//! Reading `#[tool(...)]` and `#[serde(...)]` attributes.
//!
//! Every key is parsed by hand with `parse_nested_meta`. Each mistake is
//! recorded at its own token and parsing goes on with the next key, so one
//! build reports every mistake of an item.

use proc_macro2::{Span, TokenTree};
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{LitStr, Token};

use crate::case::{RULE_NAMES, RenameRule};
use crate::ctxt::Ctxt;
use crate::symbol::*;
use toolschema_text::suggest::closest;

/// An attribute value that may be given at most once, with the span of its key.
pub(crate) struct Slot<T> {
    name: &'static str,
    value: Option<(T, Span)>,
}

impl<T> Slot<T> {
    fn new(name: &'static str) -> Slot<T> {
        Slot { name, value: None }
    }

    fn set(&mut self, cx: &Ctxt, span: Span, value: T) {
        if self.value.is_some() {
            cx.error_span(span, format!("duplicate `tool` attribute `{}`", self.name));
        } else {
            self.value = Some((value, span));
        }
    }

    pub(crate) fn get(&self) -> Option<&T> {
        self.value.as_ref().map(|(value, _)| value)
    }

    pub(crate) fn span(&self) -> Option<Span> {
        self.value.as_ref().map(|(_, span)| *span)
    }

    pub(crate) fn is_set(&self) -> bool {
        self.value.is_some()
    }
}

/// A literal written in an attribute: an example or a default value.
#[derive(Clone)]
pub(crate) enum LitValue {
    Bool(bool),
    /// A whole number; negative ones fit `i64`.
    Int(i128),
    Float(f64),
    Str(String),
}

/// The keys `#[tool]` accepts on a container.
const CONTAINER_KEYS: &[&str] = &[
    NAME,
    TITLE,
    DESCRIPTION,
    OUTPUT,
    STATE,
    VERSION,
    RENAME_ALL,
    ANNOTATIONS,
    INTERNAL,
    CRATE,
    ALLOW_UNKNOWN_FIELDS,
    INPUT_SCHEMA,
    ICON,
];

/// The keys of `#[tool(icon(...))]`.
const ICON_KEYS: &[&str] = &[SRC, FILE, MIME_TYPE, SIZES, THEME];

/// The keys of `#[tool(annotations(...))]`.
const ANNOTATION_KEYS: &[&str] = &[READ_ONLY, DESTRUCTIVE, IDEMPOTENT, OPEN_WORLD];

/// The keys `#[tool]` accepts on a field.
const FIELD_KEYS: &[&str] = &[
    RENAME,
    DESCRIPTION,
    DEFAULT,
    REQUIRED,
    SKIP,
    FORMAT,
    EXAMPLES,
    MINIMUM,
    MAXIMUM,
    MIN_LENGTH,
    MAX_LENGTH,
    PATTERN,
    MIN_ITEMS,
    MAX_ITEMS,
    SCHEMA,
    HEADER,
];

/// The keys `#[tool]` accepts on an enum variant.
const VARIANT_KEYS: &[&str] = &[DESCRIPTION];

/// The standard formats of JSON Schema 2020-12.
pub(crate) use toolschema_text::formats::FORMATS;

/// Hints of `#[tool(annotations(...))]`.
#[derive(Default)]
pub(crate) struct Annotations {
    pub(crate) read_only: Option<bool>,
    pub(crate) destructive: Option<bool>,
    pub(crate) idempotent: Option<bool>,
    pub(crate) open_world: Option<bool>,
}

/// One `#[tool(icon(...))]`: where the image is and what it suits.
pub(crate) struct IconAttr {
    /// The `icon` key, for errors about the whole icon.
    pub(crate) span: Span,
    pub(crate) src: Slot<LitStr>,
    pub(crate) file: Slot<LitStr>,
    pub(crate) mime_type: Slot<LitStr>,
    pub(crate) sizes: Slot<Vec<LitStr>>,
    pub(crate) theme: Slot<LitStr>,
}

/// Attributes of a struct or enum.
pub(crate) struct Container {
    pub(crate) name: Slot<LitStr>,
    pub(crate) title: Slot<LitStr>,
    pub(crate) description: Slot<LitStr>,
    pub(crate) output: Slot<syn::Type>,
    /// The application state the tool's handler reads (`Context<S>`).
    pub(crate) state: Slot<syn::Type>,
    pub(crate) version: Slot<u32>,
    pub(crate) rename_all: Slot<RenameRule>,
    pub(crate) annotations: Slot<Annotations>,
    pub(crate) internal: Slot<()>,
    pub(crate) krate: Slot<syn::Path>,
    pub(crate) allow_unknown_fields: Slot<()>,
    /// A JSON Schema file that is the tool's input schema, verbatim.
    pub(crate) input_schema: Slot<LitStr>,
    /// Every `icon(...)`, in order; the key may repeat.
    pub(crate) icons: Vec<IconAttr>,
    pub(crate) serde: SerdeContainer,
}

/// What the derives read of `#[serde(...)]` on a container.
#[derive(Default)]
pub(crate) struct SerdeContainer {
    pub(crate) rename_all: Option<RenameRule>,
    pub(crate) rename_all_fields: Option<RenameRule>,
    pub(crate) deny_unknown_fields: Option<Span>,
    pub(crate) tag: Option<(String, Span)>,
    pub(crate) content: Option<(String, Span)>,
    pub(crate) untagged: Option<Span>,
    pub(crate) transparent: Option<Span>,
    pub(crate) default: bool,
}

/// Attributes of a field.
pub(crate) struct Field {
    pub(crate) rename: Slot<LitStr>,
    pub(crate) description: Slot<LitStr>,
    pub(crate) default: Slot<Option<LitValue>>,
    pub(crate) required: Slot<()>,
    pub(crate) skip: Slot<()>,
    pub(crate) format: Slot<LitStr>,
    pub(crate) examples: Slot<Vec<LitValue>>,
    pub(crate) minimum: Slot<LitValue>,
    pub(crate) maximum: Slot<LitValue>,
    pub(crate) min_length: Slot<u64>,
    pub(crate) max_length: Slot<u64>,
    pub(crate) pattern: Slot<LitStr>,
    pub(crate) min_items: Slot<u64>,
    pub(crate) max_items: Slot<u64>,
    pub(crate) schema: Slot<syn::Type>,
    /// The HTTP header the argument is mirrored in (`Mcp-Param-<name>`).
    pub(crate) header: Slot<LitStr>,
    pub(crate) serde: SerdeField,
}

/// What the derives read of `#[serde(...)]` on a field or variant.
#[derive(Default)]
pub(crate) struct SerdeField {
    /// The name serde reads and the name it writes, when renamed.
    pub(crate) rename: Option<(Option<String>, Option<String>, Span)>,
    pub(crate) rename_all: Option<RenameRule>,
    pub(crate) aliases: Vec<String>,
    pub(crate) default: bool,
    /// The function of `#[serde(default = "path")]`.
    pub(crate) default_path: Option<syn::ExprPath>,
    pub(crate) skip_deserializing: Option<Span>,
    pub(crate) skip_serializing: bool,
    pub(crate) skip_serializing_if: bool,
    pub(crate) flatten: Option<Span>,
    pub(crate) with: Option<(&'static str, Span)>,
    pub(crate) other: bool,
    pub(crate) untagged: Option<Span>,
}

/// Attributes of an enum variant.
pub(crate) struct Variant {
    pub(crate) description: Slot<LitStr>,
    pub(crate) serde: SerdeField,
}

impl Container {
    pub(crate) fn from_ast(cx: &Ctxt, attrs: &[syn::Attribute]) -> Container {
        let mut out = Container {
            name: Slot::new(NAME),
            title: Slot::new(TITLE),
            description: Slot::new(DESCRIPTION),
            output: Slot::new(OUTPUT),
            state: Slot::new(STATE),
            version: Slot::new(VERSION),
            rename_all: Slot::new(RENAME_ALL),
            annotations: Slot::new(ANNOTATIONS),
            internal: Slot::new(INTERNAL),
            krate: Slot::new(CRATE),
            allow_unknown_fields: Slot::new(ALLOW_UNKNOWN_FIELDS),
            input_schema: Slot::new(INPUT_SCHEMA),
            icons: Vec::new(),
            serde: SerdeContainer::default(),
        };
        for attr in attrs {
            if attr.path().is_ident(TOOL) {
                let result = attr.parse_nested_meta(|meta| out.tool_key(cx, &meta));
                if let Err(err) = result {
                    cx.syn_error(err);
                }
            } else if attr.path().is_ident(SERDE) {
                let result = attr.parse_nested_meta(|meta| out.serde.key(cx, &meta));
                if let Err(err) = result {
                    cx.syn_error(err);
                }
            }
        }
        out
    }

    fn tool_key(&mut self, cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        let span = meta.path.span();
        let Some(key) = key_name(meta) else {
            return unknown_key(cx, meta, "", CONTAINER_KEYS);
        };
        match key.as_str() {
            NAME => {
                if let Some(s) = lit_str(cx, meta, NAME)? {
                    self.name.set(cx, span, s);
                }
            }
            TITLE => {
                if let Some(s) = lit_str(cx, meta, TITLE)? {
                    self.title.set(cx, span, s);
                }
            }
            DESCRIPTION => {
                if let Some(s) = lit_str(cx, meta, DESCRIPTION)? {
                    self.description.set(cx, span, s);
                }
            }
            OUTPUT => {
                let ty: syn::Type = meta.value()?.parse()?;
                self.output.set(cx, span, ty);
            }
            STATE => {
                let ty: syn::Type = meta.value()?.parse()?;
                self.state.set(cx, span, ty);
            }
            VERSION => {
                if let Some(lit) = lit_int(cx, meta, VERSION)? {
                    match lit.base10_parse::<u32>() {
                        Ok(0) | Err(_) => cx
                            .error_at(&lit, "`version` is a whole number from 1 up: `version = 2`"),
                        Ok(version) => self.version.set(cx, span, version),
                    }
                }
            }
            RENAME_ALL => {
                if let Some(rule) = rename_rule(cx, meta, RENAME_ALL)? {
                    self.rename_all.set(cx, span, rule);
                }
            }
            ANNOTATIONS => {
                let mut hints = Annotations::default();
                meta.parse_nested_meta(|hint| {
                    let slot = match key_name(&hint).as_deref() {
                        Some(READ_ONLY) => &mut hints.read_only,
                        Some(DESTRUCTIVE) => &mut hints.destructive,
                        Some(IDEMPOTENT) => &mut hints.idempotent,
                        Some(OPEN_WORLD) => &mut hints.open_world,
                        _ => return unknown_key(cx, &hint, "annotations", ANNOTATION_KEYS),
                    };
                    let value = flag_or_bool(&hint)?;
                    if slot.is_some() {
                        let name = key_name(&hint).unwrap_or_default();
                        cx.error_at(&hint.path, format!("duplicate annotation `{name}`"));
                    }
                    *slot = Some(value);
                    Ok(())
                })?;
                self.annotations.set(cx, span, hints);
            }
            INTERNAL => self.internal.set(cx, span, ()),
            ALLOW_UNKNOWN_FIELDS => self.allow_unknown_fields.set(cx, span, ()),
            INPUT_SCHEMA => {
                if let Some(s) = lit_str(cx, meta, INPUT_SCHEMA)? {
                    self.input_schema.set(cx, span, s);
                }
            }
            ICON => {
                let mut icon = IconAttr {
                    span,
                    src: Slot::new(SRC),
                    file: Slot::new(FILE),
                    mime_type: Slot::new(MIME_TYPE),
                    sizes: Slot::new(SIZES),
                    theme: Slot::new(THEME),
                };
                meta.parse_nested_meta(|inner| {
                    let span = inner.path.span();
                    let key = key_name(&inner);
                    let slot = match key.as_deref() {
                        Some(SRC) => &mut icon.src,
                        Some(FILE) => &mut icon.file,
                        Some(MIME_TYPE) => &mut icon.mime_type,
                        Some(THEME) => &mut icon.theme,
                        Some(SIZES) => {
                            let sizes = lit_strs(&inner)?;
                            icon.sizes.set(cx, span, sizes);
                            return Ok(());
                        }
                        _ => return unknown_key(cx, &inner, ICON, ICON_KEYS),
                    };
                    let name = key.unwrap_or_default();
                    if let Some(value) = lit_str(cx, &inner, &name)? {
                        slot.set(cx, span, value);
                    }
                    Ok(())
                })?;
                self.icons.push(icon);
            }
            CRATE => {
                if let Some(s) = lit_str(cx, meta, CRATE)? {
                    match s.parse::<syn::Path>() {
                        Ok(path) => self.krate.set(cx, span, path),
                        Err(_) => {
                            cx.error_at(&s, "`crate` takes a path: `crate = \"my_toolschema\"`")
                        }
                    }
                }
            }
            _ => return unknown_key(cx, meta, "", CONTAINER_KEYS),
        }
        Ok(())
    }
}

impl SerdeContainer {
    fn key(&mut self, cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        let span = meta.path.span();
        match key_name(meta).as_deref() {
            Some(RENAME_ALL) => self.rename_all = serde_rule(cx, meta)?,
            Some(RENAME_ALL_FIELDS) => self.rename_all_fields = serde_rule(cx, meta)?,
            Some(DENY_UNKNOWN_FIELDS) => self.deny_unknown_fields = Some(span),
            Some(TAG) => self.tag = serde_str(meta)?.map(|s| (s.value(), s.span())),
            Some(CONTENT) => self.content = serde_str(meta)?.map(|s| (s.value(), s.span())),
            Some(UNTAGGED) => self.untagged = Some(span),
            Some(TRANSPARENT) => self.transparent = Some(span),
            Some(DEFAULT) => {
                self.default = true;
                skip_value(meta)?;
            }
            Some(key @ (FROM | TRY_FROM | INTO)) => {
                cx.error_span(
                    span,
                    format!(
                        "`#[serde({key})]` makes serde read or write another type, which this derive cannot see; implement `toolschema::Schema` by hand with that type's schema"
                    ),
                );
                skip_value(meta)?;
            }
            Some(key @ (FIELD_IDENTIFIER | VARIANT_IDENTIFIER)) => {
                cx.error_span(
                    span,
                    format!("`#[serde({key})]` has no JSON Schema; remove the toolschema derive from this type"),
                );
            }
            // serde checks its own keys; the rest do not change the JSON shape.
            _ => skip_value(meta)?,
        }
        Ok(())
    }
}

impl Field {
    pub(crate) fn from_ast(cx: &Ctxt, attrs: &[syn::Attribute]) -> Field {
        let mut out = Field {
            rename: Slot::new(RENAME),
            description: Slot::new(DESCRIPTION),
            default: Slot::new(DEFAULT),
            required: Slot::new(REQUIRED),
            skip: Slot::new(SKIP),
            format: Slot::new(FORMAT),
            examples: Slot::new(EXAMPLES),
            minimum: Slot::new(MINIMUM),
            maximum: Slot::new(MAXIMUM),
            min_length: Slot::new(MIN_LENGTH),
            max_length: Slot::new(MAX_LENGTH),
            pattern: Slot::new(PATTERN),
            min_items: Slot::new(MIN_ITEMS),
            max_items: Slot::new(MAX_ITEMS),
            schema: Slot::new(SCHEMA),
            header: Slot::new(HEADER),
            serde: SerdeField::default(),
        };
        for attr in attrs {
            if attr.path().is_ident(TOOL) {
                if let Err(err) = attr.parse_nested_meta(|meta| out.tool_key(cx, &meta)) {
                    cx.syn_error(err);
                }
            } else if attr.path().is_ident(SERDE)
                && let Err(err) = attr.parse_nested_meta(|meta| out.serde.key(cx, &meta))
            {
                cx.syn_error(err);
            }
        }
        out
    }

    fn tool_key(&mut self, cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        let span = meta.path.span();
        let Some(key) = key_name(meta) else {
            return unknown_key(cx, meta, "", FIELD_KEYS);
        };
        match key.as_str() {
            RENAME => {
                if let Some(s) = lit_str(cx, meta, RENAME)? {
                    self.rename.set(cx, span, s);
                }
            }
            DESCRIPTION => {
                if let Some(s) = lit_str(cx, meta, DESCRIPTION)? {
                    self.description.set(cx, span, s);
                }
            }
            DEFAULT => {
                let value = if meta.input.peek(Token![=]) {
                    Some(lit_value(meta.value()?)?)
                } else {
                    None
                };
                self.default.set(cx, span, value);
            }
            REQUIRED => self.required.set(cx, span, ()),
            SKIP => self.skip.set(cx, span, ()),
            HEADER => {
                if let Some(s) = lit_str(cx, meta, HEADER)? {
                    let name = s.value();
                    let token = !name.is_empty()
                        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
                    if token {
                        self.header.set(cx, span, s);
                    } else {
                        cx.error_at(
                            &s,
                            format!("`{name}` cannot name an HTTP header: use letters, digits and `-` (the header is `Mcp-Param-{name}`)"),
                        );
                    }
                }
            }
            FORMAT => {
                if let Some(s) = lit_str(cx, meta, FORMAT)? {
                    let format = s.value();
                    if FORMATS.contains(&format.as_str()) {
                        self.format.set(cx, span, s);
                    } else {
                        let hint = match closest(&format, FORMATS.iter().copied()) {
                            Some(near) => format!(", did you mean `{near}`?"),
                            None => format!("; use one of: {}", FORMATS.join(", ")),
                        };
                        cx.error_at(
                            &s,
                            format!("`{format}` is not a standard JSON Schema format{hint}"),
                        );
                    }
                }
            }
            EXAMPLES => {
                let value = meta.value()?;
                let content;
                syn::bracketed!(content in value);
                let mut values = Vec::new();
                while !content.is_empty() {
                    values.push(lit_value(&content)?);
                    if content.is_empty() {
                        break;
                    }
                    content.parse::<Token![,]>()?;
                }
                self.examples.set(cx, span, values);
            }
            MINIMUM | MAXIMUM => {
                let value = lit_value(meta.value()?)?;
                if !matches!(value, LitValue::Int(_) | LitValue::Float(_)) {
                    cx.error_span(span, format!("`{key}` takes a number: `{key} = 10`"));
                } else if key == MINIMUM {
                    self.minimum.set(cx, span, value);
                } else {
                    self.maximum.set(cx, span, value);
                }
            }
            MIN_LENGTH | MAX_LENGTH | MIN_ITEMS | MAX_ITEMS => {
                if let Some(lit) = lit_int(cx, meta, &key)? {
                    let slot = match key.as_str() {
                        MIN_LENGTH => &mut self.min_length,
                        MAX_LENGTH => &mut self.max_length,
                        MIN_ITEMS => &mut self.min_items,
                        _ => &mut self.max_items,
                    };
                    match lit.base10_parse::<u64>() {
                        Ok(n) => slot.set(cx, span, n),
                        Err(_) => {
                            cx.error_at(&lit, format!("`{key}` takes a whole number: `{key} = 3`"))
                        }
                    }
                }
            }
            PATTERN => {
                if let Some(s) = lit_str(cx, meta, PATTERN)? {
                    self.pattern.set(cx, span, s);
                }
            }
            SCHEMA => {
                let ty: syn::Type = meta.value()?.parse()?;
                self.schema.set(cx, span, ty);
            }
            _ => return unknown_key(cx, meta, "", FIELD_KEYS),
        }
        Ok(())
    }

    /// The spans of every `#[tool]` key the field sets.
    pub(crate) fn key_spans(&self) -> impl Iterator<Item = Span> {
        [
            self.rename.span(),
            self.description.span(),
            self.default.span(),
            self.required.span(),
            self.skip.span(),
            self.examples.span(),
            self.schema.span(),
            self.header.span(),
        ]
        .into_iter()
        .flatten()
        .chain(self.refinement_spans())
    }

    /// The spans of the refinement keywords the field sets, in the order
    /// they are declared here.
    pub(crate) fn refinement_spans(&self) -> impl Iterator<Item = Span> {
        [
            self.format.span(),
            self.pattern.span(),
            self.min_length.span(),
            self.max_length.span(),
            self.minimum.span(),
            self.maximum.span(),
            self.min_items.span(),
            self.max_items.span(),
        ]
        .into_iter()
        .flatten()
    }

    /// Whether the field sets any refinement keyword.
    pub(crate) fn has_refinements(&self) -> bool {
        self.refinement_spans().next().is_some()
    }
}

impl SerdeField {
    fn key(&mut self, cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        let span = meta.path.span();
        match key_name(meta).as_deref() {
            Some(RENAME) => {
                if meta.input.peek(Token![=]) {
                    if let Some(s) = serde_str(meta)? {
                        self.rename = Some((Some(s.value()), Some(s.value()), span));
                    }
                } else {
                    let (mut ser, mut de) = (None, None);
                    meta.parse_nested_meta(|inner| {
                        match key_name(&inner).as_deref() {
                            Some(SERIALIZE) => ser = serde_str(&inner)?.map(|s| s.value()),
                            Some(DESERIALIZE) => de = serde_str(&inner)?.map(|s| s.value()),
                            _ => skip_value(&inner)?,
                        }
                        Ok(())
                    })?;
                    self.rename = Some((de, ser, span));
                }
            }
            Some(RENAME_ALL) => self.rename_all = serde_rule(cx, meta)?,
            Some(ALIAS) => {
                if let Some(s) = serde_str(meta)? {
                    self.aliases.push(s.value());
                }
            }
            Some(DEFAULT) => {
                self.default = true;
                if meta.input.peek(Token![=]) {
                    self.default_path = serde_str(meta)?.and_then(|path| path.parse().ok());
                }
                skip_value(meta)?;
            }
            Some(SKIP) => {
                self.skip_deserializing = Some(span);
                self.skip_serializing = true;
            }
            Some(SKIP_DESERIALIZING) => self.skip_deserializing = Some(span),
            Some(SKIP_SERIALIZING) => self.skip_serializing = true,
            Some(SKIP_SERIALIZING_IF) => {
                self.skip_serializing_if = true;
                skip_value(meta)?;
            }
            Some(FLATTEN) => self.flatten = Some(span),
            Some(OTHER) => self.other = true,
            Some(UNTAGGED) => self.untagged = Some(span),
            Some(key @ (WITH | SERIALIZE_WITH | DESERIALIZE_WITH)) => {
                let key = [WITH, SERIALIZE_WITH, DESERIALIZE_WITH]
                    .into_iter()
                    .find(|k| *k == key)
                    .unwrap_or(WITH);
                self.with = Some((key, span));
                skip_value(meta)?;
            }
            _ => skip_value(meta)?,
        }
        Ok(())
    }

    /// The name serde reads, if renamed.
    pub(crate) fn read_name(&self) -> Option<&str> {
        self.rename.as_ref().and_then(|(de, _, _)| de.as_deref())
    }
}

impl Variant {
    pub(crate) fn from_ast(cx: &Ctxt, attrs: &[syn::Attribute]) -> Variant {
        let mut out = Variant {
            description: Slot::new(DESCRIPTION),
            serde: SerdeField::default(),
        };
        for attr in attrs {
            if attr.path().is_ident(TOOL) {
                let result = attr.parse_nested_meta(|meta| {
                    let span = meta.path.span();
                    match key_name(&meta).as_deref() {
                        Some(DESCRIPTION) => {
                            if let Some(s) = lit_str(cx, &meta, DESCRIPTION)? {
                                out.description.set(cx, span, s);
                            }
                            Ok(())
                        }
                        Some(key @ (RENAME | SKIP)) => {
                            cx.error_span(
                                span,
                                format!(
                                    "enum variants keep serde's names; use `#[serde({key})]` instead of `#[tool({key})]`"
                                ),
                            );
                            skip_value(&meta)
                        }
                        _ => unknown_key(cx, &meta, "", VARIANT_KEYS),
                    }
                });
                if let Err(err) = result {
                    cx.syn_error(err);
                }
            } else if attr.path().is_ident(SERDE)
                && let Err(err) = attr.parse_nested_meta(|meta| out.serde.key(cx, &meta))
            {
                cx.syn_error(err);
            }
        }
        out
    }
}

/// The key as a plain string, if it is a single identifier.
fn key_name(meta: &ParseNestedMeta<'_>) -> Option<String> {
    let ident = meta.path.get_ident()?;
    Some(ident.to_string().trim_start_matches("r#").to_owned())
}

/// Records an unknown key, with a suggestion, and skips its value.
fn unknown_key(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    inside: &str,
    candidates: &[&str],
) -> syn::Result<()> {
    let key = meta
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::");
    let place = if inside.is_empty() {
        "`tool` attribute".to_owned()
    } else {
        format!("`tool({inside})` key")
    };
    let message = match closest(&key, candidates.iter().copied()) {
        Some(near) => format!("unknown {place} `{key}`, did you mean `{near}`?"),
        None => format!(
            "unknown {place} `{key}`; expected one of: {}",
            candidates
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    cx.error_at(&meta.path, message);
    skip_value(meta)
}

/// Skips the rest of one key: `= value` or `(...)`.
fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    meta.input.step(|cursor| {
        let mut rest = *cursor;
        while let Some((tt, next)) = rest.token_tree() {
            if let TokenTree::Punct(punct) = &tt
                && punct.as_char() == ','
            {
                break;
            }
            rest = next;
        }
        Ok(((), rest))
    })
}

/// `key = "string"`; a literal of another kind is recorded as an error.
fn lit_str(cx: &Ctxt, meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<Option<LitStr>> {
    let expr: syn::Expr = meta.value()?.parse()?;
    match unwrap_group(&expr) {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Ok(Some(s.clone())),
        other => {
            cx.error_at(other, format!("`{key}` takes a string: `{key} = \"...\"`"));
            Ok(None)
        }
    }
}

/// `key = ["a", "b"]`: a list of strings.
fn lit_strs(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<LitStr>> {
    let value = meta.value()?;
    let content;
    syn::bracketed!(content in value);
    let list = content.parse_terminated(|input| input.parse::<LitStr>(), Token![,])?;
    Ok(list.into_iter().collect())
}

/// `key = 123`; anything else is recorded as an error.
fn lit_int(cx: &Ctxt, meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<Option<syn::LitInt>> {
    let expr: syn::Expr = meta.value()?.parse()?;
    match unwrap_group(&expr) {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        }) => Ok(Some(n.clone())),
        other => {
            cx.error_at(other, format!("`{key}` takes a whole number: `{key} = 3`"));
            Ok(None)
        }
    }
}

fn unwrap_group(expr: &syn::Expr) -> &syn::Expr {
    match expr {
        syn::Expr::Group(group) => unwrap_group(&group.expr),
        other => other,
    }
}

/// `key` alone (true) or `key = true|false`.
fn flag_or_bool(meta: &ParseNestedMeta<'_>) -> syn::Result<bool> {
    if meta.input.peek(Token![=]) {
        let lit: syn::LitBool = meta.value()?.parse()?;
        Ok(lit.value)
    } else {
        Ok(true)
    }
}

/// A literal: a string, a boolean, or a number with an optional minus sign.
fn lit_value(input: syn::parse::ParseStream<'_>) -> syn::Result<LitValue> {
    let negative = input.peek(Token![-]);
    if negative {
        input.parse::<Token![-]>()?;
    }
    let lit: syn::Lit = input.parse()?;
    let value = match (&lit, negative) {
        (syn::Lit::Str(s), false) => LitValue::Str(s.value()),
        (syn::Lit::Bool(b), false) => LitValue::Bool(b.value),
        (syn::Lit::Int(n), _) => {
            let n: i128 = n.base10_parse()?;
            let n = if negative { -n } else { n };
            if n < i64::MIN as i128 || n > u64::MAX as i128 {
                return Err(syn::Error::new(
                    lit.span(),
                    "this number does not fit in 64 bits",
                ));
            }
            LitValue::Int(n)
        }
        (syn::Lit::Float(f), _) => {
            let f: f64 = f.base10_parse()?;
            LitValue::Float(if negative { -f } else { f })
        }
        _ => {
            return Err(syn::Error::new(
                lit.span(),
                "expected a literal: a string, a number, `true` or `false`",
            ));
        }
    };
    Ok(value)
}

/// `rename_all = "camelCase"` in `#[tool]`.
fn rename_rule(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    key: &str,
) -> syn::Result<Option<RenameRule>> {
    let Some(s) = lit_str(cx, meta, key)? else {
        return Ok(None);
    };
    match RenameRule::from_name(&s.value()) {
        Some(rule) => Ok(Some(rule)),
        None => {
            let hint = match closest(&s.value(), RULE_NAMES.iter().copied()) {
                Some(near) => format!("did you mean `{near}`?"),
                None => format!("expected one of: {}", RULE_NAMES.join(", ")),
            };
            cx.error_at(&s, format!("unknown rename rule `{}`, {hint}", s.value()));
            Ok(None)
        }
    }
}

/// `rename_all = "..."` or `rename_all(serialize = "...", deserialize = "...")`
/// in `#[serde]`: the rule for names serde reads. serde reports bad spellings.
fn serde_rule(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<Option<RenameRule>> {
    if meta.input.peek(Token![=]) {
        return Ok(serde_str(meta)?.and_then(|s| RenameRule::from_name(&s.value())));
    }
    let (mut ser, mut de) = (None, None);
    meta.parse_nested_meta(|inner| {
        match key_name(&inner).as_deref() {
            Some(SERIALIZE) => {
                ser = serde_str(&inner)?.and_then(|s| RenameRule::from_name(&s.value()))
            }
            Some(DESERIALIZE) => {
                de = serde_str(&inner)?.and_then(|s| RenameRule::from_name(&s.value()))
            }
            _ => skip_value(&inner)?,
        }
        Ok(())
    })?;
    if ser != de {
        cx.error_at(
            &meta.path,
            "a schema describes one name per field; `rename_all` with different `serialize` and `deserialize` rules cannot be expressed",
        );
    }
    Ok(de)
}

/// `key = "string"` in `#[serde]`: serde reports anything else.
fn serde_str(meta: &ParseNestedMeta<'_>) -> syn::Result<Option<LitStr>> {
    let expr: syn::Expr = meta.value()?.parse()?;
    match unwrap_group(&expr) {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Ok(Some(s.clone())),
        _ => Ok(None),
    }
}
