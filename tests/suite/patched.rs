//! A configuration after a change ([`Config::apply`]) and
//! the snapshot built from it as a change are the ones a whole check and a
//! whole build give: over random sequences of changes to every section
//! (tenants, clients, toolsets, configured tools, mappings, the downstream
//! and the `[catalog]` setting; refused ones included), given as the
//! catalog store gives them ([`toolschema_config::Delta`]), every applied
//! change either agrees with the whole check or declines, and every client
//! is served the same lists, versions and keys by the snapshot rebuilt from
//! what it touched ([`Snapshot::rebuild`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use toolschema::catalog::{Config, Snapshot, Status, hash_api_key};
use toolschema::project::ProtocolRevision;
use toolschema_config::{Delta, Section, ToolRecord, VersionRecord};
use toolschema_demo::registry;

use crate::support::DEMO_TOOLS;

/// The records of a configuration: table, then id, then the entry as the
/// document holds it.
type Records = BTreeMap<&'static str, BTreeMap<String, Value>>;

/// The tables in the order a catalog store writes its document (`catalog`
/// is a setting: one table, not a list).
const TABLES: [&str; 7] = [
    "catalog",
    "tenant",
    "toolset",
    "client",
    "downstream",
    "gateway_tool",
    "mapping",
];

const TENANTS: [&str; 3] = ["acme", "globex", "initech"];
const STATUSES: [&str; 4] = ["draft", "proposed", "published", "deprecated"];
const MODES: [&str; 4] = ["full", "data-structure-only", "lazy", "search"];
const PROFILES: [&str; 3] = ["default", "openai-strict", "gemini"];

fn configured_tool(name: &str, statuses: &[usize]) -> Value {
    let versions: Vec<Value> = statuses
        .iter()
        .enumerate()
        .map(|(i, status)| {
            json!({
                "version": i + 1,
                "status": STATUSES[*status],
                "description": format!("Reads an item, as version {} of {name} does.", i + 1),
                "method": "GET",
                "path": format!("/{name}/{{id}}"),
                "argument": [{"name": "id", "in": "path", "type": "string", "required": true}],
            })
        })
        .collect();
    json!({"name": name, "downstream": "api", "version": versions})
}

fn base() -> Records {
    let mut records = Records::new();
    let mut put = |table: &'static str, id: &str, entry: Value| {
        records
            .entry(table)
            .or_default()
            .insert(id.to_owned(), entry);
    };
    for tenant in &TENANTS[..2] {
        put("tenant", tenant, json!({"id": tenant}));
    }
    put(
        "downstream",
        "api",
        json!({"id": "api", "base_url": "https://api.example.com"}),
    );
    for (i, statuses) in [vec![2], vec![2, 0], vec![2, 2], vec![3]]
        .iter()
        .enumerate()
    {
        let name = format!("items.g{i}");
        put("gateway_tool", &name, configured_tool(&name, statuses));
    }
    put(
        "mapping",
        "billing.refund",
        json!({"tool": "billing.refund", "versions": [
            {"version": 1, "status": "published"}, {"version": 2, "status": "draft"}]}),
    );
    for (id, tenant, tools) in [
        (
            "s0",
            "acme",
            vec!["billing.refund", "billing.get-invoice", "items.g0"],
        ),
        (
            "s1",
            "acme",
            vec!["items.g1", "items.g2", "support.open-ticket"],
        ),
        (
            "s2",
            "globex",
            vec!["items.g0", "items.g3", "billing.refund"],
        ),
        ("s3", "globex", vec!["support.search-tickets"]),
    ] {
        put(
            "toolset",
            id,
            json!({"id": id, "tenant": tenant, "tools": tools, "mode": "full"}),
        );
    }
    for (id, tenant, sets) in [
        ("c0", "acme", vec!["s0"]),
        ("c1", "acme", vec!["s0", "s1"]),
        ("c2", "acme", vec!["s1"]),
        ("c3", "globex", vec!["s2", "s3"]),
        ("c4", "globex", vec![]),
    ] {
        put(
            "client",
            id,
            json!({"id": id, "tenant": tenant, "toolsets": sets,
                   "api_keys": [hash_api_key(&format!("key-{id}"))]}),
        );
    }
    records
}

/// Names a toolset may list: the demo's, the configured ones, and one
/// that names nothing.
fn tool_names() -> Vec<String> {
    let mut names: Vec<String> = DEMO_TOOLS.iter().map(|t| (*t).to_owned()).collect();
    names.extend((0..6).map(|i| format!("items.g{i}")));
    names.push("nothing.here".to_owned());
    names
}

