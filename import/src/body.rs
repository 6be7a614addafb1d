//! An operation's request body, as arguments after its parameters', and
//! its answer's schema, from the media types the gateway sends and reads
//! (JSON, and forms for a body).

use std::collections::BTreeSet;

use super::context::{Context, Found};
use super::names::{fit, numbered, root};
use super::read::{Read, as_bool, type_of};
use toolschema_runtime::render::{Json as Value, Object as Map};

impl Context<'_> {
    /// The arguments of an operation's request body, put after its
    /// parameters' in `arguments`, and how the body is sent (`form`, else
    /// JSON); a body neither JSON nor a form cannot be carried.
    pub(super) fn request_body(
        &self,
        body: &Value,
        arguments: &mut Vec<Found>,
        notes: &mut Vec<String>,
    ) -> Result<Option<&'static str>, String> {
        let body = self.resolve(body, &mut Vec::new())?;
        let content = body.get("content").and_then(Value::as_object);
        let json = content.and_then(|c| json_schema(c));
        let form = content.and_then(form_schema).filter(|_| json.is_none());
        let Some(schema) = json.or(form) else {
            let kinds: Vec<&str> = content
                .into_iter()
                .flat_map(|c| c.iter().map(|(kind, _)| kind))
                .collect();
            return Err(format!(
                "the request body is {} (a file upload, or a body neither JSON nor a form), which a tool's JSON arguments cannot carry",
                kinds.join(", ")
            ));
        };
        let encoding = form.map(|_| "form");
        // Absent, `required` is false by the specification, and common; but
        // a tool sends a body whenever it may, and the API checks what the
        // body's schema requires: its required properties are required
        // unless the document says the body may be left out.
        let required = body.get("required").and_then(as_bool).unwrap_or(true);
        let mut found = self.fields(schema, required, ("body", notes))?;
        if found.is_empty() {
            return Err("the request body has no properties to map".to_owned());
        }
        if form.is_some() {
            form_fields(&found)?;
        }
        rename_clashes(&mut found, arguments);
        for mut field in found {
            field.location = field.location.or(Some("body"));
            if field.source.is_empty() {
                field.location = None;
            }
            arguments.push(field);
        }
        Ok(encoding)
    }

    /// The media types the successful answers come in, when none of them
    /// is JSON (`application/xml, text/xml`): what to ask for instead of
    /// JSON. `None` when an answer is JSON or says no media type.
    pub(super) fn accepted(&self, operation: &Value) -> Option<String> {
        let responses = operation.get("responses")?.as_object()?;
        let mut kinds: Vec<&str> = Vec::new();
        for (code, response) in responses.iter() {
            if !code.starts_with('2') {
                continue;
            }
            let Ok(response) = self.resolve(response, &mut Vec::new()) else {
                continue;
            };
            let Some(content) = response.get("content").and_then(Value::as_object) else {
                continue;
            };
            if content.iter().any(|(kind, _)| is_json(kind)) {
                return None;
            }
            // An answer of any type (`*/*`, as converted Swagger documents
            // without `produces` say) is asked for as JSON first, then as
            // anything: a server that negotiates strictly (Prism) answers
            // 406 to JSON alone.
            if content.iter().any(|(kind, _)| kind == "*/*") {
                kinds.insert(0, "application/json");
            } else if json_schema(content).is_some() {
                return None;
            }
            for (kind, _) in content.iter() {
                if !kinds.contains(&kind) {
                    kinds.push(kind);
                }
            }
        }
        // `*/*` last: the types named come first.
        kinds.sort_by_key(|kind| *kind == "*/*");
        kinds.dedup();
        let kinds: Vec<&str> = kinds
            .into_iter()
            .filter(|kind| toolschema_configured::is_header_value(kind))
            .collect();
        (!kinds.is_empty()).then(|| kinds.join(", "))
    }

    /// The JSON schema of the first successful answer, if it has one.
    pub(super) fn answer<'b>(&'b self, operation: &'b Value) -> Option<&'b Value> {
        let responses = operation.get("responses")?.as_object()?;
        let (_, response) = responses.iter().find(|(code, _)| code.starts_with('2'))?;
        let response = self.resolve(response, &mut Vec::new()).ok()?;
        let schema = json_schema(response.get("content")?.as_object()?)?;
        let resolved = self.resolve(schema, &mut Vec::new()).ok()?;
        // Only an object with properties, or an array, maps field by field;
        // anything else is passed on as text.
        match type_of(resolved) {
            Some("object") if resolved.get("properties").is_some() => Some(schema),
            Some("array") => Some(schema),
            _ if resolved.get("allOf").is_some() => Some(schema),
            _ => None,
        }
    }
}

/// Checks that a form's fields each hold one value, or a list of values,
/// under one name; the first that holds more is refused.
fn form_fields(found: &[Found]) -> Result<(), String> {
    if let Some(field) = found.iter().find(|field| {
        !field.source.is_empty()
            && (field.whole.is_some()
                || field.source.contains('.')
                || field.source.trim_end_matches("[]").contains("[]")
                || field.source == toolschema_configured::WHOLE)
    }) {
        return Err(format!(
            "the form field `{}` holds more than a value or a list of values, which a form cannot carry",
            field.exposed
        ));
    }
    Ok(())
}

/// Renames the body fields named as a parameter is (`ids` in the query,
/// `ids[]` in the body): each takes `body_` before its name, with
/// everything inside it, and a number if that is taken too.
fn rename_clashes(found: &mut [Found], arguments: &[Found]) {
    let taken: BTreeSet<String> = arguments
        .iter()
        .map(|a| root(&a.exposed).to_owned())
        .collect();
    let mut renamed: Vec<(String, String)> = Vec::new();
    for field in found {
        let old = root(&field.exposed).to_owned();
        if !taken.contains(&old) {
            continue;
        }
        let new = match renamed.iter().find(|(from, _)| *from == old) {
            Some((_, to)) => to.clone(),
            None => {
                let base = fit(&format!("body_{old}"), 64);
                let mut new = base.clone();
                let mut n = 1;
                while taken.contains(&new) || renamed.iter().any(|(_, to)| *to == new) {
                    n += 1;
                    new = numbered(&base, n);
                }
                renamed.push((old.clone(), new.clone()));
                new
            }
        };
        field.exposed = format!("{new}{}", &field.exposed[old.len()..]);
    }
}

/// The schema of a JSON media type among `content`'s: `application/json`
/// or a `+json` type, with any parameters (`; charset=utf-8`), else a
/// wildcard (`*/*`, `application/*`) with a schema.
fn json_schema(content: &Map) -> Option<&Value> {
    content
        .iter()
        .find(|(kind, _)| is_json(kind))
        .or_else(|| {
            content
                .iter()
                .find(|(kind, _)| matches!(essence(kind).as_str(), "*/*" | "application/*"))
        })
        .and_then(|(_, media)| media.get("schema"))
}

/// A media type without its parameters, in lower case.
fn essence(kind: &str) -> String {
    kind.split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// Whether a media type is JSON (`application/json`, a `+json` type).
fn is_json(kind: &str) -> bool {
    let kind = essence(kind);
    kind == "application/json" || kind.ends_with("+json")
}

/// The schema of a form (`application/x-www-form-urlencoded`) among
/// `content`'s.
fn form_schema(content: &Map) -> Option<&Value> {
    content
        .iter()
        .find(|(kind, _)| {
            kind.split(';').next().is_some_and(|k| {
                k.trim()
                    .eq_ignore_ascii_case("application/x-www-form-urlencoded")
            })
        })
        .and_then(|(_, media)| media.get("schema"))
}
