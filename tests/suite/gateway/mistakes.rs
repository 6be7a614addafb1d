//! A gateway tool written wrong: every mistake found in one pass, each
//! reported at its place in the file.

use toolschema::call::Registry;
use toolschema::catalog::Catalog;

#[test]
fn every_mistake_in_a_gateway_tool_is_reported_at_once_with_its_place() {
    let text = r#"
[[tenant]]
id = "acme"

[[client]]
id = "c"
tenant = "acme"

[[downstream]]
id = "shop"
base_url = "ftp://shop.example"
headers = { "Authorization" = "Bearer abc" }
auth = { kind = "bearer", env = "not a name" }

[[downstream]]
id = "store"
base_url = "https://store.example/v1"

[[gateway_tool]]
name = "orders.get"
downstream = "stor"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Gets an order."
method = "POST"
path = "/orders/{orderId}/{lineId}"

[[gateway_tool.version.argument]]
name = "order_id"
source = "orderId"
in = "path"
type = "integer"
required = true
min_length = 3

[[gateway_tool.version.argument]]
name = "address"
type = "object"

[[gateway_tool.version.argument]]
name = "address.zip"
type = "string"
required = true
in = "body"

[[gateway_tool.version.argument]]
name = "tags[]"
source = "tags"
type = "string"
format = "int64"

[[gateway_tool.version.argument]]
name = "order_id"
source = "other"
in = "query"
type = "string"

[[gateway_tool.version.argument]]
name = "token"
source = "Authorization"
in = "header"
type = "string"

[[gateway_tool.version.result]]
name = "lines[].code"
source = "sku"
type = "string"
"#;
    let Err(errors) = Catalog::from_toml(Registry::new(), text, "bad.toml") else {
        panic!("the configuration was accepted");
    };
    let line_of = |snippet: &str| {
        text.lines()
            .position(|line| line.contains(snippet))
            .map(|i| i + 1)
            .unwrap_or_else(|| panic!("`{snippet}` is not in the file"))
    };
    let expect = [
        ("downstream[0].base_url", "base_url = \"ftp"),
        ("downstream[0].headers", "\"Authorization\""),
        ("downstream[0].auth.env", "not a name"),
        ("gateway_tool[0].downstream", "\"stor\""),
        ("gateway_tool[0].version[0].path", "{lineId}"),
        (
            "gateway_tool[0].version[0].argument[0].min_length",
            "min_length = 3",
        ),
        (
            "gateway_tool[0].version[0].argument[2].name",
            "\"address.zip\"",
        ),
        ("gateway_tool[0].version[0].argument[3].format", "int64"),
        (
            "gateway_tool[0].version[0].argument[3].source",
            "source = \"tags\"",
        ),
        (
            "gateway_tool[0].version[0].argument[4].name",
            "source = \"other\"",
        ),
        (
            "gateway_tool[0].version[0].argument[5].in",
            "source = \"Authorization\"",
        ),
        ("gateway_tool[0].version[0].result[0].source", "\"sku\""),
    ];
    for (key, snippet) in expect {
        let error = errors
            .iter()
            .find(|e| e.key() == key)
            .unwrap_or_else(|| panic!("no problem at {key} in:\n{errors}"));
        let expected = if key.ends_with("argument[4].name") {
            // Reported at the field's name, the line before the snippet.
            line_of(snippet) - 1
        } else if key.ends_with("argument[5].in") {
            // Reported at its `in`, the line after the snippet.
            line_of(snippet) + 1
        } else {
            line_of(snippet)
        };
        assert_eq!(error.line(), expected, "{key}: {error}");
        assert!(error.column() > 1, "{error}");
    }
    let shown = errors.to_string();
    assert!(shown.contains("`{lineId}` has no argument"), "{shown}");
    assert!(shown.contains("did you mean `store`"), "{shown}");
    assert_eq!(errors.len(), expect.len(), "{shown}");
    assert!(
        shown.contains("`address.zip` is required, but `address`"),
        "{shown}"
    );
    assert!(shown.contains("`order_id` is declared twice"), "{shown}");
    assert!(
        shown.contains(
            "`token` cannot be sent as the header `Authorization`: it carries credentials"
        ),
        "{shown}"
    );
}

