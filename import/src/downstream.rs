//! The downstreams an import writes: where the API is (the base URL, or
//! the document's first server), how it authenticates (the security
//! scheme an operation needs), and each tool checked with its downstream
//! as the configuration's checks would.

use super::names::{kebab, snake};
use super::read::{Read, as_array, as_str};
use super::{ImportError, ImportErrorKind, ImportOptions};
use crate::sections;
use toolschema_configured::Auth;
use toolschema_runtime::render::Json as Value;

/// Where the API is: `options.base_url`, else the document's first
/// server, which must then be an absolute URL.
pub(super) fn base_url(document: &Value, options: &ImportOptions) -> Result<String, ImportError> {
    match &options.base_url {
        Some(url) => Ok(url.clone()),
        None => {
            let mut server = server_url(document);
            // A scheme-relative server (`//api.example.com/v1`) is reached
            // over HTTPS.
            if server.starts_with("//") {
                server.insert_str(0, "https:");
            }
            let server = server.as_str();
            if !(server.starts_with("http://") || server.starts_with("https://"))
                || server.contains(['{', '}'])
            {
                return Err(ImportError::new(
                    ImportErrorKind::NoBaseUrl,
                    format!(
                        "the document's first server (`{server}`) is not an absolute URL (or has a variable without a default); say where the API is with --base-url"
                    ),
                ));
            }
            Ok(server.to_owned())
        }
    }
}

/// The document's first server URL, each `{variable}` replaced by its
/// `default` (a variable without one is left as written, and the URL is
/// then refused as not absolute).
fn server_url(document: &Value) -> String {
    let mut url = document
        .pointer("/servers/0/url")
        .and_then(as_str)
        .unwrap_or_default()
        .to_owned();
    if let Some(variables) = document
        .pointer("/servers/0/variables")
        .and_then(Value::as_object)
    {
        for (name, variable) in variables.iter() {
            if let Some(default) = variable.get("default").and_then(as_str) {
                url = url.replace(&format!("{{{name}}}"), default);
            }
        }
    }
    url
}

/// The security scheme of `document` that sends a header `operation`
/// requires as a parameter, when that header is a credential (one a client
/// may not set, such as `Authorization`).
fn credential_header_scheme<'d>(document: &'d Value, operation: &Value) -> Option<&'d str> {
    let schemes = document
        .pointer("/components/securitySchemes")
        .and_then(Value::as_object)?;
    let required_headers: Vec<&str> = operation
        .get("parameters")
        .and_then(as_array)
        .into_iter()
        .flatten()
        .filter(|p| {
            p.get("in").and_then(as_str) == Some("header")
                && p.get("required") == Some(&Value::Bool(true))
        })
        .filter_map(|p| p.get("name").and_then(as_str))
        .filter(|name| name.eq_ignore_ascii_case("authorization"))
        .collect();
    schemes.iter().find_map(|(name, scheme)| {
        let sends = match (
            scheme.get("type").and_then(as_str),
            scheme.get("in").and_then(as_str),
        ) {
            (Some("apiKey"), Some("header")) => scheme.get("name").and_then(as_str),
            (Some("http" | "oauth2" | "openIdConnect"), _) => Some("authorization"),
            _ => None,
        }?;
        required_headers
            .iter()
            .any(|header| header.eq_ignore_ascii_case(sends))
            .then_some(name)
    })
}

