//! The checks of `[[downstream]]` and `[[gateway_tool]]` sections: every
//! problem located, and a checked section turned into its descriptor and
//! operation.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use toml::Spanned;

use super::errors::Problems;
use super::raw::{RawAuth, RawDownstream, RawField, RawGatewayTool, RawGatewayVersion};
use crate::gateway::{
    ArgumentMap, Auth, Downstream, DownstreamProtocol, Encoding, FieldKind, FieldPath, FieldSpec,
    GatewayTool, GatewayVersion, Location, Method, Operation, PathPart, ResultMap, SoapOperation,
    SoapVersion, XmlNode, container_pairs, describe, is_header_value, is_managed_header,
    is_xml_name, parse_template, template_problem,
};
use crate::rules::Status;
use toolschema_runtime::model::{Annotations, Literal, Number, Ref, Text, ToolDef};
use toolschema_runtime::project::META_TOOL;
use toolschema_text::formats::FORMATS;

const DEFAULT_TIMEOUT_MS: i64 = 10_000;
const DEFAULT_CONNECT_TIMEOUT_MS: i64 = 2_000;
const DEFAULT_MAX_RESPONSE_BYTES: i64 = 1 << 20;
const MAX_TIMEOUT_MS: i64 = 600_000;
const MAX_RESPONSE_BYTES: i64 = 256 << 20;

/// Whether `name` follows MCP's tool name rule.
fn is_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

fn is_env_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

pub(super) fn check_downstreams(
    raw: &[RawDownstream],
    p: &mut Problems<'_>,
) -> BTreeMap<String, Downstream> {
    let mut out = BTreeMap::new();
    for (i, raw) in raw.iter().enumerate() {
        let at = format!("downstream[{i}]");
        let id = raw.id.get_ref();
        if out.contains_key(id) {
            p.at(
                raw.id.span(),
                format!("{at}.id"),
                format!("duplicate downstream id `{id}`"),
            );
            continue;
        }
        let base_url = match url::Url::parse(raw.base_url.get_ref()) {
            Ok(url)
                if matches!(url.scheme(), "http" | "https")
                    && url.host().is_some()
                    && url.query().is_none()
                    && url.fragment().is_none()
                    && url.username().is_empty()
                    && url.password().is_none() =>
            {
                Some(url)
            }
            Ok(_) => {
                p.at(
                    raw.base_url.span(),
                    format!("{at}.base_url"),
                    "the base URL must be http:// or https:// with a host, and no query, fragment or credentials (credentials go in `auth`, from the environment)",
                );
                None
            }
            Err(error) => {
                p.at(
                    raw.base_url.span(),
                    format!("{at}.base_url"),
                    format!("not a URL ({error}); write it as `https://api.example.com/v1`"),
                );
                None
            }
        };
        let mut millis = |value: &Option<Spanned<i64>>, key: &str, default: i64| {
            let Some(value) = value else {
                return Duration::from_millis(default as u64);
            };
            let ms = *value.get_ref();
            if !(1..=MAX_TIMEOUT_MS).contains(&ms) {
                p.at(
                    value.span(),
                    format!("{at}.{key}"),
                    format!("a timeout is from 1 to {MAX_TIMEOUT_MS} milliseconds"),
                );
            }
            Duration::from_millis(ms.clamp(1, MAX_TIMEOUT_MS) as u64)
        };
        let timeout = millis(&raw.timeout_ms, "timeout_ms", DEFAULT_TIMEOUT_MS);
        let connect_timeout = millis(
            &raw.connect_timeout_ms,
            "connect_timeout_ms",
            DEFAULT_CONNECT_TIMEOUT_MS,
        );
        let max_response_bytes = match &raw.max_response_bytes {
            None => DEFAULT_MAX_RESPONSE_BYTES,
            Some(value) => {
                let n = *value.get_ref();
                if !(1..=MAX_RESPONSE_BYTES).contains(&n) {
                    p.at(
                        value.span(),
                        format!("{at}.max_response_bytes"),
                        format!("the answer limit is from 1 to {MAX_RESPONSE_BYTES} bytes"),
                    );
                }
                n.clamp(1, MAX_RESPONSE_BYTES)
            }
        };
        let headers = fixed_headers(&raw.headers, &at, p);
        let auth = raw
            .auth
            .as_ref()
            .and_then(|auth| check_auth(auth, &format!("{at}.auth"), p));
        let protocol = check_protocol(raw, &at, p);
        if let (Some(base_url), Some(protocol)) = (base_url, protocol) {
            out.insert(
                id.clone(),
                Downstream {
                    id: id.clone(),
                    base_url,
                    timeout,
                    connect_timeout,
                    max_response_bytes: max_response_bytes as usize,
                    headers,
                    auth,
                    protocol,
                },
            );
        }
    }
    out
}

/// `protocol` and, for SOAP, `soap_version`.
fn check_protocol(
    raw: &RawDownstream,
    at: &str,
    p: &mut Problems<'_>,
) -> Option<DownstreamProtocol> {
    let word = raw
        .protocol
        .as_ref()
        .map_or("rest", |w| w.get_ref().as_str());
    match word {
        "rest" => {
            if let Some(version) = &raw.soap_version {
                p.at(
                    version.span(),
                    format!("{at}.soap_version"),
                    "`soap_version` is for a SOAP downstream; add `protocol = \"soap\"` or remove it",
                );
                return None;
            }
            Some(DownstreamProtocol::Rest)
        }
        "soap" => match &raw.soap_version {
            None => Some(DownstreamProtocol::Soap(SoapVersion::V1_1)),
            Some(version) => match SoapVersion::from_name(version.get_ref()) {
                Some(version) => Some(DownstreamProtocol::Soap(version)),
                None => {
                    p.at(
                        version.span(),
                        format!("{at}.soap_version"),
                        format!(
                            "unknown SOAP version `{}`; use \"1.1\" or \"1.2\"",
                            version.get_ref()
                        ),
                    );
                    None
                }
            },
        },
        other => {
            let span = raw.protocol.as_ref().map_or(raw.id.span(), Spanned::span);
            p.at(
                span,
                format!("{at}.protocol"),
                format!("unknown protocol `{other}`; use rest or soap"),
            );
            None
        }
    }
}

