//! Why a server could not be built or could not serve.

use core::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;

use toolschema_catalog::ConfigErrors;
use toolschema_runtime::call::RegistryError;

/// Why a server could not be built or could not serve. Each message says
/// what to do.
#[derive(Debug)]
#[non_exhaustive]
pub enum ServeError {
    /// Tools that could not be registered (every refusal, in order).
    Tools(Vec<RegistryError>),
    /// The catalog configuration file could not be read.
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The catalog configuration has problems (every one, located).
    Config(ConfigErrors),
    /// Open mode (no catalog configuration, hence no API keys) on an
    /// address other programs on the network can reach, without the opt-in.
    OpenModeNotLoopback {
        /// The address asked for.
        address: SocketAddr,
    },
    /// The address is not a socket address.
    Address {
        /// What was given.
        given: String,
    },
    /// Listening failed.
    Bind {
        /// The address.
        address: SocketAddr,
        /// Why.
        error: std::io::Error,
    },
    /// Serving over stdio needs a client application, and none was named.
    NoStdioClient,
    /// The client application named is not in the configuration.
    UnknownClient {
        /// The id.
        id: String,
    },
    /// The trace file could not be opened.
    Trace {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// Reading or writing a transport failed.
    Io(std::io::Error),
}

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServeError::Tools(errors) => {
                write!(f, "{} tool(s) could not be registered:", errors.len())?;
                for error in errors {
                    write!(f, "\n  {error}")?;
                }
                Ok(())
            }
            ServeError::Read { path, error } => {
                write!(f, "cannot read {}: {error}", path.display())
            }
            ServeError::Config(errors) => errors.fmt(f),
            ServeError::OpenModeNotLoopback { address } => write!(
                f,
                "open mode (no catalog configuration, so no API keys) serves loopback addresses only, and {address} is not one: \
                 give a catalog configuration with client applications and their keys (`catalog_file`), \
                 bind 127.0.0.1, or call `allow_open_network()` to serve every tool to anyone who can reach {address}"
            ),
            ServeError::Address { given } => write!(
                f,
                "`{given}` is not a socket address; write one such as 127.0.0.1:8080"
            ),
            ServeError::Bind { address, error } => write!(f, "cannot listen on {address}: {error}"),
            ServeError::NoStdioClient => f.write_str(
                "serving over stdio with a catalog configuration needs the client application to serve: name it with `stdio_client` (or configure a `keyless_client`)",
            ),
            ServeError::UnknownClient { id } => {
                write!(f, "there is no client application `{id}` in the configuration")
            }
            ServeError::Trace { path, error } => {
                write!(f, "cannot open the trace file {}: {error}", path.display())
            }
            ServeError::Io(error) => write!(f, "the transport failed: {error}"),
        }
    }
}

impl std::error::Error for ServeError {}
