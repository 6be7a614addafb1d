//! MCP over stdio: one JSON-RPC message per line in, replies and
//! notifications one per line out, for one client application.

use std::sync::{Arc, Mutex as StdMutex};

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Mutex, mpsc};
use toolschema_catalog::{ClientView, Snapshot};

use crate::error::ServeError;
use crate::inflight::Inflight;
use crate::mcp::{
    Answer, Backchannel, HANDSHAKE_VERSIONS, Headers, Incoming, LIST_CHANGED, Outgoing, Pending,
    Protocol, Reply, Request, STATELESS_VERSION, Session, Subscription, code, error,
};
use crate::notices::Notice;
use crate::service::Service;

/// Serves MCP on `input` and `output` until `input` ends.
pub(crate) async fn serve(
    service: Arc<Service>,
    input: impl AsyncRead + Unpin,
    output: impl AsyncWrite + Unpin + Send + 'static,
) -> Result<(), ServeError> {
    let client = client_of(&service, service.options.stdio_client.clone())?;
    serve_client(service, client, input, output).await
}

/// The client application a connection serves: `client` if the catalog
/// has it, else the keyless one.
fn client_of(service: &Service, client: Option<String>) -> Result<String, ServeError> {
    let snapshot = service.catalog.snapshot();
    let client = match client {
        Some(id) => id,
        None => match snapshot.keyless_client() {
            Some(view) => view.id().to_owned(),
            None => return Err(ServeError::NoStdioClient),
        },
    };
    if snapshot.client(&client).is_none() {
        return Err(ServeError::UnknownClient { id: client });
    }
    Ok(client)
}

/// Serves MCP on `input` and `output` as `client`, a client the catalog
/// has.
async fn serve_client(
    service: Arc<Service>,
    client: String,
    input: impl AsyncRead + Unpin,
    output: impl AsyncWrite + Unpin + Send + 'static,
) -> Result<(), ServeError> {
    tracing::info!(client = %client, "serving MCP over stdio");
    let wire = Arc::new(Wire {
        output: Mutex::new(output),
        service: service.clone(),
    });
    // The version agreed at `initialize`, for the handshake era's notices.
    let agreed: Arc<StdMutex<&'static str>> = Arc::new(StdMutex::new(HANDSHAKE_VERSIONS[1]));
    // Open `subscriptions/listen` streams (2026-07-28); without any, the
    // handshake era's plain notification is sent.
    let subscriptions: Arc<StdMutex<Vec<Subscription>>> = Arc::default();

    let mut listener = service.notices.listen(&client, None);
    let (out, open, notice_agreed) = (wire.clone(), subscriptions.clone(), agreed.clone());
    let notices = tokio::spawn(async move {
        while listener.next().await == Notice::ListChanged {
            let messages: Vec<(&'static str, String)> = match open.lock() {
                Ok(open) if !open.is_empty() => open
                    .iter()
                    .filter_map(Subscription::tools_changed)
                    .map(|message| (STATELESS_VERSION, message))
                    .collect(),
                _ => {
                    let version = notice_agreed.lock().map_or(HANDSHAKE_VERSIONS[1], |v| *v);
                    vec![(version, LIST_CHANGED.to_owned())]
                }
            };
            for (version, message) in messages {
                if out
                    .message(&Outgoing::message(version, message))
                    .await
                    .is_err()
                {
                    return;
                }
            }
        }
    });

    // Notifications of running calls, and their replies, in the order they
    // are made: one writer keeps a call's notifications before its reply.
    let (outbox, mut outgoing) = mpsc::unbounded_channel::<Outgoing>();
    let out = wire.clone();
    let writer = tokio::spawn(async move {
        while let Some(message) = outgoing.recv().await {
            if out.message(&message).await.is_err() {
                return;
            }
        }
    });
    let connection = Connection {
        service: service.clone(),
        client: client.clone(),
        subscriptions,
        inflight: Arc::default(),
        pending: Arc::default(),
        outbox,
    };

    let mut session = Session::default();
    let mut input = BufReader::new(input);
    let mut line = Vec::new();
    let result = loop {
        line.clear();
        // A line is read up to the largest message taken; the rest of a
        // longer one is skipped unkept, and the line refused.
        let limit = (MAX_LINE + 1) as u64;
        match (&mut input).take(limit).read_until(b'\n', &mut line).await {
            Ok(0) => break Ok(()),
            Ok(_) => {}
            Err(e) => break Err(ServeError::Io(e)),
        }
        if line.len() > MAX_LINE && line.last() != Some(&b'\n') {
            if let Err(e) = skip_line(&mut input).await {
                break Err(ServeError::Io(e));
            }
            let version = Protocol::version_of(None, &session, None);
            let reply = too_long();
            if wire
                .send((version, None), &reply, reply.parts())
                .await
                .is_err()
            {
                break Ok(());
            }
            continue;
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let Some((reply, version, method)) = connection.answer(&mut session, &line).await else {
            continue;
        };
        if let (Some(version), Ok(mut agreed)) = (session.protocol(), agreed.lock()) {
            *agreed = version;
        }
        let answers = (version, method.as_deref());
        if wire.send(answers, &reply, reply.parts()).await.is_err() {
            break Ok(());
        }
    };
    notices.abort();
    // Calls still running are told the client is gone.
    connection.inflight.cancel_all();
    drop(connection);
    // Calls still running end with the connection; what they sent is
    // written first.
    let _ = writer.await;
    result
}

/// The longest line read as a message: what an HTTP request's body may
/// be (the 1 MiB argument limit and the envelope).
const MAX_LINE: usize = (1 << 20) + (64 << 10);

/// Reads on to the end of the line (or of the input), keeping nothing.
async fn skip_line<R: AsyncRead + Unpin>(input: &mut BufReader<R>) -> std::io::Result<()> {
    loop {
        let buffer = input.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(());
        }
        match buffer.iter().position(|b| *b == b'\n') {
            Some(end) => {
                input.consume(end + 1);
                return Ok(());
            }
            None => {
                let all = buffer.len();
                input.consume(all);
            }
        }
    }
}