fn check_auth(raw: &Spanned<RawAuth>, at: &str, p: &mut Problems<'_>) -> Option<Auth> {
    let span = raw.span();
    let raw = raw.get_ref();
    let mut env = |value: &Option<Spanned<String>>, key: &str| -> Option<String> {
        match value {
            Some(name) if is_env_name(name.get_ref()) => Some(name.get_ref().clone()),
            Some(name) => {
                p.at(
                    name.span(),
                    format!("{at}.{key}"),
                    format!("`{}` is not an environment variable name; name the variable that holds the secret (`PETSTORE_TOKEN`), never the secret", name.get_ref()),
                );
                None
            }
            None => {
                p.at(
                    span.clone(),
                    at.to_owned(),
                    format!("this kind of auth needs `{key}`, the environment variable that holds the secret"),
                );
                None
            }
        }
    };
    match raw.kind.get_ref().as_str() {
        "bearer" => Some(Auth::Bearer {
            env: env(&raw.env, "env")?,
        }),
        "header" => {
            let env = env(&raw.env, "env");
            let header = match &raw.header {
                Some(name) if is_header_name(name.get_ref()) => Some(name.get_ref().clone()),
                _ => {
                    p.at(
                        span.clone(),
                        format!("{at}.header"),
                        "`kind = \"header\"` needs `header`, the name of the header that carries the key",
                    );
                    None
                }
            };
            Some(Auth::Header {
                header: header?,
                env: env?,
            })
        }
        "query" => {
            let env = env(&raw.env, "env");
            let param = match &raw.param {
                Some(name) if !name.get_ref().is_empty() => Some(name.get_ref().clone()),
                _ => {
                    p.at(
                        span.clone(),
                        format!("{at}.param"),
                        "`kind = \"query\"` needs `param`, the name of the query parameter that carries the key",
                    );
                    None
                }
            };
            Some(Auth::Query {
                param: param?,
                env: env?,
            })
        }
        "basic" => {
            let user_env = env(&raw.user_env, "user_env");
            let password_env = env(&raw.password_env, "password_env");
            Some(Auth::Basic {
                user_env: user_env?,
                password_env: password_env?,
            })
        }
        other => {
            p.at(
                raw.kind.span(),
                format!("{at}.kind"),
                format!("unknown auth kind `{other}`; use bearer, header, query or basic"),
            );
            None
        }
    }
}

/// Headers written in the configuration (a downstream's, a version's):
/// names and values a header can carry, never credentials or the headers
/// the gateway sets itself.
fn fixed_headers(
    raw: &BTreeMap<Spanned<String>, Spanned<String>>,
    at: &str,
    p: &mut Problems<'_>,
) -> Vec<(String, String)> {
    let mut headers = Vec::new();
    for (name, value) in raw {
        if !is_header_name(name.get_ref()) {
            p.at(
                name.span(),
                format!("{at}.headers"),
                format!("`{}` is not a header name", name.get_ref()),
            );
        } else if !is_header_value(value.get_ref()) {
            p.at(
                value.span(),
                format!("{at}.headers.{}", name.get_ref()),
                "a header value is printable ASCII on one line",
            );
        } else if name.get_ref().eq_ignore_ascii_case("authorization") {
            p.at(
                name.span(),
                format!("{at}.headers"),
                "credentials are never written in the configuration; use `auth` with an environment variable",
            );
        } else if is_managed_header(name.get_ref()) {
            p.at(
                name.span(),
                format!("{at}.headers"),
                format!("the gateway sets `{}` itself; remove it", name.get_ref()),
            );
        } else {
            headers.push((name.get_ref().clone(), value.get_ref().clone()));
        }
    }
    headers
}

/// How a version's body is written (`encoding`): JSON, or a form whose
/// body arguments are each one field (a string, number or boolean, or a
/// list of them, under one name). `None` when refused.
fn check_encoding(
    raw: &RawGatewayVersion,
    soap: bool,
    maps: &[Option<ArgumentMap>],
    specs: &[FieldSpec],
    spans: &[(core::ops::Range<usize>, String)],
    at: &str,
    p: &mut Problems<'_>,
) -> Option<Encoding> {
    let Some(word) = &raw.encoding else {
        return Some(Encoding::Json);
    };
    match word.get_ref().as_str() {
        "json" => return Some(Encoding::Json),
        "form" if !soap => {}
        "form" => {
            p.at(
                word.span(),
                format!("{at}.encoding"),
                "a SOAP operation's body is its envelope; remove `encoding`",
            );
            return None;
        }
        other => {
            p.at(
                word.span(),
                format!("{at}.encoding"),
                format!("unknown encoding `{other}`; use json or form"),
            );
            return None;
        }
    }
    let mut ok = true;
    for ((map, spec), (span, key)) in maps.iter().zip(specs).zip(spans) {
        let Some(map) = map.as_ref().filter(|m| m.location == Location::Body) else {
            continue;
        };
        let steps = map.source.steps();
        let one_field = match steps {
            [step] => {
                spec.kind.is_scalar()
                    && spec.schema.is_none()
                    && step.each == spec.exposed.ends_in_array()
                    && spec.exposed.arrays() == usize::from(step.each)
            }
            _ => false,
        };
        if !one_field {
            p.at(
                span.clone(),
                format!("{key}.source"),
                format!(
                    "`{}` goes in a form, whose fields each hold one string, number or boolean (or a list of them, `name[]`) under one name; map it to one field, or use `encoding = \"json\"`",
                    spec.exposed
                ),
            );
            ok = false;
        }
    }
    ok.then_some(Encoding::Form)
}

/// Query parameters a version always sends: names that are not empty,
/// values as written (encoded when sent).
fn fixed_query(
    raw: &BTreeMap<Spanned<String>, Spanned<String>>,
    at: &str,
    p: &mut Problems<'_>,
) -> Vec<(String, String)> {
    let mut query = Vec::new();
    for (name, value) in raw {
        if name.get_ref().is_empty() {
            p.at(
                name.span(),
                format!("{at}.query"),
                "a query parameter has a name",
            );
        } else {
            query.push((name.get_ref().clone(), value.get_ref().clone()));
        }
    }
    query
}

/// Checks the gateway tools; `taken` says whether a name is a registered
/// tool's.
pub(super) fn check_gateway_tools(
    raw: &[RawGatewayTool],
    downstreams: &BTreeMap<String, Downstream>,
    taken: &dyn Fn(&str) -> bool,
    p: &mut Problems<'_>,
) -> Vec<GatewayTool> {
    let mut out: Vec<GatewayTool> = Vec::new();
    // Names of the tools kept so far: a catalog may hold thousands.
    let mut kept: std::collections::HashSet<String> = std::collections::HashSet::new();
    for (i, raw) in raw.iter().enumerate() {
        let at = format!("gateway_tool[{i}]");
        let name = raw.name.get_ref();
        let mut usable = true;
        if !is_tool_name(name) || name == META_TOOL {
            p.at(
                raw.name.span(),
                format!("{at}.name"),
                format!("`{name}` cannot name a tool: use 1 to 128 letters, digits, `_`, `.` or `-` (and not `{META_TOOL}`)"),
            );
            usable = false;
        } else if taken(name) {
            p.at(
                raw.name.span(),
                format!("{at}.name"),
                format!("a registered tool is already named `{name}`; give the gateway tool another name"),
            );
            usable = false;
        } else if kept.contains(name.as_str()) {
            p.at(
                raw.name.span(),
                format!("{at}.name"),
                format!("duplicate gateway tool `{name}`"),
            );
            usable = false;
        }
        if !downstreams.contains_key(raw.downstream.get_ref()) {
            p.at(
                raw.downstream.span(),
                format!("{at}.downstream"),
                format!(
                    "unknown downstream `{}`{}",
                    raw.downstream.get_ref(),
                    p.suggestion(
                        raw.downstream.get_ref(),
                        downstreams.keys().map(String::as_str)
                    )
                ),
            );
            usable = false;
        }
        if raw.versions.is_empty() {
            p.at(
                raw.name.span(),
                format!("{at}.version"),
                "a gateway tool needs at least one `[[gateway_tool.version]]`",
            );
        }
        let protocol = downstreams
            .get(raw.downstream.get_ref())
            .map(Downstream::protocol);
        let mut versions: Vec<GatewayVersion> = Vec::new();
        for (j, version) in raw.versions.iter().enumerate() {
            let key = format!("{at}.version[{j}]");
            if let Some(checked) = check_version(name, version, protocol, &key, p) {
                if versions.iter().any(|v| v.version == checked.version) {
                    p.at(
                        version.version.span(),
                        format!("{key}.version"),
                        format!("version {} is listed twice", checked.version),
                    );
                    continue;
                }
                versions.push(checked);
            }
        }
        if usable {
            kept.insert(name.clone());
            out.push(GatewayTool {
                name: name.clone(),
                downstream: raw.downstream.get_ref().clone(),
                versions,
            });
        }
    }
    out
}

