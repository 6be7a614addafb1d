//! Calling downstreams over HTTP (feature `gateway`): one pooled client per
//! downstream, its timeouts, a bounded answer, and failures turned into
//! errors a model can act on.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::Value;

use super::SecretSource;
use super::redact::{Secrets, Sent};
use super::sigv4;
use crate::answer::Reader;
use crate::encode::{self, MappingError, form_body};
use crate::soap::{self, Answer, NotSoap, Party};
use crate::xml::XmlError;
use toolschema_configured::{
    ConfiguredVersion, Downstream, Encoding, Method, Operation, SoapOperation, SoapVersion,
    Transport,
};
use toolschema_runtime::call::{
    CallError, Context, DynamicFuture, DynamicTool, Produced, ToolError, ToolResult,
};
use toolschema_runtime::model::Text;

/// The longest excerpt of a downstream's answer put in an error, in
/// characters.
const MAX_EXCERPT: usize = 300;

/// The HTTP transport of configured tools: one pooled client per
/// timeout setting, kept across reloads (with their warm connections),
/// and the downstreams' credentials read from `secrets` at each call.
pub struct HttpTransport {
    clients: Mutex<HashMap<(Duration, Duration), reqwest::Client>>,
    secrets: Arc<dyn SecretSource>,
}

impl std::fmt::Debug for HttpTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpTransport").finish_non_exhaustive()
    }
}

/// The most client settings kept for reuse.
const MAX_CLIENTS: usize = 64;

impl HttpTransport {
    /// A transport reading the downstreams' credentials from environment
    /// variables ([`Environment`](crate::Environment)): what the
    /// `toolschema` binary and `Server` use by default.
    pub fn from_environment() -> HttpTransport {
        HttpTransport::new(Arc::new(crate::Environment))
    }

    /// A transport reading the downstreams' credentials from `secrets`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolschema_gateway::{Environment, HttpTransport};
    ///
    /// let transport = HttpTransport::new(Arc::new(Environment));
    /// # drop(transport);
    /// ```
    pub fn new(secrets: Arc<dyn SecretSource>) -> HttpTransport {
        HttpTransport {
            clients: Mutex::new(HashMap::new()),
            secrets,
        }
    }

    /// A client with these timeouts (connection pool, no redirects: a
    /// redirect could carry credentials elsewhere). Past [`MAX_CLIENTS`]
    /// settings the kept ones start afresh.
    fn client(
        &self,
        timeout: Duration,
        connect_timeout: Duration,
    ) -> Result<reqwest::Client, reqwest::Error> {
        let mut clients = self.clients.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(client) = clients.get(&(timeout, connect_timeout)) {
            return Ok(client.clone());
        }
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(connect_timeout)
            .redirect(reqwest::redirect::Policy::none())
            .build()?;
        if clients.len() >= MAX_CLIENTS {
            clients.clear();
        }
        clients.insert((timeout, connect_timeout), client.clone());
        Ok(client)
    }
}

impl Transport for HttpTransport {
    fn tool(
        &self,
        version: &ConfiguredVersion,
        downstream: &Arc<Downstream>,
    ) -> Arc<dyn DynamicTool> {
        match self.client(downstream.timeout(), downstream.connect_timeout()) {
            Ok(client) => Arc::new(GatewayCall {
                tool: version.def().name.clone(),
                reader: Arc::new(Reader::of(version.operation())),
                operation: version.operation_shared().clone(),
                downstream: downstream.clone(),
                client,
                secrets: self.secrets.clone(),
            }),
            Err(error) => {
                tracing::error!(downstream = %downstream.id(), %error, "cannot build the HTTP client");
                Arc::new(Unavailable)
            }
        }
    }
}

/// A tool whose downstream has no client.
struct Unavailable;

impl DynamicTool for Unavailable {
    fn call(&self, _: Value, _: Context) -> DynamicFuture {
        Box::pin(async {
            Err(CallError::Tool(ToolError::new(
                "The gateway cannot reach this tool's downstream service (its HTTP client could not be set up); the operator must fix the server.",
            )))
        })
    }
}

/// One version of a configured tool, ready to call its downstream.
struct GatewayCall {
    tool: Text,
    operation: Arc<Operation>,
    /// How a REST answer is read: only where the results come from.
    reader: Arc<Reader>,
    downstream: Arc<Downstream>,
    client: reqwest::Client,
    secrets: Arc<dyn SecretSource>,
}

