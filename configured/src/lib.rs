//! Tools from configuration (DESIGN §9): an operator puts an operation of a
//! downstream REST or SOAP API in front of AI clients, without writing
//! Rust.
//!
//! A `[[gateway_tool]]` of the catalog configuration names a
//! `[[downstream]]` and has versions, with the same statuses and selection
//! rule as derived tools. Each version says the operation (method, path
//! template) and, field by field, the name a client sees (its exposed
//! path), where the value goes or comes from in the downstream call (its
//! source path, with nesting and `[]` for arrays), and what the schema says
//! of it. For a SOAP downstream the operation is the request element
//! (document/literal) with its namespace and action, and source paths name
//! elements (`policy[]` for a repeated one, `@number` for an attribute).
//! The version is described in the one schema model ([`ToolDef`]
//! with shared parts), so that it is rendered, projected, validated and
//! served exactly as a derived tool; its [`Operation`] stays behind the
//! descriptor and no source path ever reaches a client.

#![cfg_attr(docsrs, feature(doc_cfg))]
mod describe;
mod path;
mod plan;
mod rules;
mod soap;

use std::sync::Arc;
use std::time::Duration;

pub use describe::FieldKind;
pub use path::{Document, FieldPath, Step, WHOLE};
pub use plan::{body_container_pairs, container_pairs, template_problem};
pub use rules::{Status, active_version};
pub use soap::{SoapHeader, SoapOperation, XmlNode};

pub use describe::{FieldProblem, FieldSpec, describe};
pub use path::PathError;
pub use plan::parse_template;

use toolschema_runtime::call::{CallError, Context, DynamicFuture, DynamicTool, ToolError};
use toolschema_runtime::model::{Ref, ToolDef};

/// A downstream API that configured tools call (`[[downstream]]`).
///
/// Made by the configuration's checks (`toolschema-config`), which hold
/// its invariants; one made otherwise is not checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Downstream {
    /// Its id, which configured tools name.
    pub id: String,
    /// The URL operation paths are joined to.
    pub base_url: url::Url,
    /// How long a call may take, whole.
    pub timeout: Duration,
    /// How long connecting may take.
    pub connect_timeout: Duration,
    /// The largest answer read, in bytes.
    pub max_response_bytes: usize,
    /// Headers every call sends.
    pub headers: Vec<(String, String)>,
    /// The credentials every call sends, each in a place of its own.
    pub auth: Vec<Auth>,
    /// What it speaks.
    pub protocol: DownstreamProtocol,
}

/// What a downstream speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DownstreamProtocol {
    /// HTTP with JSON bodies (`protocol = "rest"`, the default).
    Rest,
    /// SOAP over HTTP, document/literal (`protocol = "soap"`).
    Soap(SoapVersion),
}

/// The SOAP version of a downstream (`soap_version`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SoapVersion {
    /// SOAP 1.1: `text/xml`, the action in a `SOAPAction` header.
    V1_1,
    /// SOAP 1.2: `application/soap+xml`, the action a parameter of it.
    V1_2,
}

impl SoapVersion {
    /// The version of a configuration word (`1.1`, `1.2`).
    pub fn from_name(name: &str) -> Option<SoapVersion> {
        match name {
            "1.1" => Some(SoapVersion::V1_1),
            "1.2" => Some(SoapVersion::V1_2),
            _ => None,
        }
    }

    /// The namespace of its envelope.
    pub fn envelope_namespace(self) -> &'static str {
        match self {
            SoapVersion::V1_1 => "http://schemas.xmlsoap.org/soap/envelope/",
            SoapVersion::V1_2 => "http://www.w3.org/2003/05/soap-envelope",
        }
    }
}

impl Downstream {
    /// Its id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The URL operation paths are appended to.
    pub fn base_url(&self) -> &str {
        self.base_url.as_str()
    }

    /// [`base_url`](Self::base_url), parsed.
    pub fn base(&self) -> &url::Url {
        &self.base_url
    }

    /// How long a call may take, from connecting to the last byte.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// How long connecting may take.
    pub fn connect_timeout(&self) -> Duration {
        self.connect_timeout
    }

    /// The largest answer accepted, in bytes.
    pub fn max_response_bytes(&self) -> usize {
        self.max_response_bytes
    }

    /// What it speaks.
    pub fn protocol(&self) -> DownstreamProtocol {
        self.protocol
    }

    /// The headers every call sends.
    pub fn headers(&self) -> &[(String, String)] {
        &self.headers
    }

