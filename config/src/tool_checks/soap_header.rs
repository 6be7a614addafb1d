//! The blocks of a SOAP request's `Header`: those a version declares
//! (`[[gateway_tool.version.soap_header]]`, for a namespace of their own or
//! a credential read from a secret), and those its arguments write (`in =
//! "soap_header"`), checked together and built into the operation.

use crate::location::ConfigLocation;
use std::collections::HashMap;

use super::is_env_name;
use crate::errors::Problems;
use crate::sections::VersionSection;
use toolschema_configured::{
    ArgumentMap, FieldKind, FieldPath, Location, SoapHeader, XmlNode, is_xml_name,
};

/// Whether the version's declared header blocks are sound, and the
/// arguments written into them: each block an element name, declared
/// once, filled by a secret or by arguments (never both); and only a SOAP
/// version has any.
pub(super) fn check_soap_headers(
    raw: &VersionSection,
    soap: bool,
    maps: &[Option<ArgumentMap>],
    keys: &[ConfigLocation],
    at: &ConfigLocation,
    p: &mut Problems<'_>,
) -> bool {
    let mut ok = true;
    // The first step of each argument written into a header block.
    let filled: Vec<(&ArgumentMap, &ConfigLocation)> = maps
        .iter()
        .zip(keys)
        .filter_map(|(map, key)| map.as_ref().map(|map| (map, key)))
        .filter(|(map, _)| map.location == Location::SoapHeader)
        .collect();
    let mut declared: HashMap<&str, usize> = HashMap::new();
    for (k, block) in raw.soap_header.iter().enumerate() {
        let key = at.field_of("soap_header").item(k);
        let element = block.element.as_str();
        if !soap {
            p.at(
                key,
                "`soap_header` is for a SOAP downstream, and this tool's downstream is REST; send fixed HTTP headers with `headers`, credentials with the downstream's `auth`",
            );
            ok = false;
            continue;
        }
        if !is_xml_name(element) {
            p.at(
                key.field_of("element"),
                format!(
                    "`{element}` is not an element name; write the local name, without a prefix (its namespace goes in `namespace`)"
                ),
            );
            ok = false;
        }
        if let Some(&first) = declared.get(element) {
            p.at(
                key.field_of("element"),
                format!(
                    "the header block `{element}` is declared twice (here and in `soap_header[{first}]`); keep one"
                ),
            );
            ok = false;
            continue;
        }
        declared.insert(element, k);
        if let Some(namespace) = &block.namespace
            && namespace.trim().is_empty()
        {
            p.at(
                key.field_of("namespace"),
                "an empty namespace; remove `namespace` for the operation's",
            );
            ok = false;
        }
        let inside = filled
            .iter()
            .filter(|(map, _)| *map.source.steps()[0].name == *element);
        match &block.secret {
            Some(secret) if !is_env_name(secret) => {
                p.at(
                    key.field_of("secret"),
                    format!(
                        "`{}` is not a secret's name; name the variable that holds the credential (`ADS_DEVELOPER_TOKEN`), never the credential",
                        &secret
                    ),
                );
                ok = false;
            }
            Some(secret) => {
                for (map, argument) in inside {
                    p.at(
                        argument.field_of("source"),
                        format!(
                            "`{}` writes in the header block `{element}`, whose value is the secret `{}`: a credential is never a client's to send; remove the argument, or the block's `secret`",
                            map.exposed,
                            &secret
                        ),
                    );
                    ok = false;
                }
            }
            None if inside.count() == 0 => {
                p.at(
                    key,
                    format!(
                        "the header block `{element}` has no `secret`, and no argument writes in it (`in = \"soap_header\"`, `source = \"{element}…\"`); add `secret` for a credential, or remove the block"
                    ),
                );
                ok = false;
            }
            None => {}
        }
    }
    ok
}

/// The header blocks of a checked SOAP version: those declared, in order,
/// then those only arguments write, in the order of their arguments; each
/// with what its arguments write inside it, and its namespace (the
/// block's, else the operation's `namespace`).
pub(super) fn soap_headers<'a>(
    raw: &VersionSection,
    namespace: Option<&str>,
    arguments: impl Iterator<Item = (&'a ArgumentMap, FieldKind)>,
) -> Vec<SoapHeader> {
    let sources: Vec<(&FieldPath, Option<FieldKind>)> = arguments
        .filter(|(map, _)| map.location == Location::SoapHeader)
        .map(|(map, kind)| (&map.source, Some(kind)))
        .collect();
    let mut written = XmlNode::tree(sources.into_iter());
    let mut out: Vec<SoapHeader> = raw
        .soap_header
        .iter()
        .map(|block| {
            let name = &block.element;
            let element = match written.iter().position(|node| node.name == *name) {
                Some(at) => written.remove(at),
                // A credential is text.
                None => XmlNode {
                    name: name.clone(),
                    repeated: false,
                    kind: Some(FieldKind::String),
                    children: Vec::new(),
                },
            };
            SoapHeader {
                element,
                namespace: block.namespace.as_deref().or(namespace).map(str::to_owned),
                secret: block.secret.clone(),
            }
        })
        .collect();
    out.extend(written.into_iter().map(|element| SoapHeader {
        element,
        namespace: namespace.map(str::to_owned),
        secret: None,
    }));
    out
}
