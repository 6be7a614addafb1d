//! Where a version's values go: the REST and SOAP keys of a version, and
//! each argument placed in the request (path, query, header or body),
//! nothing written twice.

use crate::location::ConfigLocation;
use std::collections::HashMap;

use super::prefixes::step_problem;
use super::{arrays, is_header_name};
use crate::errors::Problems;
use crate::sections::{FieldSection, VersionSection};
use toolschema_configured::{
    ArgumentMap, FieldKind, FieldPath, FieldSpec, Location, Method, PathPart,
    header_argument_refusal, is_header_value, is_xml_name, parse_template, template_problem,
};

/// The method and path of a REST operation; SOAP's keys refused.
pub(super) fn check_rest_keys(
    raw: &VersionSection,
    at: &ConfigLocation,
    p: &mut Problems<'_>,
) -> (Option<Method>, Option<Vec<PathPart>>) {
    for (key, written) in [
        ("operation", raw.operation.is_some()),
        ("namespace", raw.namespace.is_some()),
        ("soap_action", raw.soap_action.is_some()),
        ("qualified", raw.qualified.is_some()),
    ] {
        if written {
            p.at(
                at.field_of(key),
                format!("`{key}` is for a SOAP downstream, and this tool's downstream is REST; say `method` and `path`"),
            );
        }
    }
    let method = match &raw.method {
        None => {
            p.at(
                at.field_of("method"),
                "a REST operation needs `method` (GET, POST, PUT, PATCH or DELETE)",
            );
            None
        }
        Some(word) => {
            let method = Method::from_name(word);
            if method.is_none() {
                p.at(
                    at.field_of("method"),
                    format!(
                        "unknown method `{}`; use GET, POST, PUT, PATCH or DELETE",
                        &word
                    ),
                );
            }
            method
        }
    };
    let Some(raw_path) = &raw.path else {
        p.at(
            at.field_of("path"),
            "a REST operation needs `path`, the template appended to the downstream's base URL (`/pets/{petId}`)",
        );
        return (method, None);
    };
    let template = raw_path;
    if let Some(problem) = template_problem(template) {
        p.at(at.field_of("path"), problem);
        return (method, None);
    }
    let path = match parse_template(template) {
        Ok(parts) if template.starts_with('/') => Some(parts),
        Ok(_) => {
            p.at(
                at.field_of("path"),
                "the path starts with `/`; it is appended to the downstream's base URL",
            );
            None
        }
        Err(problem) => {
            p.at(
                at.field_of("path"),
                format!("the path template cannot be read: {problem}"),
            );
            None
        }
    };
    (method, path)
}

