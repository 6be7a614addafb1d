//! The integration suite: derives over the example corpus, projection and
//! profiles, the call path, and the governed catalog.

#![allow(unreachable_pub, missing_docs)]

mod bounded;
mod calls;
mod catalog;
mod catalog_properties;
mod compat;
mod contract;
mod corpus;
mod cost;
mod credentials;
mod defaults;
mod endpoint;
mod export;
mod fast_path;
mod gateway;
mod gateway_shapes;
mod import_contract;
mod import_shapes;
mod import_swagger;
mod import_whole;
mod import_wsdl_files;
mod imported;
mod input_schema;
mod names;
mod patched;
mod profiles;
mod projection;
mod properties;
mod rebuild;
mod reload;
mod revisions;
mod roundtrip;
mod search;
mod snapshots;
mod soap;
mod soap_headers;
mod support;
mod validity;
