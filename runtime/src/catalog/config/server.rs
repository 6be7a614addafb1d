//! The `[server]` section, checked against the MCP registry's rules for
//! `server.json`.

use super::ServerInfo;
use super::errors::Problems;
use super::raw::RawServer;

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

pub(super) fn check_server(raw: RawServer, p: &mut Problems<'_>) -> ServerInfo {
    let name = raw.name.get_ref();
    if !is_registry_name(name) {
        p.at(
            raw.name.span(),
            "server.name",
            format!("`{name}` is not a registry server name: write `namespace/name` in reverse-DNS form (`io.github.user/weather`), matching ^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$, 3 to 200 characters"),
        );
    }
    let description = raw.description.get_ref();
    let length = description.chars().count();
    if !(1..=100).contains(&length) {
        p.at(
            raw.description.span(),
            "server.description",
            format!("the description is {length} characters long; the registry allows 1 to 100"),
        );
    }
    let version = raw.version.get_ref();
    if version.is_empty() || version.len() > 255 || is_version_range(version) {
        p.at(
            raw.version.span(),
            "server.version",
            format!("`{version}` is not a specific version: write one such as `1.0.2` (no ranges or `latest`, at most 255 characters)"),
        );
    }
    if let Some(title) = &raw.title
        && !(1..=100).contains(&title.get_ref().chars().count())
    {
        p.at(
            title.span(),
            "server.title",
            "the title must be 1 to 100 characters long",
        );
    }
    if let Some(url) = &raw.website_url
        && !is_http_url(url.get_ref())
    {
        p.at(
            url.span(),
            "server.website_url",
            "the website URL must start with https:// or http://",
        );
    }
    let mut remotes = Vec::new();
    for (i, remote) in raw.remotes.iter().enumerate() {
        let key = format!("server.remotes[{i}]");
        let table = remote.get_ref();
        let kind = table.get("type").and_then(toml::Value::as_str);
        if !matches!(kind, Some("streamable-http" | "sse")) {
            p.at(
                remote.span(),
                format!("{key}.type"),
                "a remote needs `type = \"streamable-http\"` or `\"sse\"`",
            );
        }
        if !table
            .get("url")
            .and_then(toml::Value::as_str)
            .is_some_and(is_http_url)
        {
            p.at(
                remote.span(),
                format!("{key}.url"),
                "a remote needs a `url` starting with https:// or http://",
            );
        }
        remotes.push(serde_json::to_value(table).unwrap_or_default());
    }
    let mut packages = Vec::new();
    for (i, package) in raw.packages.iter().enumerate() {
        let key = format!("server.packages[{i}]");
        let table = package.get_ref();
        for field in ["registryType", "identifier"] {
            if table.get(field).and_then(toml::Value::as_str).is_none() {
                p.at(
                    package.span(),
                    format!("{key}.{field}"),
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
                package.span(),
                format!("{key}.transport"),
                "a package needs `transport = { type = \"stdio\" }` (or streamable-http, sse)",
            );
        }
        if let Some(version) = table.get("version").and_then(toml::Value::as_str)
            && (version.is_empty() || is_version_range(version))
        {
            p.at(
                package.span(),
                format!("{key}.version"),
                format!("`{version}` is not a specific package version: pin one such as `1.0.0` (no ranges or `latest`)"),
            );
        }
        packages.push(serde_json::to_value(table).unwrap_or_default());
    }
    ServerInfo {
        name: name.clone(),
        description: description.clone(),
        version: version.clone(),
        title: raw.title.map(|t| t.into_inner()),
        website_url: raw.website_url.map(|u| u.into_inner()),
        remotes,
        packages,
    }
}
