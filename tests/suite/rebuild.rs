//! A configuration checked again after a change, and the snapshot built
//! after the one it replaces: what did not change is shared (checked
//! tools, lists, renderings, registered work and compiled validators),
//! what changed is new, and the result serves what a whole check and a
//! fresh build serve.

use std::sync::Arc;

use serde_json::{Map, Value, json};
use toolschema::call::Registry;
use toolschema::catalog::{Catalog, Config, Snapshot};
use toolschema::project::ProtocolRevision;

/// A configured tool reading `path` from the downstream `api`.
fn tool(name: &str, path: &str, description: &str) -> Value {
    json!({
        "name": name,
        "downstream": "api",
        "version": [{
            "version": 1,
            "status": "published",
            "description": description,
            "method": "GET",
            "path": path,
        }],
    })
}

/// Two tenants' clients: `acme-app` sees `items.get` and `items.list`,
/// `globex-app` sees `orders.get`; `base_url` is the downstream's.
fn document(tools: Vec<Value>, base_url: &str) -> Map<String, Value> {
    let Value::Object(document) = json!({
        "tenant": [{"id": "acme"}, {"id": "globex"}],
        "toolset": [
            {"id": "acme-items", "tenant": "acme", "tools": ["items.get", "items.list"]},
            {"id": "globex-orders", "tenant": "globex", "mode": "lazy", "tools": ["orders.get"]},
        ],
        "client": [
            {"id": "acme-app", "tenant": "acme", "toolsets": ["acme-items"]},
            {"id": "globex-app", "tenant": "globex", "toolsets": ["globex-orders"]},
        ],
        "downstream": [{"id": "api", "base_url": base_url}],
        "gateway_tool": tools,
    }) else {
        unreachable!("an object")
    };
    document
}

fn all_tools(list_path: &str, list_description: &str) -> Vec<Value> {
    vec![
        tool("items.get", "/items/one", "Reads an item."),
        tool("items.list", list_path, list_description),
        tool("orders.get", "/orders/one", "Reads an order."),
    ]
}

/// `document` checked whole.
fn checked(document: Map<String, Value>) -> Config {
    Config::from_json(document, "records", &Registry::new()).expect("checks")
}

fn lists(snapshot: &Snapshot) -> Vec<String> {
    let mut lists: Vec<String> = snapshot
        .clients()
        .map(|view| {
            format!(
                "{}: {}",
                view.id(),
                view.list_json(ProtocolRevision::LATEST)
            )
        })
        .collect();
    lists.sort();
    lists
}

fn list_of<'s>(snapshot: &'s Snapshot, client: &str) -> &'s Arc<str> {
    snapshot
        .client(client)
        .expect("a configured client")
        .list_json(ProtocolRevision::LATEST)
}

/// The three tools checked whole, and a catalog serving them.
fn served() -> (Config, Catalog) {
    let before = checked(document(
        all_tools("/items", "Lists the items."),
        "https://api.example.com",
    ));
    let catalog = Catalog::from_config(Registry::new(), &before);
    (before, catalog)
}

#[test]
fn a_change_to_one_tool_checks_and_renders_that_tool_alone() {
    let registry = Registry::new();
    let (before, catalog) = served();
    let first = catalog.snapshot();
    assert!(first.registry().prepare("items.get", 1));
    assert!(first.registry().prepare("orders.get", 1));

    // `items.list` is edited; nothing else is sent again.
    let edited = tool("items.list", "/items/all", "Lists every item.");
    let after = Config::from_json_after(
        document(vec![edited], "https://api.example.com"),
        "records",
        &registry,
        &before,
        |name| name != "items.list",
    )
    .expect("checks");
    let whole = checked(document(
        all_tools("/items/all", "Lists every item."),
        "https://api.example.com",
    ));
    assert_eq!(
        format!("{:?}", after.configured_tools()),
        format!("{:?}", whole.configured_tools()),
        "the same tools as a whole check, in the same order"
    );
    for name in ["items.get", "orders.get"] {
        let kept = |config: &Config| {
            config
                .configured_tools()
                .iter()
                .find(|t| t.name() == name)
                .cloned()
                .expect("configured")
        };
        assert!(Arc::ptr_eq(&kept(&before), &kept(&after)), "{name} kept");
    }

    let changed = catalog.reload(&after);
    assert_eq!(
        changed.clients.iter().collect::<Vec<_>>(),
        ["acme-app"],
        "only the client that sees the edited tool is told"
    );
    let second = catalog.snapshot();
    assert_eq!(
        lists(&second),
        lists(&Snapshot::build(Arc::new(Registry::new()), &whole)),
        "serves what a fresh build of the whole check serves"
    );
    assert!(
        list_of(&second, "acme-app").contains("Lists every item."),
        "the edit is served"
    );
    assert!(
        Arc::ptr_eq(
            list_of(&first, "globex-app"),
            list_of(&second, "globex-app")
        ),
        "a list the change did not touch is shared, not rebuilt"
    );
    assert!(
        second.registry().is_prepared("items.get", 1),
        "an unchanged tool keeps its compiled validators"
    );
    assert!(second.registry().is_prepared("orders.get", 1));
    assert!(
        !second.registry().is_prepared("items.list", 1),
        "the edited tool is registered anew"
    );
}

