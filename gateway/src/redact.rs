//! A downstream's credentials kept out of what reaches a client: a
//! downstream may echo the request's `Authorization` in an error, a fault
//! or even a result (`Basic dXNlcjpwYXNz`, a bearer token, an API key),
//! whole or cut short. Every form a credential travels in is known here,
//! and what the gateway passes on is scrubbed of each.

use base64::Engine as _;
use serde_json::Value;

use toolschema_configured::Auth;
use toolschema_runtime::model::Text;
use toolschema_runtime::render::Json;

/// Written where a credential stood.
const REDACTED: &str = "[redacted]";

/// The shortest run of a credential's characters that an excerpt hides
/// when it meets one cut short (shorter credentials are hidden whole only).
const PARTIAL: usize = 8;

/// The longest text searched for credentials cut short (quadratic work):
/// longer ones are cut to it first, which an excerpt is anyway.
const PARTIAL_SEARCH: usize = 2_048;

/// The credentials of one call, in every form they are sent: each secret
/// as it is, and for basic authentication `user:password` and its Base64.
#[derive(Debug, Clone, Default)]
pub(crate) struct Secrets {
    /// The values sent, then the forms derived from them; none shorter
    /// than four characters (hiding `a` everywhere would hide nothing).
    forms: Vec<String>,
    /// Each credential with its secrets read, in the order `auth` names
    /// them.
    sent: Vec<Sent>,
}

/// One credential of a call, its secrets read: what the request carries.
#[derive(Debug, Clone)]
pub(crate) enum Sent {
    /// `Authorization: Bearer <token>`.
    Bearer(String),
    /// `<name>: <value>`.
    Header {
        /// The header's name.
        name: String,
        /// The key.
        value: String,
    },
    /// `?<param>=<value>`.
    Query {
        /// The parameter's name.
        param: String,
        /// The key.
        value: String,
    },
    /// `Authorization: Basic` of `<user>:<password>`.
    Basic {
        /// The user name.
        user: String,
        /// The password.
        password: String,
    },
    /// AWS Signature Version 4, signed when the request is whole.
    AwsSigV4 {
        /// The access key id.
        access_key: String,
        /// The secret access key.
        secret_key: String,
        /// A temporary credential's session token, when its variable is set.
        session_token: Option<String>,
        /// The region signed for.
        region: String,
        /// The service's signing name.
        service: String,
    },
}

impl Secrets {
    /// The secrets of `auth` (every credential of the downstream), read by
    /// `read` (a variable's name to its value), or the name of the first
    /// variable that is missing.
    pub(crate) fn of(
        auth: &[Auth],
        read: impl Fn(&str) -> Option<String>,
    ) -> Result<Secrets, String> {
        let get = |name: &str| read(name).ok_or_else(|| name.to_owned());
        let mut forms = Vec::new();
        let mut sent = Vec::with_capacity(auth.len());
        for auth in auth {
            let credential = match auth {
                Auth::Bearer { env } => Sent::Bearer(get(env)?),
                Auth::Header { header, env } => Sent::Header {
                    name: header.clone(),
                    value: get(env)?,
                },
                Auth::Query { param, env } => Sent::Query {
                    param: param.clone(),
                    value: get(env)?,
                },
                Auth::Basic {
                    user_env,
                    password_env,
                } => Sent::Basic {
                    user: get(user_env)?,
                    password: get(password_env)?,
                },
                Auth::AwsSigV4 {
                    access_key_env,
                    secret_key_env,
                    session_token_env,
                    region,
                    service,
                } => Sent::AwsSigV4 {
                    access_key: get(access_key_env)?,
                    secret_key: get(secret_key_env)?,
                    // Optional: long-lived keys have none.
                    session_token: session_token_env.as_deref().and_then(&read),
                    region: region.clone(),
                    service: service.clone(),
                },
            };
            match &credential {
                Sent::Bearer(value) | Sent::Header { value, .. } | Sent::Query { value, .. } => {
                    forms.push(value.clone())
                }
                Sent::AwsSigV4 {
                    access_key,
                    secret_key,
                    session_token,
                    ..
                } => {
                    forms.extend([access_key.clone(), secret_key.clone()]);
                    forms.extend(session_token.clone());
                }
                Sent::Basic { user, password } => {
                    let pair = format!("{user}:{password}");
                    let standard = base64::engine::general_purpose::STANDARD.encode(&pair);
                    let unpadded = standard.trim_end_matches('=').to_owned();
                    forms.extend([user.clone(), password.clone(), pair, standard, unpadded]);
                }
            }
            sent.push(credential);
        }
        forms.retain(|form| form.chars().count() >= 4);
        // Longest first: a form inside another is hidden with it (and equal
        // forms side by side, for `dedup`).
        forms.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        forms.dedup();
        Ok(Secrets { forms, sent })
    }

