//! MCP over stdio: one JSON-RPC message per line in, replies and
//! notifications one per line out, for one client application.

use std::sync::{Arc, Mutex as StdMutex};

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

use crate::error::ServeError;
use crate::mcp::{
    Answer, HANDSHAKE_VERSIONS, Headers, Incoming, LIST_CHANGED, Protocol, Reply,
    STATELESS_VERSION, Session, Subscription, code, error,
};
use crate::notices::Notice;
use crate::service::Service;

/// Serves MCP on `input` and `output` until `input` ends.
pub(crate) async fn serve(
    service: Arc<Service>,
    input: impl AsyncRead + Unpin,
    output: impl AsyncWrite + Unpin + Send + 'static,
) -> Result<(), ServeError> {
    let snapshot = service.catalog.snapshot();
    let client = match service.options.stdio_client.clone() {
        Some(id) => id,
        None if !snapshot.is_governed() => "*".to_owned(),
        None => return Err(ServeError::NoStdioClient),
    };
    if snapshot.client(&client).is_none() {
        return Err(ServeError::UnknownClient { id: client });
    }
    tracing::info!(client = %client, "serving MCP over stdio");
    let output = Arc::new(Mutex::new(output));
    // The version agreed at `initialize`, for the handshake era's notices.
    let agreed: Arc<StdMutex<&'static str>> = Arc::new(StdMutex::new(HANDSHAKE_VERSIONS[1]));
    // Open `subscriptions/listen` streams (2026-07-28); without any, the
    // handshake era's plain notification is sent.
    let subscriptions: Arc<StdMutex<Vec<Subscription>>> = Arc::default();

    let mut listener = service.notices.listen(&client);
    let (out, open, notifier, notice_agreed) = (
        output.clone(),
        subscriptions.clone(),
        service.clone(),
        agreed.clone(),
    );
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
                notifier.trace.record(version, None, &message);
                if write_parts(&out, [message.as_str()]).await.is_err() {
                    return;
                }
            }
        }
    });

    let mut session = Session::default();
    let mut input = BufReader::new(input);
    let mut line = Vec::new();
    let result = loop {
        line.clear();
        match input.read_until(b'\n', &mut line).await {
            Ok(0) => break Ok(()),
            Ok(_) => {}
            Err(e) => break Err(ServeError::Io(e)),
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let (reply, version, method) =
            match answer(&service, &client, &mut session, &subscriptions, &line).await {
                Some(answered) => answered,
                None => continue,
            };
        if let (Some(version), Ok(mut agreed)) = (session.protocol(), agreed.lock()) {
            *agreed = version;
        }
        service.trace.record(version, method.as_deref(), &reply);
        if write_parts(&output, reply.parts()).await.is_err() {
            break Ok(());
        }
    };
    notices.abort();
    result
}

/// The reply to one line, with the version and method it belongs to (for
/// the trace); `None` when the line needs none.
async fn answer(
    service: &Service,
    client: &str,
    session: &mut Session,
    subscriptions: &StdMutex<Vec<Subscription>>,
    line: &[u8],
) -> Option<(Reply, &'static str, Option<String>)> {
    let request = match Incoming::parse(line) {
        Incoming::Request(request) => request,
        Incoming::Notification => return None,
        Incoming::Malformed(reply) => {
            return Some((reply, Protocol::version_of(None, session, None), None));
        }
    };
    let version = Protocol::version_of(Some(&request), session, None);
    let method = Some(request.method().to_owned());
    // A cursor is read in the snapshot that made it, even after a reload.
    let catalog = &service.catalog;
    let snapshot = request
        .cursor_fingerprint()
        .and_then(|fingerprint| catalog.snapshot_with_list(client, fingerprint))
        .unwrap_or_else(|| catalog.snapshot());
    let reply = match snapshot.client(client) {
        Some(view) => match service
            .protocol
            .handle(&snapshot, view, session, request, &Headers::NONE)
            .await
        {
            Answer::Reply(reply) => reply,
            Answer::Stream(subscription) => {
                let ack = subscription.acknowledgement();
                if let Ok(mut open) = subscriptions.lock() {
                    open.push(subscription);
                }
                Reply::from(ack)
            }
        },
        None => Reply::from(error(
            Some(request.id()),
            code::INVALID_REQUEST,
            "this client application no longer exists in the configuration",
            None,
        )),
    };
    Some((reply, version, method))
}

/// Writes `parts` as one line, without joining them first.
async fn write_parts<'a>(
    output: &Mutex<impl AsyncWrite + Unpin>,
    parts: impl IntoIterator<Item = &'a str>,
) -> std::io::Result<()> {
    let mut output = output.lock().await;
    for part in parts {
        output.write_all(part.as_bytes()).await?;
    }
    output.write_all(b"\n").await?;
    output.flush().await
}