impl DynamicTool for GatewayCall {
    fn call(&self, arguments: Value, _ctx: Context) -> DynamicFuture {
        let call = Call {
            tool: self.tool.clone(),
            operation: self.operation.clone(),
            reader: self.reader.clone(),
            downstream: self.downstream.clone(),
            client: self.client.clone(),
            secrets: self.secrets.clone(),
        };
        Box::pin(async move { call.run(arguments).await })
    }
}

struct Call {
    tool: Text,
    operation: Arc<Operation>,
    reader: Arc<Reader>,
    downstream: Arc<Downstream>,
    client: reqwest::Client,
    secrets: Arc<dyn SecretSource>,
}

/// A sentence from a message: its first letter capitalized, a full stop.
fn capitalized(message: &str) -> String {
    let mut chars = message.chars();
    match chars.next() {
        Some(first) => format!("{}{}.", first.to_uppercase(), chars.as_str()),
        None => String::new(),
    }
}

/// `request` signed with AWS Signature Version 4: its path and query
/// rewritten in the signature's encoding, the signature's headers added.
fn signed(
    request: &mut reqwest::Request,
    credentials: &sigv4::Credentials<'_>,
) -> Result<(), CallError> {
    let headers: Vec<(String, String)> = request
        .headers()
        .iter()
        .filter_map(|(name, value)| {
            Some((name.as_str().to_owned(), value.to_str().ok()?.to_owned()))
        })
        .collect();
    let mut url = request.url().clone();
    let body = request
        .body()
        .and_then(reqwest::Body::as_bytes)
        .unwrap_or_default();
    let signature = sigv4::sign(
        sigv4::Unsigned {
            method: request.method().as_str(),
            url: &mut url,
            headers: &headers,
            body,
        },
        credentials,
        &sigv4::Stamp::of(std::time::SystemTime::now()),
    );
    *request.url_mut() = url;
    for (name, value) in signature.headers {
        let value = reqwest::header::HeaderValue::from_str(&value).map_err(|_| {
            tool_error(
                "The AWS credentials hold characters a header cannot carry; the operator's secrets must be plain text.".to_owned(),
            )
        })?;
        request.headers_mut().insert(name, value);
    }
    Ok(())
}

/// A tool error the model can act on.
fn tool_error(message: String) -> CallError {
    CallError::Tool(ToolError::new(message))
}

impl Call {
    fn defect(&self, message: String) -> CallError {
        tracing::warn!(tool = %self.tool, downstream = %self.downstream.id(), %message, "gateway call failed");
        CallError::Defect {
            tool: self.tool.clone(),
            message,
        }
    }

