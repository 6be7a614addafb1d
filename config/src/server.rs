//! The `[server]` section, checked against the MCP registry's rules for
//! `server.json`.

use super::ServerInfo;
use super::errors::Problems;
use crate::location::{ConfigLocation, Section};
use crate::sections::ServerSection;

/// The registry's name rule: `^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`, 3 to 200
/// characters.
fn is_registry_name(name: &str) -> bool {
    let Some((namespace, local)) = name.split_once('/') else {
        return false;
    };
    (3..=200).contains(&name.len())
        && !namespace.is_empty()
        && !local.is_empty()
        && namespace
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
        && local
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-')
}

fn is_http_url(url: &str) -> bool {
    (url.starts_with("https://") || url.starts_with("http://"))
        && url.len() > "https://".len()
        && !url.contains(char::is_whitespace)
}

/// Whether a version is a range or a floating tag, which the registry
/// refuses.
fn is_version_range(version: &str) -> bool {
    version == "latest"
        || version.contains(['^', '~', '>', '<', '=', '*', ' '])
        || version.split('.').any(|part| part == "x" || part == "X")
}

/// What is wrong with a registry server name, if anything.
pub(super) fn name_problem(name: &str) -> Option<String> {
    (!is_registry_name(name)).then(|| format!("`{name}` is not a registry server name: write `namespace/name` in reverse-DNS form (`io.github.user/weather`), matching ^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$, 3 to 200 characters"))
}

/// What is wrong with a server description, if anything.
pub(super) fn description_problem(description: &str) -> Option<String> {
    let length = description.chars().count();
    (!(1..=100).contains(&length)).then(|| {
        format!("the description is {length} characters long; the registry allows 1 to 100")
    })
}

/// What is wrong with a server version, if anything.
pub(super) fn version_problem(version: &str) -> Option<String> {
    (version.is_empty() || version.len() > 255 || is_version_range(version)).then(|| format!("`{version}` is not a specific version: write one such as `1.0.2` (no ranges or `latest`, at most 255 characters)"))
}

/// What is wrong with a server title, if anything.
pub(super) fn title_problem(title: &str) -> Option<String> {
    (!(1..=100).contains(&title.chars().count()))
        .then(|| "the title must be 1 to 100 characters long".to_owned())
}

/// What is wrong with a server's website URL, if anything.
pub(super) fn website_problem(url: &str) -> Option<String> {
    (!is_http_url(url)).then(|| "the website URL must start with https:// or http://".to_owned())
}

/// What is wrong with a remote transport, if anything.
pub(super) fn remote_problem(kind: &str, url: &str) -> Option<String> {
    if !matches!(kind, "streamable-http" | "sse") {
        return Some(format!(
            "a remote's type is `streamable-http` or `sse`, not `{kind}`"
        ));
    }
    (!is_http_url(url)).then(|| "a remote's URL must start with https:// or http://".to_owned())
}

pub(super) fn check_server(raw: ServerSection, p: &mut Problems<'_>) -> ServerInfo {
    let name = &raw.name;
    if let Some(problem) = name_problem(name) {
        p.at(server_key("name"), problem);
    }
    let description = &raw.description;
    if let Some(problem) = description_problem(description) {
        p.at(server_key("description"), problem);
    }
    let version = &raw.version;
    if let Some(problem) = version_problem(version) {
        p.at(server_key("version"), problem);
    }
    if let Some(title) = &raw.title
        && let Some(problem) = title_problem(title)
    {
        p.at(server_key("title"), problem);
    }
    if let Some(url) = &raw.website_url
        && let Some(problem) = website_problem(url)
    {
        p.at(server_key("website_url"), problem);
    }
    let mut remotes = Vec::new();
    for (i, remote) in raw.remotes.iter().enumerate() {
        let key = server_key("remotes").item(i);
        let table = remote;
        let kind = table.get("type").and_then(toml::Value::as_str);
        if !matches!(kind, Some("streamable-http" | "sse")) {
            p.at(
                key.field_of("type"),
                "a remote needs `type = \"streamable-http\"` or `\"sse\"`",
            );
        }
        if !table
            .get("url")
            .and_then(toml::Value::as_str)
            .is_some_and(is_http_url)
        {
            p.at(
                key.field_of("url"),
                "a remote needs a `url` starting with https:// or http://",
            );
        }
        remotes.push(serde_json::to_value(table).unwrap_or_default());
    }
    let mut packages = Vec::new();
    for (i, package) in raw.packages.iter().enumerate() {
        let key = server_key("packages").item(i);
        let table = package;
        for field in ["registryType", "identifier"] {
            if table.get(field).and_then(toml::Value::as_str).is_none() {
                p.at(
                    key.field_of(field),
                    format!("a package needs `{field}`, a string"),
                );
            }
        }
        let transport = table
            .get("transport")
            .and_then(|t| t.get("type"))
            .and_then(toml::Value::as_str);
        if !matches!(transport, Some("stdio" | "streamable-http" | "sse")) {
            p.at(
                key.field_of("transport"),
                "a package needs `transport = { type = \"stdio\" }` (or streamable-http, sse)",
            );
        }
        if let Some(version) = table.get("version").and_then(toml::Value::as_str)
            && (version.is_empty() || is_version_range(version))
        {
            p.at(
                key.field_of("version"),
                format!("`{version}` is not a specific package version: pin one such as `1.0.0` (no ranges or `latest`)"),
            );
        }
        packages.push(serde_json::to_value(table).unwrap_or_default());
    }
    ServerInfo {
        name: name.clone(),
        description: description.clone(),
        version: version.clone(),
        title: raw.title,
        website_url: raw.website_url,
        remotes,
        packages,
    }
}

/// The field `field` of the `[server]` section.
fn server_key(field: &str) -> ConfigLocation {
    ConfigLocation::section_whole(Section::Server).field_of(field)
}
