//! Who is asking: the [`Operator`] extractor every admin route takes first,
//! so that a request is authenticated from its headers alone, before its
//! body is read or its action looks at the store.
//!
//! - A key that is not shaped like an operator key (`tso_` and 64 hex
//!   digits) is refused without a lookup.
//! - A valid key is served whoever else failed from its address: behind a
//!   TLS-terminating proxy every operator shares one, and a stranger's
//!   wrong keys must not lock them out. So a key is checked first; a peer
//!   that has failed [`BURST`] times (then may fail once more every
//!   [`REFILL`]) is answered 429 instead of 401 for a key that is not
//!   proven valid (wrong, malformed, or not checked because the store
//!   failed or was busy), never for a valid one.
//! - At most [`LOOKUPS`] keys are looked up in the store at once, so a
//!   flood of well-shaped keys cannot take the database's connections.
//! - Every refusal of a key says the same thing, whether the key is
//!   missing, malformed or no operator's.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use tokio::sync::Semaphore;
use toolschema_catalog::hash_api_key;

use super::{Admin, failure, refusal};

/// The wrong keys a peer may send before it must wait.
pub(super) const BURST: f64 = 10.0;

/// How long a peer waits for each further try.
pub(super) const REFILL: Duration = Duration::from_secs(3);

/// Keys looked up in the store at once.
const LOOKUPS: usize = 4;

/// How long a request waits for a lookup before the answer is 503.
const LOOKUP_WAIT: Duration = Duration::from_secs(5);

/// The most peers whose failures are remembered; beyond, those that have
/// waited out their failures are forgotten first.
const MAX_PEERS: usize = 10_000;

/// The operator a request is from, by its key: extracted before anything
/// else of the request is read.
pub(super) struct Operator(pub(super) String);

/// Failed authentications by peer, and the lookups in flight.
pub(super) struct Guard {
    failures: Mutex<HashMap<IpAddr, Tries>>,
    lookups: Semaphore,
}

/// What a peer has left to try: a bucket of [`BURST`] tries refilled one
/// every [`REFILL`].
#[derive(Clone, Copy)]
struct Tries {
    left: f64,
    at: Instant,
}

impl Tries {
    fn now(self, now: Instant) -> Tries {
        let refilled = now.saturating_duration_since(self.at).as_secs_f64() / REFILL.as_secs_f64();
        Tries {
            left: (self.left + refilled).min(BURST),
            at: now,
        }
    }
}

impl Default for Guard {
    fn default() -> Guard {
        Guard {
            failures: Mutex::new(HashMap::new()),
            lookups: Semaphore::new(LOOKUPS),
        }
    }
}

impl Guard {
    /// `Err` with how long to wait when `peer` has no tries left.
    fn admit(&self, peer: IpAddr) -> Result<(), Duration> {
        let failures = self.failures.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(tries) = failures.get(&peer) else {
            return Ok(());
        };
        let tries = tries.now(Instant::now());
        if tries.left >= 1.0 {
            return Ok(());
        }
        Err(REFILL.mul_f64(1.0 - tries.left))
    }

    /// Counts a wrong key from `peer`.
    fn failed(&self, peer: IpAddr) {
        let now = Instant::now();
        let mut failures = self.failures.lock().unwrap_or_else(PoisonError::into_inner);
        if failures.len() >= MAX_PEERS && !failures.contains_key(&peer) {
            failures.retain(|_, tries| tries.now(now).left < BURST);
            if failures.len() >= MAX_PEERS {
                failures.clear();
            }
        }
        let tries = failures.entry(peer).or_insert(Tries {
            left: BURST,
            at: now,
        });
        let mut now_tries = tries.now(now);
        now_tries.left = (now_tries.left - 1.0).max(0.0);
        *tries = now_tries;
    }
}