/// One edit of the records.
#[derive(Debug, Clone)]
enum Edit {
    Toolset {
        id: usize,
        tenant: usize,
        active: bool,
        mode: usize,
        tools: Vec<usize>,
    },
    Client {
        id: usize,
        tenant: usize,
        sets: Vec<usize>,
        profile: usize,
        /// Its API key: the `.1`th of those named after client `.0`,
        /// which another client may hold (the change is refused then).
        key: (usize, usize),
    },
    Tool {
        id: usize,
        statuses: Vec<usize>,
    },
    Mapping(Vec<usize>),
    Tenant(usize),
    /// The downstream's timeout, in seconds (every configured tool calls
    /// it).
    Downstream(u32),
    /// `[catalog]`: the tools named `items.g{n}` internal, or no setting.
    Internal(Option<usize>),
    Remove(&'static str, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let names = tool_names().len();
    prop_oneof![
        (
            0..6usize,
            0..3usize,
            any::<bool>(),
            0..MODES.len(),
            proptest::collection::vec(0..names, 0..5)
        )
            .prop_map(|(id, tenant, active, mode, tools)| Edit::Toolset {
                id,
                tenant,
                active,
                mode,
                tools
            }),
        (
            0..7usize,
            0..3usize,
            proptest::collection::vec(0..6usize, 0..3),
            0..PROFILES.len(),
            (0..4usize, 0..2usize)
        )
            .prop_map(|(id, tenant, sets, profile, key)| Edit::Client {
                id,
                tenant,
                sets,
                profile,
                key
            }),
        (
            0..6usize,
            proptest::collection::vec(0..STATUSES.len(), 0..4)
        )
            .prop_map(|(id, statuses)| Edit::Tool { id, statuses }),
        proptest::collection::vec(0..STATUSES.len(), 0..3).prop_map(Edit::Mapping),
        (0..TENANTS.len()).prop_map(Edit::Tenant),
        (1..4u32).prop_map(Edit::Downstream),
        proptest::option::of(0..4usize).prop_map(Edit::Internal),
        (
            prop_oneof![
                Just("tenant"),
                Just("toolset"),
                Just("client"),
                Just("gateway_tool"),
                Just("mapping")
            ],
            0..7usize
        )
            .prop_map(|(table, n)| Edit::Remove(table, n)),
    ]
}

impl Edit {
    fn apply(&self, records: &mut Records) {
        let names = tool_names();
        let mut put = |table: &'static str, id: String, entry: Value| {
            records.entry(table).or_default().insert(id, entry);
        };
        match self {
            Edit::Toolset {
                id,
                tenant,
                active,
                mode,
                tools,
            } => {
                let tools: Vec<&String> = tools.iter().map(|t| &names[*t]).collect();
                put(
                    "toolset",
                    format!("s{id}"),
                    json!({"id": format!("s{id}"), "tenant": TENANTS[*tenant], "active": active,
                           "mode": MODES[*mode], "tools": tools}),
                );
            }
            Edit::Client {
                id,
                tenant,
                sets,
                profile,
                key,
            } => {
                let sets: Vec<String> = sets.iter().map(|s| format!("s{s}")).collect();
                put(
                    "client",
                    format!("c{id}"),
                    json!({"id": format!("c{id}"), "tenant": TENANTS[*tenant], "toolsets": sets,
                           "profile": PROFILES[*profile],
                           "api_keys": [hash_api_key(&format!("key-c{}-{}", key.0, key.1))]}),
                );
            }
            Edit::Tool { id, statuses } => {
                let name = format!("items.g{id}");
                put(
                    "gateway_tool",
                    name.clone(),
                    configured_tool(&name, statuses),
                );
            }
            // A catalog store holds a mapping as its versions: none is
            // no mapping.
            Edit::Mapping(statuses) if statuses.is_empty() => {
                if let Some(mappings) = records.get_mut("mapping") {
                    mappings.remove("billing.refund");
                }
            }
            Edit::Mapping(statuses) => {
                let versions: Vec<Value> = statuses
                    .iter()
                    .enumerate()
                    .map(|(i, s)| json!({"version": i + 1, "status": STATUSES[*s]}))
                    .collect();
                put(
                    "mapping",
                    "billing.refund".into(),
                    json!({"tool": "billing.refund", "versions": versions}),
                );
            }
            Edit::Tenant(n) => put("tenant", TENANTS[*n].into(), json!({"id": TENANTS[*n]})),
            Edit::Downstream(seconds) => put(
                "downstream",
                "api".into(),
                json!({"id": "api", "base_url": "https://api.example.com",
                       "timeout_ms": seconds * 1000}),
            ),
            Edit::Internal(Some(n)) => put(
                "catalog",
                "catalog".into(),
                json!({"internal_prefixes": [format!("items.g{n}")]}),
            ),
            Edit::Internal(None) => {
                records.remove("catalog");
            }
            Edit::Remove(table, n) => {
                let id = match *table {
                    "tenant" => TENANTS[n % TENANTS.len()].to_owned(),
                    "toolset" => format!("s{n}"),
                    "client" => format!("c{n}"),
                    "gateway_tool" => format!("items.g{n}"),
                    _ => "billing.refund".to_owned(),
                };
                if let Some(of_table) = records.get_mut(table) {
                    of_table.remove(&id);
                }
            }
        }
    }
}

