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
        let expected = if key.ends_with("argument[4].name") || key.ends_with("argument[5].in") {
            // Reported at the field's name, the line before the snippet.
            line_of(snippet) - 1
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
        shown.contains("the gateway sets `Authorization` itself"),
        "{shown}"
    );
}
