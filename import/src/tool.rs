//! One operation's configured tool: its name and description, its arguments
//! (the parameters, then the request body) and results (the answer), and
//! the `[[gateway_tool]]` with one draft version that says them.

use std::collections::BTreeSet;

use super::ImportOptions;
use super::context::Context;
use super::field::field_section;
use super::names::{fit, kebab, unique_arguments, unique_results};
use super::parameters::{Fixed, split_path};
use super::prompt_markup;
use super::read::{Read, as_str};
use crate::sections;
use toolschema_configured::template_problem;
use toolschema_runtime::render::Json as Value;

impl Context<'_> {
    /// The configured tool of one operation (`label` names it in the
    /// document): its name, unique among `taken_names` (which then holds
    /// it), and its `[[gateway_tool]]` text calling `downstream`, or why
    /// it cannot be written. What its fields leave out is said in `notes`.
    pub(super) fn tool(
        &self,
        operation: &Value,
        label: &str,
        options: &ImportOptions,
        downstream: &str,
        taken_names: &mut BTreeSet<String>,
        notes: &mut Vec<String>,
    ) -> Result<(String, sections::ToolSection), String> {
        let (path, fixed_query, templated) = split_path(self.path)?;
        if let Some(problem) = template_problem(path) {
            return Err(problem);
        }
        let name = self.tool_name(label, options, taken_names);
        let (summary, description) = self.description(operation);
        let mut fixed = Fixed {
            headers: Vec::new(),
            query: fixed_query,
            content_type: None,
        };
        let mut arguments = self.parameter_arguments(operation, &templated, &mut fixed, notes)?;
        // An operation that answers in other media types than JSON is asked
        // for them: the gateway's default `Accept: application/json` gets
        // 406 from an XML-only operation.
        if let Some(accept) = self.accepted(operation)
            && !fixed
                .headers
                .iter()
                .any(|(name, _)| name.eq_ignore_ascii_case("accept"))
        {
            fixed.headers.push(("Accept".to_owned(), accept));
        }
        let encoding = match operation.get("requestBody") {
            Some(body) => self.request_body(body, &mut arguments, notes)?,
            None => None,
        };
        // A `Content-Type` the document requires: the body's, else sent
        // with every call.
        if let Some(content_type) = fixed.content_type.take() {
            if operation.get("requestBody").is_none() {
                fixed
                    .headers
                    .push(("Content-Type".to_owned(), content_type));
            } else {
                notes.push(
                    "the header parameter `Content-Type` is left out: the gateway sends the body's"
                        .to_owned(),
                );
            }
        }
        let mut results = match self.answer(operation) {
            Some(schema) => self.fields(schema, true, ("result", notes))?,
            None => Vec::new(),
        };
        unique_arguments(&mut arguments);
        unique_results(&mut results);
        notes.append(&mut self.notes.borrow_mut());
        let mut version = self.version(summary, description, path, encoding, fixed);
        version.argument = arguments
            .iter()
            .map(|field| field_section(field, true, notes))
            .collect();
        version.result = results
            .iter()
            .map(|field| field_section(field, false, notes))
            .collect();
        notes.extend(prompt_markup::notes(&version));
        let section = sections::ToolSection {
            name: name.clone(),
            downstream: downstream.to_owned(),
            version: vec![version],
        };
        taken_names.insert(name.clone());
        Ok((name, section))
    }

    /// The tool's name: the operation's (else its method and path) in
    /// `kebab-case` after the prefix, cut to fit; two operation ids can
    /// read alike once cased (`getPet`, `get_pet`): the later one is
    /// numbered.
    fn tool_name(
        &self,
        label: &str,
        options: &ImportOptions,
        taken_names: &BTreeSet<String>,
    ) -> String {
        let mut base = kebab(label);
        if base.is_empty() {
            base = kebab(&format!("{} {}", self.method, self.path));
        }
        if base.is_empty() {
            base = self.method.to_owned();
        }
        let base = fit(&format!("{}{}", options.prefix, base), 120);
        let mut name = base.clone();
        let mut n = 1;
        while taken_names.contains(&name) {
            n += 1;
            name = format!("{base}-{n}");
        }
        name
    }

    /// The operation's summary (the tool's title), and the tool's
    /// description: the summary and the description the operation has,
    /// else its method and path.
    fn description<'v>(&self, operation: &'v Value) -> (Option<&'v str>, String) {
        let text = |key: &str| {
            operation
                .get(key)
                .and_then(as_str)
                .map(str::trim)
                .filter(|text| !text.is_empty())
        };
        let (summary, detail) = (text("summary"), text("description"));
        let description = match (summary, detail) {
            (Some(s), Some(d)) if d != s => format!("{s}\n\n{d}"),
            (Some(s), _) => s.to_owned(),
            (None, Some(d)) => d.to_owned(),
            (None, None) => format!("{} {}", self.method.to_uppercase(), self.path),
        };
        (summary, description)
    }

    /// The tool's draft version, its fields not yet written: its title and
    /// description, the call it makes (method, path, encoding, and the
    /// headers and query sent with every call), and what its method says
    /// of it (a `GET` only reads, a `DELETE` destroys and a `PUT` can be
    /// repeated).
    fn version(
        &self,
        summary: Option<&str>,
        description: String,
        path: &str,
        encoding: Option<&'static str>,
        fixed: Fixed,
    ) -> sections::VersionSection {
        let mut version = sections::VersionSection {
            version: 1,
            status: "draft".into(),
            title: summary.map(str::to_owned),
            description,
            method: Some(self.method.to_uppercase()),
            path: Some(path.to_owned()),
            encoding: encoding.map(str::to_owned),
            headers: fixed.headers.into_iter().collect(),
            query: fixed.query.into_iter().collect(),
            ..sections::VersionSection::default()
        };
        match self.method {
            "get" => version.read_only = Some(true),
            "delete" => {
                version.destructive = Some(true);
                version.idempotent = Some(true);
            }
            "put" => version.idempotent = Some(true),
            _ => {}
        }
        version
    }
}