    /// The credentials, in the order the downstream's `auth` names them.
    pub(crate) fn sent(&self) -> &[Sent] {
        &self.sent
    }

    /// Whether there is nothing to hide.
    pub(crate) fn is_empty(&self) -> bool {
        self.forms.is_empty()
    }

    /// `text` with every whole credential replaced (linear in its length,
    /// for an answer of any size).
    pub(crate) fn scrub(&self, text: &str) -> String {
        let mut text = text.to_owned();
        for form in &self.forms {
            if text.contains(form.as_str()) {
                text = text.replace(form.as_str(), REDACTED);
            }
        }
        text
    }

    /// Every string of `value` scrubbed, keys too.
    pub(crate) fn scrub_value(&self, value: &mut Value) {
        if self.is_empty() {
            return;
        }
        let mut stack = vec![value];
        while let Some(value) = stack.pop() {
            match value {
                Value::String(text) => {
                    if self.forms.iter().any(|form| text.contains(form.as_str())) {
                        *text = self.scrub(text);
                    }
                }
                Value::Array(items) => stack.extend(items.iter_mut()),
                Value::Object(map) => {
                    if map
                        .keys()
                        .any(|key| self.forms.iter().any(|form| key.contains(form.as_str())))
                    {
                        let entries = core::mem::take(map);
                        *map = entries
                            .into_iter()
                            .map(|(key, value)| (self.scrub(&key), value))
                            .collect();
                    }
                    stack.extend(map.values_mut());
                }
                Value::Null | Value::Bool(_) | Value::Number(_) => {}
            }
        }
    }

    /// Every string of `document` scrubbed, keys too.
    pub(crate) fn scrub_document(&self, document: &mut Json) {
        if self.is_empty() {
            return;
        }
        let holds = |text: &str| self.forms.iter().any(|form| text.contains(form.as_str()));
        let mut stack = vec![document];
        while let Some(value) = stack.pop() {
            match value {
                Json::String(text) => {
                    if holds(text) {
                        *text = Text::from(self.scrub(text));
                    }
                }
                Json::Array(items) => stack.extend(items.iter_mut()),
                Json::Object(object) => {
                    if object.iter().any(|(key, _)| holds(key)) {
                        let entries = core::mem::take(object);
                        *object = entries
                            .into_entries()
                            .into_iter()
                            .map(|(key, value)| (Text::from(self.scrub(&key)), value))
                            .collect();
                    }
                    stack.extend(object.values_mut());
                }
                Json::Null | Json::Bool(_) | Json::Number(_) => {}
            }
        }
    }

    /// `text` (at most [`PARTIAL_SEARCH`] characters of it) with every
    /// whole credential replaced, and every run of [`PARTIAL`] or more
    /// characters of one: a downstream that cuts the header it echoes
    /// still shows no part of it worth having.
    pub(crate) fn scrub_excerpt(&self, text: &str) -> String {
        let text: String = text.chars().take(PARTIAL_SEARCH).collect();
        let text = self.scrub(&text);
        let chars: Vec<char> = text.chars().collect();
        let mut hidden = vec![false; chars.len()];
        for form in &self.forms {
            let form: Vec<char> = form.chars().collect();
            if form.len() < PARTIAL {
                continue;
            }
            mark_common_runs(&chars, &form, &mut hidden);
        }
        if !hidden.contains(&true) {
            return text;
        }
        let mut out = String::with_capacity(text.len());
        let mut i = 0;
        while i < chars.len() {
            if hidden[i] {
                out.push_str(REDACTED);
                while i < chars.len() && hidden[i] {
                    i += 1;
                }
            } else {
                out.push(chars[i]);
                i += 1;
            }
        }
        out
    }
}