/// Whether `key` has an operator key's shape: `tso_` and 64 lowercase hex
/// digits, as `Store::add_operator` makes them.
fn shaped_like_a_key(key: &str) -> bool {
    key.strip_prefix("tso_").is_some_and(|hex| {
        hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

/// The one answer to a request without a valid operator key.
fn unauthorized() -> Response {
    let mut response = refusal(
        StatusCode::UNAUTHORIZED,
        "unauthorized",
        "send an operator key: Authorization: Bearer <key> (made with `toolschema admin add-operator NAME`)",
    );
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static(r#"Bearer realm="toolschema-admin""#),
    );
    response
}

/// The address a request came from, as the listener saw it; without it (a
/// router served otherwise) every request shares one.
pub(super) fn peer_of(parts: &Parts) -> IpAddr {
    parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |info| info.0.ip())
}

/// An operator proven by its key: its name, and the hash of the key it
/// sent (a console session keeps it, to notice a removal or a rotation).
pub(super) struct Authenticated {
    pub(super) name: String,
    pub(super) key_hash: String,
}

/// The answer to a key not proven valid from a peer out of tries.
fn too_many(wait: Duration) -> Response {
    let mut response = refusal(
        StatusCode::TOO_MANY_REQUESTS,
        "too_many_failures",
        "too many requests with a wrong operator key from this address; wait, then send a valid key",
    );
    let seconds = wait.as_secs().max(1).to_string();
    if let Ok(value) = HeaderValue::from_str(&seconds) {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}

/// The operator whose key `key` is, asked by `peer`. A valid key is
/// admitted whatever the peer's failures. Otherwise: 401 (the same answer
/// whatever was wrong) for a missing, malformed or unknown key, 503 when
/// too many keys are being looked up or the store is unreachable; and 429
/// instead of any of these once the peer has failed too often. The header
/// and the console's login form are checked alike.
pub(super) async fn authenticate(
    admin: &Admin,
    peer: IpAddr,
    key: Option<&str>,
) -> Result<Authenticated, Response> {
    // Whether the peer is out of tries, as it came: its failures decide
    // only how a key that is not proven valid is refused.
    let out_of_tries = admin.guard.admit(peer).err();
    let wrong = || {
        admin.guard.failed(peer);
        out_of_tries.map_or_else(unauthorized, too_many)
    };
    let Some(key) = key.map(str::trim).filter(|key| shaped_like_a_key(key)) else {
        return Err(wrong());
    };
    let Ok(Ok(_permit)) = tokio::time::timeout(LOOKUP_WAIT, admin.guard.lookups.acquire()).await
    else {
        return Err(out_of_tries.map_or_else(
            || {
                refusal(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "busy",
                    "the admin API is checking too many keys at once; try again shortly",
                )
            },
            too_many,
        ));
    };
    match admin.store.operator(key).await {
        Ok(Some(name)) => Ok(Authenticated {
            name,
            key_hash: hash_api_key(key),
        }),
        Ok(None) => Err(wrong()),
        Err(error) => Err(out_of_tries.map_or_else(|| failure(error), too_many)),
    }
}

impl FromRequestParts<Admin> for Operator {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, admin: &Admin) -> Result<Operator, Response> {
        let mut values = parts.headers.get_all(header::AUTHORIZATION).iter();
        let key = match (values.next(), values.next()) {
            (Some(value), None) => value
                .to_str()
                .ok()
                .and_then(|value| value.strip_prefix("Bearer ")),
            _ => None,
        };
        authenticate(admin, peer_of(parts), key)
            .await
            .map(|operator| Operator(operator.name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_peer_may_fail_a_burst_then_waits() {
        let guard = Guard::default();
        let peer = IpAddr::V4(Ipv4Addr::LOCALHOST);
        let other = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
        for _ in 0..10 {
            assert!(guard.admit(peer).is_ok());
            guard.failed(peer);
        }
        let wait = guard.admit(peer).expect_err("no tries left");
        assert!(wait <= REFILL && wait > Duration::from_secs(2), "{wait:?}");
        assert!(guard.admit(other).is_ok(), "another peer is not held back");
    }

    #[test]
    fn only_operator_shaped_keys_are_looked_up() {
        assert!(shaped_like_a_key(&format!("tso_{}", "0a".repeat(32))));
        for key in [
            "tso_".to_owned(),
            format!("tso_{}", "0A".repeat(32)),
            format!("tsk_{}", "0a".repeat(32)),
            format!("tso_{}", "0a".repeat(33)),
            "demo-acme-finance-key".to_owned(),
        ] {
            assert!(!shaped_like_a_key(&key), "{key}");
        }
    }
}
