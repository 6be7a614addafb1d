//! The SOAP header parts of an operation's request (`soap:header` in the
//! binding's input): each a block of the envelope's `Header`. A part is an
//! argument (`in = "soap_header"`), unless it is a credential: one the
//! operator names ([`ImportOptions::soap_header_secrets`]), or one whose
//! name says it is ([`is_credential`]), sent from the secret source and
//! never asked of a client.

use std::collections::BTreeSet;

use super::types::{At, Fields, Naming, Role, Types};
use super::{local, message_parts};
use crate::ImportOptions;
use crate::context::Found;
use crate::names::{self, numbered, snake};
use crate::sections;
use toolschema_gateway::xml::Element;

/// What an operation's header parts become.
#[derive(Default)]
pub(super) struct Headers {
    /// The blocks declared: credentials, and argument blocks in a
    /// namespace other than the operation's.
    pub(super) sections: Vec<sections::SoapHeaderSection>,
    /// The arguments written into blocks, in order.
    pub(super) fields: Vec<Found>,
    /// The credentials: each block's element, its secret, and whether the
    /// operator named it (else its name says it is one).
    pub(super) credentials: Vec<(String, String, bool)>,
    /// What was left out of the blocks, for the import's notes.
    pub(super) notes: Vec<String>,
}

/// Whether a header element's name says it holds a credential: among its
/// words (`DeveloperToken` → developer, token) a token, password, secret
/// or credential, or it is an API, access or license key, or a user name.
pub(super) fn is_credential(name: &str) -> bool {
    let snake = snake(name);
    let words: Vec<&str> = snake.split('_').collect();
    words.iter().any(|word| {
        matches!(
            *word,
            "token" | "password" | "passwd" | "secret" | "credential" | "credentials" | "apikey"
        )
    }) || [
        "api_key",
        "access_key",
        "license_key",
        "user_name",
        "username",
    ]
    .iter()
    .any(|end| snake.ends_with(end))
}

/// The secret a credential part is read from when the operator names
/// none: the downstream's id and the element's name (`ADS_DEVELOPER_TOKEN`).
fn secret_name(downstream: &str, element: &str) -> String {
    let name = format!("{}_{}", snake(downstream), snake(element))
        .trim_matches('_')
        .to_ascii_uppercase();
    if name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        name
    } else {
        format!("SOAP_{name}")
    }
}

