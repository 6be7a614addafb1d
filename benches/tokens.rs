//! What the discovery modes save, in tokens (DESIGN §10): the same tools
//! listed in Full, DataStructureOnly and Lazy mode, counted with the
//! `o200k_base` tokenizer (`catalog::cost`), for the demo tools and for a
//! large generated catalog shaped like real APIs (nested objects, enums,
//! formats, arrays of objects, pagination, descriptions of a few
//! sentences).
//!
//! `cargo bench --bench tokens` prints the table of benches/README.md.
//! Deterministic: the generated catalog comes from a fixed seed.

#![allow(missing_docs)]

use std::fmt::Write as _;

use toolschema::call::Registry;
use toolschema::catalog::Catalog;
use toolschema::project::ProtocolRevision;
use toolschema_catalog::cost::{ClientCost, ENCODING, Tokenizer, client_cost};

/// How many tools the generated catalog has.
const GENERATED_TOOLS: usize = 400;

/// A small deterministic generator (xorshift).
struct Seed(u64);

impl Seed {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const DOMAINS: [&str; 10] = [
    "crm",
    "billing",
    "inventory",
    "shipping",
    "hr",
    "support",
    "marketing",
    "payments",
    "analytics",
    "identity",
];
const RESOURCES: [&str; 12] = [
    "contacts",
    "accounts",
    "invoices",
    "orders",
    "shipments",
    "employees",
    "tickets",
    "campaigns",
    "refunds",
    "reports",
    "users",
    "subscriptions",
];
const VERBS: [(&str, &str); 6] = [
    (
        "get",
        "Returns one {r} by its id, with the related records the caller asks to expand.",
    ),
    (
        "list",
        "Lists {r} matching the filters, newest first, one page at a time; use the cursor from the previous page to continue.",
    ),
    (
        "create",
        "Creates a {r} from the fields given and returns it with its new id. Fields left out take the account's defaults.",
    ),
    (
        "update",
        "Changes the given fields of one {r}; fields left out keep their values. Returns the {r} as it now is.",
    ),
    (
        "delete",
        "Deletes one {r}. It can be restored from the recycle bin for 30 days by an administrator.",
    ),
    (
        "search",
        "Searches {r} by free text across names, notes and tags, ranked by relevance; filters narrow the search.",
    ),
];
const STATUSES: [&str; 6] = [
    "draft",
    "active",
    "pending",
    "suspended",
    "closed",
    "archived",
];
const COUNTRIES: [&str; 8] = ["US", "GB", "DE", "FR", "JP", "BR", "IN", "CA"];

/// One field: `name`, TOML lines after `name`.
fn field(out: &mut String, role: &str, name: &str, lines: &str) {
    let _ = write!(
        out,
        "\n[[gateway_tool.version.{role}]]\nname = \"{name}\"\n{lines}\n"
    );
}

/// The fields of a record of a resource, under `prefix`.
fn record(out: &mut String, role: &str, prefix: &str, resource: &str, seed: &mut Seed) {
    let singular = resource.trim_end_matches('s');
    field(
        out,
        role,
        &format!("{prefix}id"),
        &format!(
            "type = \"string\"\nformat = \"uuid\"\nrequired = true\ndescription = \"The {singular}'s id.\""
        ),
    );
    field(
        out,
        role,
        &format!("{prefix}name"),
        &format!(
            "type = \"string\"\nmax_length = 200\ndescription = \"The {singular}'s display name, as shown in lists and search results.\""
        ),
    );
    let statuses: Vec<String> = STATUSES[..2 + seed.below(4)]
        .iter()
        .map(|s| format!("\"{s}\""))
        .collect();
    field(
        out,
        role,
        &format!("{prefix}status"),
        &format!(
            "type = \"string\"\nenum = [{}]\ndescription = \"Where the {singular} is in its life cycle.\"",
            statuses.join(", ")
        ),
    );
    field(
        out,
        role,
        &format!("{prefix}email"),
        "type = \"string\"\nformat = \"email\"\ndescription = \"The address notices are sent to.\"",
    );
    if seed.below(2) == 0 {
        field(
            out,
            role,
            &format!("{prefix}address"),
            "type = \"object\"\ndescription = \"The postal address.\"",
        );
        for (name, extra) in [
            ("street", "max_length = 120"),
            ("city", "max_length = 80"),
            ("postal_code", "pattern = \"^[A-Za-z0-9 -]{3,10}$\""),
        ] {
            field(
                out,
                role,
                &format!("{prefix}address.{name}"),
                &format!("type = \"string\"\n{extra}"),
            );
        }
        let countries: Vec<String> = COUNTRIES.iter().map(|c| format!("\"{c}\"")).collect();
        field(
            out,
            role,
            &format!("{prefix}address.country"),
            &format!(
                "type = \"string\"\nenum = [{}]\ndescription = \"ISO 3166 country code.\"",
                countries.join(", ")
            ),
        );
    }
    if seed.below(2) == 0 {
        field(
            out,
            role,
            &format!("{prefix}lines"),
            "type = \"array\"\ndescription = \"The items, in order.\"",
        );
        field(
            out,
            role,
            &format!("{prefix}lines[].sku"),
            "type = \"string\"\nrequired = true\ndescription = \"The catalog number of the item.\"",
        );
        field(
            out,
            role,
            &format!("{prefix}lines[].quantity"),
            "type = \"integer\"\nminimum = 1\nmaximum = 10000\nrequired = true",
        );
        field(
            out,
            role,
            &format!("{prefix}lines[].unit_price"),
            "type = \"number\"\nminimum = 0\ndescription = \"Price of one item, in the account's currency.\"",
        );
    }
    field(
        out,
        role,
        &format!("{prefix}updated_at"),
        "type = \"string\"\nformat = \"date-time\"\ndescription = \"When the record last changed (RFC 3339).\"",
    );
    if seed.below(3) == 0 {
        field(
            out,
            role,
            &format!("{prefix}tags[]"),
            "type = \"string\"\nmax_length = 40\ndescription = \"Free labels, for filtering.\"",
        );
    }
}

/// A generated gateway tool's TOML.
fn tool(
    out: &mut String,
    name: &str,
    verb: &str,
    resource: &str,
    description: &str,
    seed: &mut Seed,
) {
    let method = match verb {
        "get" | "list" | "search" => "GET",
        "delete" => "DELETE",
        "update" => "PATCH",
        _ => "POST",
    };
    let _ = write!(
        out,
        "\n[[gateway_tool]]\nname = \"{name}\"\ndownstream = \"api\"\n\n[[gateway_tool.version]]\nversion = 1\nstatus = \"published\"\ndescription = \"{description}\"\nmethod = \"{method}\"\npath = \"/{resource}\"\n"
    );
    match verb {
        "list" | "search" => {
            if verb == "search" {
                field(
                    out,
                    "argument",
                    "query",
                    "type = \"string\"\nrequired = true\nmin_length = 1\nmax_length = 500\ndescription = \"The words to look for.\"",
                );
            }
            field(
                out,
                "argument",
                "status",
                "type = \"string\"\nenum = [\"active\", \"pending\", \"closed\"]\ndescription = \"Only records in this status.\"",
            );
            field(
                out,
                "argument",
                "updated_after",
                "type = \"string\"\nformat = \"date-time\"\ndescription = \"Only records changed after this time.\"",
            );
            field(
                out,
                "argument",
                "page_size",
                "type = \"integer\"\nminimum = 1\nmaximum = 100\ndefault = 25\ndescription = \"How many records a page holds.\"",
            );
            field(
                out,
                "argument",
                "cursor",
                "type = \"string\"\ndescription = \"The cursor of the page to read, from the previous page's `next_cursor`.\"",
            );
            field(out, "result", "items", "type = \"array\"\nrequired = true");
            record(out, "result", "items[].", resource, seed);
            field(
                out,
                "result",
                "next_cursor",
                "type = \"string\"\ndescription = \"Where the next page starts; absent on the last page.\"",
            );
        }
        "get" | "delete" => {
            field(
                out,
                "argument",
                "id",
                "type = \"string\"\nformat = \"uuid\"\nrequired = true\nin = \"query\"\ndescription = \"The record's id.\"",
            );
            if verb == "get" {
                field(
                    out,
                    "argument",
                    "expand[]",
                    "type = \"string\"\nsource = \"expand\"\nenum = [\"owner\", \"history\", \"attachments\"]\ndescription = \"Related records to include.\"",
                );
                record(out, "result", "", resource, seed);
            } else {
                field(
                    out,
                    "result",
                    "deleted",
                    "type = \"boolean\"\nrequired = true",
                );
            }
        }
        _ => {
            record(out, "argument", "", resource, seed);
            record(out, "result", "", resource, seed);
        }
    }
}

/// A catalog of `tools` generated tools, each client seeing all of them in
/// one mode.
fn generated(tools: usize) -> (String, Vec<String>) {
    let mut seed = Seed(0x9e37_79b9_7f4a_7c15);
    let mut text =
        String::from("[[downstream]]\nid = \"api\"\nbase_url = \"https://api.example.com/v1\"\n");
    let mut names = Vec::new();
    // Past the 720 combinations, the domains again as other units
    // (`billing2.invoices.get`).
    'out: for round in 0.. {
        for domain in DOMAINS {
            for resource in RESOURCES {
                for (verb, description) in VERBS {
                    if names.len() == tools {
                        break 'out;
                    }
                    let name = match round {
                        0 => format!("{domain}.{resource}.{verb}"),
                        n => format!("{domain}{}.{resource}.{verb}", n + 1),
                    };
                    let singular = resource.trim_end_matches('s');
                    let description = description.replace(
                        "{r}",
                        if verb == "list" || verb == "search" {
                            resource
                        } else {
                            singular
                        },
                    );
                    tool(&mut text, &name, verb, resource, &description, &mut seed);
                    names.push(name);
                }
            }
        }
    }
    (text, names)
}