/// The records as a document, in the store's order.
fn document(records: &Records) -> Map<String, Value> {
    let mut document = Map::new();
    for table in TABLES {
        if let Some(entries) = records.get(table).filter(|e| !e.is_empty()) {
            match table {
                "catalog" => document.insert(table.into(), entries["catalog"].clone()),
                _ => document.insert(table.into(), entries.values().cloned().collect()),
            };
        }
    }
    document
}

/// What changed from `before` to `after`, as the catalog store says it:
/// each record written, whole (a tool with all its versions), or removed.
fn change(before: &Records, after: &Records) -> Delta {
    let mut delta = Delta::default();
    for table in TABLES {
        let (was, is) = (before.get(table), after.get(table));
        let mut changed: Vec<(&String, Option<&Value>)> = Vec::new();
        for (id, entry) in is.into_iter().flatten() {
            if was.and_then(|w| w.get(id)) != Some(entry) {
                changed.push((id, Some(entry)));
            }
        }
        for id in was.into_iter().flatten().map(|(id, _)| id) {
            if is.is_none_or(|is| !is.contains_key(id)) {
                changed.push((id, None));
            }
        }
        let section = Section::from_key(table).expect("a section");
        for (id, entry) in changed {
            let entry = entry.and_then(Value::as_object).cloned();
            match section {
                Section::Catalog => {
                    delta.settings.insert(section, entry);
                }
                Section::ConfiguredTool | Section::Mapping => {
                    delta
                        .tools
                        .insert(id.clone(), entry.map(|e| tool_record(section, e)));
                }
                _ => {
                    let body = entry.map(|mut entry| {
                        entry.remove("id");
                        entry
                    });
                    delta
                        .records
                        .entry(section)
                        .or_default()
                        .insert(id.clone(), body);
                }
            }
        }
    }
    delta
}

/// A configured tool's or a mapping's entry as the store keeps a tool.
fn tool_record(section: Section, mut entry: Map<String, Value>) -> ToolRecord {
    let list = match section {
        Section::Mapping => entry.remove("versions"),
        _ => entry.remove("version"),
    };
    let versions = list
        .and_then(|list| list.as_array().cloned())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|version| {
            let mut fields = version.as_object()?.clone();
            let number = u32::try_from(fields.remove("version")?.as_u64()?).ok()?;
            let status = Status::from_name(fields.remove("status")?.as_str()?)?;
            let definition = (section == Section::ConfiguredTool).then_some(fields);
            Some((number, VersionRecord { status, definition }))
        })
        .collect();
    entry.remove("name");
    let configured = (section == Section::ConfiguredTool).then_some(entry);
    ToolRecord {
        configured,
        versions,
    }
}

