//! Property tests over 10,000 random catalogs: a client never sees a tool
//! outside its active, assigned toolsets of its tenant; internal tools never
//! appear; lists are sorted; the meta-tool appears exactly when a tool is
//! shown in a reduced mode; modes and versions follow the rules.

use crate::support::{DEMO_TOOLS, tool_names};
use std::collections::BTreeMap;
use toolschema::project::ProtocolRevision;

use proptest::prelude::*;
use serde_json::Value;
use toolschema::catalog::{Config, Snapshot, Status};
use toolschema::project::{META_TOOL, Mode};
use toolschema_catalog::active_version;
use toolschema_demo::registry;

/// Names of the demo tools a toolset may name (the internal one excepted).
const TOOLS: [&str; DEMO_TOOLS.len()] = DEMO_TOOLS;
const MODES: [(&str, Mode); 3] = [
    ("full", Mode::Full),
    ("data-structure-only", Mode::DataStructureOnly),
    ("lazy", Mode::Lazy),
];
const STATUSES: [(&str, Status); 4] = [
    ("draft", Status::Draft),
    ("proposed", Status::Proposed),
    ("published", Status::Published),
    ("deprecated", Status::Deprecated),
];

#[derive(Debug, Clone)]
struct Set {
    tenant: usize,
    active: bool,
    mode: usize,
    tools: Vec<usize>,
    overrides: Vec<(usize, usize)>,
}

#[derive(Debug, Clone)]
struct Client {
    tenant: usize,
    sets: Vec<usize>,
    profile: usize,
}

#[derive(Debug, Clone)]
struct Catalog {
    tenants: usize,
    hide_support: bool,
    sets: Vec<Set>,
    clients: Vec<Client>,
    refund: Vec<usize>,
}

fn catalog() -> impl Strategy<Value = Catalog> {
    let set = (
        0..3usize,
        any::<bool>(),
        0..3usize,
        proptest::sample::subsequence((0..TOOLS.len()).collect::<Vec<_>>(), 0..=TOOLS.len()),
        proptest::collection::vec((0..TOOLS.len(), 0..3usize), 0..3),
    )
        .prop_map(|(tenant, active, mode, tools, overrides)| Set {
            tenant,
            active,
            mode,
            tools,
            overrides,
        });
    let client = (
        0..3usize,
        proptest::collection::vec(0..6usize, 0..4),
        0..3usize,
    )
        .prop_map(|(tenant, sets, profile)| Client {
            tenant,
            sets,
            profile,
        });
    (
        1..=3usize,
        any::<bool>(),
        proptest::collection::vec(set, 0..6),
        proptest::collection::vec(client, 1..6),
        proptest::collection::vec(0..4usize, 0..=2),
    )
        .prop_map(|(tenants, hide_support, sets, clients, refund)| Catalog {
            tenants,
            hide_support,
            sets,
            clients,
            refund,
        })
}