    async fn run(self, arguments: Value) -> Result<Produced, CallError> {
        let request = encode::request(&self.operation, &arguments)
            .map_err(|error| tool_error(capitalized(&error.to_string())))?;
        let secrets = match Secrets::of(self.downstream.auth(), |name| self.secrets.secret(name)) {
            Ok(secrets) => secrets,
            Err(variable) => {
                return Err(self.defect(format!(
                    "the secret `{variable}` that holds the downstream's credentials is not set (the server's secret source has none of that name; by default an environment variable)"
                )));
            }
        };
        let (secrets, header_secrets) = self.header_secrets(secrets)?;
        let mut url = encode::endpoint(&self.downstream, &request);
        for credential in secrets.sent() {
            if let Sent::Query { param, value } = credential {
                url.query_pairs_mut().append_pair(param, value);
            }
        }
        let method = match request.method {
            Method::Get => reqwest::Method::GET,
            Method::Post => reqwest::Method::POST,
            Method::Put => reqwest::Method::PUT,
            Method::Patch => reqwest::Method::PATCH,
            Method::Delete => reqwest::Method::DELETE,
        };
        let soap = self.operation.soap();
        let mut builder = self.client.request(method, url);
        // The body's type unless the downstream's headers ask for one of
        // their own.
        if !self
            .downstream
            .headers()
            .iter()
            .chain(&request.headers)
            .any(|(name, _)| name.eq_ignore_ascii_case("accept"))
        {
            let accept = match soap.map(|soap| soap.version()) {
                None => "application/json",
                Some(SoapVersion::V1_1) => "text/xml",
                Some(SoapVersion::V1_2) => "application/soap+xml",
            };
            builder = builder.header(reqwest::header::ACCEPT, accept);
        }
        for (name, value) in self.downstream.headers() {
            builder = builder.header(name.as_str(), value.as_str());
        }
        for credential in secrets.sent() {
            builder = match credential {
                Sent::Bearer(token) => builder.bearer_auth(token),
                Sent::Header { name, value } => builder.header(name.as_str(), value.as_str()),
                Sent::Basic { user, password } => builder.basic_auth(user, Some(password)),
                // Signed when the request is whole, below.
                Sent::Query { .. } | Sent::AwsSigV4 { .. } => builder,
            };
        }
        for (name, value) in &request.headers {
            if reqwest::header::HeaderValue::from_str(value).is_err() {
                return Err(tool_error(format!(
                    "The value for the `{name}` header holds characters a header cannot carry (control characters or line breaks); send plain text."
                )));
            }
            builder = builder.header(name.as_str(), value.as_str());
        }
        if let Some(operation) = soap {
            let body = request.body.as_ref().unwrap_or(&Value::Null);
            let envelope = soap::envelope(
                &self.operation,
                operation,
                &arguments,
                body,
                &header_secrets,
            )
            .map_err(|error| tool_error(capitalized(&error.to_string())))?;
            let action = operation.action();
            builder = match operation.version() {
                SoapVersion::V1_1 => builder
                    .header(reqwest::header::CONTENT_TYPE, "text/xml; charset=utf-8")
                    .header("SOAPAction", format!("\"{}\"", action.unwrap_or(""))),
                SoapVersion::V1_2 => builder.header(
                    reqwest::header::CONTENT_TYPE,
                    match action {
                        Some(action) => {
                            format!("application/soap+xml; charset=utf-8; action=\"{action}\"")
                        }
                        None => "application/soap+xml; charset=utf-8".to_owned(),
                    },
                ),
            };
            builder = builder.body(envelope);
        } else if let Some(body) = &request.body {
            let (kind, bytes) = match self.operation.encoding() {
                Encoding::Json => (
                    "application/json",
                    serde_json::to_vec(body).map_err(|error| {
                        self.defect(format!("the request body cannot be written: {error}"))
                    })?,
                ),
                Encoding::Form => (
                    "application/x-www-form-urlencoded",
                    form_body(body).into_bytes(),
                ),
            };
            builder = builder
                .header(reqwest::header::CONTENT_TYPE, kind)
                .body(bytes);
        }
        let mut request = builder
            .build()
            .map_err(|error| self.unreachable(&error, &secrets))?;
        for credential in secrets.sent() {
            if let Sent::AwsSigV4 {
                access_key,
                secret_key,
                session_token,
                region,
                service,
            } = credential
            {
                let credentials = sigv4::Credentials {
                    access_key,
                    secret_key,
                    session_token: session_token.as_deref(),
                    region,
                    service,
                };
                signed(&mut request, &credentials)?;
            }
        }
        let response = self
            .client
            .execute(request)
            .await
            .map_err(|error| self.unreachable(&error, &secrets))?;
        let status = response.status();
        let bytes = self.read_bounded(response, &secrets).await?;
        if let Some(operation) = soap {
            return self.soap_answer(operation, status, &bytes, &secrets);
        }
        if status.is_success() {
            return self.answer(bytes, &secrets);
        }
        Err(self.refusal(status, &bytes, &secrets))
    }

    /// The values of a SOAP operation's credential header blocks, read
    /// from the secret source at each call as `auth`'s are, and `secrets`
    /// hiding them too.
    fn header_secrets(&self, secrets: Secrets) -> Result<(Secrets, Vec<String>), CallError> {
        let Some(soap) = self.operation.soap() else {
            return Ok((secrets, Vec::new()));
        };
        let mut values = Vec::new();
        for name in soap.headers().iter().filter_map(|block| block.secret()) {
            match self.secrets.secret(name) {
                Some(value) if value.chars().all(crate::xml::is_xml_char) => values.push(value),
                Some(_) => {
                    return Err(self.defect(format!(
                        "the secret `{name}` of a SOAP header block holds characters XML cannot carry (control characters)"
                    )));
                }
                None => {
                    return Err(self.defect(format!(
                        "the secret `{name}` that holds a SOAP header block's credential is not set (the server's secret source has none of that name; by default an environment variable)"
                    )));
                }
            }
        }
        Ok((secrets.hiding(&values), values))
    }

    /// The error for an answer that is not a success.
    fn refusal(&self, status: reqwest::StatusCode, bytes: &[u8], secrets: &Secrets) -> CallError {
        let excerpt = excerpt(bytes, secrets);
        let reason = status.canonical_reason().unwrap_or("");
        let code = status.as_u16();
        match code {
            401 | 403 => tool_error(format!(
                "The downstream service refused the gateway's credentials (HTTP {code} {reason}); the arguments cannot fix this, the operator must."
            )),
            429 => tool_error(format!(
                "The downstream service is rate-limiting calls (HTTP 429); the call may be retried later.{}",
                detail(&excerpt)
            )),
            400..=499 if excerpt.is_empty() => tool_error(format!(
                "The downstream service refused the request (HTTP {code} {reason}); check the arguments against the tool's description."
            )),
            400..=499 => tool_error(format!(
                "The downstream service refused the request (HTTP {code} {reason}): {excerpt}. Check the arguments against the tool's description."
            )),
            500..=599 => tool_error(format!(
                "The downstream service failed (HTTP {code} {reason}); the call may be retried."
            )),
            _ => self.defect(format!(
                "the downstream answered HTTP {code}, which the gateway does not follow (redirects are not followed: check the downstream's base URL)"
            )),
        }
    }

