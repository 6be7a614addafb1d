//! `#[tool(icon(...))]`: an image a client may show for the tool, given by
//! URL (`src`) or embedded from a file at compile time (`file`, as a `data:`
//! URI), checked where it is written.

use std::path::PathBuf;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use proc_macro2::Span;
use syn::LitStr;

use crate::attr::IconAttr;
use toolschema_text::suggest::closest;

/// An embedded image larger than this is refused: it travels in every
/// `tools/list` that shows the tool.
const MAX_EMBEDDED: usize = 64 * 1024;

/// The themes MCP names.
const THEMES: &[&str] = &["light", "dark"];

/// Image types by file extension, for `file`.
const BY_EXTENSION: &[(&str, &str)] = &[
    ("png", "image/png"),
    ("jpg", "image/jpeg"),
    ("jpeg", "image/jpeg"),
    ("svg", "image/svg+xml"),
    ("webp", "image/webp"),
    ("gif", "image/gif"),
    ("ico", "image/x-icon"),
];

/// An icon, checked: what the descriptor holds.
pub(crate) struct Icon {
    pub(crate) src: String,
    pub(crate) mime_type: Option<String>,
    pub(crate) sizes: Vec<String>,
    pub(crate) theme: Option<&'static str>,
    /// The embedded file, for `include_bytes!` (so that editing it rebuilds).
    pub(crate) file: Option<PathBuf>,
}

/// Checks `attr`; every problem, each at its own token.
pub(crate) fn resolve(attr: &IconAttr) -> Result<Icon, Vec<(Span, String)>> {
    let mut problems = Vec::new();
    let mut fail = |span: Span, message: String| problems.push((span, message));

    let mime_type = attr.mime_type.get().and_then(|lit| {
        let value = lit.value();
        if is_image_type(&value) {
            Some(value)
        } else {
            fail(
                lit.span(),
                format!("`{value}` is not an image MIME type; write one such as `image/png`, `image/jpeg`, `image/svg+xml` or `image/webp`"),
            );
            None
        }
    });
    let mut sizes = Vec::new();
    if let Some(list) = attr.sizes.get() {
        if list.is_empty() {
            fail(
                attr.sizes.span().unwrap_or(attr.span),
                "`sizes` is empty; list sizes such as `[\"48x48\"]`, or leave `sizes` out for any size".to_owned(),
            );
        }
        for lit in list {
            let size = lit.value();
            if is_size(&size) {
                sizes.push(size);
            } else {
                fail(
                    lit.span(),
                    format!("`{size}` is not a size; write `WxH` in pixels (`48x48`) or `any`"),
                );
            }
        }
    }
    let theme = attr.theme.get().and_then(|lit| {
        let value = lit.value();
        let known = THEMES.iter().copied().find(|theme| *theme == value);
        if known.is_none() {
            let hint = match closest(&value, THEMES.iter().copied()) {
                Some(near) => format!("did you mean `{near}`?"),
                None => "use `light` or `dark`".to_owned(),
            };
            fail(lit.span(), format!("unknown theme `{value}`; {hint}"));
        }
        known
    });

    let (src, file, mime_type) = match (attr.src.get(), attr.file.get()) {
        (Some(_), Some(file)) => {
            fail(
                file.span(),
                "an icon is a `src` or a `file`, not both; remove one".to_owned(),
            );
            (String::new(), None, mime_type)
        }
        (None, None) => {
            fail(
                attr.span,
                "an icon needs its image: `src = \"https://...\"` or `file = \"icons/tool.png\"`"
                    .to_owned(),
            );
            (String::new(), None, mime_type)
        }
        (Some(src), None) => {
            if let Err(problem) = check_src(&src.value()) {
                fail(src.span(), problem);
            }
            (src.value(), None, mime_type)
        }
        (None, Some(lit)) => match embed(lit, mime_type.as_deref()) {
            Ok((src, path, mime)) => (src, Some(path), Some(mime)),
            Err(problem) => {
                fail(lit.span(), problem);
                (String::new(), None, mime_type)
            }
        },
    };
    if problems.is_empty() {
        Ok(Icon {
            src,
            mime_type,
            sizes,
            theme,
            file,
        })
    } else {
        Err(problems)
    }
}

/// `image/<subtype>`, the subtype made of token characters.
fn is_image_type(value: &str) -> bool {
    value.strip_prefix("image/").is_some_and(|subtype| {
        !subtype.is_empty()
            && subtype
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
    })
}

/// `any`, or `WxH` with whole numbers.
fn is_size(value: &str) -> bool {
    let digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    value == "any"
        || value
            .split_once('x')
            .is_some_and(|(width, height)| digits(width) && digits(height))
}

/// An `https:` or `http:` URL with a host, or a base64 `data:` URI of an
/// image.
fn check_src(src: &str) -> Result<(), String> {
    if src.chars().any(char::is_whitespace) {
        return Err("`src` has whitespace; a URL has none (escape it as `%20`)".to_owned());
    }
    if let Some(rest) = src.strip_prefix("data:") {
        let Some((media, data)) = rest.split_once(";base64,") else {
            return Err("a `data:` icon must be `data:image/<type>;base64,<data>`".to_owned());
        };
        if !is_image_type(media) {
            return Err(format!("`{media}` is not an image MIME type"));
        }
        if STANDARD.decode(data).is_err() {
            return Err("the `data:` URI's data is not valid base64".to_owned());
        }
        return Ok(());
    }
    let host = src
        .strip_prefix("https://")
        .or_else(|| src.strip_prefix("http://"));
    match host {
        Some(rest) if !rest.is_empty() && !rest.starts_with('/') => Ok(()),
        _ => Err(
            "`src` must be an `https://` URL or a `data:image/...;base64,...` URI; to embed a local image write `file = \"...\"`"
                .to_owned(),
        ),
    }
}

/// The `data:` URI of the file `lit` names, its path and its MIME type.
fn embed(lit: &LitStr, mime_type: Option<&str>) -> Result<(String, PathBuf, String), String> {
    let written = lit.value();
    let path = crate::raw::base_dir(lit).join(&written);
    let bytes = std::fs::read(&path).map_err(|error| {
        format!(
            "cannot read the icon file `{written}` ({error}); the path is relative to this source file's directory"
        )
    })?;
    if bytes.len() > MAX_EMBEDDED {
        return Err(format!(
            "`{written}` is {} KiB; an embedded icon travels in every tool list, so keep it under {} KiB or serve it from a URL with `src`",
            bytes.len().div_ceil(1024),
            MAX_EMBEDDED / 1024
        ));
    }
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let mime = match mime_type {
        Some(mime) => mime.to_owned(),
        None => BY_EXTENSION
            .iter()
            .find(|(ext, _)| extension.as_deref() == Some(*ext))
            .map(|(_, mime)| (*mime).to_owned())
            .ok_or_else(|| {
                format!("cannot tell the image type of `{written}` from its extension; add `mime_type = \"image/...\"`")
            })?,
    };
    let src = format!("data:{mime};base64,{}", STANDARD.encode(&bytes));
    Ok((src, path, mime))
}