fn check_version(
    tool: &str,
    raw: &RawGatewayVersion,
    protocol: Option<DownstreamProtocol>,
    at: &str,
    p: &mut Problems<'_>,
) -> Option<GatewayVersion> {
    // An unknown downstream (already reported) is taken for what the keys
    // say, so that the rest is checked too.
    let soap = match protocol {
        Some(protocol) => matches!(protocol, DownstreamProtocol::Soap(_)),
        None => raw.operation.is_some(),
    };
    let number = match u32::try_from(*raw.version.get_ref()) {
        Ok(n) if n >= 1 => Some(n),
        _ => {
            p.at(
                raw.version.span(),
                format!("{at}.version"),
                "versions are whole numbers from 1 up",
            );
            None
        }
    };
    let status = Status::from_name(raw.status.get_ref());
    if status.is_none() {
        p.at(
            raw.status.span(),
            format!("{at}.status"),
            format!(
                "unknown status `{}`; use draft, proposed, published or deprecated",
                raw.status.get_ref()
            ),
        );
    }
    if raw.description.get_ref().trim().is_empty() {
        p.at(
            raw.description.span(),
            format!("{at}.description"),
            "a tool needs a description: it is what the model reads to choose it",
        );
    }
    let (method, path) = if soap {
        check_soap_keys(raw, at, p)
    } else {
        check_rest_keys(raw, at, p)
    };
    let variables: Vec<&str> = path
        .iter()
        .flat_map(|parts| parts.iter())
        .filter_map(|part| match part {
            PathPart::Variable(name) => Some(name.as_str()),
            PathPart::Literal(_) => None,
        })
        .collect();
    let method_has_body = method.is_some_and(Method::has_body);
    // A DELETE sends a body only when an argument says `in = "body"`
    // (OpenAPI allows one; many APIs take their selection there).
    let method_allows_body = method_has_body || method == Some(Method::Delete);
    let operation_span = raw
        .operation
        .as_ref()
        .or(raw.path.as_ref())
        .map_or(raw.version.span(), Spanned::span);

    // Arguments. A field that other fields' paths go inside (`lines`
    // for `lines[].code`) declares that object or array; it maps no value
    // of its own.
    let containers = containers(&raw.arguments);
    let claimed: Vec<&str> = raw
        .arguments
        .iter()
        .filter(|f| f.location.as_ref().is_none_or(|l| l.get_ref() == "path"))
        .map(|f| f.source.as_ref().unwrap_or(&f.name).get_ref().as_str())
        .collect();
    let mut fields_ok = true;
    let mut specs = Vec::new();
    let mut maps: Vec<Option<ArgumentMap>> = Vec::new();
    let mut spans = Vec::new();
    for (k, field) in raw.arguments.iter().enumerate() {
        let key = format!("{at}.argument[{k}]");
        let Some((spec, source, clean)) = check_field(field, &key, p) else {
            fields_ok = false;
            continue;
        };
        fields_ok &= clean;
        if soap && !containers[k] && !check_soap_field(field, &spec, &source, true, &key, p) {
            fields_ok = false;
            continue;
        }
        let map = if containers[k] {
            fields_ok &= declares_only(field, &spec, &key, p);
            None
        } else {
            let (placed, clean) = place_argument(
                field,
                &spec,
                source,
                &Placing {
                    soap,
                    method_has_body,
                    method_allows_body,
                    variables: &variables,
                },
                &key,
                p,
            );
            fields_ok &= clean;
            placed
        };
        maps.push(map);
        spans.push((field.name.span(), key));
        specs.push(spec);
    }
    for variable in &variables {
        if !claimed.contains(variable) {
            p.at(
                operation_span.clone(),
                format!("{at}.path"),
                format!("the path variable `{{{variable}}}` has no argument; add an `[[…argument]]` with `source = \"{variable}\"` and `in = \"path\"`"),
            );
        }
    }
    check_collisions(&maps, &specs, &spans, p);
    let encoding = check_encoding(raw, soap, &maps, &specs, &spans, at, p);
    fields_ok &= encoding.is_some();
    let fixed_headers = fixed_headers(&raw.headers, at, p);
    let fixed_query = fixed_query(&raw.query, at, p);
    fields_ok &= !sent_twice(&maps, &spans, &fixed_headers, &fixed_query, p);
    let identity = format!("{tool}@{}", number.unwrap_or(0));
    let input = match describe(&identity, &specs, true) {
        Ok(node) => Some(node),
        Err(problems) => {
            for (index, message) in problems {
                let (span, key) = &spans[index];
                p.at(span.clone(), format!("{key}.name"), message);
            }
            None
        }
    };
    // Results.
    let containers = self::containers(&raw.results);
    let mut result_specs = Vec::new();
    let mut results = Vec::new();
    let mut result_kinds = Vec::new();
    let mut result_spans = Vec::new();
    for (k, field) in raw.results.iter().enumerate() {
        let key = format!("{at}.result[{k}]");
        let Some((spec, source, clean)) = check_field(field, &key, p) else {
            fields_ok = false;
            continue;
        };
        fields_ok &= clean;
        if soap && !containers[k] && !check_soap_field(field, &spec, &source, false, &key, p) {
            fields_ok = false;
            continue;
        }
        if let Some(word) = &field.location {
            p.at(
                word.span(),
                format!("{key}.in"),
                "a result field comes from the answer's body; remove `in`",
            );
            fields_ok = false;
        } else if let Some(word) = &field.explode {
            p.at(
                word.span(),
                format!("{key}.explode"),
                "`explode` says how a query list is written; a result field has none, remove it",
            );
            fields_ok = false;
        } else if containers[k] {
            fields_ok &= declares_only(field, &spec, &key, p);
        } else if source.arrays() != spec.exposed.arrays() {
            p.at(
                field.source.as_ref().map_or(field.name.span(), Spanned::span),
                format!("{key}.source"),
                format!(
                    "`{}` goes through {} and its source `{source}` through {}: the paths cannot be matched item to item",
                    spec.exposed,
                    arrays(spec.exposed.arrays()),
                    arrays(source.arrays())
                ),
            );
            fields_ok = false;
        } else {
            result_kinds.push(spec.kind);
            results.push(ResultMap {
                exposed: spec.exposed.clone(),
                source,
            });
        }
        result_spans.push((field.name.span(), key));
        result_specs.push(spec);
    }
    let output = if result_specs.is_empty() {
        Some(None)
    } else {
        match describe(&format!("{identity}/result"), &result_specs, false) {
            Ok(node) => Some(Some(node)),
            Err(problems) => {
                for (index, message) in problems {
                    let (span, key) = &result_spans[index];
                    p.at(span.clone(), format!("{key}.name"), message);
                }
                None
            }
        }
    };
    if !fields_ok {
        return None;
    }

    let (number, status, method, path, input, output) =
        (number?, status?, method?, path?, input?, output?);
    let soap = soap.then(|| SoapOperation {
        version: match protocol {
            Some(DownstreamProtocol::Soap(version)) => version,
            _ => SoapVersion::V1_1,
        },
        element: raw
            .operation
            .as_ref()
            .map(|o| o.get_ref().clone())
            .unwrap_or_default(),
        namespace: raw.namespace.as_ref().map(|n| n.get_ref().clone()),
        action: raw.soap_action.as_ref().map(|a| a.get_ref().clone()),
        qualified: raw.qualified.as_ref().is_none_or(|q| *q.get_ref()),
        request: XmlNode::tree(
            maps.iter()
                .zip(&specs)
                .filter_map(|(map, spec)| map.as_ref().map(|map| (&map.source, Some(spec.kind)))),
        ),
        response: XmlNode::tree(
            results
                .iter()
                .zip(&result_kinds)
                .map(|(result, kind)| (&result.source, Some(*kind))),
        ),
    });
    let maps: Vec<ArgumentMap> = maps.into_iter().flatten().collect();
    let def = ToolDef {
        name: Text::from(tool.to_owned()),
        title: raw.title.as_ref().map(|t| Text::from(t.get_ref().clone())),
        description: Text::from(raw.description.get_ref().clone()),
        version: number,
        input: Ref::new(input),
        output: output.map(Ref::new),
        annotations: Annotations {
            read_only: raw.read_only,
            destructive: raw.destructive,
            idempotent: raw.idempotent,
            open_world: raw.open_world,
        },
        icons: Ref::Static(&[]),
        internal: false,
    };
    Some(GatewayVersion {
        version: number,
        status,
        def: Ref::new(def),
        operation: Arc::new(Operation {
            tool: tool.to_owned(),
            method,
            path,
            body_containers: container_pairs(
                maps.iter()
                    .filter(|m| m.location == Location::Body)
                    .map(|m| (&m.exposed, &m.source)),
            ),
            result_containers: container_pairs(results.iter().map(|r| (&r.source, &r.exposed))),
            arguments: maps,
            results,
            encoding: encoding.unwrap_or_default(),
            fixed_headers,
            fixed_query,
            soap,
        }),
    })
}

