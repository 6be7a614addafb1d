//! A WSDL document read from a file, with the schema files it imports or
//! includes read from beside it (never fetched from a URL), bounded in
//! number and size.

use super::{WSDL, XSD, import_wsdl_with};
use crate::{ImportError, ImportErrorKind, ImportOptions, Imported, Skipped};
use toolschema_gateway::xml::{self, Element};

/// The most schema files one import reads.
const MAX_FILES: usize = 64;

/// The most bytes of one schema file.
const MAX_FILE_BYTES: u64 = 16 << 20;

/// [`import_wsdl`](super::import_wsdl) of the file at `path`, with the schema files its
/// schemas import and include (`xsd:import`, `xsd:include`, and
/// `wsdl:import` of schemas) read from the files beside it, as their
/// relative `schemaLocation` says; a location that is a URL is never
/// fetched, and is said (`Imported::dropped`).
///
/// ```no_run
/// use toolschema_import::{ImportOptions, import_wsdl_file};
///
/// let options = ImportOptions {
///     downstream: "devices".to_owned(),
///     base_url: Some("http://camera.local/onvif/device_service".to_owned()),
///     ..ImportOptions::default()
/// };
/// let imported = import_wsdl_file("wsdl/devicemgmt.wsdl".as_ref(), &options)?;
/// println!("{}", imported.toml);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn import_wsdl_file(
    path: &std::path::Path,
    options: &ImportOptions,
) -> Result<Imported, ImportError> {
    let read = |path: &std::path::Path| -> Result<Vec<u8>, String> {
        let size = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
        if size > MAX_FILE_BYTES {
            return Err(format!("it is larger than {MAX_FILE_BYTES} bytes"));
        }
        std::fs::read(path).map_err(|e| e.to_string())
    };
    let document = read(path).map_err(|error| {
        ImportError::new(
            ImportErrorKind::Unreadable,
            format!("{} cannot be read: {error}", path.display()),
        )
    })?;
    let mut notes = Vec::new();
    let mut files: Vec<Vec<u8>> = Vec::new();
    let mut seen: Vec<std::path::PathBuf> = path.canonicalize().into_iter().collect();
    let mut pending = vec![(path.to_path_buf(), document.clone())];
    while let Some((at, bytes)) = pending.pop() {
        let Ok(root) = xml::parse(&bytes) else {
            continue;
        };
        for location in schema_locations(&root) {
            if location.contains("://") {
                notes.push(format!(
                    "the schema at `{location}` is not read: only files beside the document are, never a URL"
                ));
                continue;
            }
            let file = at
                .parent()
                .unwrap_or(std::path::Path::new("."))
                .join(&location);
            let Ok(canonical) = file.canonicalize() else {
                notes.push(format!("the schema file `{location}` is not found"));
                continue;
            };
            if seen.contains(&canonical) {
                continue;
            }
            if seen.len() > MAX_FILES {
                notes.push(format!(
                    "the schema file `{location}` is not read: one import reads at most {MAX_FILES} files"
                ));
                continue;
            }
            seen.push(canonical);
            match read(&file) {
                Ok(bytes) => {
                    files.push(bytes.clone());
                    pending.push((file, bytes));
                }
                Err(error) => notes.push(format!(
                    "the schema file `{location}` cannot be read: {error}"
                )),
            }
        }
    }
    let dropped = notes
        .into_iter()
        .map(|reason| Skipped {
            operation: path.display().to_string(),
            reason,
        })
        .collect();
    import_wsdl_with(&document, &files, dropped, options)
}

/// The locations of the schema files a document imports or includes.
fn schema_locations(root: &Element<'_>) -> Vec<String> {
    let mut out = Vec::new();
    let mut pending = vec![root];
    while let Some(element) = pending.pop() {
        let location = match (&*element.name, element.namespace.as_deref()) {
            ("import" | "include" | "redefine", Some(XSD)) => element.attribute("schemaLocation"),
            ("import", Some(WSDL)) => element.attribute("location"),
            _ => None,
        };
        if let Some(location) = location {
            out.push(location.to_owned());
        }
        pending.extend(element.children.iter());
    }
    out
}
