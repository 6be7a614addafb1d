//! Where in a configuration a problem is, as values: the section, the
//! entry of it, the version of that entry, and the field within. Every
//! reader of the configuration's problems (the file's report, the store
//! naming the record it came from) reads these, never a key's text.

use core::fmt;

/// A section of the configuration: a table of the file (`[catalog]`) or a
/// list of tables (`[[client]]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Section {
    /// `[catalog]`: the catalog's settings.
    Catalog,
    /// `[server]`: what `server.json` says of the server.
    Server,
    /// `[authorization]`: access tokens.
    Authorization,
    /// `[[tenant]]`.
    Tenant,
    /// `[[client]]`: client applications.
    Client,
    /// `[[toolset]]`.
    Toolset,
    /// `[[mapping]]`: versions of derived tools.
    Mapping,
    /// `[[downstream]]`: the APIs configured tools call.
    Downstream,
    /// `[[gateway_tool]]`: configured tools.
    ConfiguredTool,
}

impl Section {
    /// Every section, in the order the file's documentation lists them.
    pub const ALL: [Section; 9] = [
        Section::Catalog,
        Section::Server,
        Section::Authorization,
        Section::Tenant,
        Section::Client,
        Section::Toolset,
        Section::Mapping,
        Section::Downstream,
        Section::ConfiguredTool,
    ];

    /// The section's key in the file.
    ///
    /// ```
    /// use toolschema_config::Section;
    ///
    /// assert_eq!(Section::ConfiguredTool.key(), "gateway_tool");
    /// assert_eq!(Section::from_key("client"), Some(Section::Client));
    /// ```
    pub fn key(self) -> &'static str {
        match self {
            Section::Catalog => "catalog",
            Section::Server => "server",
            Section::Authorization => "authorization",
            Section::Tenant => "tenant",
            Section::Client => "client",
            Section::Toolset => "toolset",
            Section::Mapping => "mapping",
            Section::Downstream => "downstream",
            Section::ConfiguredTool => "gateway_tool",
        }
    }

    /// The section of a key of the file.
    pub fn from_key(key: &str) -> Option<Section> {
        Section::ALL
            .into_iter()
            .find(|section| section.key() == key)
    }

    /// Whether the section is one table (a setting) rather than a list.
    pub fn is_setting(self) -> bool {
        matches!(
            self,
            Section::Catalog | Section::Server | Section::Authorization
        )
    }

    /// The key of an entry's versions, for the sections that have them.
    pub(crate) fn versions_key(self) -> Option<&'static str> {
        match self {
            Section::Mapping => Some("versions"),
            Section::ConfiguredTool => Some("version"),
            _ => None,
        }
    }
}

/// Where a problem is: the section, which entry of it (its place in the
/// list, from 0), which version of that entry, and the field within.
/// Shown as the key a reader finds in the file, such as
/// `client[2].toolsets[0]` or `gateway_tool[0].version[1].argument[3]`.
///
/// ```
/// use serde_json::json;
/// use toolschema_config::{Config, Section};
/// use toolschema_runtime::call::Registry;
///
/// let document = json!({
///     "tenant": [{"id": "acme"}],
///     "client": [{"id": "acme-app", "tenant": "acme", "toolsets": ["billing"]}],
/// });
/// let serde_json::Value::Object(document) = document else { unreachable!() };
/// let errors = Config::from_json(document, "records", &Registry::new()).unwrap_err();
/// let location = errors.iter().next().unwrap().location();
/// assert_eq!(location.section(), Some(Section::Client));
/// assert_eq!(location.entry(), Some(0));
/// assert_eq!(location.field(), "toolsets[0]");
/// assert_eq!(location.to_string(), "client[0].toolsets[0]");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ConfigLocation {
    section: Option<Section>,
    entry: Option<usize>,
    version: Option<usize>,
    field: String,
}

impl ConfigLocation {
    /// The file as a whole (a syntax error, an empty file).
    pub(crate) fn file() -> ConfigLocation {
        ConfigLocation::default()
    }

    /// A section as a whole.
    pub(crate) fn section_whole(section: Section) -> ConfigLocation {
        ConfigLocation {
            section: Some(section),
            ..ConfigLocation::default()
        }
    }

