//! Where the secrets a configuration names are read.

/// Where the secrets a configuration names are read: a downstream's
/// credentials (`auth = { kind = "bearer", env = "PETS_TOKEN" }`, read by
/// the gateway's transport at each call) and the introspection client's
/// secret (`[authorization]`'s `introspection_secret_env`, read by the
/// serving library); the configuration names them and never holds them.
/// The application provides the source; [`Environment`] reads process
/// environment variables.
pub trait SecretSource: Send + Sync {
    /// The value of the secret `name`, if there is one.
    fn secret(&self, name: &str) -> Option<String>;
}

/// Secrets from the process's environment variables.
#[derive(Debug, Clone, Copy, Default)]
pub struct Environment;

impl SecretSource for Environment {
    fn secret(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
}