/// The method and path of a REST operation; SOAP's keys refused.
fn check_rest_keys(
    raw: &RawGatewayVersion,
    at: &str,
    p: &mut Problems<'_>,
) -> (Option<Method>, Option<Vec<PathPart>>) {
    for (key, span) in [
        ("operation", raw.operation.as_ref().map(Spanned::span)),
        ("namespace", raw.namespace.as_ref().map(Spanned::span)),
        ("soap_action", raw.soap_action.as_ref().map(Spanned::span)),
        ("qualified", raw.qualified.as_ref().map(Spanned::span)),
    ] {
        if let Some(span) = span {
            p.at(
                span,
                format!("{at}.{key}"),
                format!("`{key}` is for a SOAP downstream, and this tool's downstream is REST; say `method` and `path`"),
            );
        }
    }
    let method = match &raw.method {
        None => {
            p.at(
                raw.version.span(),
                format!("{at}.method"),
                "a REST operation needs `method` (GET, POST, PUT, PATCH or DELETE)",
            );
            None
        }
        Some(word) => {
            let method = Method::from_name(word.get_ref());
            if method.is_none() {
                p.at(
                    word.span(),
                    format!("{at}.method"),
                    format!(
                        "unknown method `{}`; use GET, POST, PUT, PATCH or DELETE",
                        word.get_ref()
                    ),
                );
            }
            method
        }
    };
    let Some(raw_path) = &raw.path else {
        p.at(
            raw.version.span(),
            format!("{at}.path"),
            "a REST operation needs `path`, the template appended to the downstream's base URL (`/pets/{petId}`)",
        );
        return (method, None);
    };
    let template = raw_path.get_ref();
    if let Some(problem) = template_problem(template) {
        p.at(raw_path.span(), format!("{at}.path"), problem);
        return (method, None);
    }
    let path = match parse_template(template) {
        Ok(parts) if template.starts_with('/') => Some(parts),
        Ok(_) => {
            p.at(
                raw_path.span(),
                format!("{at}.path"),
                "the path starts with `/`; it is appended to the downstream's base URL",
            );
            None
        }
        Err(problem) => {
            p.at(
                raw_path.span(),
                format!("{at}.path"),
                format!("the path template cannot be read: {problem}"),
            );
            None
        }
    };
    (method, path)
}

/// A SOAP operation's request element and namespace; REST's keys refused.
/// Its call is a POST to the downstream's URL.
fn check_soap_keys(
    raw: &RawGatewayVersion,
    at: &str,
    p: &mut Problems<'_>,
) -> (Option<Method>, Option<Vec<PathPart>>) {
    let mut ok = true;
    for (key, span) in [
        ("method", raw.method.as_ref().map(Spanned::span)),
        ("path", raw.path.as_ref().map(Spanned::span)),
    ] {
        if let Some(span) = span {
            p.at(
                span,
                format!("{at}.{key}"),
                format!("`{key}` is for a REST downstream, and this tool's downstream is SOAP; say `operation` (the request element) and `namespace`"),
            );
            ok = false;
        }
    }
    match &raw.operation {
        None => {
            p.at(
                raw.version.span(),
                format!("{at}.operation"),
                "a SOAP tool needs `operation`, the local name of its request element (`GetQuote`)",
            );
            ok = false;
        }
        Some(name) if !is_xml_name(name.get_ref()) => {
            p.at(
                name.span(),
                format!("{at}.operation"),
                format!(
                    "`{}` is not an element name; write the local name, without a prefix",
                    name.get_ref()
                ),
            );
            ok = false;
        }
        Some(_) => {}
    }
    if let Some(namespace) = &raw.namespace
        && namespace.get_ref().trim().is_empty()
    {
        p.at(
            namespace.span(),
            format!("{at}.namespace"),
            "an empty namespace; remove `namespace` for an element in no namespace",
        );
        ok = false;
    }
    if let Some(action) = &raw.soap_action
        && (!is_header_value(action.get_ref()) || action.get_ref().contains('"'))
    {
        p.at(
            action.span(),
            format!("{at}.soap_action"),
            "a SOAP action is a URI: printable ASCII on one line, without `\"`",
        );
        ok = false;
    }
    if ok {
        (Some(Method::Post), Some(Vec::new()))
    } else {
        (None, None)
    }
}