impl Secrets {
    /// These secrets and `values` too (a SOAP operation's credential
    /// header blocks, sent besides the downstream's `auth`): each hidden
    /// as it is, as the others are.
    pub(crate) fn hiding(mut self, values: &[String]) -> Secrets {
        self.forms.extend(
            values
                .iter()
                .filter(|value| value.chars().count() >= 4)
                .cloned(),
        );
        self.forms
            .sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        self.forms.dedup();
        self
    }
}

/// Marks in `hidden` every run of `text` of [`PARTIAL`] or more
/// characters that also stands in `secret` (the longest common substrings
/// ending at each place, by one row of dynamic programming).
fn mark_common_runs(text: &[char], secret: &[char], hidden: &mut [bool]) {
    let mut row = vec![0usize; secret.len() + 1];
    for (i, c) in text.iter().enumerate() {
        // Right to left, so that `row[j]` is still the previous row's.
        for j in (1..=secret.len()).rev() {
            row[j] = if secret[j - 1] == *c {
                row[j - 1] + 1
            } else {
                0
            };
            if row[j] >= PARTIAL {
                for place in &mut hidden[i + 1 - row[j]..=i] {
                    *place = true;
                }
            }
        }
        row[0] = 0;
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Auth, Secrets};

    fn basic() -> Secrets {
        let auth = Auth::Basic {
            user_env: "USER".to_owned(),
            password_env: "PASSWORD".to_owned(),
        };
        Secrets::of(core::slice::from_ref(&auth), |name| {
            Some(match name {
                "USER" => "gateway".to_owned(),
                _ => "hunter2-long-password".to_owned(),
            })
        })
        .expect("both set")
    }

    #[test]
    fn basic_credentials_are_hidden_in_every_form_they_travel_in() {
        let secrets = basic();
        let header = "Basic Z2F0ZXdheTpodW50ZXIyLWxvbmctcGFzc3dvcmQ=";
        assert_eq!(
            secrets.scrub(&format!("echo: Authorization: {header}")),
            "echo: Authorization: Basic [redacted]"
        );
        assert_eq!(
            secrets.scrub("login gateway:hunter2-long-password refused"),
            "login [redacted] refused"
        );
        // Cut short by the downstream: no run of eight of its characters.
        assert_eq!(
            secrets.scrub_excerpt("bad header Basic Z2F0ZXdheTpodW50ZXIy…"),
            "bad header Basic [redacted]…"
        );
        assert_eq!(
            secrets.scrub_excerpt("the secret hunter2-lo is wrong"),
            "the secret [redacted] is wrong"
        );
        // Fewer than eight of its characters in a row are left alone.
        assert_eq!(
            secrets.scrub_excerpt("the server sent wrong credentials"),
            "the server sent wrong credentials"
        );
    }

    #[test]
    fn a_result_is_scrubbed_through_its_strings_and_keys() {
        let secrets = basic();
        let mut value = json!({
            "headers": {"Authorization": "Basic Z2F0ZXdheTpodW50ZXIyLWxvbmctcGFzc3dvcmQ="},
            "seen": ["hunter2-long-password", 3],
            "hunter2-long-password": true
        });
        secrets.scrub_value(&mut value);
        assert_eq!(
            value,
            json!({
                "headers": {"Authorization": "Basic [redacted]"},
                "seen": ["[redacted]", 3],
                "[redacted]": true
            })
        );
    }

    #[test]
    fn a_missing_variable_is_named() {
        let auth = Auth::Bearer {
            env: "TOKEN".to_owned(),
        };
        assert_eq!(
            Secrets::of(core::slice::from_ref(&auth), |_| None).expect_err("missing"),
            "TOKEN"
        );
    }
}