    /// The tool's result, or its error, from a SOAP answer: a fault
    /// whatever the status, else the body's element on a success.
    fn soap_answer(
        &self,
        operation: &SoapOperation,
        status: reqwest::StatusCode,
        bytes: &[u8],
        secrets: &Secrets,
    ) -> Result<Produced, CallError> {
        match soap::read(bytes, operation.version()) {
            Ok(Answer::Fault(fault)) => {
                let reason = excerpt(fault.reason.as_bytes(), secrets);
                let reason = match reason.trim_end_matches('.') {
                    "" => "no reason given",
                    reason => reason,
                };
                Err(match fault.party {
                    Party::Sender => tool_error(format!(
                        "The downstream service refused the request: {reason}. Check the arguments against the tool's description."
                    )),
                    Party::Receiver => tool_error(format!(
                        "The downstream service failed: {reason}. The call may be retried."
                    )),
                    Party::Protocol => self.defect(format!(
                        "the downstream answered with a SOAP fault about the exchange itself ({reason}); check the downstream's `soap_version` and the tool's `operation`"
                    )),
                })
            }
            _ if !status.is_success() => Err(self.refusal(status, bytes, secrets)),
            Ok(Answer::Body(element)) => {
                if !self.operation.maps_results() {
                    // An envelope is never shown to a client.
                    return Ok(Produced::Content(ToolResult::text("Done.")));
                }
                let Some(element) = element else {
                    return Err(self.defect(
                        "the downstream's SOAP body is empty, and the tool's result is mapped from its element".to_owned(),
                    ));
                };
                let document = soap::source_document(&element, operation.response());
                self.result(&document, secrets)
            }
            Err(NotSoap::Xml(XmlError::Malformed(detail))) => {
                // The parser's detail may name the downstream's elements:
                // logged, never shown.
                tracing::warn!(tool = %self.tool, downstream = %self.downstream.id(), %detail, "malformed SOAP answer");
                Err(self.defect(
                    "the downstream's answer is refused: it is not well-formed XML".to_owned(),
                ))
            }
            Err(NotSoap::Xml(error)) => {
                Err(self.defect(format!("the downstream's answer is refused: {error}")))
            }
            Err(NotSoap::Envelope(problem)) => Err(self.defect(format!(
                "the downstream's answer is not the SOAP envelope expected: {problem}"
            ))),
        }
    }

    /// The error for a request that got no answer.
    fn unreachable(&self, error: &reqwest::Error, secrets: &Secrets) -> CallError {
        if error.is_timeout() {
            return tool_error(format!(
                "The downstream service did not answer within {} ms; the call may be retried.",
                self.downstream.timeout().as_millis()
            ));
        }
        if error.is_connect() {
            return tool_error(
                "The downstream service could not be reached; the call may be retried.".to_owned(),
            );
        }
        // The error names the URL, which may carry a key in its query.
        let error = secrets.scrub(&error.to_string());
        tracing::warn!(tool = %self.tool, downstream = %self.downstream.id(), %error, "gateway request failed");
        tool_error("The call to the downstream service failed before an answer came; the call may be retried.".to_owned())
    }