/// The answer to a line longer than [`MAX_LINE`].
fn too_long() -> Reply {
    Reply::from(error(
        None,
        code::INVALID_REQUEST,
        &format!("Invalid request: the message is longer than {MAX_LINE} bytes; send less"),
        None,
    ))
}

/// One stdio connection: its client, its open subscriptions and running
/// calls, and the writer their messages go through.
struct Connection {
    service: Arc<Service>,
    client: String,
    subscriptions: Arc<StdMutex<Vec<Subscription>>>,
    inflight: Arc<Inflight>,
    /// The server's questions waiting for this client's answers.
    pending: Arc<Pending>,
    outbox: mpsc::UnboundedSender<Outgoing>,
}

impl Connection {
    /// The reply to one line, with the version and method it belongs to
    /// (for the trace); `None` when the line needs none now (a
    /// notification, or a call that answers when it is done).
    async fn answer(
        &self,
        session: &mut Session,
        line: &[u8],
    ) -> Option<(Reply, &'static str, Option<String>)> {
        // A call's arguments are read into the tool's type as the line is
        // read, in the snapshot it then runs in; a large line's, off the
        // async workers, when the call runs.
        let current = self.service.catalog.snapshot();
        let incoming = match current.client(&self.client) {
            Some(view) if line.len() <= crate::offload::LARGE_REQUEST => {
                Incoming::parse_for(line, &current, view)
            }
            _ => Incoming::parse(line),
        };
        let request = match incoming {
            Incoming::Request(request) => request,
            Incoming::Notification(notification) => {
                if let Some(id) = notification.cancelled_request() {
                    self.inflight.cancel(&self.client, &id);
                }
                return None;
            }
            Incoming::Response(response) => {
                self.pending.answer(&self.client, response);
                return None;
            }
            Incoming::Malformed(reply) => {
                return Some((reply, Protocol::version_of(None, session, None), None));
            }
        };
        let version = Protocol::version_of(Some(&request), session, None);
        let method = Some(request.method().to_owned());
        // A cursor is read in the snapshot that made it, even after a reload.
        let catalog = &self.service.catalog;
        let snapshot = request
            .cursor_fingerprint()
            .and_then(|fingerprint| catalog.snapshot_with_list(&self.client, fingerprint))
            .unwrap_or(current);
        let Some(view) = snapshot.client(&self.client).cloned() else {
            let reply = Reply::from(error(
                Some(request.id()),
                code::INVALID_REQUEST,
                "this client application no longer exists in the configuration",
                None,
            ));
            return Some((reply, version, method));
        };
        if request.method() == "tools/call" {
            self.spawn_call(
                snapshot,
                view,
                session.clone(),
                request,
                version,
                line.len(),
            );
            return None;
        }
        let answer = self
            .service
            .protocol
            .handle(
                &snapshot,
                &view,
                session,
                request,
                &Headers::NONE,
                &Backchannel::none(),
            )
            .await;
        let reply = match answer {
            Answer::Reply(reply) => reply,
            Answer::Stream(subscription) => {
                let ack = subscription.acknowledgement();
                if let Ok(mut open) = self.subscriptions.lock() {
                    open.push(subscription);
                }
                Reply::from(ack)
            }
        };
        Some((reply, version, method))
    }