#[test]
fn a_changed_downstream_shares_no_work_and_keeps_no_tool_unchecked() {
    let registry = Registry::new();
    let (before, catalog) = served();
    assert!(catalog.snapshot().registry().prepare("items.get", 1));

    // Tools kept unchecked across a downstream's change are refused.
    let kept = Config::from_json_after(
        document(Vec::new(), "https://api.example.org"),
        "records",
        &registry,
        &before,
        |_| true,
    )
    .expect_err("the downstream changed under kept tools");
    let first = kept.iter().next().expect("a problem");
    assert_eq!(first.key(), "gateway_tool");
    assert!(
        first.message().contains("`items.get`") && first.message().contains("`api`"),
        "{first}"
    );

    // Checked whole, every tool calls the new downstream: nothing of the
    // old registry is shared.
    let moved = checked(document(
        all_tools("/items", "Lists the items."),
        "https://api.example.org",
    ));
    catalog.reload(&moved);
    assert!(!catalog.snapshot().registry().is_prepared("items.get", 1));
}

#[test]
fn a_removed_tool_leaves_and_an_added_one_is_checked() {
    let registry = Registry::new();
    let before = checked(document(
        all_tools("/items", "Lists the items."),
        "https://api.example.com",
    ));
    // `items.list` removed (no longer named unchanged, not sent); a tool
    // with a mistake added.
    let broken = json!({"name": "items.count", "downstream": "nowhere", "version": []});
    let errors = Config::from_json_after(
        document(vec![broken], "https://api.example.com"),
        "records",
        &registry,
        &before,
        |name| name != "items.list",
    )
    .expect_err("the added tool is checked");
    let keys: Vec<&str> = errors.iter().map(|e| e.key()).collect();
    assert!(keys.contains(&"gateway_tool[0].downstream"), "{keys:?}");
    assert!(
        keys.contains(&"toolset[0].tools[1]"),
        "a toolset naming the removed tool is a problem: {keys:?}"
    );
}

#[test]
fn kept_and_added_tools_are_listed_by_name() {
    let registry = Registry::new();
    let names = |config: &Config| -> Vec<String> {
        config
            .configured_tools()
            .iter()
            .map(|t| t.name().to_owned())
            .collect()
    };
    let added = tool("items.count", "/items/count", "Counts the items.");
    // Kept in order by name (as the store lists them): merged in one pass;
    // kept in another order (a file's): sorted whole.
    for kept in [
        all_tools("/items", "Lists the items."),
        all_tools("/items", "Lists the items.")
            .into_iter()
            .rev()
            .collect(),
    ] {
        let before = checked(document(kept, "https://api.example.com"));
        let after = Config::from_json_after(
            document(vec![added.clone()], "https://api.example.com"),
            "records",
            &registry,
            &before,
            |_| true,
        )
        .expect("checks");
        assert_eq!(
            names(&after),
            ["items.count", "items.get", "items.list", "orders.get"]
        );
    }
}

#[test]
fn a_change_that_keeps_every_tool_keeps_the_registry() {
    let registry = Registry::new();
    let (before, catalog) = served();
    let first = catalog.snapshot();

    // globex's toolset switches to Full: no tool is sent again.
    let mut switched = document(Vec::new(), "https://api.example.com");
    switched["toolset"][1]["mode"] = json!("full");
    let after = Config::from_json_after(switched.clone(), "records", &registry, &before, |_| true)
        .expect("checks");
    assert_eq!(
        catalog.reload(&after).clients.iter().collect::<Vec<_>>(),
        ["globex-app"]
    );
    let second = catalog.snapshot();
    assert!(
        Arc::ptr_eq(first.registry(), second.registry()),
        "the registry, its work and validators, kept whole"
    );
    switched["gateway_tool"] = json!(all_tools("/items", "Lists the items."));
    assert_eq!(
        lists(&second),
        lists(&Snapshot::build(
            Arc::new(Registry::new()),
            &checked(switched)
        )),
        "serves what a fresh build of the whole check serves"
    );

    // A tool changed: the registry is built again (sharing what it can).
    let edited = tool("items.list", "/items/all", "Lists every item.");
    let third = Config::from_json_after(
        document(vec![edited], "https://api.example.com"),
        "records",
        &registry,
        &after,
        |name| name != "items.list",
    )
    .expect("checks");
    catalog.reload(&third);
    assert!(!Arc::ptr_eq(
        second.registry(),
        catalog.snapshot().registry()
    ));
}
