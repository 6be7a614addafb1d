//! One operation of a WSDL binding as a gateway tool: its request and
//! response elements' fields as arguments and results, written as a
//! `[[gateway_tool]]` with one draft version.

use std::collections::BTreeSet;

use super::types::{Fields, Role, Types};
use super::{WSDL, child, children, documentation, local};
use crate::import::field::field_section;
use crate::import::names::{kebab, snake};
use crate::import::{ImportOptions, written};
use crate::xml::Element;

/// `GetQuote` → `Get quote.`, for an operation without documentation.
fn sentence(name: &str) -> String {
    let words = snake(name).replace('_', " ");
    let mut chars = words.chars();
    match chars.next() {
        Some(first) => format!("{}{}.", first.to_ascii_uppercase(), chars.as_str()),
        None => "Calls the operation.".to_owned(),
    }
}

/// The element a message's one part names (document/literal).
fn message_element<'a>(root: &'a Element<'a>, message: &str) -> Result<&'a str, String> {
    let message = local(message);
    let definition = children(root, WSDL, "message")
        .find(|m| m.attribute("name") == Some(message))
        .ok_or_else(|| format!("the message `{message}` is not defined"))?;
    let parts: Vec<&Element<'_>> = children(definition, WSDL, "part").collect();
    match parts[..] {
        [part] => match part.attribute("element") {
            Some(element) => Ok(local(element)),
            None => Err(format!(
                "the message `{message}` has a part of a type rather than an element (rpc style), which is not imported"
            )),
        },
        _ => Err(format!(
            "the message `{message}` has {} parts; document/literal operations have one",
            parts.len()
        )),
    }
}

/// One operation's tool, or why it is skipped.
pub(super) fn tool(
    root: &Element<'_>,
    types: &Types<'_>,
    operation: &Element<'_>,
    abstract_operation: Option<&Element<'_>>,
    binding_namespace: &str,
    binding_style: &str,
    options: &ImportOptions,
) -> Result<(String, String), String> {
    let name = operation.attribute("name").unwrap_or_default();
    let soap_operation = child(operation, binding_namespace, "operation");
    let style = soap_operation
        .and_then(|o| o.attribute("style"))
        .unwrap_or(binding_style);
    if style != "document" {
        return Err(format!(
            "it is an `{style}` style operation; only document/literal operations are imported"
        ));
    }
    for direction in ["input", "output"] {
        let body =
            child(operation, WSDL, direction).and_then(|d| child(d, binding_namespace, "body"));
        if body.and_then(|b| b.attribute("use")) == Some("encoded") {
            return Err("its messages are SOAP-encoded; only literal ones are imported".to_owned());
        }
    }
    let Some(abstract_operation) = abstract_operation else {
        return Err("the port type does not define it".to_owned());
    };
    let input = child(abstract_operation, WSDL, "input")
        .and_then(|i| i.attribute("message"))
        .ok_or("it has no input message")?;
    let request = message_element(root, input)?;
    let response =
        match child(abstract_operation, WSDL, "output").and_then(|o| o.attribute("message")) {
            Some(output) => Some(message_element(root, output)?),
            None => None,
        };
    let (_, schema) = types
        .elements
        .get(request)
        .ok_or_else(|| format!("the element `{request}` is not defined in the document's types"))?;
    let (namespace, qualified) = types.schemas[*schema];
    let mut arguments = Fields {
        found: Vec::new(),
        taken: BTreeSet::new(),
    };
    types.fields(request, Role::Argument, &mut arguments)?;
    let mut results = Fields {
        found: Vec::new(),
        taken: BTreeSet::new(),
    };
    if let Some(response) = response {
        types.fields(response, Role::Result, &mut results)?;
    }
    let tool_name = format!("{}{}", options.prefix, kebab(name));
    let description = documentation(abstract_operation)
        .or_else(|| documentation(operation))
        .unwrap_or_else(|| sentence(name));
    let version = written::VersionSection {
        version: 1,
        status: "draft",
        description,
        operation: Some(request.to_owned()),
        namespace: namespace.map(str::to_owned),
        soap_action: soap_operation
            .and_then(|o| o.attribute("soapAction"))
            .filter(|a| !a.is_empty())
            .map(str::to_owned),
        qualified: Some(qualified),
        argument: arguments
            .found
            .iter()
            .map(|field| field_section(field, true, &mut Vec::new()))
            .collect(),
        result: results
            .found
            .iter()
            .map(|field| field_section(field, false, &mut Vec::new()))
            .collect(),
        ..written::VersionSection::default()
    };
    let text = written::Sections {
        gateway_tool: vec![written::ToolSection {
            name: tool_name.clone(),
            downstream: options.downstream.clone(),
            version: vec![version],
        }],
        ..written::Sections::default()
    }
    .text()?;
    Ok((tool_name, text))
}