/// What a snapshot serves: each client's lists in every revision, the
/// version of each tool it sees, and whom each key opens.
fn served(snapshot: &Snapshot) -> Vec<String> {
    let mut served: Vec<String> = snapshot
        .clients()
        .map(|view| {
            // The lists' hashes: equal lists, equal hashes.
            let lists: Vec<u64> = ProtocolRevision::ALL
                .into_iter()
                .map(|r| view.fingerprint(r))
                .collect();
            let versions: Vec<String> = view
                .tools()
                .map(|(def, mode)| format!("{}@{} {mode:?}", def.name, def.version))
                .collect();
            format!("{} ({}): {lists:?} {versions:?}", view.id(), view.tenant())
        })
        .collect();
    served.sort();
    for id in 0..7 {
        for key in [
            format!("key-c{id}"),
            format!("key-c{id}-0"),
            format!("key-c{id}-1"),
        ] {
            if let Some(view) = snapshot.client_by_key(&key) {
                served.push(format!("{key} -> {}", view.id()));
            }
        }
    }
    served
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn a_patched_configuration_and_its_snapshot_are_the_whole_ones(
        changes in proptest::collection::vec(proptest::collection::vec(edit(), 1..4), 1..8)
    ) {
        let base_registry = Arc::new(registry());
        let registry = registry();
        let mut records = base();
        let mut config = Config::from_json(document(&records), "records", &registry)
            .unwrap_or_else(|e| panic!("the base catalog: {e}"));
        let mut snapshot = Snapshot::build(base_registry.clone(), &config);
        for edits in changes {
            let mut next = records.clone();
            for edit in &edits {
                edit.apply(&mut next);
            }
            let delta = change(&records, &next);
            let whole = Config::from_json(document(&next), "records", &registry);
            let patched = config.apply(&delta, &registry);
            match (&whole, patched) {
                (Err(_), None) => {}
                (Err(errors), Some(_)) => {
                    panic!("patched a change the whole check refuses ({edits:?}): {errors}")
                }
                (Ok(whole), patched) => {
                    let rebuilt = Snapshot::build(base_registry.clone(), whole);
                    let (next_config, touched) = match patched {
                        Some((patched, touched)) => {
                            prop_assert_eq!(format!("{patched:?}"), format!("{whole:?}"));
                            (patched, Some(touched))
                        }
                        None => (whole.clone(), None),
                    };
                    let shared = Arc::new(next_config.clone());
                    let after = Snapshot::rebuild(
                        &snapshot,
                        base_registry.clone(),
                        shared,
                        touched.as_ref(),
                        &toolschema_configured::NoTransport,
                    );
                    prop_assert_eq!(served(&after), served(&rebuilt), "after {:?}", edits);
                    // The clients whose lists changed, found from the views
                    // the change replaced, are those comparing every
                    // client finds.
                    let mut every = std::collections::BTreeSet::new();
                    for view in after.clients().chain(snapshot.clients()) {
                        let differs = match (snapshot.client(view.id()), after.client(view.id())) {
                            (Some(was), Some(is)) => !was.same_list(is),
                            (None, None) => false,
                            _ => true,
                        };
                        if differs {
                            every.insert(view.id().to_owned());
                        }
                    }
                    prop_assert_eq!(after.clients_changed_since(&snapshot), every, "after {:?}", edits);
                    records = next;
                    config = next_config;
                    snapshot = after;
                }
            }
        }
    }
}

#[test]
fn changes_of_one_record_are_patched_and_a_broken_reference_is_not() {
    let registry = registry();
    let records = base();
    let config = Config::from_json(document(&records), "records", &registry).expect("the base");
    let patch = |edit: Edit| {
        let mut next = records.clone();
        edit.apply(&mut next);
        config
            .apply(&change(&records, &next), &registry)
            .map(|(config, _)| config)
    };
    // A toolset switched off, a client's toolsets changed, a configured
    // tool's new version, a mapping's statuses: each patched.
    let off = patch(Edit::Toolset {
        id: 0,
        tenant: 0,
        active: false,
        mode: 0,
        tools: vec![4],
    });
    assert!(off.is_some_and(|c| !c.toolset("s0").expect("s0").is_active()));
    let assigned = patch(Edit::Client {
        id: 2,
        tenant: 0,
        sets: vec![0, 1],
        profile: 1,
        key: (2, 0),
    });
    assert_eq!(
        assigned.map(|c| c.client("c2").expect("c2").toolsets().count()),
        Some(2)
    );
    let published = patch(Edit::Tool {
        id: 1,
        statuses: vec![3, 2],
    });
    assert_eq!(
        published.and_then(|c| c.mapping("items.g1").map(<[_]>::to_vec)),
        Some(vec![
            (1, toolschema::catalog::Status::Deprecated),
            (2, toolschema::catalog::Status::Published)
        ])
    );
    assert!(patch(Edit::Mapping(vec![2, 2])).is_some());
    // Broken references: declined, the whole check says why.
    assert!(
        patch(Edit::Remove("toolset", 1)).is_none(),
        "c1 and c2 name s1"
    );
    assert!(
        patch(Edit::Remove("tenant", 1)).is_none(),
        "c3 is of globex"
    );
    assert!(
        patch(Edit::Remove("gateway_tool", 0)).is_none(),
        "s0 names items.g0"
    );
    let cross = patch(Edit::Client {
        id: 0,
        tenant: 0,
        sets: vec![2],
        profile: 0,
        key: (2, 0),
    });
    assert!(cross.is_none(), "s2 is globex's");
}
