//! MCP over stdio: one JSON-RPC message per line on stdin, replies and
//! notifications one per line on stdout. The client application is named on
//! the command line or in `TOOLSCHEMA_CLIENT`.

use std::sync::Arc;

use std::sync::Mutex as StdMutex;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{Mutex, mpsc};
use toolschema::catalog::Catalog;

use toolschema::mcp::{
    HANDSHAKE_VERSIONS, LIST_CHANGED, Reply, STATELESS_VERSION, Server, Session, Subscription,
    Trace, code, cursor_fingerprint, error, version_of,
};

/// Serves MCP over stdin and stdout for one client application until stdin
/// closes.
pub async fn serve(catalog: Arc<Catalog>, client: Option<String>) -> Result<(), String> {
    let snapshot = catalog.snapshot();
    let client = match client {
        Some(id) => id,
        None if !snapshot.is_governed() => "*".to_owned(),
        None => {
            return Err(
                "name the client application with --client or TOOLSCHEMA_CLIENT".to_owned(),
            );
        }
    };
    if snapshot.client(&client).is_none() {
        return Err(format!("there is no client application `{client}`"));
    }
    tracing::info!(client = %client, "serving MCP over stdio");

    let stdout = Arc::new(Mutex::new(tokio::io::stdout()));
    let trace = Arc::new(Trace::from_env());
    // The version agreed at `initialize`, for the handshake era's notices.
    let agreed: Arc<StdMutex<&'static str>> = Arc::new(StdMutex::new(HANDSHAKE_VERSIONS[1]));
    // Open `subscriptions/listen` streams (2026-07-28); without any, the
    // handshake era's plain notification is sent.
    let subscriptions: Arc<StdMutex<Vec<Subscription>>> = Arc::default();

    // Tell the client when its list changes.
    let notices = catalog.subscribe();
    let (notify, mut notified) = mpsc::unbounded_channel::<()>();
    let watched = client.clone();
    std::thread::spawn(move || {
        while let Ok(changes) = notices.recv() {
            if changes.clients.contains(&watched) && notify.send(()).is_err() {
                break;
            }
        }
    });
    let (out, open, notice_trace, notice_agreed) = (
        stdout.clone(),
        subscriptions.clone(),
        trace.clone(),
        agreed.clone(),
    );
    tokio::spawn(async move {
        while notified.recv().await.is_some() {
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
                notice_trace.record(version, None, &message);
                if write_line(&out, &message).await.is_err() {
                    return;
                }
            }
        }
    });

    let server = Server::default();
    let mut session = Session::default();
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    loop {
        let line = match lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => return Err(format!("cannot read stdin: {e}")),
        };
        if line.trim().is_empty() {
            continue;
        }
        if let Some(subscription) = Subscription::parse(line.as_bytes()) {
            let ack = subscription.acknowledgement();
            trace.record(STATELESS_VERSION, None, &ack);
            if let Ok(mut open) = subscriptions.lock() {
                open.push(subscription);
            }
            if write_line(&stdout, &ack).await.is_err() {
                break;
            }
            continue;
        }
        // A cursor is read in the snapshot that made it, even after a reload.
        let snapshot = match cursor_fingerprint(line.as_bytes()) {
            Some(fingerprint) => catalog
                .snapshot_with_list(&client, fingerprint)
                .unwrap_or_else(|| catalog.snapshot()),
            None => catalog.snapshot(),
        };
        let reply = match snapshot.client(&client) {
            Some(view) => {
                server
                    .handle(&snapshot, view, &mut session, line.as_bytes())
                    .await
            }
            None => Some(Reply::from(error(
                &serde_json::Value::Null,
                code::INVALID_REQUEST,
                "this client application no longer exists in the configuration",
                None,
            ))),
        };
        if let (Some(version), Ok(mut agreed)) = (session.protocol, agreed.lock()) {
            *agreed = version;
        }
        let Some(reply) = reply else { continue };
        let version = version_of(line.as_bytes(), &session, None);
        trace.record(
            version,
            Trace::method_of(line.as_bytes()).as_deref(),
            &reply,
        );
        if write_reply(&stdout, &reply).await.is_err() {
            break;
        }
    }
    Ok(())
}

async fn write_line(stdout: &Mutex<tokio::io::Stdout>, line: &str) -> std::io::Result<()> {
    let mut stdout = stdout.lock().await;
    stdout.write_all(line.as_bytes()).await?;
    stdout.write_all(b"\n").await?;
    stdout.flush().await
}

/// Writes a reply's parts as one line, without joining them first.
async fn write_reply(stdout: &Mutex<tokio::io::Stdout>, reply: &Reply) -> std::io::Result<()> {
    let mut stdout = stdout.lock().await;
    for part in reply.parts() {
        stdout.write_all(part.as_bytes()).await?;
    }
    stdout.write_all(b"\n").await?;
    stdout.flush().await
}