/// The downstream an operation calls, by the security requirement it
/// needs (its own `security`, else the document's; the first of its
/// alternatives): `options.downstream` without one,
/// `<downstream>-<scheme>[-<scheme>…]` with one, every scheme the
/// requirement names sent together, each secret named by an environment
/// variable.
pub(super) fn security(
    document: &Value,
    operation: &Value,
    options: &ImportOptions,
    notes: &mut Vec<String>,
) -> Result<(String, Vec<Auth>), String> {
    let requirements = operation
        .get("security")
        .or_else(|| document.get("security"))
        .and_then(as_array);
    // The first requirement is the one used; `{}` (none) is allowed.
    let first = requirements
        .and_then(|r| r.first())
        .and_then(Value::as_object);
    let mut names: Vec<&str> = first
        .map(|first| first.iter().map(|(name, _)| name).collect())
        .unwrap_or_default();
    // Without a requirement, a required header parameter that is a
    // credential (`authorization`) is the scheme of the document that
    // sends that header: documents that define a scheme and never name it
    // in `security` still need it sent.
    if requirements.is_none()
        && let Some(name) = credential_header_scheme(document, operation)
    {
        notes.push(format!(
            "it names no security requirement, but needs the header its security scheme `{name}` sends: the downstream sends it"
        ));
        names.push(name);
    }
    let mut id = options.downstream.clone();
    let mut auths = Vec::with_capacity(names.len());
    for scheme_name in names {
        // A scheme the document names and never defines says nothing of
        // how to authenticate: the call is written without it, and said.
        let Some(scheme) = document.pointer(&format!("/components/securitySchemes/{scheme_name}"))
        else {
            notes.push(format!(
                "its security scheme `{scheme_name}` is not defined in the document: the downstream is written without it (add it to the downstream's `auth` if the API needs it)"
            ));
            continue;
        };
        let auth = scheme_auth(document, scheme_name, scheme, options)?;
        // Two schemes that send one header (Google's `Oauth2` and
        // `Oauth2c`, two flows of one token) are one credential.
        if let Some((first, _)) = auths
            .iter()
            .find(|(_, a): &&(&str, Auth)| a.place() == auth.place())
        {
            notes.push(format!(
                "its security schemes `{first}` and `{scheme_name}` both send {}: one credential is sent, `{first}`'s",
                auth.place(),
            ));
            continue;
        }
        auths.push((scheme_name, auth));
        id.push('-');
        id.push_str(&kebab(scheme_name));
    }
    Ok((id, auths.into_iter().map(|(_, auth)| auth).collect()))
}

/// The credential a security scheme sends, its secret named after the
/// downstream and the scheme (AWS's keys by the names AWS's own tools
/// read).
fn scheme_auth(
    document: &Value,
    scheme_name: &str,
    scheme: &Value,
    options: &ImportOptions,
) -> Result<Auth, String> {
    if scheme.get("x-amazon-apigateway-authtype").and_then(as_str) == Some("awsSigv4") {
        return Ok(aws_sigv4(document));
    }
    let env = format!("{}_{}", snake(&options.downstream), snake(scheme_name)).to_uppercase();
    let kind = scheme.get("type").and_then(as_str).unwrap_or_default();
    let name = || {
        scheme
            .get("name")
            .and_then(as_str)
            .unwrap_or_default()
            .to_owned()
    };
    match (
        kind,
        scheme.get("in").and_then(as_str),
        scheme.get("scheme").and_then(as_str),
    ) {
        ("apiKey", Some("query"), _) => Ok(Auth::Query { param: name(), env }),
        ("apiKey", Some("header"), _) => Ok(Auth::Header {
            header: name(),
            env,
        }),
        ("http", _, Some(s)) if s.eq_ignore_ascii_case("basic") => Ok(Auth::Basic {
            user_env: format!("{env}_USER"),
            password_env: format!("{env}_PASSWORD"),
        }),
        ("http", _, Some(s)) if s.eq_ignore_ascii_case("bearer") => Ok(Auth::Bearer { env }),
        ("oauth2" | "openIdConnect", _, _) => Ok(Auth::Bearer { env }),
        _ => Err(format!(
            "its security scheme `{scheme_name}` ({kind}) cannot be configured: the gateway sends a bearer token, an API key in a header or the query, or basic credentials"
        )),
    }
}