    /// How the gateway authenticates to it: every credential here is sent
    /// with each call, together (an API may want a key and a client id at
    /// once); none when it sends none.
    pub fn auth(&self) -> &[Auth] {
        &self.auth
    }
}

/// How the gateway authenticates to a downstream. Each secret is named by
/// the environment variable that holds it, read when a call is made; the
/// configuration never holds a secret. (Not `non_exhaustive`: a
/// transport must send every kind.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Auth {
    /// `Authorization: Bearer <$env>`.
    Bearer {
        /// The variable holding the token.
        env: String,
    },
    /// `<header>: <$env>` (an API key header).
    Header {
        /// The header's name.
        header: String,
        /// The variable holding the key.
        env: String,
    },
    /// `?<param>=<$env>` (an API key in the query).
    Query {
        /// The query parameter's name.
        param: String,
        /// The variable holding the key.
        env: String,
    },
    /// `Authorization: Basic` of `<$user_env>:<$password_env>`.
    Basic {
        /// The variable holding the user name.
        user_env: String,
        /// The variable holding the password.
        password_env: String,
    },
    /// AWS Signature Version 4 (`kind = "aws_sigv4"`): each request signed
    /// with the secret access key for the region and the service.
    AwsSigV4 {
        /// The variable holding the access key id.
        access_key_env: String,
        /// The variable holding the secret access key.
        secret_key_env: String,
        /// The variable holding a temporary credential's session token,
        /// sent when it is set.
        session_token_env: Option<String>,
        /// The region the requests are signed for (`us-east-1`).
        region: String,
        /// The service's signing name (`pricing`, `s3`).
        service: String,
    },
}

impl Auth {
    /// Where the credential goes, in words (`the \`Authorization\` header`):
    /// two credentials of one downstream never go to the same place.
    ///
    /// ```
    /// use toolschema_configured::Auth;
    ///
    /// let key = Auth::Query { param: "api_key".into(), env: "SHOP_KEY".into() };
    /// assert_eq!(key.place(), "the query parameter `api_key`");
    /// ```
    pub fn place(&self) -> String {
        match self {
            Auth::Bearer { .. } | Auth::Basic { .. } | Auth::AwsSigV4 { .. } => {
                "the `Authorization` header".to_owned()
            }
            Auth::Header { header, .. } => format!("the `{header}` header"),
            Auth::Query { param, .. } => format!("the query parameter `{param}`"),
        }
    }
}

/// The HTTP method of an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// `GET`.
    Get,
    /// `POST`.
    Post,
    /// `PUT`.
    Put,
    /// `PATCH`.
    Patch,
    /// `DELETE`.
    Delete,
}

impl Method {
    /// The method of a configuration word (`GET`, `post`, …).
    pub fn from_name(name: &str) -> Option<Method> {
        Some(match name.to_ascii_uppercase().as_str() {
            "GET" => Method::Get,
            "POST" => Method::Post,
            "PUT" => Method::Put,
            "PATCH" => Method::Patch,
            "DELETE" => Method::Delete,
            _ => return None,
        })
    }

    /// The method's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
        }
    }

    /// Whether requests of this method carry a JSON body.
    pub fn has_body(self) -> bool {
        matches!(self, Method::Post | Method::Put | Method::Patch)
    }
}

/// How a REST request's body is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    /// JSON (`application/json`), the default.
    #[default]
    Json,
    /// A form (`application/x-www-form-urlencoded`): each argument one
    /// field, a list's values the field repeated.
    Form,
}

/// Where an argument goes in the downstream request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Location {
    /// A variable of the path template (`/pets/{petId}`).
    Path,
    /// A query parameter (repeated for an array).
    Query,
    /// A request header.
    Header,
    /// A place in the JSON body, or in the SOAP request element.
    Body,
    /// A block of a SOAP envelope's `Header` (`in = "soap_header"`): the
    /// source path's first step is the block's element.
    SoapHeader,
}

impl Location {
    /// The location of a configuration word.
    pub fn from_name(name: &str) -> Option<Location> {
        Some(match name {
            "path" => Location::Path,
            "query" => Location::Query,
            "header" => Location::Header,
            "body" => Location::Body,
            "soap_header" => Location::SoapHeader,
            _ => return None,
        })
    }
}

/// One piece of a path template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathPart {
    /// Text written as it is.
    Literal(String),
    /// `{name}`: the value of the argument whose source is `name`.
    Variable(String),
}

