//! The checks of a configuration against the registered tools: every
//! reference resolved, every problem recorded.

use core::ops::Range;
use std::collections::{BTreeMap, HashMap};

use toml::Spanned;

use super::authorization::{check_authorization, is_scope, scope_problem};
use super::errors::Problems;
use super::gateway::{check_downstreams, check_gateway_tools, mappings};
use super::keys::parse_hash;
use super::raw::RawConfig;
use super::server::check_server;
use super::{Client, Config, Toolset, mode_from_name};
use crate::rules::Status;
use toolschema_runtime::call::Registry;
use toolschema_runtime::project::{META_TOOL, Mode, Profile};

pub(super) fn check(raw: RawConfig, registry: &Registry, p: &mut Problems<'_>) -> Config {
    let mut config = Config {
        internal_prefixes: raw
            .catalog
            .internal_prefixes
            .iter()
            .map(|s| s.get_ref().clone())
            .collect(),
        keyless_client: None,
        tenants: Vec::new(),
        clients: BTreeMap::new(),
        toolsets: BTreeMap::new(),
        mappings: BTreeMap::new(),
        server: None,
        downstreams: BTreeMap::new(),
        gateway_tools: Vec::new(),
        authorization: raw
            .authorization
            .as_ref()
            .map(|raw| check_authorization(raw, p)),
    };

    let mut tenant_seen: HashMap<String, usize> = HashMap::new();
    for (i, tenant) in raw.tenants.iter().enumerate() {
        let id = tenant.id.get_ref();
        if let Some(first) = tenant_seen.insert(id.clone(), i) {
            p.at(
                tenant.id.span(),
                format!("tenant[{i}].id"),
                format!("duplicate tenant id `{id}` (also tenant[{first}])"),
            );
        } else {
            config.tenants.push(id.clone());
        }
    }
    let known_tenant = |id: &str| tenant_seen.contains_key(id);

    let derived: Vec<&str> = {
        let mut names: Vec<&str> = registry.tools().map(|t| &*t.name).collect();
        names.dedup();
        names
    };
    let is_derived = |name: &str| derived.binary_search(&name).is_ok();
    config.downstreams = check_downstreams(&raw.downstreams, p);
    config.gateway_tools =
        check_gateway_tools(&raw.gateway_tools, &config.downstreams, &is_derived, p);
    // What a toolset may name: registered tools and gateway tools.
    let gateway_names: Vec<String> = config
        .gateway_tools
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    let registered: Vec<&str> = {
        let mut names = derived.clone();
        names.extend(gateway_names.iter().map(String::as_str));
        names.sort_unstable();
        names.dedup();
        names
    };
    let gateway_set: std::collections::HashSet<&str> =
        gateway_names.iter().map(String::as_str).collect();
    let is_gateway = |name: &str| gateway_set.contains(name);

    for (i, raw_set) in raw.toolsets.iter().enumerate() {
        let at = format!("toolset[{i}]");
        let id = raw_set.id.get_ref().clone();
        if config.toolsets.contains_key(&id) {
            p.at(
                raw_set.id.span(),
                format!("{at}.id"),
                format!("duplicate toolset id `{id}`"),
            );
            continue;
        }
        let tenant = raw_set.tenant.get_ref();
        if !known_tenant(tenant) {
            p.at(
                raw_set.tenant.span(),
                format!("{at}.tenant"),
                format!(
                    "unknown tenant `{tenant}`{}; declare it with [[tenant]]",
                    p.suggestion(tenant, tenant_seen.keys().map(String::as_str))
                ),
            );
        }
        let mode = match &raw_set.mode {
            None => Mode::Full,
            Some(word) => mode_or_problem(word, &format!("{at}.mode"), p),
        };
        let mut tools = Vec::new();
        for (j, tool) in raw_set.tools.iter().enumerate() {
            let name = tool.get_ref();
            let key = format!("{at}.tools[{j}]");
            if tool_problem(name, tool.span(), &key, &config, registry, &registered, p) {
                continue;
            }
            if tools.contains(name) {
                p.at(
                    tool.span(),
                    key,
                    format!("`{name}` is listed twice in this toolset"),
                );
                continue;
            }
            tools.push(name.clone());
        }
        let mut scopes = Vec::new();
        for (j, scope) in raw_set.scopes.iter().enumerate() {
            let key = format!("{at}.scopes[{j}]");
            let word = scope.get_ref();
            if raw.authorization.is_none() {
                p.at(scope.span(), key, "scopes are those of access tokens: configure the `[authorization]` section that issues them, or remove the scopes");
            } else if !is_scope(word) {
                p.at(scope.span(), key, scope_problem(word));
            } else if !scopes.contains(word) {
                scopes.push(word.clone());
            }
        }
        let mut overrides = BTreeMap::new();
        for (tool, word) in &raw_set.modes {
            let name = tool.get_ref();
            let key = format!("{at}.modes.{name}");
            if !raw_set.tools.iter().any(|t| t.get_ref() == name) {
                p.at(tool.span(), &key, format!("`{name}` is not a tool of this toolset; add it to `tools` or remove the override"));
                continue;
            }
            overrides.insert(name.clone(), mode_or_problem(word, &key, p));
        }
        config.toolsets.insert(
            id.clone(),
            Toolset {
                id,
                tenant: tenant.clone(),
                active: raw_set.active,
                mode,
                tools,
                overrides,
                scopes,
            },
        );
    }

    for (i, raw_client) in raw.clients.iter().enumerate() {
        let at = format!("client[{i}]");
        let id = raw_client.id.get_ref().clone();
        if config.clients.contains_key(&id) {
            p.at(
                raw_client.id.span(),
                format!("{at}.id"),
                format!("duplicate client id `{id}`"),
            );
            continue;
        }
        let tenant = raw_client.tenant.get_ref();
        if !known_tenant(tenant) {
            p.at(
                raw_client.tenant.span(),
                format!("{at}.tenant"),
                format!(
                    "unknown tenant `{tenant}`{}; declare it with [[tenant]]",
                    p.suggestion(tenant, tenant_seen.keys().map(String::as_str))
                ),
            );
        }
        let mut key_hashes = Vec::new();
        for (j, key) in raw_client.api_keys.iter().enumerate() {
            match parse_hash(key.get_ref()) {
                Some(hash) => key_hashes.push(hash),
                None => p.at(
                    key.span(),
                    format!("{at}.api_keys[{j}]"),
                    "API keys are stored as hashes: write `sha256:` and 64 hex digits (`toolschema hash-key` prints one); never the key itself",
                ),
            }
        }
        let mut oauth_client_ids = Vec::new();
        for (j, token_client) in raw_client.oauth_client_ids.iter().enumerate() {
            let key = format!("{at}.oauth_client_ids[{j}]");
            let name = token_client.get_ref();
            if raw.authorization.is_none() {
                p.at(token_client.span(), key, "client ids of access tokens need the `[authorization]` section that issues the tokens; add it, or remove them");
            } else if name.trim().is_empty() {
                p.at(token_client.span(), key, "the client id is blank");
            } else if let Some(other) = config
                .clients
                .values()
                .find(|c| c.oauth_client_ids.contains(name))
            {
                p.at(
                    token_client.span(),
                    key,
                    format!(
                        "`{name}` already names client `{}`: a token is one client application's",
                        other.id
                    ),
                );
            } else if !oauth_client_ids.contains(name) {
                oauth_client_ids.push(name.clone());
            }
        }
        let mut toolsets = Vec::new();
        for (j, set) in raw_client.toolsets.iter().enumerate() {
            let name = set.get_ref();
            let key = format!("{at}.toolsets[{j}]");
            match config.toolsets.get(name) {
                None => p.at(
                    set.span(),
                    key,
                    format!("unknown toolset `{name}`{}", p.suggestion(name, config.toolsets.keys().map(String::as_str))),
                ),
                Some(found) if found.tenant != *tenant => p.at(
                    set.span(),
                    key,
                    format!(
                        "toolset `{name}` belongs to tenant `{}`, and this client to tenant `{tenant}`; a client may only use its own tenant's toolsets",
                        found.tenant
                    ),
                ),
                Some(_) => toolsets.push(name.clone()),
            }
        }
        let profile = match &raw_client.profile {
            None => Profile::Default,
            Some(word) => Profile::from_name(word.get_ref()).unwrap_or_else(|| {
                p.at(
                    word.span(),
                    format!("{at}.profile"),
                    format!(
                        "unknown profile `{}`; use `default`, `openai-strict` or `gemini`",
                        word.get_ref()
                    ),
                );
                Profile::Default
            }),
        };
        config.clients.insert(
            id.clone(),
            Client {
                id,
                tenant: tenant.clone(),
                key_hashes,
                oauth_client_ids,
                toolsets,
                profile,
            },
        );
    }

    for (i, mapping) in raw.mappings.iter().enumerate() {
        let at = format!("mapping[{i}]");
        let name = mapping.tool.get_ref();
        if config.mappings.contains_key(name) {
            p.at(
                mapping.tool.span(),
                format!("{at}.tool"),
                format!("duplicate mapping for `{name}`"),
            );
            continue;
        }
        if is_gateway(name) {
            p.at(
                mapping.tool.span(),
                format!("{at}.tool"),
                format!("`{name}` is a gateway tool: its versions and statuses are its `[[gateway_tool.version]]` sections; remove this mapping"),
            );
            continue;
        }
        if !is_derived(name) {
            p.at(
                mapping.tool.span(),
                format!("{at}.tool"),
                format!(
                    "unknown tool `{name}`{}",
                    p.suggestion(name, registered.iter().copied())
                ),
            );
            continue;
        }
        let mut versions: Vec<(u32, Status)> = Vec::new();
        for (j, version) in mapping.versions.iter().enumerate() {
            let key = format!("{at}.versions[{j}]");
            let number = *version.version.get_ref();
            let status = Status::from_name(version.status.get_ref());
            if status.is_none() {
                p.at(
                    version.status.span(),
                    format!("{key}.status"),
                    format!(
                        "unknown status `{}`; use draft, proposed, published or deprecated",
                        version.status.get_ref()
                    ),
                );
            }
            let number = match u32::try_from(number) {
                Ok(n) if n >= 1 => n,
                _ => {
                    p.at(
                        version.version.span(),
                        format!("{key}.version"),
                        "versions are whole numbers from 1 up",
                    );
                    continue;
                }
            };
            if registry.get(name, number).is_none() {
                let have: Vec<String> = registry.versions(name).map(|v| v.to_string()).collect();
                p.at(
                    version.version.span(),
                    format!("{key}.version"),
                    format!(
                        "no registered type provides `{name}` version {number} (registered: {}); add `#[tool(version = {number})]` to a type or fix the number",
                        have.join(", ")
                    ),
                );
                continue;
            }
            if versions.iter().any(|(n, _)| *n == number) {
                p.at(
                    version.version.span(),
                    format!("{key}.version"),
                    format!("version {number} is listed twice"),
                );
                continue;
            }
            if let Some(status) = status {
                versions.push((number, status));
            }
        }
        config.mappings.insert(name.clone(), versions);
    }
    if let Some(keyless) = &raw.catalog.keyless_client {
        let id = keyless.get_ref();
        if config.clients.contains_key(id) {
            config.keyless_client = Some(id.clone());
        } else {
            p.at(
                keyless.span(),
                "catalog.keyless_client",
                format!(
                    "unknown client `{id}`{}; name a [[client]] whose tools anyone may call without a key",
                    p.suggestion(id, config.clients.keys().map(String::as_str))
                ),
            );
        }
    }
    if raw.clients.is_empty() {
        p.at(
            0..0,
            "client",
            "the configuration names no client application (`[[client]]`), so every request would be refused; add one, or serve without a configuration (open mode)",
        );
    }
    for (name, versions) in mappings(&config.gateway_tools) {
        config.mappings.insert(name, versions);
    }
    config.server = raw.server.map(|server| check_server(server, p));
    let scopes: Vec<String> = config
        .toolsets
        .values()
        .flat_map(|set| set.scopes.iter().cloned())
        .collect();
    config.authorization = config
        .authorization
        .take()
        .map(|authorization| authorization.with_scopes(scopes.into_iter()));
    config
}