/// The modes measured, by configuration name and by name in the table.
const MODES: [(&str, &str); 4] = [
    ("full", "Full"),
    ("data-structure-only", "DataStructureOnly"),
    ("lazy", "Lazy"),
    ("search", "Search"),
];

/// Four clients, one per mode, each seeing `names`.
fn clients(names: &[String]) -> String {
    let list: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    let mut text = String::from("[[tenant]]\nid = \"t\"\n");
    for (mode, _) in MODES {
        let _ = write!(
            text,
            "\n[[toolset]]\nid = \"{mode}\"\ntenant = \"t\"\nmode = \"{mode}\"\ntools = [{}]\n\n[[client]]\nid = \"{mode}\"\ntenant = \"t\"\ntoolsets = [\"{mode}\"]\n",
            list.join(", ")
        );
    }
    text
}

fn costs(registry: Registry, text: &str, tokenizer: &Tokenizer) -> Vec<ClientCost> {
    let catalog = Catalog::from_toml(registry, text, "tokens.toml")
        .unwrap_or_else(|errors| panic!("{errors}"));
    let snapshot = catalog.snapshot();
    let costs = MODES
        .iter()
        .map(|(client, _)| {
            client_cost(&snapshot, client, ProtocolRevision::LATEST, tokenizer).expect("a client")
        })
        .collect();
    search_round(&snapshot, tokenizer);
    costs
}