    /// Runs a tool call on its own, so that the connection reads on (a
    /// cancellation, the next request) meanwhile; its notifications and
    /// then its reply go through the writer.
    fn spawn_call(
        &self,
        snapshot: Arc<Snapshot>,
        view: Arc<ClientView>,
        mut session: Session,
        request: Request,
        version: &'static str,
        size: usize,
    ) {
        let running = self.inflight.start(&self.client, request.id().as_json());
        let back = self
            .service
            .backchannel_for(size)
            .with_outbox(self.outbox.clone(), version)
            .with_pending(self.pending.clone())
            .with_cancellation(running.cancellation().clone());
        let outbox = self.outbox.clone();
        let service = self.service.clone();
        tokio::spawn(async move {
            let _running = running;
            let answer = service
                .protocol
                .handle(
                    &snapshot,
                    &view,
                    &mut session,
                    request,
                    &Headers::NONE,
                    &back,
                )
                .await;
            if let Answer::Reply(reply) = answer {
                let _ = outbox.send(Outgoing::reply(version, "tools/call", reply.to_string()));
            }
        });
    }
}

/// Where a connection's messages leave, one a line: the one place stdio
/// writes, each message recorded in the service's trace as it goes.
struct Wire<W> {
    output: Mutex<W>,
    service: Arc<Service>,
}

impl<W: AsyncWrite + Unpin> Wire<W> {
    /// Writes a message of `version` in answer to `answers` (none for a
    /// notification, or a line that could not be read), from its `parts`
    /// without joining them first.
    async fn send<'a>(
        &self,
        (version, answers): (&str, Option<&str>),
        message: impl core::fmt::Display,
        parts: impl IntoIterator<Item = &'a str>,
    ) -> std::io::Result<()> {
        // Recorded with the writer held: the trace's order is the wire's.
        let mut output = self.output.lock().await;
        self.service.trace.record(version, answers, message);
        for part in parts {
            output.write_all(part.as_bytes()).await?;
        }
        output.write_all(b"\n").await?;
        output.flush().await
    }

    /// Writes a message made elsewhere: a call's notification or reply, a
    /// change notice.
    async fn message(&self, message: &Outgoing) -> std::io::Result<()> {
        let text = message.text.as_str();
        self.send((message.version, message.answers), text, [text])
            .await
    }
}

impl Service {
    /// Serves MCP over stdin and stdout until stdin closes, as
    /// [`Server::serve_stdio`](crate::Server::serve_stdio) does, from a
    /// service built already (say, one whose catalog a store keeps current).
    pub async fn serve_stdio(self: &Arc<Self>) -> Result<(), crate::ServeError> {
        serve(self.clone(), tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// A connection to this service in process: MCP over an in-memory
    /// pipe, one JSON-RPC message per line each way, as stdio carries it,
    /// from the client application `client` (else the keyless one). The
    /// service is served on a task of the current Tokio runtime until the
    /// returned end is dropped. `toolschema-testing`'s `TestClient` talks
    /// over one.
    ///
    /// # Errors
    ///
    /// [`ServeError::UnknownClient`] when the catalog has no such client,
    /// [`ServeError::NoStdioClient`] when none is named and there is no
    /// keyless one: refused before anything is served.
    ///
    /// # Panics
    ///
    /// Outside a Tokio runtime.
    ///
    /// ```
    /// use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    /// use toolschema_serve::Server;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let service = Server::new("empty", "1").build().unwrap();
    /// let (reader, mut writer) = tokio::io::split(service.connect(None).unwrap());
    /// writer.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n").await.unwrap();
    /// let line = BufReader::new(reader).lines().next_line().await.unwrap().unwrap();
    /// assert_eq!(line, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    /// # });
    /// ```
    pub fn connect(
        self: &Arc<Self>,
        client: Option<&str>,
    ) -> Result<tokio::io::DuplexStream, crate::ServeError> {
        let client = client_of(self, client.map(str::to_owned))?;
        let (ours, theirs) = tokio::io::duplex(1 << 20);
        let (input, output) = tokio::io::split(theirs);
        let service = self.clone();
        tokio::spawn(async move {
            if let Err(error) = serve_client(service, client, input, output).await {
                tracing::warn!(%error, "an in-process connection ended");
            }
        });
        Ok(ours)
    }
}