/// AWS Signature Version 4 for an AWS API's document: the region its
/// server names by default (else `us-east-1`, where AWS's global services
/// sign), the service's signing name (else its name), the keys from the
/// variables AWS's own tools read.
fn aws_sigv4(document: &Value) -> Auth {
    let info = |key: &str| document.pointer(&format!("/info/{key}")).and_then(as_str);
    let region = document
        .pointer("/servers/0/variables/region/default")
        .and_then(as_str)
        .unwrap_or("us-east-1");
    Auth::AwsSigV4 {
        access_key_env: "AWS_ACCESS_KEY_ID".to_owned(),
        secret_key_env: "AWS_SECRET_ACCESS_KEY".to_owned(),
        session_token_env: Some("AWS_SESSION_TOKEN".to_owned()),
        region: region.to_owned(),
        service: info("x-aws-signingName")
            .or_else(|| info("x-serviceName"))
            .unwrap_or_default()
            .to_owned(),
    }
}

/// A `[[downstream]]` section.
pub(super) fn downstream_section(
    id: &str,
    base_url: &str,
    auth: &[Auth],
) -> sections::DownstreamSection {
    let owned = |s: &String| Some(s.clone());
    let mut sections = auth.iter().map(|auth| match auth {
        Auth::Header { header, env } => sections::AuthSection {
            kind: "header".into(),
            header: owned(header),
            env: owned(env),
            ..sections::AuthSection::default()
        },
        Auth::Bearer { env } => sections::AuthSection {
            kind: "bearer".into(),
            env: owned(env),
            ..sections::AuthSection::default()
        },
        Auth::Query { param, env } => sections::AuthSection {
            kind: "query".into(),
            param: owned(param),
            env: owned(env),
            ..sections::AuthSection::default()
        },
        Auth::Basic {
            user_env,
            password_env,
        } => sections::AuthSection {
            kind: "basic".into(),
            user_env: owned(user_env),
            password_env: owned(password_env),
            ..sections::AuthSection::default()
        },
        Auth::AwsSigV4 {
            access_key_env,
            secret_key_env,
            session_token_env,
            region,
            service,
        } => sections::AuthSection {
            kind: "aws_sigv4".into(),
            access_key_env: owned(access_key_env),
            secret_key_env: owned(secret_key_env),
            session_token_env: session_token_env.clone(),
            region: owned(region),
            service: owned(service),
            ..sections::AuthSection::default()
        },
    });
    let auth = match (sections.next(), auth.len()) {
        (None, _) => None,
        (Some(one), 1) => Some(sections::Auths::One(Box::new(one))),
        (Some(first), _) => Some(sections::Auths::Many(
            core::iter::once(first).chain(sections).collect(),
        )),
    };
    sections::DownstreamSection {
        id: id.to_owned(),
        base_url: base_url.to_owned(),
        auth,
        ..sections::DownstreamSection::default()
    }
}

/// Sections as the text of a configuration file.
pub(super) fn text_of(
    downstream: Vec<sections::DownstreamSection>,
    gateway_tool: Vec<sections::ToolSection>,
) -> Result<String, String> {
    sections::Sections {
        downstream,
        gateway_tool,
        ..sections::Sections::default()
    }
    .text()
}

/// Checks one written tool with its downstream as the configuration's
/// checks check a file's sections; the tool back, or the checks' first
/// problem if they refuse it.
pub(super) fn checked_alone(
    downstream: &sections::DownstreamSection,
    tool: sections::ToolSection,
) -> Result<sections::ToolSection, String> {
    let mut sections = sections::Sections {
        downstream: vec![downstream.clone()],
        gateway_tool: vec![tool],
        ..sections::Sections::default()
    };
    if let Err(errors) = sections.check() {
        let first = errors.iter().next();
        return Err(first.map_or_else(
            || "the configuration checks refuse it".to_owned(),
            |error| {
                // The key without the tool's place in the sections.
                let location = error.location();
                let key = match location.entry() {
                    Some(_) => location.within_entry(),
                    None => error.key().to_owned(),
                };
                format!(
                    "the checks refuse what it would write ({key}: {})",
                    error.message()
                )
            },
        ));
    }
    sections
        .gateway_tool
        .pop()
        .ok_or_else(|| "the configuration checks lost the tool".to_owned())
}
