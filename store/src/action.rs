//! The publish workflow's actions, each a change to the records. An action
//! is applied to the records in memory, and the result must pass the same
//! checks as a configuration file before anything is written.

use core::fmt;

use serde::Serialize;
use serde_json::{Value, json};
use toolschema_catalog::{Status, hash_api_key};
use toolschema_runtime::call::Registry;

use crate::records::{Body, Kind, Records, SETTINGS, Scope, Version};

/// A change to the catalog configuration.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Adds version `version` of `tool`'s mapping as a draft. A tool from
    /// configuration needs the version's `definition`; a derived tool
    /// (defined in Rust) needs none, and its version must be registered.
    /// A derived tool with no mapping yet first has its implicit state
    /// recorded (its highest registered version published), so a draft
    /// never interrupts the version being served. The first version of a
    /// new tool from configuration names its `downstream`, which creates the
    /// tool.
    Draft {
        /// The tool's exposed name.
        tool: String,
        /// The new version's number.
        version: u32,
        /// A configured tool's version: its fields (`description`,
        /// `method`, `path`, `argument`, ...).
        definition: Option<Body>,
        /// For a new tool from configuration: the downstream it calls.
        downstream: Option<String>,
    },
    /// A draft put up for review.
    Propose {
        /// The tool.
        tool: String,
        /// The version.
        version: u32,
    },
    /// A draft, proposed or deprecated version served (the highest
    /// published version is the one served). Like every change, it passes
    /// the compatibility gate: when what it serves instead of what the
    /// tool's clients are served (or were last) may break them (a breaking
    /// or undecided change, in any mode or profile they are shown it in),
    /// it is refused with the report ([`StoreError::Breaking`](crate::StoreError::Breaking))
    /// unless the [`Change`](crate::Change) accepts that report; an
    /// accepted report is kept in the audit trail.
    Publish {
        /// The tool.
        tool: String,
        /// The version.
        version: u32,
    },
    /// A version withdrawn (as the highest version, it hides the tool). A
    /// version never published cannot be deprecated above the version
    /// served: that would withdraw the tool from every client.
    Deprecate {
        /// The tool.
        tool: String,
        /// The version.
        version: u32,
    },
    /// A toolset switched on.
    Activate {
        /// The toolset.
        toolset: String,
    },
    /// A toolset switched off: its tools leave its clients' lists.
    Deactivate {
        /// The toolset.
        toolset: String,
    },
    /// A toolset given to a client application (of the same tenant).
    Assign {
        /// The client application.
        client: String,
        /// The toolset.
        toolset: String,
    },
    /// A toolset taken from a client application.
    Unassign {
        /// The client application.
        client: String,
        /// The toolset.
        toolset: String,
    },
    /// A new API key for a client application, replacing all of its keys;
    /// the key is returned once and only its hash is stored.
    RotateKey {
        /// The client application.
        client: String,
    },
    /// A record created or replaced whole.
    Put {
        /// Its kind.
        kind: Kind,
        /// Its identifier.
        id: String,
        /// Its fields other than the identifier, as the configuration file
        /// has them.
        body: Body,
    },
    /// A record removed.
    Delete {
        /// Its kind.
        kind: Kind,
        /// Its identifier.
        id: String,
    },
    /// A setting (`catalog`, `server`, `authorization`) set or, with no
    /// body, removed.
    Setting {
        /// Its name.
        name: String,
        /// Its fields.
        body: Option<Body>,
    },
    /// The whole configuration replaced by `records` (loading a file into
    /// the store).
    Replace {
        /// The new configuration.
        records: Box<Records>,
    },
    /// Records added beside the current ones, every version as a draft
    /// (what `toolschema import` writes): downstreams and tools from
    /// configuration, none of which may exist yet.
    Import {
        /// The imported records.
        records: Box<Records>,
    },
}

/// What an applied action did: what it changed, in a sentence, and for a
/// key rotation the new key (shown once).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Done {
    /// What the action was about (`tool_version "billing.refund" 2`).
    pub target: String,
    /// What changed.
    pub summary: String,
    /// The new API key of a rotation; never stored, never logged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
}

/// Why an action cannot be applied (before any check of the result).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// What it names does not exist.
    NotFound(String),
    /// It does not fit the current state (a transition that is not
    /// allowed, a version that exists already, ...).
    Conflict(String),
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refused::NotFound(message) | Refused::Conflict(message) => f.write_str(message),
        }
    }
}