/// An argument's way from the client's arguments into the request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentMap {
    /// Where the value is in the client's arguments.
    pub exposed: FieldPath,
    /// Where it goes in the request.
    pub location: Location,
    /// Its name or place there.
    pub source: FieldPath,
    /// A query list sent as one parameter, its values joined by commas
    /// (OpenAPI's `form` style without explode).
    pub joined: bool,
}

/// A result field's way from the downstream's answer into the result.
/// (Whether it must be there is the output schema's to say.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultMap {
    /// Where the value goes in the result.
    pub exposed: FieldPath,
    /// Where it comes from in the answer.
    pub source: FieldPath,
}

/// What calling one version of a configured tool does: the part of the
/// mapping that stays behind the descriptor.
///
/// Made by the configuration's checks (`toolschema-config`), which hold
/// its invariants; one made otherwise is not checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    /// The tool's exposed name.
    pub tool: String,
    /// The HTTP method.
    pub method: Method,
    /// The path template, in parts.
    pub path: Vec<PathPart>,
    /// Where each argument goes.
    pub arguments: Vec<ArgumentMap>,
    /// Where each result comes from.
    pub results: Vec<ResultMap>,
    /// Arrays of objects the body's arguments go through (exposed, source).
    pub body_containers: Vec<(FieldPath, FieldPath)>,
    /// Arrays of objects the results come through (source, exposed).
    pub result_containers: Vec<(FieldPath, FieldPath)>,
    /// How the body is written.
    pub encoding: Encoding,
    /// Headers every call sends, as configured for the version.
    pub fixed_headers: Vec<(String, String)>,
    /// Query parameters every call sends, as configured for the version.
    pub fixed_query: Vec<(String, String)>,
    /// For a SOAP downstream: the request element and how the envelope's
    /// elements are read and written.
    pub soap: Option<SoapOperation>,
}

impl Operation {
    /// The HTTP method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The SOAP operation, for a SOAP downstream.
    pub fn soap(&self) -> Option<&SoapOperation> {
        self.soap.as_ref()
    }

    /// How the body is written.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// The tool's name.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The path template's pieces.
    pub fn path(&self) -> &[PathPart] {
        &self.path
    }

    /// Each argument's way into the request.
    pub fn arguments(&self) -> &[ArgumentMap] {
        &self.arguments
    }

    /// Each result field's way out of the answer.
    pub fn results(&self) -> &[ResultMap] {
        &self.results
    }

    /// Arrays of objects the body's arguments go through (exposed,
    /// source).
    pub fn body_containers(&self) -> &[(FieldPath, FieldPath)] {
        &self.body_containers
    }

    /// Arrays of objects the results come through (source, exposed).
    pub fn result_containers(&self) -> &[(FieldPath, FieldPath)] {
        &self.result_containers
    }

    /// Headers every call sends.
    pub fn fixed_headers(&self) -> &[(String, String)] {
        &self.fixed_headers
    }

    /// Query parameters every call sends.
    pub fn fixed_query(&self) -> &[(String, String)] {
        &self.fixed_query
    }

    /// Whether any result field is mapped (else the answer is passed on as
    /// text).
    pub fn maps_results(&self) -> bool {
        !self.results.is_empty()
    }
}

/// One version of a configured tool: its descriptor and its operation.
///
/// Made by the configuration's checks (`toolschema-config`), which hold
/// its invariants; one made otherwise is not checked.
#[derive(Debug, Clone)]
pub struct ConfiguredVersion {
    /// Its number.
    pub version: u32,
    /// Its status.
    pub status: Status,
    /// Its descriptor, as clients are shown it.
    pub def: Ref<ToolDef>,
    /// What a call does.
    pub operation: Arc<Operation>,
}

impl ConfiguredVersion {
    /// The version number.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// Its status.
    pub fn status(&self) -> Status {
        self.status
    }

    /// The descriptor clients are shown (exposed names only).
    pub fn def(&self) -> &Ref<ToolDef> {
        &self.def
    }

    /// What calling it does.
    pub fn operation(&self) -> &Operation {
        &self.operation
    }

    /// What calling it does, shared (a transport keeps it for its calls).
    pub fn operation_shared(&self) -> &Arc<Operation> {
        &self.operation
    }
}

/// A tool from configuration (`[[gateway_tool]]`), with its versions.
///
/// Made by the configuration's checks (`toolschema-config`), which hold
/// its invariants; one made otherwise is not checked.
#[derive(Debug, Clone)]
pub struct ConfiguredTool {
    /// Its exposed name.
    pub name: String,
    /// The id of the downstream it calls.
    pub downstream: String,
    /// Its versions, in the order configured.
    pub versions: Vec<ConfiguredVersion>,
}

