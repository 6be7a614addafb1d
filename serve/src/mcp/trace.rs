//! A record of every message the transports send, for conformance checks.

use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use serde_json::{Value, json};

/// Where the transports record every message they send: a file of one
/// JSON object a line (`{"version", "method", "message"}`), or nowhere.
#[derive(Debug, Default)]
pub struct Trace {
    file: Option<Mutex<std::fs::File>>,
}

impl Trace {
    /// No record.
    pub fn off() -> Trace {
        Trace::default()
    }

    /// A record appended to the file at `path`.
    pub fn to_file(path: &Path) -> std::io::Result<Trace> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        Ok(Trace {
            file: Some(Mutex::new(file)),
        })
    }

    /// Whether messages are being recorded.
    pub fn is_on(&self) -> bool {
        self.file.is_some()
    }

    /// Records a message sent in `version` in answer to `method` (the
    /// message's own method for notifications).
    pub fn record(&self, version: &str, method: Option<&str>, sent: impl core::fmt::Display) {
        let Some(file) = &self.file else { return };
        let message: Value = serde_json::from_str(&sent.to_string()).unwrap_or(Value::Null);
        let method = method.map(str::to_owned).or_else(|| {
            message
                .get("method")
                .and_then(Value::as_str)
                .map(str::to_owned)
        });
        let line = json!({"version": version, "method": method, "message": message});
        if let Ok(mut file) = file.lock() {
            let _ = writeln!(file, "{line}");
        }
    }
}