impl Action {
    /// The action's name in the audit trail ([`ActionKind::name`](crate::ActionKind::name)).
    pub fn name(&self) -> &'static str {
        self.kind().name()
    }

    /// The records this action may write, when it writes only some (not
    /// a whole replacement or an import): what the admin side copies
    /// before applying it, compares after, and puts back when it is
    /// refused.
    pub(crate) fn scope(&self) -> Option<Scope> {
        let mut scope = Scope::default();
        match self {
            Action::Draft { tool, .. } => {
                scope.records.push((Kind::ConfiguredTool, tool.clone()));
                scope.tools.push(tool.clone());
            }
            Action::Propose { tool, .. }
            | Action::Publish { tool, .. }
            | Action::Deprecate { tool, .. } => scope.tools.push(tool.clone()),
            Action::Activate { toolset } | Action::Deactivate { toolset } => {
                scope.records.push((Kind::Toolset, toolset.clone()));
            }
            Action::Assign { client, .. }
            | Action::Unassign { client, .. }
            | Action::RotateKey { client } => scope.records.push((Kind::Client, client.clone())),
            Action::Put { kind, id, .. } => scope.records.push((*kind, id.clone())),
            Action::Delete { kind, id } => {
                scope.records.push((*kind, id.clone()));
                if *kind == Kind::ConfiguredTool {
                    scope.tools.push(id.clone());
                }
            }
            Action::Setting { name, .. } => scope.settings.push(name.clone()),
            Action::Replace { .. } | Action::Import { .. } => return None,
        }
        Some(scope)
    }

    /// Applies the action to `records`. The result is not checked here:
    /// the caller checks it as a whole before keeping it.
    pub fn apply(self, records: &mut Records, registry: &Registry) -> Result<Done, Refused> {
        match self {
            Action::Draft {
                tool,
                version,
                definition,
                downstream,
            } => {
                if let Some(downstream) = downstream {
                    configure(records, &tool, downstream)?;
                }
                draft(records, registry, tool, version, definition)
            }
            Action::Propose { tool, version } => {
                transition(records, &tool, version, Status::Proposed, &[Status::Draft])
            }
            Action::Publish { tool, version, .. } => transition(
                records,
                &tool,
                version,
                Status::Published,
                &[Status::Draft, Status::Proposed, Status::Deprecated],
            ),
            Action::Deprecate { tool, version } => {
                hides_served(records, registry, &tool, version)?;
                transition(
                    records,
                    &tool,
                    version,
                    Status::Deprecated,
                    &[Status::Draft, Status::Proposed, Status::Published],
                )
            }
            Action::Activate { toolset } => switch(records, &toolset, true),
            Action::Deactivate { toolset } => switch(records, &toolset, false),
            Action::Assign { client, toolset } => assign(records, &client, &toolset, true),
            Action::Unassign { client, toolset } => assign(records, &client, &toolset, false),
            Action::RotateKey { client } => rotate_key(records, &client),
            Action::Put { kind, id, body } => put(records, kind, id, body),
            Action::Delete { kind, id } => {
                let target = format!("{kind} \"{id}\"");
                let removed = records
                    .records
                    .get_mut(&kind)
                    .and_then(|of_kind| of_kind.remove(&id));
                if removed.is_none() {
                    return Err(Refused::NotFound(format!("there is no {target}")));
                }
                if kind == Kind::ConfiguredTool {
                    records.versions.retain(|(tool, _), _| *tool != id);
                }
                Ok(done(target, "removed"))
            }
            Action::Setting { name, body } => {
                if !SETTINGS.contains(&name.as_str()) {
                    return Err(Refused::NotFound(format!(
                        "there is no setting `{name}`: the settings are {}",
                        SETTINGS.join(", ")
                    )));
                }
                let target = format!("setting \"{name}\"");
                match body {
                    Some(body) => {
                        records.settings.insert(name, body);
                        Ok(done(target, "set"))
                    }
                    None => match records.settings.remove(&name) {
                        Some(_) => Ok(done(target, "removed")),
                        None => Err(Refused::NotFound(format!("{target} is not set"))),
                    },
                }
            }
            Action::Replace { records: new } => {
                *records = *new;
                Ok(done(
                    "catalog".to_owned(),
                    "the whole configuration replaced",
                ))
            }
            Action::Import { records: new } => import(records, *new),
        }
    }
}

fn done(target: String, summary: impl Into<String>) -> Done {
    Done {
        target,
        summary: summary.into(),
        api_key: None,
    }
}

fn version_target(tool: &str, version: u32) -> String {
    format!("tool_version \"{tool}\" {version}")
}