/// A SOAP field's source path names elements (`@name` last for an
/// attribute), and an argument's value is one the envelope can hold.
fn check_soap_field(
    field: &RawField,
    spec: &FieldSpec,
    source: &FieldPath,
    argument: bool,
    key: &str,
    p: &mut Problems<'_>,
) -> bool {
    let span = field
        .source
        .as_ref()
        .map_or(field.name.span(), Spanned::span);
    let steps = source.steps();
    if steps.is_empty() {
        p.at(
            span,
            format!("{key}.source"),
            "a SOAP field's source names an element; `.` (the whole body) is for JSON",
        );
        return false;
    }
    for (i, step) in steps.iter().enumerate() {
        let (name, attribute) = match step.name.strip_prefix('@') {
            Some(name) => (name, true),
            None => (&*step.name, false),
        };
        let problem = if name.is_empty() && step.each {
            Some(
                "a SOAP answer is an element, never an array: start the path with an element name"
                    .to_owned(),
            )
        } else if !is_xml_name(name) {
            Some(format!(
                "`{name}` is not an element name; write local names (the namespace is the operation's), `@name` for an attribute"
            ))
        } else if attribute && (i + 1 != steps.len() || step.each) {
            Some(format!(
                "`@{name}` is an attribute, which holds one value: it stands last, without `[]`"
            ))
        } else if attribute && !spec.kind.is_scalar() {
            Some(format!(
                "`@{name}` is an attribute: its field is a string, number or boolean"
            ))
        } else {
            None
        };
        if let Some(problem) = problem {
            p.at(span, format!("{key}.source"), problem);
            return false;
        }
    }
    if argument && !spec.kind.is_scalar() {
        p.at(
            field.name.span(),
            format!("{key}.type"),
            format!("`{}` would be written whole into the envelope; declare the fields inside it (`{}.name`) so that each becomes an element", spec.exposed, spec.exposed),
        );
        return false;
    }
    true
}

/// Where an argument goes must suit it: one value for a path variable or
/// a header, values or a list of them for a query parameter, anything in a
/// body (of a method that has one).
#[allow(clippy::too_many_arguments)]
fn check_location(
    spec: &FieldSpec,
    source: &FieldPath,
    location: Location,
    method_has_body: bool,
    variables: &[&str],
    field: &RawField,
    key: &str,
    p: &mut Problems<'_>,
) -> bool {
    let span = field.name.span();
    let refuse = |p: &mut Problems<'_>, message: String| {
        p.at(span.clone(), format!("{key}.in"), message);
        false
    };
    let exposed = &spec.exposed;
    match location {
        Location::Path => {
            if !source.is_single_name() || exposed.arrays() > 0 || !spec.kind.is_scalar() {
                return refuse(
                    p,
                    format!(
                        "`{exposed}` goes in the path: it must be one string, number or boolean, with a source that is one name"
                    ),
                );
            }
            if !variables.contains(&&*source.steps()[0].name) {
                return refuse(
                    p,
                    format!(
                        "the path has no variable `{{{}}}` for `{exposed}`",
                        source.steps()[0].name
                    ),
                );
            }
            if !spec.required {
                return refuse(
                    p,
                    format!(
                        "`{exposed}` fills a path variable, so it must be required (`required = true`)"
                    ),
                );
            }
            true
        }
        Location::Header => {
            if !source.is_single_name() || exposed.arrays() > 0 || !spec.kind.is_scalar() {
                return refuse(
                    p,
                    format!(
                        "`{exposed}` goes in a header: it must be one string, number or boolean, with a source that is one header name"
                    ),
                );
            }
            let header = &source.steps()[0].name;
            if !is_header_name(header) {
                return refuse(p, format!("`{header}` is not a header name"));
            }
            // A client's value never replaces the gateway's credentials or
            // framing.
            if header.eq_ignore_ascii_case("authorization") || is_managed_header(header) {
                return refuse(
                    p,
                    format!("the gateway sets `{header}` itself; a client's argument cannot"),
                );
            }
            true
        }
        Location::Query => {
            let list = exposed.arrays() == 1
                && exposed.steps().last().is_some_and(|s| s.each)
                && spec.kind.is_scalar();
            if !source.is_single_name() || !(exposed.arrays() == 0 && spec.kind.is_scalar() || list)
            {
                return refuse(
                    p,
                    format!(
                        "`{exposed}` goes in the query: it must be a string, number or boolean (or a list of them, `name[]`), with a source that is one parameter name"
                    ),
                );
            }
            true
        }
        Location::Body => {
            if !method_has_body {
                return refuse(
                    p,
                    format!(
                        "`{exposed}` goes in the body, and this method sends none; use `in = \"query\"`, or POST, PUT, PATCH or DELETE"
                    ),
                );
            }
            if source.arrays() != exposed.arrays() {
                p.at(
                    field.source.as_ref().map_or(span.clone(), Spanned::span),
                    format!("{key}.source"),
                    format!("`{exposed}` goes through {} and its source `{source}` through {}: the paths cannot be matched item to item", arrays(exposed.arrays()), arrays(source.arrays())),
                );
                return false;
            }
            true
        }
    }
}

/// Two arguments that write to the same place, or one inside another's
/// value (a value written whole: a string, number or boolean, `any`, a
/// stated `schema`, the whole body). One pass over the arguments, each
/// looked up by its source path and the paths that lead to it.
fn check_collisions(
    maps: &[Option<ArgumentMap>],
    specs: &[FieldSpec],
    spans: &[(core::ops::Range<usize>, String)],
    p: &mut Problems<'_>,
) {
    type Place = (Location, Vec<String>);
    let names = |map: &ArgumentMap| -> Vec<String> {
        map.source
            .steps()
            .iter()
            .map(|s| match map.location {
                Location::Header => s.name.to_ascii_lowercase(),
                _ => s.name.to_string(),
            })
            .collect()
    };
    let whole = |i: usize, map: &ArgumentMap| {
        let spec = &specs[i];
        spec.kind.is_scalar()
            || spec.kind == FieldKind::Any
            || spec.schema.is_some()
            || map.source.is_whole()
    };
    // The first earlier argument at each place, and the first one below
    // each place that leads to an earlier argument.
    let mut at: HashMap<Place, usize> = HashMap::new();
    let mut below: HashMap<Place, usize> = HashMap::new();
    for (j, b) in maps.iter().enumerate() {
        let Some(b) = b else { continue };
        let path = names(b);
        let clash = at
            .get(&(b.location, path.clone()))
            .copied()
            .or_else(|| {
                // An earlier value written whole on the way to this one.
                (0..path.len()).find_map(|n| {
                    at.get(&(b.location, path[..n].to_vec()))
                        .copied()
                        .filter(|&i| maps[i].as_ref().is_some_and(|a| whole(i, a)))
                })
            })
            .or_else(|| {
                // This value written whole where earlier ones go inside.
                whole(j, b)
                    .then(|| below.get(&(b.location, path.clone())).copied())
                    .flatten()
            });
        if let Some(i) = clash
            && let Some(a) = &maps[i]
        {
            let (span, key) = &spans[j];
            p.at(
                span.clone(),
                format!("{key}.source"),
                format!(
                    "`{}` and `{}` write to the same place of the request (`{}` and `{}`); map each to its own source path",
                    a.exposed, b.exposed, a.source, b.source
                ),
            );
        }
        for n in 0..path.len() {
            below.entry((b.location, path[..n].to_vec())).or_insert(j);
        }
        at.entry((b.location, path)).or_insert(j);
    }
}