impl Catalog {
    /// The TOML text, kept valid: references stay within the tenant, hidden
    /// tools are not named.
    fn toml(&self) -> String {
        let mut out = String::new();
        if self.hide_support {
            out.push_str("[catalog]\ninternal_prefixes = [\"support.\"]\n\n");
        }
        for t in 0..self.tenants {
            out.push_str(&format!("[[tenant]]\nid = \"t{t}\"\n\n"));
        }
        for (i, set) in self.sets.iter().enumerate() {
            let tenant = set.tenant % self.tenants;
            let tools: Vec<usize> = set
                .tools
                .iter()
                .copied()
                .filter(|&t| self.nameable(t))
                .collect();
            let names: Vec<String> = tools.iter().map(|&t| format!("\"{}\"", TOOLS[t])).collect();
            out.push_str(&format!(
                "[[toolset]]\nid = \"s{i}\"\ntenant = \"t{tenant}\"\nactive = {}\nmode = \"{}\"\ntools = [{}]\n",
                set.active,
                MODES[set.mode].0,
                names.join(", ")
            ));
            let overrides: BTreeMap<usize, usize> = set
                .overrides
                .iter()
                .copied()
                .filter(|(t, _)| tools.contains(t))
                .collect();
            let entries: Vec<String> = overrides
                .iter()
                .map(|(t, m)| format!("\"{}\" = \"{}\"", TOOLS[*t], MODES[*m].0))
                .collect();
            out.push_str(&format!("modes = {{ {} }}\n\n", entries.join(", ")));
        }
        for (i, client) in self.clients.iter().enumerate() {
            let tenant = client.tenant % self.tenants;
            let mut sets: Vec<String> = client
                .sets
                .iter()
                .filter(|&&s| s < self.sets.len() && self.sets[s].tenant % self.tenants == tenant)
                .map(|s| format!("\"s{s}\""))
                .collect();
            sets.dedup();
            let profile = ["default", "openai-strict", "gemini"][client.profile];
            out.push_str(&format!(
                "[[client]]\nid = \"c{i}\"\ntenant = \"t{tenant}\"\nprofile = \"{profile}\"\ntoolsets = [{}]\n\n",
                sets.join(", ")
            ));
        }
        if !self.refund.is_empty() {
            let versions: Vec<String> = self
                .refund
                .iter()
                .enumerate()
                .map(|(i, s)| format!("{{ version = {}, status = \"{}\" }}", i + 1, STATUSES[*s].0))
                .collect();
            out.push_str(&format!(
                "[[mapping]]\ntool = \"billing.refund\"\nversions = [{}]\n",
                versions.join(", ")
            ));
        }
        out
    }

    fn nameable(&self, tool: usize) -> bool {
        !(self.hide_support && TOOLS[tool].starts_with("support."))
    }
}

/// What the rules say client `c` sees: tool -> (mode, version).
fn expected(config: &Config, client: &str) -> BTreeMap<String, (Mode, u32)> {
    let mut out: BTreeMap<String, (Mode, u32)> = BTreeMap::new();
    let Some(client) = config.client(client) else {
        return out;
    };
    for set in client.toolsets().filter_map(|s| config.toolset(s)) {
        if !set.is_active() || set.tenant() != client.tenant() {
            continue;
        }
        for tool in set.tools() {
            let version = match config.mapping(tool) {
                Some(versions) => active_version(versions),
                None if tool == "billing.refund" => Some(2),
                None => Some(1),
            };
            let Some(version) = version else { continue };
            let mode = set.mode_of(tool);
            let entry = out.entry(tool.to_owned()).or_insert((mode, version));
            entry.0 = entry.0.max(mode);
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, ..ProptestConfig::default() })]

    #[test]
    fn random_catalogs_obey_the_rules(catalog in catalog()) {
        let text = catalog.toml();
        let registry = std::sync::Arc::new(registry());
        let config = Config::from_toml(&text, "random.toml", &registry);
        let config = match config {
            Ok(config) => config,
            Err(errors) => return Err(TestCaseError::fail(format!("{errors}\n{text}"))),
        };
        let snapshot = Snapshot::build(registry, &config);
        for id in config.clients().map(|c| c.id()) {
            let view = snapshot.client(id).ok_or_else(|| TestCaseError::fail("client missing"))?;
            let list: Value = serde_json::from_str(view.list_json(ProtocolRevision::LATEST)).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let names: Vec<&str> = tool_names(&list["tools"]);
            let mut sorted = names.clone();
            sorted.sort_unstable();
            sorted.dedup();
            prop_assert_eq!(&names, &sorted, "sorted and unique");
            prop_assert_eq!(names.clone(), view.names());
            prop_assert!(!names.contains(&"internal.reindex"));
            if config.is_internal_name("support.open-ticket") {
                prop_assert!(!names.iter().any(|n| n.starts_with("support.")));
            }
            let want = expected(&config, id);
            let tools: Vec<&str> = names.iter().copied().filter(|n| *n != META_TOOL).collect();
            prop_assert_eq!(tools, want.keys().map(String::as_str).collect::<Vec<_>>());
            for (tool, (mode, version)) in &want {
                prop_assert_eq!(view.mode_of(tool), Some(*mode), "mode of {}", tool);
                prop_assert_eq!(view.version_of(tool), Some(*version), "version of {}", tool);
            }
            let reduced = want.values().any(|(mode, _)| *mode != Mode::Full);
            prop_assert_eq!(names.contains(&META_TOOL), reduced, "meta-tool");
        }
    }
}