#[test]
fn header_arguments_that_steer_the_connection_or_the_client_s_origin_are_refused_at_their_place() {
    let refused = [
        "TE",
        "Upgrade",
        "Expect",
        "Keep-Alive",
        "Trailer",
        "Proxy-Connection",
        "Proxy-Authorization",
        "Forwarded",
        "X-Forwarded-Host",
        "x-forwarded-for",
        "Content-Length",
        "Host",
    ];
    let mut text = r#"
[[tenant]]
id = "acme"

[[client]]
id = "c"
tenant = "acme"

[[downstream]]
id = "store"
base_url = "https://store.example/v1"

[[gateway_tool]]
name = "orders.list"
downstream = "store"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Lists orders."
method = "GET"
path = "/orders"
"#
    .to_owned();
    // A cookie may carry an API's key (OpenAPI's `in: cookie`): allowed.
    for (i, header) in refused
        .iter()
        .chain(&["Cookie", "X-Request-Id"])
        .enumerate()
    {
        text.push_str(&format!(
            "\n[[gateway_tool.version.argument]]\nname = \"h{i}\"\nsource = \"{header}\"\nin = \"header\"\ntype = \"string\"\n"
        ));
    }
    let Err(errors) = Catalog::from_toml(Registry::new(), &text, "headers.toml") else {
        panic!("the configuration was accepted");
    };
    assert_eq!(errors.len(), refused.len(), "{errors}");
    for (i, header) in refused.iter().enumerate() {
        let key = format!("gateway_tool[0].version[0].argument[{i}].in");
        let error = errors
            .iter()
            .find(|e| e.key() == key)
            .unwrap_or_else(|| panic!("no problem at {key} in:\n{errors}"));
        // Reported at the argument's `in`, the line after its source
        // (`position` counts from 0, lines from 1).
        let source_line = text
            .lines()
            .position(|line| line == format!("source = \"{header}\""))
            .expect("the header's line");
        assert_eq!(error.line(), source_line + 2, "{error}");
        let shown = error.to_string();
        assert!(
            shown.contains(&format!("`h{i}` cannot be sent as the header `{header}`: ")),
            "{shown}"
        );
        assert!(shown.contains("remove the argument"), "{shown}");
    }
}

/// A catalog of `count` gateway tools, each a JSON table of the file's
/// shape; `edit` changes the `i`th.
fn many_tools(
    count: usize,
    edit: impl Fn(usize, &mut serde_json::Value),
) -> Vec<serde_json::Value> {
    (0..count)
        .map(|i| {
            let mut tool = serde_json::json!({
                "name": format!("items.get-{i}"), "downstream": "api",
                "version": [{"version": 1, "status": "published", "description": "Reads an item.",
                             "method": "GET", "path": "/items"}],
            });
            edit(i, &mut tool);
            tool
        })
        .collect()
}

/// Checks `tools` in a configuration given as a document, as the store's
/// records are: the keys of its problems, in the order listed.
fn problem_keys(tools: Vec<serde_json::Value>) -> Vec<String> {
    let serde_json::Value::Object(document) = serde_json::json!({
        "tenant": [{"id": "acme"}],
        "client": [{"id": "app", "tenant": "acme"}],
        "downstream": [{"id": "api", "base_url": "https://api.example.com"}],
        "gateway_tool": tools,
    }) else {
        unreachable!("an object")
    };
    let errors = toolschema::catalog::Config::from_json(document, "records", &Registry::new())
        .expect_err("mistakes");
    errors.iter().map(|error| error.key().to_owned()).collect()
}

#[test]
fn the_mistakes_of_many_tools_are_listed_in_the_order_of_the_tools() {
    // Enough tools to be checked on several threads where there are
    // several cores; every problem of a document is at one place, so the
    // order they are listed in is the order they are found in.
    let keys = problem_keys(many_tools(3_000, |i, tool| match i {
        5 => tool["downstream"] = "apx".into(),
        1_200 => tool["version"][0]["status"] = "publishd".into(),
        1_201 => tool["name"] = "items.get-1200".into(),
        2_100 => {
            let twice = tool["version"][0].clone();
            tool["version"].as_array_mut().expect("a list").push(twice);
        }
        2_999 => tool["version"] = serde_json::json!([]),
        _ => {}
    }));
    assert_eq!(
        keys,
        [
            "gateway_tool[5].downstream",
            "gateway_tool[1200].version[0].status",
            "gateway_tool[1201].name",
            "gateway_tool[2100].version[1].version",
            "gateway_tool[2999].version",
        ]
    );
    // A table that cannot be read is a problem of its own, before any
    // check; each is listed.
    let keys = problem_keys(many_tools(3_000, |i, tool| {
        if i % 700 == 3 {
            tool["version"][0]["pathh"] = "/items".into();
        }
    }));
    let expected: Vec<String> = (0..3_000)
        .filter(|i| i % 700 == 3)
        .map(|i| format!("gateway_tool[{i}].version[0].pathh"))
        .collect();
    assert_eq!(keys, expected);
}

#[test]
fn a_document_s_unreadable_tables_are_listed_in_its_order_and_stop_the_checks() {
    // Sections are read in the document's order (by name): `downstream`,
    // then `gateway_tool`, then `toolset`. A tool that cannot be read
    // stops the checks: the unknown downstream of another tool and the
    // toolset's unknown tool are not reported.
    let tools = many_tools(600, |i, tool| match i {
        7 => tool["downstream"] = "nowhere".into(),
        550 => tool["version"][0]["verb"] = "GET".into(),
        _ => {}
    });
    let serde_json::Value::Object(document) = serde_json::json!({
        "tenant": [{"id": "acme"}],
        "client": [{"id": "app", "tenant": "acme"}],
        "downstream": [{"id": "api", "base_url": "https://api.example.com", "timeout": 3}],
        "gateway_tool": tools,
        "toolset": [{"id": "set", "tenant": "acme", "tools": ["nothing.here"], "moed": "full"}],
    }) else {
        unreachable!("an object")
    };
    let errors = toolschema::catalog::Config::from_json(document, "records", &Registry::new())
        .expect_err("unreadable");
    let keys: Vec<&str> = errors.iter().map(|error| error.key()).collect();
    assert_eq!(
        keys,
        [
            "downstream[0].timeout",
            "gateway_tool[550].version[0].verb",
            "toolset[0].moed"
        ],
        "{errors}"
    );
}