/// Which fields other fields' exposed paths go inside: those whose name
/// leads to another's (`lines` to `lines[].code`, `a` to `a.b`).
fn containers(fields: &[RawField]) -> Vec<bool> {
    let mut leading = std::collections::HashSet::new();
    for field in fields {
        let name = field.name.get_ref().as_str();
        for (i, _) in name.char_indices() {
            let rest = &name[i..];
            if rest.starts_with('.') || rest.starts_with("[]") {
                leading.insert(&name[..i]);
            }
        }
    }
    fields
        .iter()
        .map(|field| leading.contains(field.name.get_ref().as_str()))
        .collect()
}

/// A field that others go inside declares the object or array only: its
/// values are theirs, so it has no source or location of its own.
fn declares_only(field: &RawField, spec: &FieldSpec, key: &str, p: &mut Problems<'_>) -> bool {
    let own = [
        ("source", field.source.as_ref().map(Spanned::span)),
        ("in", field.location.as_ref().map(Spanned::span)),
        ("explode", field.explode.as_ref().map(Spanned::span)),
    ];
    let mut ok = true;
    for (word, span) in own {
        if let Some(span) = span {
            p.at(
                span,
                format!("{key}.{word}"),
                format!(
                    "`{}` holds other fields, which say where their values go; remove `{word}` here",
                    spec.exposed
                ),
            );
            ok = false;
        }
    }
    ok
}

/// Reads one field's declaration: its exposed and source paths, its type
/// and its keywords, each checked against the type.
/// The field as declared and its source path, when both paths and the type
/// can be read, with whether its keywords are all sound (`false`: a problem
/// was recorded, but the field still takes part in the checks of the
/// others, so that every problem is found at once).
/// What placing an argument depends on: the version's kind, method and
/// path variables.
struct Placing<'a> {
    soap: bool,
    method_has_body: bool,
    method_allows_body: bool,
    variables: &'a [&'a str],
}

/// Where an argument goes (`in`, or by default a path variable of its
/// name, else the body if the method has one, else the query), checked;
/// and whether its `explode` is one it may have.
fn place_argument(
    field: &RawField,
    spec: &FieldSpec,
    source: FieldPath,
    placing: &Placing<'_>,
    key: &str,
    p: &mut Problems<'_>,
) -> (Option<ArgumentMap>, bool) {
    let location = match &field.location {
        Some(word) if placing.soap && word.get_ref() != "body" => {
            p.at(
                word.span(),
                format!("{key}.in"),
                "a SOAP operation's arguments go in its request element; remove `in`",
            );
            None
        }
        Some(word) => match Location::from_name(word.get_ref()) {
            Some(location) => Some(location),
            None => {
                p.at(
                    word.span(),
                    format!("{key}.in"),
                    format!(
                        "unknown location `{}`; use path, query, header or body",
                        word.get_ref()
                    ),
                );
                None
            }
        },
        None if source.is_single_name()
            && placing.variables.contains(&&*source.steps()[0].name) =>
        {
            Some(Location::Path)
        }
        None if placing.method_has_body => Some(Location::Body),
        None => Some(Location::Query),
    };
    let placed = location.filter(|location| {
        check_location(
            spec,
            &source,
            *location,
            placing.method_allows_body,
            placing.variables,
            field,
            key,
            p,
        )
    });
    let mut clean = placed.is_some();
    let is_query_list = placed == Some(Location::Query) && spec.exposed.ends_in_array();
    if let Some(word) = &field.explode
        && placed.is_some()
        && !is_query_list
    {
        p.at(
            word.span(),
            format!("{key}.explode"),
            format!(
                "`explode` says how a query list is written, and `{}` is not one (a query argument `name[]`); remove `explode`",
                spec.exposed
            ),
        );
        clean = false;
    }
    let joined = field.explode.as_ref().is_some_and(|e| !*e.get_ref());
    let map = placed.map(|location| ArgumentMap {
        exposed: spec.exposed.clone(),
        location,
        source,
        joined,
    });
    (map, clean)
}

/// Whether an argument sends a header or query parameter the version
/// sends with every call (each such argument is a problem).
fn sent_twice(
    maps: &[Option<ArgumentMap>],
    spans: &[(Span, String)],
    fixed_headers: &[(String, String)],
    fixed_query: &[(String, String)],
    p: &mut Problems<'_>,
) -> bool {
    let mut twice = false;
    for (map, (span, key)) in maps.iter().zip(spans) {
        let Some(map) = map else { continue };
        let name = &map.source.steps().first().map(|s| &*s.name);
        let fixed = match map.location {
            Location::Header => fixed_headers
                .iter()
                .any(|(header, _)| name.is_some_and(|n| header.eq_ignore_ascii_case(n))),
            Location::Query => fixed_query
                .iter()
                .any(|(query, _)| Some(query.as_str()) == *name),
            _ => false,
        };
        if fixed {
            let word = if map.location == Location::Header {
                "headers"
            } else {
                "query"
            };
            p.at(
                span.clone(),
                format!("{key}.source"),
                format!(
                    "`{}` is sent with every call (the version's `{word}`), and `{}` would send it too; remove one of them",
                    map.source, map.exposed
                ),
            );
            twice = true;
        }
    }
    twice
}

fn check_field(
    raw: &RawField,
    at: &str,
    p: &mut Problems<'_>,
) -> Option<(FieldSpec, FieldPath, bool)> {
    let (exposed, source) = field_paths(raw, at, p);
    let kind = field_kind(raw, at, p)?;
    let mut ok = true;
    let mut refuse = |span: Span, key: &str, message: String| {
        p.at(span, format!("{at}.{key}"), message);
        ok = false;
    };
    keywords_apply(raw, kind, &mut refuse);
    format_and_pattern(raw, &mut refuse);
    let [min_length, max_length, min_items, max_items] = counts(raw, &mut refuse);
    let (minimum, maximum) = bounds(raw, kind, &mut refuse);
    let values = enum_values(raw, &mut refuse);
    let default = raw
        .default
        .as_ref()
        .and_then(|d| literal(d, "default", kind, &values, &mut refuse));
    let examples = examples(raw, kind, &values, &mut refuse);
    let schema = raw
        .schema
        .as_ref()
        .and_then(|text| whole_schema(raw, text, kind, &mut refuse));
    let spec = FieldSpec {
        exposed: exposed?,
        kind,
        required: raw.required.as_ref().is_some_and(|r| *r.get_ref()),
        description: raw.description.as_ref().map(|d| d.get_ref().clone()),
        format: raw.format.as_ref().map(|f| f.get_ref().clone()),
        pattern: raw.pattern.as_ref().map(|f| f.get_ref().clone()),
        min_length,
        max_length,
        minimum,
        maximum,
        min_items,
        max_items,
        values,
        default,
        examples,
        schema,
    };
    Some((spec, source?, ok))
}