/// A SOAP operation's request element and namespace; REST's keys refused.
/// Its call is a POST to the downstream's URL.
pub(super) fn check_soap_keys(
    raw: &VersionSection,
    at: &ConfigLocation,
    p: &mut Problems<'_>,
) -> (Option<Method>, Option<Vec<PathPart>>) {
    let mut ok = true;
    for (key, written) in [
        ("method", raw.method.is_some()),
        ("path", raw.path.is_some()),
    ] {
        if written {
            p.at(
                at.field_of(key),
                format!("`{key}` is for a REST downstream, and this tool's downstream is SOAP; say `operation` (the request element) and `namespace`"),
            );
            ok = false;
        }
    }
    match &raw.operation {
        None => {
            p.at(
                at.field_of("operation"),
                "a SOAP tool needs `operation`, the local name of its request element (`GetQuote`)",
            );
            ok = false;
        }
        Some(name) if !is_xml_name(name) => {
            p.at(
                at.field_of("operation"),
                format!(
                    "`{}` is not an element name; write the local name, without a prefix",
                    &name
                ),
            );
            ok = false;
        }
        Some(_) => {}
    }
    if let Some(namespace) = &raw.namespace
        && namespace.trim().is_empty()
    {
        p.at(
            at.field_of("namespace"),
            "an empty namespace; remove `namespace` for an element in no namespace",
        );
        ok = false;
    }
    if let Some(action) = &raw.soap_action
        && (!is_header_value(action) || action.contains('"'))
    {
        p.at(
            at.field_of("soap_action"),
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
pub(super) fn check_soap_field(
    spec: &FieldSpec,
    source: &FieldPath,
    (argument, prefixes): (bool, &[(String, String)]),
    key: &ConfigLocation,
    p: &mut Problems<'_>,
) -> bool {
    let steps = source.steps();
    if steps.is_empty() {
        p.at(
            key.field_of("source"),
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
        } else if let Some(problem) = step_problem(name, prefixes, argument) {
            Some(problem)
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
            p.at(key.field_of("source"), problem);
            return false;
        }
    }
    if argument && !spec.kind.is_scalar() {
        p.at(
            key.field_of("type"),
            format!("`{}` would be written whole into the envelope; declare the fields inside it (`{}.name`) so that each becomes an element", spec.exposed, spec.exposed),
        );
        return false;
    }
    true
}

/// Where an argument goes must suit it: one value for a path variable or
/// a header, values or a list of them for a query parameter, anything in a
/// body (of a method that has one) or a SOAP header block.
fn check_location(
    spec: &FieldSpec,
    source: &FieldPath,
    location: Location,
    placing: &Placing<'_>,
    key: &ConfigLocation,
    p: &mut Problems<'_>,
) -> bool {
    let (method_has_body, variables) = (placing.method_allows_body, placing.variables);
    let refuse = |p: &mut Problems<'_>, message: String| {
        p.at(key.field_of("in"), message);
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
            // A client's value never replaces the gateway's credentials,
            // framing or connection, nor says where a request comes from.
            if let Some(reason) = header_argument_refusal(header) {
                return refuse(
                    p,
                    format!(
                        "`{exposed}` cannot be sent as the header `{header}`: {reason}; remove the argument, or send its value under a header of the API's own"
                    ),
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
        Location::SoapHeader => {
            if !placing.soap {
                return refuse(
                    p,
                    format!(
                        "`{exposed}` goes in a SOAP envelope's `Header` (`soap_header`), and this tool's downstream is REST; use `in = \"header\"` for an HTTP header"
                    ),
                );
            }
            if source.steps()[0].name.starts_with('@') {
                return refuse(
                    p,
                    format!(
                        "`{exposed}` goes in a SOAP header block: its source starts with the block's element (`RequestContext.@id`), not an attribute"
                    ),
                );
            }
            if source.steps()[0].name.contains(':') {
                return refuse(
                    p,
                    format!(
                        "`{exposed}` goes in a SOAP header block: its source starts with the block's local name, and the block's namespace goes in its `[[…soap_header]]`"
                    ),
                );
            }
            same_arrays(spec, source, key, p)
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
            same_arrays(spec, source, key, p)
        }
    }
}

/// Whether an argument's exposed and source paths go through as many
/// arrays (each item then goes to one item).
fn same_arrays(
    spec: &FieldSpec,
    source: &FieldPath,
    key: &ConfigLocation,
    p: &mut Problems<'_>,
) -> bool {
    let exposed = &spec.exposed;
    if source.arrays() != exposed.arrays() {
        p.at(
            key.field_of("source"),
            format!("`{exposed}` goes through {} and its source `{source}` through {}: the paths cannot be matched item to item", arrays(exposed.arrays()), arrays(source.arrays())),
        );
        return false;
    }
    true
}

/// Two arguments that write to the same place, or one inside another's
/// value (a value written whole: a string, number or boolean, `any`, a
/// stated `schema`, the whole body). One pass over the arguments, each
/// looked up by its source path and the paths that lead to it.
pub(super) fn check_collisions(
    maps: &[Option<ArgumentMap>],
    specs: &[FieldSpec],
    keys: &[ConfigLocation],
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
            let key = &keys[j];
            p.at(
                key.field_of("source"),
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
pub(super) fn containers(fields: &[FieldSection]) -> Vec<bool> {
    let mut leading = std::collections::HashSet::new();
    for field in fields {
        let name = field.name.as_str();
        for (i, _) in name.char_indices() {
            let rest = &name[i..];
            if rest.starts_with('.') || rest.starts_with("[]") {
                leading.insert(&name[..i]);
            }
        }
    }
    fields
        .iter()
        .map(|field| leading.contains(field.name.as_str()))
        .collect()
}

/// A field that others go inside declares the object or array only: its
/// values are theirs, so it has no source or location of its own.
pub(super) fn declares_only(
    field: &FieldSection,
    spec: &FieldSpec,
    key: &ConfigLocation,
    p: &mut Problems<'_>,
) -> bool {
    let own = [
        ("source", field.source.is_some()),
        ("in", field.location.is_some()),
        ("explode", field.explode.is_some()),
    ];
    let mut ok = true;
    for (word, written) in own {
        if written {
            p.at(
                key.field_of(word),
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
pub(super) struct Placing<'a> {
    pub(super) soap: bool,
    pub(super) method_has_body: bool,
    pub(super) method_allows_body: bool,
    pub(super) variables: &'a [&'a str],
}

/// Where an argument goes (`in`, or by default a path variable of its
/// name, else the body if the method has one, else the query), checked;
/// and whether its `explode` is one it may have.
pub(super) fn place_argument(
    field: &FieldSection,
    spec: &FieldSpec,
    source: FieldPath,
    placing: &Placing<'_>,
    key: &ConfigLocation,
    p: &mut Problems<'_>,
) -> (Option<ArgumentMap>, bool) {
    let location = match &field.location {
        Some(word) if placing.soap && !matches!(word.as_str(), "body" | "soap_header") => {
            p.at(
                key.field_of("in"),
                format!(
                    "a SOAP operation's arguments go in its request element (`body`, the default) or in a block of the envelope's `Header` (`soap_header`), not `{}`",
                    &word
                ),
            );
            None
        }
        Some(word) => match Location::from_name(word) {
            Some(location) => Some(location),
            None => {
                p.at(
                    key.field_of("in"),
                    format!(
                        "unknown location `{}`; use path, query, header or body (soap_header for a SOAP tool)",
                        &word
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
    let placed =
        location.filter(|location| check_location(spec, &source, *location, placing, key, p));
    let mut clean = placed.is_some();
    let is_query_list = placed == Some(Location::Query) && spec.exposed.ends_in_array();
    if field.explode.is_some() && placed.is_some() && !is_query_list {
        p.at(
            key.field_of("explode"),
            format!(
                "`explode` says how a query list is written, and `{}` is not one (a query argument `name[]`); remove `explode`",
                spec.exposed
            ),
        );
        clean = false;
    }
    let joined = field.explode.as_ref().is_some_and(|e| !e);
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
pub(super) fn sent_twice(
    maps: &[Option<ArgumentMap>],
    keys: &[ConfigLocation],
    fixed_headers: &[(String, String)],
    fixed_query: &[(String, String)],
    p: &mut Problems<'_>,
) -> bool {
    let mut twice = false;
    for (map, key) in maps.iter().zip(keys) {
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
                key.field_of("source"),
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