fn draft(
    records: &mut Records,
    registry: &Registry,
    tool: String,
    version: u32,
    definition: Option<Body>,
) -> Result<Done, Refused> {
    let target = version_target(&tool, version);
    if version == 0 {
        return Err(Refused::Conflict(format!(
            "{target}: versions are numbered from 1"
        )));
    }
    if let Some(existing) = records.versions.get(&(tool.clone(), version)) {
        return Err(Refused::Conflict(format!(
            "{target} exists already ({}); a new draft takes a new number",
            existing.status.name()
        )));
    }
    let configured = records.get(Kind::ConfiguredTool, &tool).is_some();
    let mut summary = "added as a draft".to_owned();
    match (configured, &definition) {
        (true, None) => {
            return Err(Refused::Conflict(format!(
                "{target}: a version of the configured tool `{tool}` needs its definition (description, method and path or operation, arguments, results)"
            )));
        }
        (false, Some(_)) => {
            return Err(Refused::NotFound(format!(
                "{target}: there is no configured tool `{tool}` for this definition; add its gateway_tool record (its downstream) first"
            )));
        }
        (false, None) => {
            let registered: Vec<u32> = registry.versions(&tool).collect();
            if registered.is_empty() {
                return Err(Refused::NotFound(format!(
                    "{target}: no tool `{tool}` is registered or configured"
                )));
            }
            let mapped = records.versions_of(&tool).next().is_some();
            if !mapped {
                // Without a mapping the highest registered version is
                // served; record that before the draft changes the rule.
                if let Some(highest) = registered.iter().copied().filter(|v| *v != version).max() {
                    records.versions.insert(
                        (tool.clone(), highest),
                        Version {
                            status: Status::Published,
                            definition: None,
                        },
                    );
                    summary = format!(
                        "added as a draft; version {highest}, served until now without a mapping, recorded as published"
                    );
                }
            }
        }
        (true, Some(_)) => {}
    }
    records.versions.insert(
        (tool, version),
        Version {
            status: Status::Draft,
            definition,
        },
    );
    Ok(done(target, summary))
}

/// Makes `tool` a tool from configuration calling `downstream`, unless it
/// is one already (with that downstream).
fn configure(records: &mut Records, tool: &str, downstream: String) -> Result<(), Refused> {
    match records.get(Kind::ConfiguredTool, tool) {
        None => {
            let mut body = Body::new();
            body.insert("downstream".into(), Value::String(downstream));
            records
                .records
                .entry(Kind::ConfiguredTool)
                .or_default()
                .insert(tool.to_owned(), body);
            Ok(())
        }
        Some(body) if body.get("downstream").and_then(Value::as_str) == Some(&downstream) => Ok(()),
        Some(_) => Err(Refused::Conflict(format!(
            "gateway_tool \"{tool}\" calls another downstream; to move it, put its gateway_tool record"
        ))),
    }
}

fn transition(
    records: &mut Records,
    tool: &str,
    version: u32,
    to: Status,
    from: &[Status],
) -> Result<Done, Refused> {
    let target = version_target(tool, version);
    let Some(current) = records.versions.get_mut(&(tool.to_owned(), version)) else {
        let known: Vec<String> = records
            .versions_of(tool)
            .map(|(n, v)| format!("{n} ({})", v.status.name()))
            .collect();
        return Err(Refused::NotFound(match known.is_empty() {
            true => format!("{target}: `{tool}` has no mapping versions; add one with a draft"),
            false => format!(
                "{target}: there is no such version; `{tool}` has {}",
                known.join(", ")
            ),
        }));
    };
    if !from.contains(&current.status) {
        let allowed: Vec<&str> = from.iter().map(|s| s.name()).collect();
        return Err(Refused::Conflict(format!(
            "{target} is {}; only a version that is {} can become {}",
            current.status.name(),
            allowed.join(" or "),
            to.name()
        )));
    }
    let before = current.status;
    current.status = to;
    Ok(done(target, format!("{} -> {}", before.name(), to.name())))
}

/// Refuses to deprecate `version` of `tool` when it was never published
/// and is above the version served: as the highest version, deprecated,
/// it would withdraw the tool from every client without anyone deciding
/// to (deprecating the version served is how a tool is withdrawn).
fn hides_served(
    records: &Records,
    registry: &Registry,
    tool: &str,
    version: u32,
) -> Result<(), Refused> {
    let Some(current) = records.versions.get(&(tool.to_owned(), version)) else {
        return Ok(());
    };
    if !matches!(current.status, Status::Draft | Status::Proposed) {
        return Ok(());
    }
    let served = crate::gate::Served::of(records, registry, tool).map(|served| served.version());
    let highest = records.versions_of(tool).map(|(number, _)| number).max();
    match served {
        Some(served) if highest == Some(version) && version > served => {
            Err(Refused::Conflict(format!(
                "{}: it is a {} above version {served}, the one served; deprecated, as the highest version, it would withdraw `{tool}` from every client. To withdraw the tool, deprecate version {served}; a draft that is not published never reaches clients, so it can stay",
                version_target(tool, version),
                current.status.name(),
            )))
        }
        _ => Ok(()),
    }
}

