//! The namespace prefixes of a SOAP version (`prefixes = { n1 = "…" }`):
//! what a step of a request's source path may start with (`Ids.n1:long[]`)
//! for an element of another namespace than the request element's.

use crate::errors::Problems;
use crate::location::ConfigLocation;
use crate::sections::VersionSection;
use toolschema_configured::is_xml_name;

/// The prefixes the gateway writes itself: the envelope's, the request
/// element's and a header block's.
const WRITTEN: [&str; 3] = ["soap", "m", "h"];

/// The version's sound prefixes, each with its namespace, in order by
/// prefix; each unsound one (or any, for a REST version) a problem.
pub(super) fn check_prefixes(
    raw: &VersionSection,
    soap: bool,
    at: &ConfigLocation,
    p: &mut Problems<'_>,
) -> (Vec<(String, String)>, bool) {
    let mut ok = true;
    let mut out = Vec::new();
    for (prefix, namespace) in &raw.prefixes {
        let key = at.field_of("prefixes").field_of(prefix);
        let name = prefix.as_str();
        let problem = if !soap {
            Some("`prefixes` name the namespaces of a SOAP request's elements, and this tool's downstream is REST; remove them".to_owned())
        } else if !is_xml_name(name) {
            Some(format!(
                "`{name}` is not a namespace prefix (a name of letters, digits, `_`, `-` and `.`, starting with a letter or `_`)"
            ))
        } else if WRITTEN.contains(&name) || name.to_ascii_lowercase().starts_with("xml") {
            Some(format!(
                "the gateway writes the prefix `{name}` itself (`soap`, `m`, `h`, and none may start with `xml`); choose another"
            ))
        } else if namespace.trim().is_empty() {
            Some(format!(
                "`{name}` is bound to an empty namespace; name the namespace (`{name} = \"urn:…\"`), or write the steps without a prefix"
            ))
        } else {
            None
        };
        match problem {
            Some(problem) => {
                p.at(key, problem);
                ok = false;
            }
            None => out.push((name.to_owned(), namespace.clone())),
        }
    }
    (out, ok)
}

/// Why a step of a SOAP source path cannot be written (`None` when it
/// can): an element name, or `prefix:name` with a prefix of `prefixes` in
/// a request (an answer's elements are read by local names).
pub(super) fn step_problem(
    name: &str,
    prefixes: &[(String, String)],
    argument: bool,
) -> Option<String> {
    let Some((prefix, local)) = name.split_once(':') else {
        return (!is_xml_name(name)).then(|| {
            format!(
                "`{name}` is not an element name; write local names (the namespace is the operation's), `@name` for an attribute"
            )
        });
    };
    if !is_xml_name(prefix) || !is_xml_name(local) {
        Some(format!(
            "`{name}` is not an element name; write `local`, or `prefix:local` with a prefix of the version's `prefixes`"
        ))
    } else if !argument {
        Some(format!(
            "`{name}`: an answer's elements are read by their local names; write `{local}`"
        ))
    } else if !prefixes.iter().any(|(declared, _)| declared == prefix) {
        Some(format!(
            "the prefix `{prefix}` of `{name}` is not declared; add it to the version's `prefixes` (`{prefix} = \"urn:…\"`)"
        ))
    } else {
        None
    }
}
