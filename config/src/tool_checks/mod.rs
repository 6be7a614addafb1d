//! The checks of `[[downstream]]` and `[[gateway_tool]]` sections: every
//! problem located, and a checked section turned into its descriptor and
//! operation.

use crate::location::{ConfigLocation, Section};
use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use super::errors::Problems;
use crate::sections::{AuthSection, Auths, DownstreamSection, VersionSection};
use toolschema_configured::Status;
use toolschema_configured::{
    ArgumentMap, Auth, ConfiguredTool, Downstream, DownstreamProtocol, Encoding, FieldSpec,
    Location, SoapVersion, is_header_value, is_managed_header,
};
use toolschema_runtime::model::Number;

mod field;
mod placing;
mod prefixes;
mod soap_header;
mod tool;

pub(super) use tool::check_configured_tools;

const DEFAULT_TIMEOUT_MS: i64 = 10_000;
const DEFAULT_CONNECT_TIMEOUT_MS: i64 = 2_000;
const DEFAULT_MAX_RESPONSE_BYTES: i64 = 1 << 20;
const MAX_TIMEOUT_MS: i64 = 600_000;
const MAX_RESPONSE_BYTES: i64 = 256 << 20;

/// Whether `name` follows MCP's tool name rule.
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
    raw: &[DownstreamSection],
    p: &mut Problems<'_>,
) -> BTreeMap<String, Downstream> {
    let mut out = BTreeMap::new();
    for (i, raw) in raw.iter().enumerate() {
        let at = ConfigLocation::entry_of(Section::Downstream, i);
        let id = &raw.id;
        if out.contains_key(id) {
            p.duplicate(at.field_of("id"), format!("duplicate downstream id `{id}`"));
            continue;
        }
        let base_url = match url::Url::parse(&raw.base_url) {
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
                    at.field_of("base_url"),
                    "the base URL must be http:// or https:// with a host, and no query, fragment or credentials (credentials go in `auth`, from the environment)",
                );
                None
            }
            Err(error) => {
                p.at(
                    at.field_of("base_url"),
                    format!("not a URL ({error}); write it as `https://api.example.com/v1`"),
                );
                None
            }
        };
        let mut millis = |value: &Option<i64>, key: &str, default: i64| {
            let Some(value) = value else {
                return Duration::from_millis(default as u64);
            };
            let ms = *value;
            if !(1..=MAX_TIMEOUT_MS).contains(&ms) {
                p.at(
                    at.field_of(key),
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
                let n = *value;
                if !(1..=MAX_RESPONSE_BYTES).contains(&n) {
                    p.at(
                        at.field_of("max_response_bytes"),
                        format!("the answer limit is from 1 to {MAX_RESPONSE_BYTES} bytes"),
                    );
                }
                n.clamp(1, MAX_RESPONSE_BYTES)
            }
        };
        let headers = fixed_headers(&raw.headers, &at, false, p);
        let auth = raw
            .auth
            .as_ref()
            .map_or_else(Vec::new, |auth| check_auths(auth, &at.field_of("auth"), p));
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
    raw: &DownstreamSection,
    at: &ConfigLocation,
    p: &mut Problems<'_>,
) -> Option<DownstreamProtocol> {
    let word = raw.protocol.as_ref().map_or("rest", |w| w.as_str());
    match word {
        "rest" => {
            if raw.soap_version.is_some() {
                p.at(
                    at.field_of("soap_version"),
                    "`soap_version` is for a SOAP downstream; add `protocol = \"soap\"` or remove it",
                );
                return None;
            }
            Some(DownstreamProtocol::Rest)
        }
        "soap" => match &raw.soap_version {
            None => Some(DownstreamProtocol::Soap(SoapVersion::V1_1)),
            Some(version) => match SoapVersion::from_name(version) {
                Some(version) => Some(DownstreamProtocol::Soap(version)),
                None => {
                    p.at(
                        at.field_of("soap_version"),
                        format!(
                            "unknown SOAP version `{}`; use \"1.1\" or \"1.2\"",
                            &version
                        ),
                    );
                    None
                }
            },
        },
        other => {
            p.at(
                at.field_of("protocol"),
                format!("unknown protocol `{other}`; use rest or soap"),
            );
            None
        }
    }
}

/// A downstream's credentials, all sent with each call: none of them may
/// write where another writes (one `Authorization`, one header or query
/// parameter of each name).
fn check_auths(raw: &Auths, at: &ConfigLocation, p: &mut Problems<'_>) -> Vec<Auth> {
    let checked: Vec<(ConfigLocation, Option<Auth>)> = match raw {
        Auths::One(auth) => vec![(at.clone(), check_auth(auth, at, p))],
        Auths::Many(list) => list
            .iter()
            .enumerate()
            .map(|(i, auth)| {
                let at = at.item(i);
                let checked = check_auth(auth, &at, p);
                (at, checked)
            })
            .collect(),
    };
    let mut auths = Vec::new();
    let mut written: Vec<(String, String)> = Vec::new();
    for (at, auth) in checked {
        let Some(auth) = auth else { continue };
        let place = auth.place();
        if let Some((_, first)) = written.iter().find(|(w, _)| w.eq_ignore_ascii_case(&place)) {
            p.at(
                at,
                format!("{place} is already sent by `{first}`; each credential of a downstream goes in a place of its own"),
            );
            continue;
        }
        written.push((place, at.to_string()));
        auths.push(auth);
    }
    auths
}

