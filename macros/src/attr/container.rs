//! `#[tool(...)]` on a struct or enum: the tool's name, title, description,
//! output and state types, version, annotations, icons and input schema,
//! with the container's `#[serde(...)]` beside them.

use proc_macro2::Span;
use syn::LitStr;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;

use super::Slot;
use super::parse::{flag_or_bool, key_name, lit_int, lit_str, lit_strs, rename_rule, unknown_key};
use super::serde::SerdeContainer;
use crate::case::RenameRule;
use crate::ctxt::Ctxt;
use crate::symbol::*;

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