fn switch(records: &mut Records, toolset: &str, active: bool) -> Result<Done, Refused> {
    let target = format!("toolset \"{toolset}\"");
    let Some(body) = records.get_mut(Kind::Toolset, toolset) else {
        return Err(Refused::NotFound(format!("there is no {target}")));
    };
    let was = body.get("active").and_then(Value::as_bool).unwrap_or(true);
    if was == active {
        return Err(Refused::Conflict(format!(
            "{target} is already {}",
            if active { "active" } else { "inactive" }
        )));
    }
    body.insert("active".into(), Value::Bool(active));
    Ok(done(
        target,
        if active { "activated" } else { "deactivated" },
    ))
}

fn assign(records: &mut Records, client: &str, toolset: &str, on: bool) -> Result<Done, Refused> {
    let target = format!("client \"{client}\"");
    if on && records.get(Kind::Toolset, toolset).is_none() {
        return Err(Refused::NotFound(format!(
            "there is no toolset \"{toolset}\""
        )));
    }
    let Some(body) = records.get_mut(Kind::Client, client) else {
        return Err(Refused::NotFound(format!("there is no {target}")));
    };
    let toolsets = body.entry("toolsets").or_insert_with(|| json!([]));
    let Value::Array(list) = toolsets else {
        return Err(Refused::Conflict(format!(
            "{target}: `toolsets` is not a list"
        )));
    };
    let position = list.iter().position(|t| t.as_str() == Some(toolset));
    match (on, position) {
        (true, Some(_)) => Err(Refused::Conflict(format!(
            "{target} has toolset \"{toolset}\" already"
        ))),
        (false, None) => Err(Refused::Conflict(format!(
            "{target} does not have toolset \"{toolset}\""
        ))),
        (true, None) => {
            list.push(Value::String(toolset.to_owned()));
            Ok(done(target, format!("toolset \"{toolset}\" assigned")))
        }
        (false, Some(i)) => {
            list.remove(i);
            Ok(done(target, format!("toolset \"{toolset}\" unassigned")))
        }
    }
}

fn rotate_key(records: &mut Records, client: &str) -> Result<Done, Refused> {
    let target = format!("client \"{client}\"");
    let Some(body) = records.get_mut(Kind::Client, client) else {
        return Err(Refused::NotFound(format!("there is no {target}")));
    };
    let key = new_api_key("tsk_");
    let replaced = body
        .get("api_keys")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    body.insert("api_keys".into(), json!([hash_api_key(&key)]));
    Ok(Done {
        target,
        summary: format!(
            "a new API key; {replaced} key{} no longer accepted",
            if replaced == 1 { "" } else { "s" }
        ),
        api_key: Some(key),
    })
}

/// A new key: `prefix` and 32 random bytes in hex.
pub(crate) fn new_api_key(prefix: &str) -> String {
    let mut bytes = [0u8; 32];
    // The operating system's generator; without it no key can be made safely.
    getrandom::fill(&mut bytes).expect("the operating system's random generator");
    let mut key = String::with_capacity(prefix.len() + 64);
    key.push_str(prefix);
    for byte in bytes {
        key.push_str(&format!("{byte:02x}"));
    }
    key
}

fn put(records: &mut Records, kind: Kind, id: String, body: Body) -> Result<Done, Refused> {
    let target = format!("{kind} \"{id}\"");
    if id.is_empty() {
        return Err(Refused::Conflict(format!(
            "{kind}: the identifier is empty"
        )));
    }
    for reserved in ["id", "name", "version"] {
        let is_key = match kind {
            Kind::ConfiguredTool => reserved != "id",
            _ => reserved == "id",
        };
        if is_key && body.contains_key(reserved) {
            return Err(Refused::Conflict(format!(
                "{target}: `{reserved}` is not a field of the body ({})",
                if reserved == "version" {
                    "a configured tool's versions are drafted one by one"
                } else {
                    "the identifier is in the path"
                }
            )));
        }
    }
    let of_kind = records.records.entry(kind).or_default();
    let summary = match of_kind.insert(id, body) {
        Some(_) => "replaced",
        None => "created",
    };
    Ok(done(target, summary))
}