    /// The `index`th entry of a list section.
    pub(crate) fn entry_of(section: Section, index: usize) -> ConfigLocation {
        ConfigLocation {
            section: Some(section),
            entry: Some(index),
            ..ConfigLocation::default()
        }
    }

    /// The `index`th version of this entry.
    pub(crate) fn in_version(&self, index: usize) -> ConfigLocation {
        ConfigLocation {
            version: Some(index),
            field: String::new(),
            ..self.clone()
        }
    }

    /// The field `name` of what this names.
    pub(crate) fn field_of(&self, name: &str) -> ConfigLocation {
        let mut field = String::with_capacity(self.field.len() + 1 + name.len());
        field.push_str(&self.field);
        if !field.is_empty() && !name.is_empty() {
            field.push('.');
        }
        field.push_str(name);
        self.with_field(field)
    }

    /// The `index`th item of the list this names.
    pub(crate) fn item(&self, index: usize) -> ConfigLocation {
        use core::fmt::Write;
        let mut field = String::with_capacity(self.field.len() + 8);
        field.push_str(&self.field);
        // Writing to a String cannot fail.
        let _ = write!(field, "[{index}]");
        self.with_field(field)
    }

    /// This place with `field` for its field (one allocation a field,
    /// which the checks make for every argument of every tool).
    fn with_field(&self, field: String) -> ConfigLocation {
        ConfigLocation {
            section: self.section,
            entry: self.entry,
            version: self.version,
            field,
        }
    }

    /// Whether this names an entry's version (or a field of it) that is not
    /// yet taken as one, so that a version key read next is its version.
    pub(crate) fn takes_version(&self, key: &str) -> bool {
        self.entry.is_some()
            && self.version.is_none()
            && self.field.is_empty()
            && self.section.and_then(Section::versions_key) == Some(key)
    }

    /// The section, if the problem is in one.
    pub fn section(&self) -> Option<Section> {
        self.section
    }

    /// The entry's place in its section's list (from 0), if the problem is
    /// in one entry.
    pub fn entry(&self) -> Option<usize> {
        self.entry
    }

    /// The version's place in its entry's list of versions (from 0), if the
    /// problem is in one version.
    pub fn version(&self) -> Option<usize> {
        self.version
    }

    /// The field within the entry, version or setting, as the file writes
    /// it (`toolsets[0]`, `argument[3].source`); empty for the whole.
    pub fn field(&self) -> &str {
        &self.field
    }

    /// The path within the entry or setting, its version included
    /// (`version[1].argument[3]`); empty for the whole.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolschema_config::{Config, Section};
    /// use toolschema_runtime::call::Registry;
    ///
    /// let document = json!({"mapping": [{
    ///     "tool": "refund",
    ///     "versions": [{"version": 1, "status": "published"}, {"version": "two"}],
    /// }]});
    /// let serde_json::Value::Object(document) = document else { unreachable!() };
    /// let errors = Config::from_json(document, "records", &Registry::new()).unwrap_err();
    /// let location = errors.iter().next().unwrap().location();
    /// assert_eq!(location.section(), Some(Section::Mapping));
    /// assert_eq!((location.entry(), location.version()), (Some(0), Some(1)));
    /// assert_eq!(location.field(), "version");
    /// assert_eq!(location.within_entry(), "versions[1].version");
    /// assert_eq!(location.to_string(), "mapping[0].versions[1].version");
    /// ```
    pub fn within_entry(&self) -> String {
        let Some(section) = self.section else {
            return self.to_string();
        };
        match (self.version, section.versions_key()) {
            (Some(version), Some(key)) if self.field.is_empty() => format!("{key}[{version}]"),
            (Some(version), Some(key)) => format!("{key}[{version}].{}", self.field),
            _ => self.field.clone(),
        }
    }
}

impl fmt::Display for ConfigLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(section) = self.section else {
            return match self.field.is_empty() {
                true => f.write_str("(file)"),
                false => f.write_str(&self.field),
            };
        };
        f.write_str(section.key())?;
        if let Some(entry) = self.entry {
            write!(f, "[{entry}]")?;
        }
        if let (Some(version), Some(key)) = (self.version, section.versions_key()) {
            write!(f, ".{key}[{version}]")?;
        }
        match self.field.as_bytes().first() {
            None => Ok(()),
            Some(b'[') => f.write_str(&self.field),
            Some(_) => write!(f, ".{}", self.field),
        }
    }
}