    /// The answer's body, refused past the downstream's limit.
    async fn read_bounded(
        &self,
        mut response: reqwest::Response,
        secrets: &Secrets,
    ) -> Result<Vec<u8>, CallError> {
        let limit = self.downstream.max_response_bytes();
        let too_large = || {
            tool_error(format!(
                "The downstream service's answer is larger than the {limit} bytes this gateway accepts; ask for less (a narrower filter or a smaller page)."
            ))
        };
        if response.content_length().is_some_and(|n| n > limit as u64) {
            return Err(too_large());
        }
        // With a length, into one buffer of that size; without, chunk by
        // chunk, then into one buffer of the whole: never a buffer grown to
        // twice the answer's size.
        let length = response.content_length().map(|n| n as usize);
        let mut bytes = Vec::with_capacity(length.unwrap_or(0));
        let mut chunks = Vec::new();
        let mut read = 0;
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    read += chunk.len();
                    if read > limit {
                        return Err(too_large());
                    }
                    match length {
                        Some(_) => bytes.extend_from_slice(&chunk),
                        None => chunks.push(chunk),
                    }
                }
                Ok(None) => break,
                Err(error) => return Err(self.unreachable(&error, secrets)),
            }
        }
        if length.is_none() {
            bytes.reserve_exact(read);
            for chunk in chunks.drain(..) {
                bytes.extend_from_slice(&chunk);
            }
        }
        Ok(bytes)
    }

    /// The tool's result from a successful answer, with no credential in
    /// it. A mapped answer is read only where the results come from, into
    /// the runtime's own tree.
    fn answer(&self, bytes: Vec<u8>, secrets: &Secrets) -> Result<Produced, CallError> {
        if !self.operation.maps_results() {
            let text = String::from_utf8(bytes)
                .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned());
            let text = if text.trim().is_empty() {
                "Done.".to_owned()
            } else if secrets.is_empty() {
                text
            } else {
                secrets.scrub(&text)
            };
            return Ok(Produced::Content(ToolResult::text(text)));
        }
        // No content (a 204, or an empty 200) is an answer without fields:
        // the output schema then says whether the tool promised any.
        let bytes = if bytes.iter().all(u8::is_ascii_whitespace) {
            b"{}".to_vec()
        } else {
            bytes
        };
        let read = self.reader.map(&bytes).map_err(|unplaced| {
            unplaced.map(|field| MappingError::Unmappable {
                exposed: self.operation.results()[field].exposed.to_string(),
            })
        });
        drop(bytes);
        let mut result = read.map_err(|error| match error {
            Some(error) => self.defect(error.to_string()),
            None => self.defect(
                "the downstream's answer is not JSON, and the tool's result is mapped from JSON"
                    .to_owned(),
            ),
        })?;
        secrets.scrub_document(&mut result);
        Ok(Produced::Document(result))
    }

    /// The mapped result of a downstream's `answer`, with no credential in
    /// it.
    fn result(&self, answer: &Value, secrets: &Secrets) -> Result<Produced, CallError> {
        let mut result = encode::result(&self.operation, answer)
            .map_err(|error| self.defect(error.to_string()))?;
        secrets.scrub_value(&mut result);
        Ok(Produced::Structured(result))
    }
}

/// ` Its message: "…".` for a non-empty excerpt.
fn detail(excerpt: &str) -> String {
    if excerpt.is_empty() {
        String::new()
    } else {
        format!(" {excerpt}.")
    }
}

/// What a downstream said about a refusal, short and without secrets: the
/// `message` (or `error`, `detail`, `title`) of a JSON answer, else its
/// text, at most [`MAX_EXCERPT`] characters, every credential and every
/// run of one's characters replaced.
pub(crate) fn excerpt(bytes: &[u8], secrets: &Secrets) -> String {
    let from_json = serde_json::from_slice::<Value>(bytes)
        .ok()
        .and_then(|value| {
            ["message", "error_description", "error", "detail", "title"]
                .iter()
                .find_map(|key| match value.get(key) {
                    Some(Value::String(text)) => Some(text.clone()),
                    Some(Value::Object(inner)) => inner
                        .get("message")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    _ => None,
                })
        });
    let text = from_json.unwrap_or_else(|| String::from_utf8_lossy(bytes).into_owned());
    // Credentials hidden before the spaces are folded: one with a space
    // in it is still found.
    let text = secrets.scrub_excerpt(&text);
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut text = secrets.scrub_excerpt(&text);
    if text.chars().count() > MAX_EXCERPT {
        text = text.chars().take(MAX_EXCERPT).collect::<String>() + "…";
    }
    text
}

#[cfg(test)]
mod tests {
    use super::{Secrets, excerpt};

    #[test]
    fn excerpts_are_short_and_never_hold_a_credential() {
        let auth = toolschema_configured::Auth::Bearer {
            env: "TOKEN".to_owned(),
        };
        let secrets = Secrets::of(core::slice::from_ref(&auth), |_| {
            Some("s3cr3t-token".to_owned())
        })
        .expect("set");
        let json = br#"{"message": "token s3cr3t-token is not valid for pet 7"}"#;
        assert_eq!(
            excerpt(json, &secrets),
            "token [redacted] is not valid for pet 7"
        );
        let long = "x".repeat(1_000);
        let cut = excerpt(long.as_bytes(), &Secrets::default());
        assert_eq!(cut.chars().count(), 301);
        assert!(cut.ends_with('…'));
        assert_eq!(
            excerpt(b"  Not\n found  ", &Secrets::default()),
            "Not found"
        );
    }
}