fn check_auth(raw: &AuthSection, at: &ConfigLocation, p: &mut Problems<'_>) -> Option<Auth> {
    let mut env = |value: &Option<String>, key: &str| -> Option<String> {
        match value {
            Some(name) if is_env_name(name) => Some(name.clone()),
            Some(name) => {
                p.at(
                    at.field_of(key),
                    format!("`{}` is not an environment variable name; name the variable that holds the secret (`PETSTORE_TOKEN`), never the secret", &name),
                );
                None
            }
            None => {
                p.at(
                    at.to_owned(),
                    format!("this kind of auth needs `{key}`, the environment variable that holds the secret"),
                );
                None
            }
        }
    };
    match raw.kind.as_str() {
        "bearer" => Some(Auth::Bearer {
            env: env(&raw.env, "env")?,
        }),
        "header" => {
            let env = env(&raw.env, "env");
            let header = match &raw.header {
                Some(name) if is_header_name(name) => Some(name.clone()),
                _ => {
                    p.at(
                        at.field_of("header"),
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
                Some(name) if !name.is_empty() => Some(name.clone()),
                _ => {
                    p.at(
                        at.field_of("param"),
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
        "aws_sigv4" => {
            let access_key_env = env(&raw.access_key_env, "access_key_env");
            let secret_key_env = env(&raw.secret_key_env, "secret_key_env");
            let session_token_env = match &raw.session_token_env {
                None => Some(None),
                some => env(some, "session_token_env").map(Some),
            };
            let mut word = |value: &Option<String>, key: &str, example: &str| match value {
                Some(word)
                    if !word.is_empty()
                        && word.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') =>
                {
                    Some(word.clone())
                }
                Some(word) => {
                    p.at(
                            at.field_of(key),
                            format!("`{}` is not an AWS {key} name (letters, digits and `-`, such as `{example}`)", &word),
                        );
                    None
                }
                None => {
                    p.at(
                            at.to_owned(),
                            format!("`kind = \"aws_sigv4\"` needs `{key}`, the {key} the requests are signed for (such as `{example}`)"),
                        );
                    None
                }
            };
            let region = word(&raw.region, "region", "us-east-1");
            let service = word(&raw.service, "service", "s3");
            Some(Auth::AwsSigV4 {
                access_key_env: access_key_env?,
                secret_key_env: secret_key_env?,
                session_token_env: session_token_env?,
                region: region?,
                service: service?,
            })
        }
        other => {
            p.at(
                at.field_of("kind"),
                format!(
                    "unknown auth kind `{other}`; use bearer, header, query, basic or aws_sigv4"
                ),
            );
            None
        }
    }
}

/// Headers written in the configuration (a downstream's, a version's):
/// names and values a header can carry, never credentials or the headers
/// the gateway sets itself — but for `Content-Type` where `content_type`
/// allows it (a version that sends no body).
fn fixed_headers(
    raw: &BTreeMap<String, String>,
    at: &ConfigLocation,
    content_type: bool,
    p: &mut Problems<'_>,
) -> Vec<(String, String)> {
    let mut headers = Vec::new();
    for (name, value) in raw {
        if !is_header_name(name) {
            p.at(
                at.field_of("headers"),
                format!("`{}` is not a header name", &name),
            );
        } else if !is_header_value(value) {
            p.at(
                at.field_of("headers").field_of(name),
                "a header value is printable ASCII on one line",
            );
        } else if name.eq_ignore_ascii_case("authorization") {
            p.at(
                at.field_of("headers"),
                "credentials are never written in the configuration; use `auth` with an environment variable",
            );
        } else if content_type && name.eq_ignore_ascii_case("content-type") {
            headers.push((name.clone(), value.clone()));
        } else if is_managed_header(name) {
            let with_body = if name.eq_ignore_ascii_case("content-type") {
                " with the body (only a version that sends none may name one)"
            } else {
                ""
            };
            p.at(
                at.field_of("headers"),
                format!("the gateway sets `{}` itself{with_body}; remove it", &name),
            );
        } else {
            headers.push((name.clone(), value.clone()));
        }
    }
    headers
}

/// How a version's body is written (`encoding`): JSON, or a form whose
/// body arguments are each one field (a string, number or boolean, or a
/// list of them, under one name). `None` when refused.
fn check_encoding(
    raw: &VersionSection,
    soap: bool,
    maps: &[Option<ArgumentMap>],
    specs: &[FieldSpec],
    keys: &[ConfigLocation],
    at: &ConfigLocation,
    p: &mut Problems<'_>,
) -> Option<Encoding> {
    let Some(word) = &raw.encoding else {
        return Some(Encoding::Json);
    };
    match word.as_str() {
        "json" => return Some(Encoding::Json),
        "form" if !soap => {}
        "form" => {
            p.at(
                at.field_of("encoding"),
                "a SOAP operation's body is its envelope; remove `encoding`",
            );
            return None;
        }
        other => {
            p.at(
                at.field_of("encoding"),
                format!("unknown encoding `{other}`; use json or form"),
            );
            return None;
        }
    }
    let mut ok = true;
    for ((map, spec), key) in maps.iter().zip(specs).zip(keys) {
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
                key.field_of("source"),
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
    raw: &BTreeMap<String, String>,
    at: &ConfigLocation,
    p: &mut Problems<'_>,
) -> Vec<(String, String)> {
    let mut query = Vec::new();
    for (name, value) in raw {
        if name.is_empty() {
            p.at(at.field_of("query"), "a query parameter has a name");
        } else {
            query.push((name.clone(), value.clone()));
        }
    }
    query
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

/// The versions of each configured tool, as the selection rule reads them.
pub(super) fn mappings(
    tools: &[std::sync::Arc<ConfiguredTool>],
) -> HashMap<String, Vec<(u32, Status)>> {
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
