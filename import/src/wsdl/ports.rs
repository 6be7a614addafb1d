//! The SOAP ports of a WSDL document: each one's binding, SOAP version
//! and address, and the one an import reads.

use super::{SOAP11_BINDING, SOAP12_BINDING, WSDL, child, children, local};
use crate::{ImportError, ImportErrorKind, ImportOptions};
use toolschema_configured::SoapVersion;
use toolschema_gateway::xml::Element;

/// A SOAP port of the service: its binding, version and address.
pub(super) struct Port<'a> {
    /// The binding: its operations and their SOAP details.
    pub(super) binding: &'a Element<'a>,
    /// The SOAP version the binding says.
    pub(super) version: SoapVersion,
    /// The port's address, if it has one.
    pub(super) address: Option<&'a str>,
}

/// The SOAP ports of the document's services; without a service, its SOAP
/// bindings, without an address.
pub(super) fn ports<'a>(root: &'a Element<'a>) -> Vec<Port<'a>> {
    let mut out = service_ports(root);
    // A document of bindings without a service (its address is the
    // device's or the deployment's): each SOAP binding, without an address.
    if out.is_empty() {
        for binding in children(root, WSDL, "binding") {
            let Some(version) = soap_version(binding) else {
                continue;
            };
            out.push(Port {
                binding,
                version,
                address: None,
            });
        }
    }
    out
}

/// The SOAP version a binding says (`soap:binding`, `soap12:binding`),
/// if it is a SOAP binding.
fn soap_version(binding: &Element<'_>) -> Option<SoapVersion> {
    if child(binding, SOAP11_BINDING, "binding").is_some() {
        Some(SoapVersion::V1_1)
    } else if child(binding, SOAP12_BINDING, "binding").is_some() {
        Some(SoapVersion::V1_2)
    } else {
        None
    }
}

/// The SOAP ports of the document's services, in order.
fn service_ports<'a>(root: &'a Element<'a>) -> Vec<Port<'a>> {
    let mut out = Vec::new();
    for service in children(root, WSDL, "service") {
        for port in children(service, WSDL, "port") {
            let binding_name = port.attribute("binding").map(local).unwrap_or_default();
            let Some(binding) =
                children(root, WSDL, "binding").find(|b| b.attribute("name") == Some(binding_name))
            else {
                continue;
            };
            let Some(version) = soap_version(binding) else {
                continue;
            };
            let address = port
                .children
                .iter()
                .find(|c| &*c.name == "address")
                .and_then(|a| a.attribute("location"));
            out.push(Port {
                binding,
                version,
                address,
            });
        }
    }
    out
}

/// The port an import reads: the first of the SOAP version asked for,
/// else the first SOAP 1.1 one, else the first.
pub(super) fn chosen<'p, 'a>(
    ports: &'p [Port<'a>],
    options: &ImportOptions,
) -> Result<&'p Port<'a>, ImportError> {
    match options.soap_version {
        Some(version) => ports.iter().find(|p| p.version == version),
        None => ports
            .iter()
            .find(|p| p.version == SoapVersion::V1_1)
            .or(ports.first()),
    }
    .ok_or_else(|| {
        ImportError::new(
            ImportErrorKind::NothingToCall,
            match options.soap_version {
                Some(_) => {
                    "the document's services have no port of the SOAP version asked for".to_owned()
                }
                None => "the document's services have no SOAP port".to_owned(),
            },
        )
    })
}

/// Where the service is: `options.base_url`, else the port's address,
/// which must then be an absolute URL.
pub(super) fn base_url(port: &Port<'_>, options: &ImportOptions) -> Result<String, ImportError> {
    match (&options.base_url, port.address) {
        (Some(url), _) => Ok(url.clone()),
        (None, Some(address))
            if address.starts_with("http://") || address.starts_with("https://") =>
        {
            Ok(address.to_owned())
        }
        (None, address) => Err(ImportError::new(
            ImportErrorKind::NoBaseUrl,
            format!(
                "the port's address (`{}`) is not an absolute URL; say where the service is with --base-url",
                address.unwrap_or("")
            ),
        )),
    }
}