/// A place in the configuration file.
type Span = core::ops::Range<usize>;

/// Records a field's problem at a key of it.
type Refuse<'r> = dyn FnMut(Span, &str, String) + 'r;

/// A field's exposed and source paths, each if it reads.
fn field_paths(
    raw: &RawField,
    at: &str,
    p: &mut Problems<'_>,
) -> (Option<FieldPath>, Option<FieldPath>) {
    let exposed = match FieldPath::exposed(raw.name.get_ref()) {
        Ok(path) => Some(path),
        Err(problem) => {
            p.at(raw.name.span(), format!("{at}.name"), problem.to_string());
            None
        }
    };
    let source_text = raw.source.as_ref().unwrap_or(&raw.name);
    // What goes in the query, a header or the path has one name, written
    // as the API spells it (`filter.name` is one query parameter).
    let one_name = raw.source.is_some()
        && raw
            .location
            .as_ref()
            .is_some_and(|l| matches!(l.get_ref().as_str(), "query" | "header" | "path"));
    let read = if one_name {
        FieldPath::name
    } else {
        FieldPath::source
    };
    let source = match read(source_text.get_ref()) {
        Ok(path) => Some(path),
        Err(problem) => {
            p.at(
                source_text.span(),
                format!("{at}.source"),
                problem.to_string(),
            );
            None
        }
    };
    (exposed, source)
}

/// A field's type, if it is one.
fn field_kind(raw: &RawField, at: &str, p: &mut Problems<'_>) -> Option<FieldKind> {
    let kind = FieldKind::from_name(raw.kind.get_ref());
    if kind.is_none() {
        p.at(
            raw.kind.span(),
            format!("{at}.type"),
            format!(
                "unknown type `{}`; use string, integer, number, boolean, object, array or any",
                raw.kind.get_ref()
            ),
        );
    }
    kind
}

/// Each keyword the field states applies to its type.
fn keywords_apply(raw: &RawField, kind: FieldKind, refuse: &mut Refuse<'_>) {
    let strings: &[FieldKind] = &[FieldKind::String];
    let numbers: &[FieldKind] = &[FieldKind::Integer, FieldKind::Number];
    let arrays: &[FieldKind] = &[FieldKind::Array];
    let keywords = [
        ("format", raw.format.as_ref().map(Spanned::span), strings),
        ("pattern", raw.pattern.as_ref().map(Spanned::span), strings),
        (
            "min_length",
            raw.min_length.as_ref().map(Spanned::span),
            strings,
        ),
        (
            "max_length",
            raw.max_length.as_ref().map(Spanned::span),
            strings,
        ),
        ("enum", raw.values.as_ref().map(Spanned::span), strings),
        ("minimum", raw.minimum.as_ref().map(Spanned::span), numbers),
        ("maximum", raw.maximum.as_ref().map(Spanned::span), numbers),
        (
            "min_items",
            raw.min_items.as_ref().map(Spanned::span),
            arrays,
        ),
        (
            "max_items",
            raw.max_items.as_ref().map(Spanned::span),
            arrays,
        ),
    ];
    for (key, span, kinds) in keywords {
        let Some(span) = span else { continue };
        if kinds.contains(&kind) {
            continue;
        }
        let (noun, hint) = match kinds[0] {
            FieldKind::String => ("strings", ""),
            FieldKind::Array => (
                "arrays",
                "; declare the array itself (`name = \"lines\"`, `type = \"array\"`)",
            ),
            _ => ("numbers", ""),
        };
        refuse(
            span,
            key,
            format!(
                "`{key}` applies to {noun}, and this field is {}{hint}",
                article(kind.name())
            ),
        );
    }
}

/// The format is a JSON Schema format, and the pattern a regular
/// expression JSON Schema reads.
fn format_and_pattern(raw: &RawField, refuse: &mut Refuse<'_>) {
    if let Some(format) = &raw.format
        && !FORMATS.contains(&format.get_ref().as_str())
    {
        refuse(
            format.span(),
            "format",
            format!(
                "`{}` is not a JSON Schema format; use one of {} (bounds go in `minimum`/`maximum`)",
                format.get_ref(),
                FORMATS.join(", ")
            ),
        );
    }
    if let Some(pattern) = &raw.pattern {
        let schema = serde_json::json!({"type": "string", "pattern": pattern.get_ref()});
        if toolschema_runtime::validate::validator_of::<jsonschema::json::SerdeJson>(&schema)
            .is_err()
        {
            refuse(
                pattern.span(),
                "pattern",
                "not a regular expression JSON Schema accepts".to_owned(),
            );
        }
    }
}

/// The lengths and item counts (`min_length`, `max_length`, `min_items`,
/// `max_items`): whole numbers from 0, each minimum at most its maximum.
fn counts(raw: &RawField, refuse: &mut Refuse<'_>) -> [Option<u64>; 4] {
    let mut count = |value: &Option<Spanned<i64>>, key: &str| -> Option<u64> {
        let value = value.as_ref()?;
        let n = u64::try_from(*value.get_ref()).ok();
        if n.is_none() {
            refuse(
                value.span(),
                key,
                format!("`{key}` is a whole number from 0 up"),
            );
        }
        n
    };
    let counted = [
        count(&raw.min_length, "min_length"),
        count(&raw.max_length, "max_length"),
        count(&raw.min_items, "min_items"),
        count(&raw.max_items, "max_items"),
    ];
    for (low, high, key) in [
        (counted[0], counted[1], "min_length"),
        (counted[2], counted[3], "min_items"),
    ] {
        if let (Some(low), Some(high)) = (low, high)
            && low > high
        {
            refuse(
                raw.name.span(),
                key,
                format!("`{key}` is greater than its maximum: no value could be valid"),
            );
        }
    }
    counted
}

/// `minimum` and `maximum`: numbers of the field's type, the minimum at
/// most the maximum.
fn bounds(
    raw: &RawField,
    kind: FieldKind,
    refuse: &mut Refuse<'_>,
) -> (Option<Number>, Option<Number>) {
    let mut bound = |value: &Option<Spanned<toml::Value>>, key: &str| -> Option<Number> {
        let value = value.as_ref()?;
        match (value.get_ref(), kind) {
            (toml::Value::Integer(n), _) => Some(number(*n)),
            (toml::Value::Float(f), FieldKind::Number) if f.is_finite() => Some(Number::Float(*f)),
            _ => {
                refuse(
                    value.span(),
                    key,
                    format!(
                        "`{key}` of {} is a {}",
                        article(kind.name()),
                        if kind == FieldKind::Integer {
                            "whole number"
                        } else {
                            "number"
                        }
                    ),
                );
                None
            }
        }
    };
    let minimum = bound(&raw.minimum, "minimum");
    let maximum = bound(&raw.maximum, "maximum");
    if let (Some(minimum), Some(maximum)) = (minimum, maximum)
        && maximum.is_less_than(minimum)
    {
        refuse(
            raw.name.span(),
            "minimum",
            "`minimum` is greater than `maximum`: no value could be valid".to_owned(),
        );
    }
    (minimum, maximum)
}