impl ConfiguredTool {
    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The id of the downstream it calls.
    pub fn downstream(&self) -> &str {
        &self.downstream
    }

    /// Its versions, in the order configured.
    pub fn versions(&self) -> &[ConfiguredVersion] {
        &self.versions
    }
}

/// Headers the HTTP client writes for the request's framing and content
/// (and a SOAP call's action).
pub fn is_managed_header(name: &str) -> bool {
    [
        "host",
        "content-length",
        "content-type",
        "transfer-encoding",
        "connection",
        "soapaction",
    ]
    .iter()
    .any(|managed| name.eq_ignore_ascii_case(managed))
}

/// Why a client's argument may not be sent as the header `name` (`in =
/// "header"`), as a clause to follow a colon; `None` when it may. Refused beside the headers the gateway writes itself
/// ([`is_managed_header`]) and the credentials (`Authorization`): the
/// hop-by-hop headers of RFC 9110 §7.6.1 and RFC 9112 (and the
/// `Keep-Alive`, `Proxy-Connection` and `Proxy-*` of older proxies), which
/// govern the connection to the downstream or a proxy on the way rather
/// than the API's request; `Expect`; and the forwarding headers
/// (`Forwarded`, `X-Forwarded-*`), through which a client would tell the
/// downstream it is someone or somewhere else. `Cookie` may be an argument:
/// an API may take its key as a cookie (OpenAPI's `in: cookie`).
///
/// ```
/// use toolschema_configured::header_argument_refusal;
///
/// assert!(header_argument_refusal("X-Request-Id").is_none());
/// assert!(header_argument_refusal("Cookie").is_none());
/// for refused in ["Content-Length", "te", "Upgrade", "Expect", "Proxy-Authorization", "X-Forwarded-Host"] {
///     assert!(header_argument_refusal(refused).is_some(), "{refused}");
/// }
/// ```
pub fn header_argument_refusal(name: &str) -> Option<&'static str> {
    let is = |names: &[&str]| names.iter().any(|n| name.eq_ignore_ascii_case(n));
    let starts = |prefix: &str| {
        name.get(..prefix.len())
            .is_some_and(|start| start.eq_ignore_ascii_case(prefix))
    };
    if is(&["authorization", "proxy-authorization"]) {
        Some("it carries credentials, which the gateway sends from the downstream's `auth`")
    } else if is_managed_header(name) {
        Some("the gateway sets it itself")
    } else if is(&[
        "keep-alive",
        "te",
        "trailer",
        "upgrade",
        "proxy-authenticate",
        "proxy-connection",
        "expect",
    ]) {
        Some("it governs the connection to the downstream, not the API's request")
    } else if is(&["forwarded"]) || starts("x-forwarded-") {
        Some("it tells the downstream where a request comes from, which a client must not choose")
    } else {
        None
    }
}

/// Whether `value` may be sent as a header's value (visible ASCII and
/// tabs).
pub fn is_header_value(value: &str) -> bool {
    value
        .bytes()
        .all(|b| b == b'\t' || (b' '..=b'~').contains(&b))
}

/// Whether `name` is an XML name without a prefix (an ASCII NCName): what
/// a SOAP source path's steps and a request element are named.
pub fn is_xml_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// What calls the downstreams of configured tools: the data plane, handed
/// to the catalog's snapshot build (`Snapshot::build_with`,
/// `Catalog::open_with`), which never builds HTTP clients or reads secrets
/// itself. The `toolschema-gateway` crate's
/// HTTP transport is the one a server uses.
pub trait Transport: Send + Sync + std::fmt::Debug {
    /// The work of `version` of a configured tool: calling `downstream`.
    fn tool(
        &self,
        version: &ConfiguredVersion,
        downstream: &Arc<Downstream>,
    ) -> Arc<dyn DynamicTool>;
}

/// No transport: configured tools are listed, checked and exported, and a
/// call says that this server cannot reach downstreams.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoTransport;

impl Transport for NoTransport {
    fn tool(&self, _: &ConfiguredVersion, _: &Arc<Downstream>) -> Arc<dyn DynamicTool> {
        Arc::new(NoClient)
    }
}

/// The work of a configured tool in a server without transport.
struct NoClient;

impl DynamicTool for NoClient {
    fn call(&self, _: serde_json::Value, _: Context) -> DynamicFuture {
        Box::pin(async {
            Err(CallError::Tool(ToolError::new(
                "This server has no transport for configured tools, so it cannot call the downstream service of this tool.",
            )))
        })
    }
}
