//! What a client and the server agree on: `initialize` (the version, the
//! client's capabilities) and `logging/setLevel` in the handshake era, and
//! `server/discover`, the 2026-07-28 revision's stateless counterpart.

use serde_json::{Map, Value, json};
use toolschema_runtime::call::LogLevel;

use super::reply::success;
use super::{
    HANDSHAKE_VERSIONS, Id, Protocol, STATELESS_VERSION, SUPPORTED_VERSIONS, Session, code, error,
};

impl Protocol {
    pub(super) fn initialize(
        &self,
        id: &Id,
        params: &Map<String, Value>,
        session: &mut Session,
    ) -> String {
        let requested = params.get("protocolVersion").and_then(Value::as_str);
        // Agree on the client's version if served, else offer the newest.
        let version = HANDSHAKE_VERSIONS
            .iter()
            .find(|v| Some(**v) == requested)
            .copied()
            .unwrap_or(HANDSHAKE_VERSIONS[1]);
        session.protocol = Some(version);
        session.capabilities = params.get("capabilities").cloned();
        success(
            id,
            json!({
                "protocolVersion": version,
                "capabilities": {"tools": {"listChanged": true}, "logging": {}},
                "serverInfo": self.identity.to_json(version),
            }),
        )
    }

    pub(super) fn discover(&self, id: &Id) -> String {
        success(
            id,
            json!({
                "resultType": "complete",
                "supportedVersions": SUPPORTED_VERSIONS,
                "capabilities": {"tools": {"listChanged": true}, "logging": {}},
                "_meta": {"io.modelcontextprotocol/serverInfo": self.identity.to_json(STATELESS_VERSION)},
                "ttlMs": self.list_ttl_ms,
                "cacheScope": "private",
            }),
        )
    }

    /// `logging/setLevel`: the least severe log level the client wants,
    /// kept for the rest of the session.
    pub(super) fn set_log_level(
        &self,
        id: &Id,
        params: &Map<String, Value>,
        session: &mut Session,
    ) -> String {
        match params
            .get("level")
            .and_then(Value::as_str)
            .and_then(LogLevel::from_name)
        {
            Some(level) => {
                session.log_level = level;
                success(id, Map::new())
            }
            None => error(
                Some(id),
                code::INVALID_PARAMS,
                "Invalid params: level must be one of debug, info, notice, warning, error, critical, alert, emergency",
                None,
            ),
        }
    }
}
