//! The document walk of `import openapi`: each chosen operation of each
//! path read into a configured tool, and the downstreams the tools call
//! written before them.

use core::cell::RefCell;
use std::collections::{BTreeSet, HashMap};

use super::context::Context;
use super::downstream::{base_url, checked_alone, downstream_section, security, text_of};
use super::read::{Read, as_str};
use super::{
    ImportError, ImportErrorKind, ImportOptions, Imported, Skipped, every_one_found, swagger,
};
use toolschema_configured::Auth;
use toolschema_runtime::render::Json as Value;

/// Writes configured tools for the operations of `document` (OpenAPI 3.0,
/// 3.1 or Swagger 2.0).
pub fn import_openapi(document: &Value, options: &ImportOptions) -> Result<Imported, ImportError> {
    let options = options.checked()?;
    // A Swagger 2.0 document is read as the OpenAPI 3.0 one it describes.
    let converted;
    let document = if document.get("swagger").is_some() {
        converted = swagger::to_openapi(document)?;
        &converted
    } else {
        document
    };
    let version = document.get("openapi").and_then(as_str).unwrap_or_default();
    if !(version.starts_with("3.0") || version.starts_with("3.1")) {
        return Err(ImportError::new(
            ImportErrorKind::Unsupported,
            format!(
                "only OpenAPI 3.0 and 3.1 documents are read (this one says `openapi: {version}`)"
            ),
        ));
    }
    let base_url = base_url(document, options)?;
    let mut walk = Walk::default();
    let mut seen = BTreeSet::new();
    let targets = RefCell::new(HashMap::new());
    let paths = document
        .get("paths")
        .and_then(Value::as_object)
        .ok_or_else(|| {
            ImportError::new(ImportErrorKind::NothingToCall, match document.get("webhooks") {
                Some(_) => "the document has no `paths`, only `webhooks`: requests the API sends, which are no tools to call; import a document that describes the API's own operations".to_owned(),
                None => "the document has no `paths`: it describes no operation to call".to_owned(),
            })
        })?;
    for (path, item) in paths.iter() {
        for method in [
            "get", "put", "post", "delete", "patch", "head", "options", "trace",
        ] {
            let Some(operation) = item.get(method) else {
                continue;
            };
            if matches!(method, "head" | "options" | "trace") {
                // Said, not written: what they answer is headers alone (or
                // the request echoed), nothing a tool returns.
                walk.skipped.push(crate::Skipped {
                    operation: operation.get("operationId").and_then(as_str).map_or_else(
                        || format!("{} {path}", method.to_uppercase()),
                        str::to_owned,
                    ),
                    reason: format!(
                        "{} request answers with headers only, which a tool's result cannot carry",
                        match method {
                            "options" => "an OPTIONS",
                            "head" => "a HEAD",
                            _ => "a TRACE",
                        }
                    ),
                });
                continue;
            }
            let id = operation
                .get("operationId")
                .and_then(as_str)
                .map(str::to_owned);
            let label = id
                .clone()
                .unwrap_or_else(|| format!("{} {path}", method.to_uppercase()));
            if !options.operations.is_empty()
                && !id
                    .as_ref()
                    .is_some_and(|id| options.operations.contains(id))
            {
                continue;
            }
            seen.insert(label.clone());
            let context = Context::new(document, path, method, item.get("parameters"), &targets);
            walk.operation(&context, operation, label, options, &base_url);
        }
    }
    every_one_found(&options.operations, &seen, "the document")?;
    walk.imported(&base_url)
}

/// What the walk has written so far: the downstreams the tools call (one
/// per security scheme they use), the tools' text and names, and what it
/// left out.
#[derive(Default)]
struct Walk {
    downstreams: Vec<(String, Vec<Auth>)>,
    tools_text: String,
    tools: Vec<String>,
    taken_names: BTreeSet<String>,
    skipped: Vec<Skipped>,
    dropped: Vec<Skipped>,
}

impl Walk {
    /// Writes the tool of one operation (`label` names it), or says why it
    /// is skipped; what its tool leaves out is said in `dropped`.
    fn operation(
        &mut self,
        context: &Context<'_>,
        operation: &Value,
        label: String,
        options: &ImportOptions,
        base_url: &str,
    ) {
        let mut notes = Vec::new();
        let result = security(context.document, operation, options, &mut notes).and_then(
            |(downstream, auth)| {
                let (name, section) = context.tool(
                    operation,
                    &label,
                    options,
                    &downstream,
                    &mut self.taken_names,
                    &mut notes,
                )?;
                // What the importer wrote is held to the checks an operator's
                // file is: a tool they refuse is skipped with their reason,
                // never written. Written as text once checked.
                let section =
                    checked_alone(&downstream_section(&downstream, base_url, &auth), section)?;
                let text = text_of(Vec::new(), vec![section])?;
                if !self.downstreams.iter().any(|(id, _)| *id == downstream) {
                    self.downstreams.push((downstream, auth));
                }
                Ok((name, text))
            },
        );
        self.dropped.extend(notes.into_iter().map(|reason| Skipped {
            operation: label.clone(),
            reason,
        }));
        match result {
            Ok((name, text)) => {
                self.tools_text.push('\n');
                self.tools_text.push_str(&text);
                self.tools.push(name);
            }
            Err(reason) => self.skipped.push(Skipped {
                operation: label,
                reason,
            }),
        }
    }

    /// The configuration written: the downstreams, then the tools.
    fn imported(self, base_url: &str) -> Result<Imported, ImportError> {
        let mut text = String::new();
        for (id, auth) in &self.downstreams {
            if !text.is_empty() {
                text.push('\n');
            }
            let section = downstream_section(id, base_url, auth);
            text.push_str(
                &text_of(vec![section], Vec::new())
                    .map_err(|message| ImportError::new(ImportErrorKind::Unwritable, message))?,
            );
        }
        text.push_str(&self.tools_text);
        Ok(Imported {
            toml: text,
            tools: self.tools,
            skipped: self.skipped,
            dropped: self.dropped,
        })
    }
}
