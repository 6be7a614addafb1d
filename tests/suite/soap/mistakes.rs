//! A SOAP downstream or tool written wrong: every mistake found in one
//! pass, each reported at its place in the file.

use toolschema::call::Registry;
use toolschema::catalog::Catalog;

#[test]
fn every_mistake_in_a_soap_tool_is_reported_at_once_with_its_place() {
    let text = r#"
[[tenant]]
id = "acme"

[[client]]
id = "c"
tenant = "acme"

[[downstream]]
id = "soapy"
base_url = "https://soap.example/svc"
protocol = "soap"
soap_version = "1.3"

[[downstream]]
id = "rest"
base_url = "https://rest.example"
soap_version = "1.2"

[[downstream]]
id = "corba"
base_url = "https://corba.example"
protocol = "corba"

[[downstream]]
id = "ws"
base_url = "https://ws.example"
protocol = "soap"

[[gateway_tool]]
name = "ws.quote"
downstream = "ws"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Quotes."
method = "POST"
soap_action = "say \"hi\""

[[gateway_tool.version.argument]]
name = "symbol"
source = "ns:Symbol"
type = "string"

[[gateway_tool.version.argument]]
name = "id"
source = "@id.value"
type = "string"

[[gateway_tool.version.argument]]
name = "filter"
type = "object"
source = "Filter"

[[gateway_tool.version.argument]]
name = "day"
in = "query"
type = "string"

[[gateway_tool.version.result]]
name = "price"
source = "[].price"
type = "number"

[[gateway_tool]]
name = "ws.get"
downstream = "ws"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Gets."
operation = "1Get"
namespace = ""
"#;
    let Err(errors) = Catalog::from_toml(Registry::new(), text, "bad.toml") else {
        panic!("the configuration was accepted");
    };
    let shown = errors.to_string();
    let expect = [
        ("downstream[0].soap_version", "unknown SOAP version `1.3`"),
        ("downstream[1].soap_version", "add `protocol = \"soap\"`"),
        ("downstream[2].protocol", "unknown protocol `corba`"),
        (
            "gateway_tool[0].version[0].method",
            "is for a REST downstream",
        ),
        ("gateway_tool[0].version[0].operation", "needs `operation`"),
        ("gateway_tool[0].version[0].soap_action", "without `\"`"),
        (
            "gateway_tool[0].version[0].argument[0].source",
            "the prefix `ns` of `ns:Symbol` is not declared",
        ),
        (
            "gateway_tool[0].version[0].argument[1].source",
            "stands last",
        ),
        (
            "gateway_tool[0].version[0].argument[2].type",
            "declare the fields inside it",
        ),
        (
            "gateway_tool[0].version[0].argument[3].in",
            "(`soap_header`), not `query`",
        ),
        (
            "gateway_tool[0].version[0].result[0].source",
            "never an array",
        ),
        (
            "gateway_tool[1].version[0].operation",
            "`1Get` is not an element name",
        ),
        ("gateway_tool[1].version[0].namespace", "an empty namespace"),
    ];
    for (key, says) in expect {
        let error = errors
            .iter()
            .find(|e| e.key() == key)
            .unwrap_or_else(|| panic!("no problem at {key} in:\n{shown}"));
        assert!(error.to_string().contains(says), "{key}: {error}");
        assert!(error.line() > 1 && error.column() >= 1, "{error}");
    }
    assert_eq!(errors.len(), expect.len(), "{shown}");
}
