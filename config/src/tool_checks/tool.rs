//! A `[[gateway_tool]]` and its versions checked: each version's head,
//! arguments and results, and the checked version built.

use crate::location::{ConfigLocation, Section};
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use super::field::check_field;
use super::placing::{
    Placing, check_collisions, check_rest_keys, check_soap_field, check_soap_keys, containers,
    declares_only, place_argument, sent_twice,
};
use super::prefixes::check_prefixes;
use super::soap_header::{check_soap_headers, soap_headers};
use super::{arrays, check_encoding, fixed_headers, fixed_query};
use crate::errors::Problems;
use crate::ids::is_record_id;
use crate::sections::{FieldSection, ToolSection, VersionSection};
use toolschema_configured::Status;
use toolschema_configured::{
    ArgumentMap, ConfiguredTool, ConfiguredVersion, Downstream, DownstreamProtocol, FieldKind,
    FieldPath, FieldSpec, Location, Method, Operation, PathPart, ResultMap, SoapOperation,
    SoapVersion, XmlNode, body_container_pairs, container_pairs, describe,
};
use toolschema_runtime::model::{Annotations, Node, Ref, Text, ToolDef};
use toolschema_runtime::project::{META_TOOL, SEARCH_TOOL};

/// Checks the configured tools; `taken` says whether a name is a registered
/// tool's. `kept` are tools checked before and kept as they are (a
/// configuration checked again after a change): the result holds them and
/// the checked ones, by name. Each tool's versions are checked on their
/// own, on every core when the tools are many; the names, which depend on
/// one another, then in order.
pub(crate) fn check_configured_tools(
    raw: Vec<ToolSection>,
    kept: Vec<Arc<ConfiguredTool>>,
    downstreams: &BTreeMap<String, Downstream>,
    taken: &dyn Fn(&str) -> bool,
    p: &mut Problems<'_>,
) -> Vec<Arc<ConfiguredTool>> {
    let whole: &Problems<'_> = p;
    // Each raw tool's versions are dropped once checked: an imported
    // catalog's raw and checked tools are not held whole together.
    let checked =
        toolschema_runtime::parallel::map(raw.into_iter().enumerate().collect(), |(i, raw)| {
            let mut found = whole.part();
            let protocol = downstreams.get(&raw.downstream).map(Downstream::protocol);
            let versions = check_versions(i, &raw, protocol, &mut found);
            let versionless = raw.version.is_empty();
            (raw.name, raw.downstream, versionless, versions, found)
        });
    // Names of the tools kept so far: a catalog may hold thousands.
    let kept_names: HashSet<&str> = kept.iter().map(|tool| tool.name.as_str()).collect();
    let mut names: HashSet<String> = HashSet::new();
    let mut out = Vec::new();
    for (i, (name, downstream, versionless, versions, found)) in checked.into_iter().enumerate() {
        let at = ConfigLocation::entry_of(Section::ConfiguredTool, i);
        let usable = check_head(
            &at,
            &name,
            &downstream,
            (&names, &kept_names),
            downstreams,
            taken,
            p,
        );
        if versionless {
            p.at(
                at.field_of("version"),
                "a gateway tool needs at least one `[[gateway_tool.version]]`",
            );
        }
        p.absorb(found);
        if usable {
            names.insert(name.clone());
            out.push(Arc::new(ConfiguredTool {
                name,
                downstream,
                versions,
            }));
        }
    }
    drop(kept_names);
    by_name(kept, out)
}

