//! The `requestState` of an input-required result (2026-07-28): what a call
//! has learnt from the client so far, sealed with a key so that the client
//! can only echo it back, and any replica holding the key can continue.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// How long a sealed state stays good.
const LIFETIME_SECS: u64 = 60 * 60;

/// The key that seals request states.
#[derive(Clone)]
pub struct StateKey([u8; 32]);

impl core::fmt::Debug for StateKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("StateKey(..)")
    }
}

impl StateKey {
    /// A key derived from a secret shared by every replica (any length).
    pub fn from_secret(secret: &[u8]) -> StateKey {
        StateKey(Sha256::digest(secret).into())
    }

    /// A key of this process alone: states it seals cannot be continued by
    /// another replica.
    pub fn random() -> StateKey {
        let mut key = [0u8; 32];
        // Without the operating system's randomness, fall back to a key
        // derived from the time and the process: still unguessable enough
        // for one process's states, and never a constant.
        if getrandom::fill(&mut key).is_err() {
            let seed = format!("{:?}{}", std::time::SystemTime::now(), std::process::id());
            key = Sha256::digest(seed.as_bytes()).into();
        }
        StateKey(key)
    }

    fn mac(&self, payload: &[u8]) -> [u8; 32] {
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.0)
            .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
        mac.update(payload);
        mac.finalize().into_bytes().into()
    }

    /// `state`, sealed: the payload and its MAC, base64url.
    pub(crate) fn seal(&self, state: &RequestState) -> String {
        let payload = serde_json::to_vec(state).unwrap_or_default();
        let mac = self.mac(&payload);
        format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(&payload),
            URL_SAFE_NO_PAD.encode(mac)
        )
    }

    /// The state sealed in `text`, if its MAC holds and it has not expired.
    pub(crate) fn open(&self, text: &str) -> Option<RequestState> {
        let (payload, mac) = text.split_once('.')?;
        let payload = URL_SAFE_NO_PAD.decode(payload).ok()?;
        let mac = URL_SAFE_NO_PAD.decode(mac).ok()?;
        let mut check = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.0).ok()?;
        check.update(&payload);
        // Compared in constant time.
        check.verify_slice(&mac).ok()?;
        let state: RequestState = serde_json::from_slice(&payload).ok()?;
        (state.expires > now()).then_some(state)
    }
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// What a call knows between rounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RequestState {
    /// The tool called.
    pub(crate) tool: String,
    /// The client application calling.
    pub(crate) client: String,
    /// Every answer so far, by question key.
    pub(crate) answers: Map<String, Value>,
    /// The keys asked in the last round: the only answers taken from the
    /// next call.
    pub(crate) asked: Vec<String>,
    /// When it stops being good (seconds since the epoch).
    pub(crate) expires: u64,
}

impl RequestState {
    pub(crate) fn new(
        tool: &str,
        client: &str,
        answers: Map<String, Value>,
        asked: Vec<String>,
    ) -> RequestState {
        RequestState {
            tool: tool.to_owned(),
            client: client.to_owned(),
            answers,
            asked,
            expires: now() + LIFETIME_SECS,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> RequestState {
        let mut answers = Map::new();
        answers.insert("name".into(), serde_json::json!({"action": "accept"}));
        RequestState::new("t", "c", answers, vec!["step2".into()])
    }

    #[test]
    fn a_sealed_state_opens_with_its_key_only() {
        let key = StateKey::from_secret(b"shared by the replicas");
        let sealed = key.seal(&state());
        assert_eq!(
            key.open(&sealed),
            Some(state()).map(|mut s| {
                s.expires = key.open(&sealed).map_or(0, |o| o.expires);
                s
            })
        );
        assert!(StateKey::from_secret(b"another").open(&sealed).is_none());
        assert!(StateKey::random().open(&sealed).is_none());
    }

    #[test]
    fn a_tampered_state_does_not_open() {
        let key = StateKey::from_secret(b"k");
        let sealed = key.seal(&state());
        let (payload, mac) = sealed.split_once('.').expect("two parts");
        let mut forged = serde_json::to_value(state()).expect("json");
        forged["answers"]["name"]["action"] = "decline".into();
        let forged = URL_SAFE_NO_PAD.encode(forged.to_string());
        assert!(key.open(&format!("{forged}.{mac}")).is_none());
        assert!(key.open(payload).is_none());
        assert!(key.open("garbage").is_none());
        let mut expired = state();
        expired.expires = 1;
        assert!(key.open(&key.seal(&expired)).is_none());
    }
}