/// The header parts of the binding's `input`, as blocks: `namespace` and
/// `qualified` are the request element's, `taken` the exposed names of
/// its fields (a header argument that would read alike takes `_header`).
pub(super) fn headers(
    root: &Element<'_>,
    types: &Types<'_>,
    input: Option<&Element<'_>>,
    binding_namespace: &str,
    (namespace, qualified): (Option<&str>, bool),
    (taken, mut naming): (&BTreeSet<String>, Option<&mut Naming>),
    options: &ImportOptions,
) -> Result<Headers, String> {
    let mut out = Headers::default();
    let mut roots: BTreeSet<String> = taken
        .iter()
        .map(|name| names::root(name).to_owned())
        .collect();
    let blocks = input
        .into_iter()
        .flat_map(|input| super::children(input, binding_namespace, "header"));
    for block in blocks {
        let part_name = block.attribute("part").unwrap_or_default();
        if block.attribute("use") == Some("encoded") {
            return Err(format!(
                "its SOAP header part `{part_name}` is SOAP-encoded; only literal ones are imported"
            ));
        }
        let message = block.attribute("message").unwrap_or_default();
        let part = message_parts(root, message)?
            .into_iter()
            .find(|part| part.attribute("name") == Some(part_name))
            .ok_or_else(|| {
                format!(
                    "its SOAP header names the part `{part_name}` of the message `{}`, which has none of that name",
                    local(message)
                )
            })?;
        let Some(element) = part.attribute("element").map(local) else {
            return Err(format!(
                "its SOAP header part `{part_name}` is of a type rather than an element; a header block is an element"
            ));
        };
        let (declaration, schema) = types.elements.get(element).ok_or_else(|| {
            format!("the header element `{element}` is not defined in the document's types")
        })?;
        let (own_namespace, _) = types.schemas[*schema];
        if own_namespace.is_none() && namespace.is_some() {
            return Err(format!(
                "the header element `{element}` is in no namespace, and the operation's element is in one; the gateway writes a block in its own or the operation's namespace"
            ));
        }
        let section_namespace = own_namespace
            .filter(|own| Some(*own) != namespace)
            .map(str::to_owned);
        let named = options
            .soap_header_secrets
            .iter()
            .find(|(name, _)| name == part_name || name == element);
        if named.is_some() || is_credential(element) {
            let (secret, by_operator) = match named {
                Some((_, secret)) => (secret.clone(), true),
                None => (secret_name(&options.downstream, element), false),
            };
            out.sections.push(sections::SoapHeaderSection {
                element: element.to_owned(),
                namespace: section_namespace,
                secret: Some(secret.clone()),
            });
            out.credentials
                .push((element.to_owned(), secret, by_operator));
            continue;
        }
        // Inside the block, unprefixed steps are in its namespace when the
        // request's are qualified (as the gateway writes them), and the
        // request's prefixes name the others.
        let mut fields = Fields::new(Some(Naming {
            unprefixed: own_namespace.filter(|_| qualified).map(str::to_owned),
            prefixes: naming
                .as_mut()
                .map(|naming| core::mem::take(&mut naming.prefixes))
                .unwrap_or_default(),
        }));
        let at = At {
            exposed: String::new(),
            source: String::new(),
            required: true,
            depth: 0,
            role: Role::Argument,
            schema: Some(*schema),
        };
        let read = types.element(declaration, &at, &mut Vec::new(), &mut fields);
        if let (Some(naming), Some(inside)) = (naming.as_mut(), fields.naming.take()) {
            naming.prefixes = inside.prefixes;
        }
        read?;
        out.notes.append(&mut fields.notes);
        // The block's element is named by its local name: its namespace
        // is the block's.
        for field in &mut fields.found {
            let first = field.source.find(['.', '[']).unwrap_or(field.source.len());
            if let Some(colon) = field.source[..first].find(':') {
                field.source.replace_range(..=colon, "");
            }
        }
        if fields.found.is_empty() {
            continue;
        }
        place(&mut fields.found, &mut roots);
        if section_namespace.is_some() {
            out.sections.push(sections::SoapHeaderSection {
                element: element.to_owned(),
                namespace: section_namespace,
                secret: None,
            });
        }
        out.fields.extend(fields.found);
    }
    Ok(out)
}

/// One header part's fields placed in its block (`in = "soap_header"`,
/// except the objects and lists the others go inside), their first name
/// made unique among `roots` (`customer_id_header`), which it then takes.
fn place(fields: &mut [Found], roots: &mut BTreeSet<String>) {
    let first = fields
        .first()
        .map(|field| names::root(&field.exposed).to_owned())
        .unwrap_or_default();
    let mut renamed = first.clone();
    if roots.contains(&renamed) {
        let base = format!("{first}_header");
        renamed = base.clone();
        let mut n = 1;
        while roots.contains(&renamed) {
            n += 1;
            renamed = numbered(&base, n);
        }
    }
    roots.insert(renamed.clone());
    let exposed: Vec<String> = fields.iter().map(|field| field.exposed.clone()).collect();
    for field in fields.iter_mut() {
        let holds_others = exposed.iter().any(|other| {
            other.len() > field.exposed.len()
                && other.starts_with(field.exposed.as_str())
                && matches!(other.as_bytes()[field.exposed.len()], b'.' | b'[')
        });
        if !holds_others {
            field.location = Some("soap_header");
        }
        if field.exposed.starts_with(first.as_str()) {
            field.exposed = format!("{renamed}{}", &field.exposed[first.len()..]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{is_credential, secret_name};

    #[test]
    fn a_credential_is_known_by_its_name_and_its_secret_named_after_it() {
        for credential in [
            "ApplicationToken",
            "AuthenticationToken",
            "DeveloperToken",
            "Password",
            "UserName",
            "ApiKey",
            "apiKey",
            "AccessKey",
            "ClientSecret",
        ] {
            assert!(is_credential(credential), "{credential}");
        }
        for argument in [
            "CustomerAccountId",
            "CustomerId",
            "TrackingId",
            "Keyword",
            "Tokenizer",
        ] {
            assert!(!is_credential(argument), "{argument}");
        }
        assert_eq!(
            secret_name("bing-ads", "DeveloperToken"),
            "BING_ADS_DEVELOPER_TOKEN"
        );
        assert_eq!(secret_name("2ads", "Password"), "SOAP_2ADS_PASSWORD");
    }
}