/// Checks the name and downstream of the configured tool `at`, against the
/// names taken so far (`seen`: checked here, kept from before); whether the
/// tool can be served.
fn check_head(
    at: &ConfigLocation,
    name: &str,
    downstream: &str,
    seen: (&HashSet<String>, &HashSet<&str>),
    downstreams: &BTreeMap<String, Downstream>,
    taken: &dyn Fn(&str) -> bool,
    p: &mut Problems<'_>,
) -> bool {
    let mut usable = true;
    // A configured tool's name is a record identifier (which the MCP name
    // rule allows too).
    if !is_record_id(name) || name == META_TOOL || name == SEARCH_TOOL {
        p.at(
            at.field_of("name"),
            format!("`{name}` cannot name a tool: use 1 to 128 letters, digits, `_`, `.` or `-` (and not `{META_TOOL}` or `{SEARCH_TOOL}`)"),
        );
        usable = false;
    } else if taken(name) {
        p.at(
            at.field_of("name"),
            format!(
                "a registered tool is already named `{name}`; give the gateway tool another name"
            ),
        );
        usable = false;
    } else if seen.0.contains(name) || seen.1.contains(name) {
        p.duplicate(
            at.field_of("name"),
            format!("duplicate gateway tool `{name}`"),
        );
        usable = false;
    }
    if !downstreams.contains_key(downstream) {
        p.reference(
            at.field_of("downstream"),
            format!(
                "unknown downstream `{}`{}",
                downstream,
                p.suggestion(downstream, downstreams.keys().map(String::as_str))
            ),
        );
        usable = false;
    }
    usable
}

/// The versions of the `i`th configured tool, each checked (one listed twice
/// is a problem, and left out).
fn check_versions(
    i: usize,
    raw: &ToolSection,
    protocol: Option<DownstreamProtocol>,
    p: &mut Problems<'_>,
) -> Vec<ConfiguredVersion> {
    let mut versions: Vec<ConfiguredVersion> = Vec::new();
    for (j, version) in raw.version.iter().enumerate() {
        let key = ConfigLocation::entry_of(Section::ConfiguredTool, i).in_version(j);
        if let Some(checked) = check_version(&raw.name, version, protocol, &key, p) {
            if versions.iter().any(|v| v.version == checked.version) {
                p.at(
                    key.field_of("version"),
                    format!("version {} is listed twice", checked.version),
                );
                continue;
            }
            versions.push(checked);
        }
    }
    versions
}

/// `kept` and `added` tools in one list by name (`added` alone, in its
/// order, when nothing is kept). Kept tools in order by name (as a
/// configuration read from the store lists them) are merged in one pass.
fn by_name(
    kept: Vec<Arc<ConfiguredTool>>,
    mut added: Vec<Arc<ConfiguredTool>>,
) -> Vec<Arc<ConfiguredTool>> {
    if kept.is_empty() {
        return added;
    }
    added.sort_unstable_by(|a, b| a.name.cmp(&b.name));
    if !kept.is_sorted_by(|a, b| a.name <= b.name) {
        let mut all = kept;
        all.extend(added);
        all.sort_unstable_by(|a, b| a.name.cmp(&b.name));
        return all;
    }
    let mut all = Vec::with_capacity(kept.len() + added.len());
    let mut added = added.into_iter().peekable();
    for tool in kept {
        while let Some(next) = added.next_if(|next| next.name < tool.name) {
            all.push(next);
        }
        all.push(tool);
    }
    all.extend(added);
    all
}