/// What a search -> describe -> call round adds to a conversation, for the
/// client in search mode: each tool found by its own description (the
/// answers of `search_tools`, limit 8, brief, and of `discover_tool_schema`
/// for the first found), averaged.
fn search_round(snapshot: &toolschema::catalog::Snapshot, tokenizer: &Tokenizer) {
    let view = snapshot.client("search").expect("the search client");
    let (mut searches, mut describes, mut rounds) = (0, 0, 0);
    for (def, _) in view.tools() {
        let query = serde_json::json!({"query": &*def.description});
        let found = view
            .call_meta("search_tools", &query, ProtocolRevision::LATEST)
            .expect("listed")
            .expect("answered");
        let Some(first) = found.structured["tools"][0]["name"].as_str() else {
            continue;
        };
        let described = view
            .call_meta(
                "discover_tool_schema",
                &serde_json::json!({"name": first}),
                ProtocolRevision::LATEST,
            )
            .expect("listed")
            .expect("answered");
        searches += tokenizer.count(&query.to_string()) + tokenizer.count(&found.text);
        describes += tokenizer.count(&described.text);
        rounds += 1;
    }
    println!(
        "search round ({rounds} queries): search_tools call and answer {:.0} tokens, discover_tool_schema answer {:.0} tokens",
        searches as f64 / rounds as f64,
        describes as f64 / rounds as f64
    );
}

fn table(title: &str, costs: &[ClientCost]) {
    let tools = costs[0].full.tools;
    let full = costs[0].full.tokens;
    println!("{title}: {tools} tools");
    println!("| mode | list tokens | per tool | list bytes | saving against Full |");
    println!("| --- | --- | --- | --- | --- |");
    for ((_, mode), cost) in MODES.iter().zip(costs) {
        println!(
            "| {mode} | {} | {:.0} | {} | {:.1}% |",
            cost.list.tokens,
            cost.list.tokens as f64 / tools as f64,
            cost.list.bytes,
            100.0 * (1.0 - cost.list.tokens as f64 / full as f64)
        );
    }
    println!();
}

fn main() {
    // `cargo bench` passes `--bench`; any other argument is a filter this
    // bench does not take.
    let tokenizer = Tokenizer::new().expect("the encoding ships with the crate");
    println!("tokens counted with {ENCODING}\n");

    let registry = toolschema_demo::registry();
    // Every version is registered; a toolset names a tool once.
    let mut demo: Vec<String> = registry
        .tools()
        .map(|def| def.name.to_string())
        .filter(|name| !name.starts_with("internal."))
        .collect();
    demo.sort();
    demo.dedup();
    table(
        "the demo tools",
        &costs(toolschema_demo::registry(), &clients(&demo), &tokenizer),
    );

    for size in [GENERATED_TOOLS, 1_000] {
        let (tools, names) = generated(size);
        let text = format!("{}\n{tools}", clients(&names));
        table(
            "a generated catalog shaped like real APIs",
            &costs(Registry::new(), &text, &tokenizer),
        );
    }
}
