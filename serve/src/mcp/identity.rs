//! Who the server is: its name, version, title, description and homepage,
//! as `serverInfo` says them in `initialize` and `server/discover`.

use serde_json::{Value, json};

use super::HANDSHAKE_VERSIONS;

/// Who the server is: `serverInfo` in `initialize` and `server/discover`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    name: String,
    version: String,
    title: Option<String>,
    description: Option<String>,
    website_url: Option<String>,
}

impl Identity {
    /// A server called `name` at `version`.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Identity {
        Identity {
            name: name.into(),
            version: version.into(),
            title: None,
            description: None,
            website_url: None,
        }
    }

    /// The same, with a description (shown to clients of protocol
    /// 2025-11-25 and later, and exported as `server.json`'s).
    pub fn with_description(mut self, description: impl Into<String>) -> Identity {
        self.description = Some(description.into());
        self
    }

    /// The same, with the server's homepage.
    pub fn with_website_url(mut self, url: impl Into<String>) -> Identity {
        self.website_url = Some(url.into());
        self
    }

    /// The description, if any.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The homepage, if any.
    pub fn website_url(&self) -> Option<&str> {
        self.website_url.as_deref()
    }

    /// The same, with a display title.
    pub fn with_title(mut self, title: impl Into<String>) -> Identity {
        self.title = Some(title.into());
        self
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The version.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The display title, if any.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// `serverInfo` for `version`: a description and a homepage only from
    /// 2025-11-25, whose `Implementation` has them.
    pub(super) fn to_json(&self, version: &str) -> Value {
        let mut info = json!({"name": self.name, "version": self.version});
        if let Some(title) = &self.title {
            info["title"] = json!(title);
        }
        if version != HANDSHAKE_VERSIONS[0] {
            if let Some(description) = &self.description {
                info["description"] = json!(description);
            }
            if let Some(url) = &self.website_url {
                info["websiteUrl"] = json!(url);
            }
        }
        info
    }
}