fn check_version(
    tool: &str,
    raw: &VersionSection,
    protocol: Option<DownstreamProtocol>,
    at: &ConfigLocation,
    p: &mut Problems<'_>,
) -> Option<ConfiguredVersion> {
    // An unknown downstream (already reported) is taken for what the keys
    // say, so that the rest is checked too.
    let soap = match protocol {
        Some(protocol) => matches!(protocol, DownstreamProtocol::Soap(_)),
        None => raw.operation.is_some(),
    };
    let (number, status) = version_head(raw, at, p);
    let (method, path) = if soap {
        check_soap_keys(raw, at, p)
    } else {
        check_rest_keys(raw, at, p)
    };
    let identity = format!("{tool}@{}", number.unwrap_or(0));
    let (prefixes, prefixes_sound) = check_prefixes(raw, soap, at, p);
    let arguments = check_arguments(raw, (soap, &prefixes), method, path.as_deref(), at, p);
    let encoding = check_encoding(
        raw,
        soap,
        &arguments.maps,
        &arguments.specs,
        &arguments.keys,
        at,
        p,
    );
    // A version that sends no body may say its `Content-Type` (an API
    // that wants one on a GET); with a body, the gateway writes it.
    let bodiless = !soap
        && !arguments
            .maps
            .iter()
            .flatten()
            .any(|map| map.location == Location::Body);
    let fixed_headers = fixed_headers(&raw.headers, at, bodiless, p);
    let fixed_query = fixed_query(&raw.query, at, p);
    let twice = sent_twice(
        &arguments.maps,
        &arguments.keys,
        &fixed_headers,
        &fixed_query,
        p,
    );
    let headers = check_soap_headers(raw, soap, &arguments.maps, &arguments.keys, at, p);
    let input = described(&identity, &arguments.specs, &arguments.keys, true, p);
    let results = check_results(raw, soap, at, p);
    let output = match results.specs.is_empty() {
        true => Some(None),
        false => described(
            &format!("{identity}/result"),
            &results.specs,
            &results.keys,
            false,
            p,
        )
        .map(Some),
    };
    if !arguments.clean
        || !results.clean
        || encoding.is_none()
        || twice
        || !headers
        || !prefixes_sound
    {
        return None;
    }
    let (number, status, method, path, input, output) =
        (number?, status?, method?, path?, input?, output?);
    let soap = soap.then(|| soap_operation(raw, protocol, &arguments, &results, prefixes));
    let maps: Vec<ArgumentMap> = arguments.maps.into_iter().flatten().collect();
    let results = results.maps;
    Some(ConfiguredVersion {
        version: number,
        status,
        def: Ref::new(tool_def(tool, raw, number, input, output)),
        operation: Arc::new(Operation {
            tool: tool.to_owned(),
            method,
            path,
            body_containers: body_container_pairs(
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

/// A version's number, status and description, each checked.
fn version_head(
    raw: &VersionSection,
    at: &ConfigLocation,
    p: &mut Problems<'_>,
) -> (Option<u32>, Option<Status>) {
    let number = match u32::try_from(raw.version) {
        Ok(n) if n >= 1 => Some(n),
        _ => {
            p.at(
                at.field_of("version"),
                "versions are whole numbers from 1 up",
            );
            None
        }
    };
    let status = Status::from_name(&raw.status);
    if status.is_none() {
        p.at(
            at.field_of("status"),
            format!(
                "unknown status `{}`; use draft, proposed, published or deprecated",
                &raw.status
            ),
        );
    }
    if raw.description.trim().is_empty() {
        p.at(
            at.field_of("description"),
            "a tool needs a description: it is what the model reads to choose it",
        );
    }
    (number, status)
}

/// A version's arguments as checked: for each field that checked, its
/// spec, where its value goes (`None` for a container, which declares an
/// object or array and maps no value of its own), and its place.
struct Arguments {
    specs: Vec<FieldSpec>,
    maps: Vec<Option<ArgumentMap>>,
    keys: Vec<ConfigLocation>,
    /// Whether no argument had a problem.
    clean: bool,
}

/// The arguments of a version, each checked and placed in the request;
/// every path variable claimed by one.
fn check_arguments(
    raw: &VersionSection,
    (soap, prefixes): (bool, &[(String, String)]),
    method: Option<Method>,
    path: Option<&[PathPart]>,
    at: &ConfigLocation,
    p: &mut Problems<'_>,
) -> Arguments {
    let variables: Vec<&str> = path
        .iter()
        .flat_map(|parts| parts.iter())
        .filter_map(|part| match part {
            PathPart::Variable(name) => Some(name.as_str()),
            PathPart::Literal(_) => None,
        })
        .collect();
    let method_has_body = method.is_some_and(Method::has_body);
    let placing = Placing {
        soap,
        method_has_body,
        // A DELETE sends a body only when an argument says `in = "body"`
        // (OpenAPI allows one; many APIs take their selection there).
        method_allows_body: method_has_body || method == Some(Method::Delete),
        variables: &variables,
    };
    let containers = containers(&raw.argument);
    let mut out = Arguments {
        specs: Vec::new(),
        maps: Vec::new(),
        keys: Vec::new(),
        clean: true,
    };
    for (k, field) in raw.argument.iter().enumerate() {
        let key = at.field_of("argument").item(k);
        let Some((spec, source)) = field_checked(
            field,
            (soap && !containers[k]).then_some((true, prefixes)),
            &key,
            p,
            &mut out.clean,
        ) else {
            continue;
        };
        let map = if containers[k] {
            out.clean &= declares_only(field, &spec, &key, p);
            None
        } else {
            let (placed, clean) = place_argument(field, &spec, source, &placing, &key, p);
            out.clean &= clean;
            placed
        };
        out.maps.push(map);
        out.keys.push(key);
        out.specs.push(spec);
    }
    claim_variables(raw, &variables, at, p);
    check_collisions(&out.maps, &out.specs, &out.keys, p);
    out
}

/// Every variable of the path template is some argument's `source` in the
/// path.
fn claim_variables(
    raw: &VersionSection,
    variables: &[&str],
    at: &ConfigLocation,
    p: &mut Problems<'_>,
) {
    let claimed: Vec<&str> = raw
        .argument
        .iter()
        .filter(|f| f.location.as_ref().is_none_or(|l| l == "path"))
        .map(|f| f.source.as_ref().unwrap_or(&f.name).as_str())
        .collect();
    for variable in variables {
        if !claimed.contains(variable) {
            p.at(
                at.field_of("path"),
                format!("the path variable `{{{variable}}}` has no argument; add an `[[…argument]]` with `source = \"{variable}\"` and `in = \"path\"`"),
            );
        }
    }
}

/// A version's results as checked: each field's spec and place, and for
/// each that maps a value, where it comes from in the answer and its kind.
struct Results {
    specs: Vec<FieldSpec>,
    keys: Vec<ConfigLocation>,
    maps: Vec<ResultMap>,
    kinds: Vec<FieldKind>,
    /// Whether no result had a problem.
    clean: bool,
}

/// The results of a version, each checked.
fn check_results(
    raw: &VersionSection,
    soap: bool,
    at: &ConfigLocation,
    p: &mut Problems<'_>,
) -> Results {
    let containers = containers(&raw.result);
    let mut out = Results {
        specs: Vec::new(),
        keys: Vec::new(),
        maps: Vec::new(),
        kinds: Vec::new(),
        clean: true,
    };
    for (k, field) in raw.result.iter().enumerate() {
        let key = at.field_of("result").item(k);
        let Some((spec, source)) = field_checked(
            field,
            (soap && !containers[k]).then_some((false, &[][..])),
            &key,
            p,
            &mut out.clean,
        ) else {
            continue;
        };
        if containers[k] && field.location.is_none() && field.explode.is_none() {
            out.clean &= declares_only(field, &spec, &key, p);
        } else if result_maps(field, &spec, &source, &key, p) {
            out.kinds.push(spec.kind);
            out.maps.push(ResultMap {
                exposed: spec.exposed.clone(),
                source,
            });
        } else {
            out.clean = false;
        }
        out.keys.push(key);
        out.specs.push(spec);
    }
    out
}

/// A field checked (and, for a SOAP element, `soap`: whether it is an XML
/// element of the request, else of the answer, and the prefixes its steps
/// may use): its spec and source path unless they do not read; `clean`
/// cleared on any problem.
fn field_checked(
    field: &FieldSection,
    soap: Option<(bool, &[(String, String)])>,
    key: &ConfigLocation,
    p: &mut Problems<'_>,
    clean: &mut bool,
) -> Option<(FieldSpec, FieldPath)> {
    let Some((spec, source, ok)) = check_field(field, key, p) else {
        *clean = false;
        return None;
    };
    *clean &= ok;
    if let Some(soap) = soap
        && !check_soap_field(&spec, &source, soap, key, p)
    {
        *clean = false;
        return None;
    }
    Some((spec, source))
}

/// Whether a result field that is not a container maps a value: it has no
/// request-side key (`in`, `explode`), and its exposed and source paths go
/// through as many arrays.
fn result_maps(
    field: &FieldSection,
    spec: &FieldSpec,
    source: &FieldPath,
    key: &ConfigLocation,
    p: &mut Problems<'_>,
) -> bool {
    if field.location.is_some() {
        p.at(
            key.field_of("in"),
            "a result field comes from the answer's body; remove `in`",
        );
        return false;
    }
    if field.explode.is_some() {
        p.at(
            key.field_of("explode"),
            "`explode` says how a query list is written; a result field has none, remove it",
        );
        return false;
    }
    if source.arrays() != spec.exposed.arrays() {
        p.at(
            key.field_of("source"),
            format!(
                "`{}` goes through {} and its source `{source}` through {}: the paths cannot be matched item to item",
                spec.exposed,
                arrays(spec.exposed.arrays()),
                arrays(source.arrays())
            ),
        );
        return false;
    }
    true
}

/// The schema node the fields describe (`input`: the arguments', else the
/// results'); its problems located at the fields' names.
fn described(
    identity: &str,
    specs: &[FieldSpec],
    keys: &[ConfigLocation],
    input: bool,
    p: &mut Problems<'_>,
) -> Option<Node> {
    match describe(identity, specs, input) {
        Ok(node) => Some(node),
        Err(problems) => {
            for (index, message) in problems {
                let key = &keys[index];
                p.at(key.field_of("name"), message);
            }
            None
        }
    }
}

/// A SOAP version's operation: its request element, namespace, action,
/// and the XML trees of its request and answer.
fn soap_operation(
    raw: &VersionSection,
    protocol: Option<DownstreamProtocol>,
    arguments: &Arguments,
    results: &Results,
    prefixes: Vec<(String, String)>,
) -> SoapOperation {
    SoapOperation {
        version: match protocol {
            Some(DownstreamProtocol::Soap(version)) => version,
            _ => SoapVersion::V1_1,
        },
        element: raw.operation.clone().unwrap_or_default(),
        namespace: raw.namespace.clone(),
        action: raw.soap_action.clone(),
        qualified: raw.qualified != Some(false),
        request: XmlNode::tree(
            arguments
                .maps
                .iter()
                .zip(&arguments.specs)
                .filter_map(|(map, spec)| map.as_ref().map(|map| (map, spec)))
                .filter(|(map, _)| map.location == Location::Body)
                .map(|(map, spec)| (&map.source, Some(spec.kind))),
        ),
        response: XmlNode::tree(
            results
                .maps
                .iter()
                .zip(&results.kinds)
                .map(|(result, kind)| (&result.source, Some(*kind))),
        ),
        headers: soap_headers(
            raw,
            raw.namespace.as_deref(),
            arguments
                .maps
                .iter()
                .zip(&arguments.specs)
                .filter_map(|(map, spec)| map.as_ref().map(|map| (map, spec.kind))),
        ),
        prefixes,
    }
}

/// The tool a version describes to clients.
fn tool_def(
    tool: &str,
    raw: &VersionSection,
    number: u32,
    input: Node,
    output: Option<Node>,
) -> ToolDef {
    ToolDef {
        name: Text::from(tool.to_owned()),
        title: raw.title.as_ref().map(|t| Text::from(t.clone())),
        description: Text::from(raw.description.clone()),
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
    }
}