/// Records what is wrong with naming `name` in a toolset; true if anything.
fn tool_problem(
    name: &str,
    span: Range<usize>,
    key: &str,
    config: &Config,
    registry: &Registry,
    registered: &[&str],
    p: &mut Problems<'_>,
) -> bool {
    if name == META_TOOL {
        p.at(
            span,
            key,
            format!("`{META_TOOL}` is reserved: the catalog adds it where it is needed"),
        );
        return true;
    }
    if registered.binary_search(&name).is_err() {
        p.at(
            span,
            key,
            format!(
                "unknown tool `{name}`{}",
                p.suggestion(name, registered.iter().copied())
            ),
        );
        return true;
    }
    let marked = registry
        .versions(name)
        .any(|v| registry.get(name, v).is_some_and(|d| d.internal));
    if marked || config.is_internal_name(name) {
        p.at(
            span,
            key,
            format!("`{name}` is internal and is never exposed; remove it from the toolset"),
        );
        return true;
    }
    false
}

fn mode_or_problem(word: &Spanned<String>, key: &str, p: &mut Problems<'_>) -> Mode {
    mode_from_name(word.get_ref()).unwrap_or_else(|| {
        p.at(
            word.span(),
            key,
            format!(
                "unknown mode `{}`; use full, data-structure-only or lazy",
                word.get_ref()
            ),
        );
        Mode::Full
    })
}
