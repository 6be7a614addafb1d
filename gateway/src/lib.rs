//! Configured REST and SOAP tools' data plane (DESIGN §9): the HTTP
//! transport that calls their downstreams, the credentials it sends (read
//! through a [`SecretSource`] the application provides) and keeps out of
//! what reaches a client, and, behind the `import` feature, the importers
//! that write configured tools from OpenAPI, Swagger 2.0 and WSDL
//! documents.
//!
//! The catalog (`toolschema-catalog`) holds the configuration model and
//! its checks; a server hands this crate's `HttpTransport` (the
//! `transport` feature, on by default: reqwest and its TLS) to the
//! snapshot build:
//!
//! ```
//! use std::sync::Arc;
//! use toolschema_catalog::Catalog;
//! use toolschema_gateway::{Environment, HttpTransport};
//! use toolschema_runtime::call::Registry;
//!
//! let transport = HttpTransport::new(Arc::new(Environment));
//! let catalog = Catalog::open_with(Registry::new(), Arc::new(transport));
//! # drop(catalog);
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]
#[cfg(feature = "transport")]
mod answer;
pub mod encode;
#[cfg(feature = "transport")]
mod redact;
#[cfg(feature = "transport")]
mod sigv4;
pub mod soap;
#[cfg(feature = "transport")]
mod transport;
pub mod xml;

#[cfg(feature = "transport")]
pub use transport::HttpTransport;
// Where secrets are read is the configuration's business (the serving
// library reads the introspection client's from the same source).
pub use toolschema_config::{Environment, SecretSource};