/// The `enum`'s values: at least one when it is stated.
fn enum_values(raw: &RawField, refuse: &mut Refuse<'_>) -> Vec<String> {
    if let Some(list) = &raw.values
        && list.get_ref().is_empty()
    {
        refuse(
            list.span(),
            "enum",
            "an `enum` lists at least one value".to_owned(),
        );
    }
    raw.values
        .as_ref()
        .map(|v| v.get_ref().clone())
        .unwrap_or_default()
}

/// A `default` or example: a scalar of the field's type (and of its
/// `enum`, if it has one).
fn literal(
    value: &Spanned<toml::Value>,
    key: &str,
    kind: FieldKind,
    values: &[String],
    refuse: &mut Refuse<'_>,
) -> Option<Literal> {
    let literal = match value.get_ref() {
        toml::Value::String(text) => Literal::Str(Text::from(text.clone())),
        toml::Value::Integer(n) => Literal::Number(number(*n)),
        toml::Value::Float(f) => Literal::Number(Number::Float(*f)),
        toml::Value::Boolean(b) => Literal::Bool(*b),
        _ => {
            refuse(
                value.span(),
                key,
                "write a string, a number or a boolean".to_owned(),
            );
            return None;
        }
    };
    let in_enum = match &literal {
        Literal::Str(text) => values.is_empty() || values.iter().any(|v| **v == **text),
        _ => true,
    };
    if !kind.admits(&literal) || !in_enum {
        refuse(
            value.span(),
            key,
            format!(
                "this value is not {} the field accepts",
                article(kind.name())
            ),
        );
        return None;
    }
    Some(literal)
}

/// The `examples`, each a literal the field accepts.
fn examples(
    raw: &RawField,
    kind: FieldKind,
    values: &[String],
    refuse: &mut Refuse<'_>,
) -> Vec<Literal> {
    let Some(list) = &raw.examples else {
        return Vec::new();
    };
    list.get_ref()
        .iter()
        .filter_map(|v| {
            let spanned = Spanned::new(list.span(), v.clone());
            literal(&spanned, "examples", kind, values, refuse)
        })
        .collect()
}

/// A field's stated `schema`: JSON text of a schema object that stands
/// alone (no `$ref`), of the field's `type`, that compiles; it says all,
/// so no other keyword of the schema is written beside it. Its compact
/// text, or `None` with the problem recorded.
fn whole_schema(
    raw: &RawField,
    text: &Spanned<String>,
    kind: FieldKind,
    refuse: &mut dyn FnMut(core::ops::Range<usize>, &str, String),
) -> Option<Text> {
    let beside = [
        ("format", raw.format.is_some()),
        ("pattern", raw.pattern.is_some()),
        ("min_length", raw.min_length.is_some()),
        ("max_length", raw.max_length.is_some()),
        ("minimum", raw.minimum.is_some()),
        ("maximum", raw.maximum.is_some()),
        ("min_items", raw.min_items.is_some()),
        ("max_items", raw.max_items.is_some()),
        ("enum", raw.values.is_some()),
        ("default", raw.default.is_some()),
        ("examples", raw.examples.is_some()),
    ];
    if let Some((key, _)) = beside.iter().find(|(_, written)| *written) {
        refuse(
            text.span(),
            "schema",
            format!(
                "`schema` states the whole schema, and `{key}` is written beside it; put `{key}` inside the schema"
            ),
        );
        return None;
    }
    let schema: serde_json::Value = match serde_json::from_str(text.get_ref()) {
        Ok(value @ serde_json::Value::Object(_)) => value,
        Ok(_) => {
            refuse(
                text.span(),
                "schema",
                "`schema` is the JSON text of a schema object (`{\"type\": \"object\", …}`)"
                    .to_owned(),
            );
            return None;
        }
        Err(error) => {
            refuse(
                text.span(),
                "schema",
                format!("`schema` is not JSON text: {error}"),
            );
            return None;
        }
    };
    if let Some(reference) = first_reference(&schema) {
        refuse(
            text.span(),
            "schema",
            format!(
                "`schema` has a `$ref` (`{reference}`), which cannot resolve inside a tool's schema; write what it points to in its place"
            ),
        );
        return None;
    }
    let stated = schema.get("type").and_then(serde_json::Value::as_str);
    if kind != FieldKind::Any && stated != Some(kind.name()) {
        refuse(
            text.span(),
            "schema",
            match stated {
                Some(other) => format!(
                    "`schema` says `\"type\": \"{other}\"`, and the field is {}; make them agree (`type = \"any\"` for several types)",
                    article(kind.name())
                ),
                None => format!(
                    "`schema` says no `type`, and the field is {}; write `\"type\": \"{}\"` in it (or `type = \"any\"` on the field)",
                    article(kind.name()),
                    kind.name()
                ),
            },
        );
        return None;
    }
    if let Err(error) = toolschema_runtime::validate::schema_compiles(text.get_ref(), &schema) {
        refuse(
            text.span(),
            "schema",
            format!("`schema` is not a schema JSON Schema 2020-12 compiles: {error}"),
        );
        return None;
    }
    // As written: the order of its properties is the author's.
    Some(Text::from(text.get_ref().trim().to_owned()))
}

/// The first `$ref` in a schema, if it has one.
fn first_reference(schema: &serde_json::Value) -> Option<&str> {
    let mut pending = vec![schema];
    while let Some(value) = pending.pop() {
        match value {
            serde_json::Value::Object(map) => {
                if let Some(serde_json::Value::String(reference)) = map.get("$ref") {
                    return Some(reference);
                }
                pending.extend(map.values());
            }
            serde_json::Value::Array(items) => pending.extend(items),
            _ => {}
        }
    }
    None
}

/// `a string`, `an integer`.
fn article(word: &str) -> String {
    match word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        true => format!("an {word}"),
        false => format!("a {word}"),
    }
}

/// `1 array`, `2 arrays`.
fn arrays(n: usize) -> String {
    format!("{n} array{}", if n == 1 { "" } else { "s" })
}

fn number(n: i64) -> Number {
    match u64::try_from(n) {
        Ok(n) => Number::UInt(n),
        Err(_) => Number::Int(n),
    }
}

/// The versions of each gateway tool, as the selection rule reads them.
pub(super) fn mappings(tools: &[GatewayTool]) -> HashMap<String, Vec<(u32, Status)>> {
    tools
        .iter()
        .map(|tool| {
            let versions = tool
                .versions
                .iter()
                .map(|v| (v.version, v.status))
                .collect();
            (tool.name.clone(), versions)
        })
        .collect()
}