fn import(records: &mut Records, new: Records) -> Result<Done, Refused> {
    let mut added = Vec::new();
    for (kind, of_kind) in new.records {
        for (id, body) in of_kind {
            if records.get(kind, &id).is_some() {
                return Err(Refused::Conflict(format!(
                    "{kind} \"{id}\" exists already: import adds records, it does not replace them"
                )));
            }
            added.push(format!("{kind} \"{id}\""));
            records.records.entry(kind).or_default().insert(id, body);
        }
    }
    for ((tool, number), mut version) in new.versions {
        if records.versions.contains_key(&(tool.clone(), number)) {
            return Err(Refused::Conflict(format!(
                "{} exists already",
                version_target(&tool, number)
            )));
        }
        version.status = Status::Draft;
        records.versions.insert((tool, number), version);
    }
    Ok(done(
        "catalog".into(),
        format!("imported as drafts: {}", added.join(", ")),
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::Action;
    use crate::changes::delta;
    use crate::records::{Body, Kind, Records};

    fn body(value: Value) -> Body {
        match value {
            Value::Object(map) => map,
            _ => unreachable!("an object"),
        }
    }

    fn actions() -> Vec<Action> {
        let definition = body(json!({
            "description": "Reads an item.", "method": "GET", "path": "/items/{id}",
            "argument": [{"name": "id", "in": "path", "type": "string", "required": true}],
        }));
        vec![
            Action::Put {
                kind: Kind::Downstream,
                id: "api".into(),
                body: body(json!({"base_url": "https://api.example.com"})),
            },
            Action::Draft {
                tool: "items.get".into(),
                version: 1,
                definition: Some(definition.clone()),
                downstream: Some("api".into()),
            },
            Action::Publish {
                tool: "items.get".into(),
                version: 1,
            },
            Action::Draft {
                tool: "items.get".into(),
                version: 2,
                definition: Some(definition),
                downstream: None,
            },
            Action::Propose {
                tool: "items.get".into(),
                version: 2,
            },
            Action::Deprecate {
                tool: "items.get".into(),
                version: 1,
            },
            // A derived tool's first draft records the version served.
            Action::Draft {
                tool: "billing.void-invoice".into(),
                version: 9,
                definition: None,
                downstream: None,
            },
            Action::Deactivate {
                toolset: "acme-billing".into(),
            },
            Action::Activate {
                toolset: "acme-billing".into(),
            },
            Action::Assign {
                client: "acme-analyst".into(),
                toolset: "acme-billing".into(),
            },
            Action::Unassign {
                client: "acme-analyst".into(),
                toolset: "acme-billing".into(),
            },
            Action::RotateKey {
                client: "globex-support".into(),
            },
            Action::Setting {
                name: "server".into(),
                body: None,
            },
            Action::Delete {
                kind: Kind::ConfiguredTool,
                id: "items.get".into(),
            },
            Action::Delete {
                kind: Kind::Client,
                id: "acme-analyst".into(),
            },
            // Refused: nothing of it may stay.
            Action::Publish {
                tool: "no.such-tool".into(),
                version: 1,
            },
            Action::Assign {
                client: "nobody".into(),
                toolset: "acme-billing".into(),
            },
        ]
    }

    #[test]
    fn an_action_writes_only_within_its_scope_and_is_put_back_from_it() {
        let registry = toolschema_demo::registry();
        let mut records =
            Records::from_toml(toolschema_demo::CATALOG_TOML, "catalog.toml", &registry)
                .expect("the demo");
        let mut applied = 0;
        for action in actions() {
            let scope = action.scope().expect("an action on some records");
            let whole_before = records.clone();
            let before = records.part(&scope);
            let shown = format!("{action:?}");
            let result = action.apply(&mut records, &registry);
            let whole = delta(&whole_before, &records, &records);
            let scoped = delta(&before, &records.part(&scope), &records);
            assert_eq!(scoped, whole, "{shown}");
            if result.is_ok() {
                applied += 1;
                assert!(!whole.is_empty(), "{shown} wrote something");
            }
            // The change applied to the records before it: the records
            // after it.
            let mut replayed = whole_before.clone();
            replayed.apply_delta(&whole);
            assert_eq!(replayed, records, "{shown}");
            // Put back from its scope: the records as they were.
            let mut back = records.clone();
            back.restore(&before, &scope);
            assert_eq!(back, whole_before, "{shown}");
        }
        assert_eq!(applied, 15);
    }
}
