//! Connections to the database: plain, or TLS (rustls) when the URL asks
//! for it, each driven on the runtime, with its notifications forwarded to
//! whoever follows the store.

use std::path::PathBuf;
use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc::UnboundedSender;
use tokio_postgres::config::SslMode;
use tokio_postgres::{AsyncMessage, Client, Config, Connection, NoTls};

/// What a connection's driver tells its follower.
pub(crate) enum Event {
    /// A notification on the store's channel.
    Notified,
    /// The connection ended, and why.
    Lost(String),
}

/// A database URL as libpq users write it, made one tokio-postgres reads:
/// `sslrootcert=PATH` taken out (the extra root certificates to trust), and
/// `sslmode=verify-ca` or `verify-full` read as `require` (which verifies
/// the certificate and the host name here, always).
pub(crate) fn libpq_url(url: &str) -> (String, Option<PathBuf>) {
    let mut root = None;
    let mut keep = |key: &str, value: &str| -> Option<String> {
        match key {
            "sslrootcert" => {
                root = Some(PathBuf::from(value));
                None
            }
            "sslmode" if value == "verify-ca" || value == "verify-full" => {
                Some("sslmode=require".to_owned())
            }
            _ => Some(format!("{key}={value}")),
        }
    };
    let rewritten = match url.split_once('?') {
        Some((base, query)) if url.contains("://") => {
            let params: Vec<String> = query
                .split('&')
                .filter(|param| !param.is_empty())
                .filter_map(|param| {
                    let (key, value) = param.split_once('=').unwrap_or((param, ""));
                    keep(key, value)
                })
                .collect();
            match params.is_empty() {
                true => base.to_owned(),
                false => format!("{base}?{}", params.join("&")),
            }
        }
        Some(_) => url.to_owned(),
        None if url.contains("://") => url.to_owned(),
        // The key=value form.
        None => url
            .split_whitespace()
            .filter_map(|pair| {
                let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                keep(key, value)
            })
            .collect::<Vec<_>>()
            .join(" "),
    };
    (rewritten, root)
}

/// The TLS client configuration for `sslmode=require`: the platform's root
/// certificates, and those of `root` (a PEM file) if given.
pub(crate) fn tls(root: Option<&PathBuf>) -> Result<Arc<rustls::ClientConfig>, String> {
    use rustls_pki_types::CertificateDer;
    use rustls_pki_types::pem::PemObject;

    let extra: Vec<CertificateDer<'static>> = match root {
        Some(path) => {
            let certs = CertificateDer::pem_file_iter(path)
                .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
                .map_err(|error| {
                    format!("sslrootcert {}: cannot be read ({error})", path.display())
                })?;
            if certs.is_empty() {
                return Err(format!(
                    "sslrootcert {}: holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
                    path.display()
                ));
            }
            certs
        }
        None => Vec::new(),
    };
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let verifier =
        rustls_platform_verifier::Verifier::new_with_extra_roots(extra, provider.clone())
            .map_err(|error| format!("the platform's root certificates: {error}"))?;
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|error| format!("TLS: {error}"))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// Whether `config` asks for TLS.
pub(crate) fn wants_tls(config: &Config) -> bool {
    config.get_ssl_mode() == SslMode::Require
}

/// A connection, driven on the runtime until it ends; its notifications
/// (and its end) go to `events` when given.
pub(crate) async fn open(
    config: &Config,
    tls: Option<&Arc<rustls::ClientConfig>>,
    events: Option<UnboundedSender<Event>>,
) -> Result<Client, tokio_postgres::Error> {
    match tls {
        Some(tls) => {
            let connector = tokio_postgres_rustls::MakeRustlsConnect::new((**tls).clone());
            let (client, connection) = config.connect(connector).await?;
            tokio::spawn(drive(connection, events));
            Ok(client)
        }
        None => {
            let (client, connection) = config.connect(NoTls).await?;
            tokio::spawn(drive(connection, events));
            Ok(client)
        }
    }
}

/// Polls a connection until it ends, forwarding what it hears.
async fn drive<S, T>(mut connection: Connection<S, T>, events: Option<UnboundedSender<Event>>)
where
    S: AsyncRead + AsyncWrite + Unpin,
    T: AsyncRead + AsyncWrite + Unpin,
{
    loop {
        let message = std::future::poll_fn(|cx| connection.poll_message(cx)).await;
        let event = match message {
            Some(Ok(AsyncMessage::Notification(_))) => Event::Notified,
            Some(Ok(_)) => continue,
            Some(Err(error)) => Event::Lost(describe(&error)),
            None => Event::Lost("the database closed the connection".into()),
        };
        let lost = matches!(event, Event::Lost(_));
        if let Some(events) = &events
            && events.send(event).is_err()
        {
            return;
        }
        if lost {
            return;
        }
    }
}

/// What a database error says: the server's own message when it sent one,
/// and what lies under the client's (`error connecting to server: ...`).
pub(crate) fn describe(error: &tokio_postgres::Error) -> String {
    if let Some(db) = error.as_db_error() {
        return format!("{} ({})", db.message(), db.code().code());
    }
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::libpq_url;

    #[test]
    fn libpq_parameters_are_read_as_tokio_postgres_reads_them() {
        assert_eq!(
            libpq_url(
                "postgresql://u@h/db?sslmode=verify-full&sslrootcert=/etc/ca.pem&application_name=x"
            ),
            (
                "postgresql://u@h/db?sslmode=require&application_name=x".to_owned(),
                Some("/etc/ca.pem".into())
            )
        );
        assert_eq!(
            libpq_url("postgresql://u@h/db?sslrootcert=/ca.pem"),
            ("postgresql://u@h/db".to_owned(), Some("/ca.pem".into()))
        );
        assert_eq!(
            libpq_url("host=h user=u sslmode=verify-ca sslrootcert=/ca.pem"),
            (
                "host=h user=u sslmode=require".to_owned(),
                Some("/ca.pem".into())
            )
        );
        assert_eq!(
            libpq_url("postgresql://u@h/db"),
            ("postgresql://u@h/db".to_owned(), None)
        );
    }
}
