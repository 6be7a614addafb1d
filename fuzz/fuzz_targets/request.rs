//! Any text as the arguments of gateway tools, built into the request each
//! sends: an argument never changes the endpoint. A path argument is one
//! segment that reads back as its value (or is refused, only when it is
//! empty, `.` or `..`), the scheme, host, port and every other segment stay
//! the configuration's, and a query argument is one parameter.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use toolschema::call::Registry;
use toolschema::catalog::Config;

const CONFIG: &str = r#"
[[tenant]]
id = "t"

[[client]]
id = "c"
tenant = "t"

[[downstream]]
id = "shop"
base_url = "https://shop.example:8443/api/"

[[gateway_tool]]
name = "orders.cancel"
downstream = "shop"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Cancels one order."
method = "DELETE"
path = "/orders/{orderId}/lines/{line}.json"

[[gateway_tool.version.argument]]
name = "order_id"
source = "orderId"
in = "path"
type = "string"
required = true

[[gateway_tool.version.argument]]
name = "line"
in = "path"
type = "string"
required = true

[[gateway_tool.version.argument]]
name = "reason"
in = "query"
type = "string"
"#;

fn decode(segment: &str) -> Vec<u8> {
    let bytes = segment.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).expect("ASCII");
            out.push(u8::from_str_radix(hex, 16).expect("two hex digits"));
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

fuzz_target!(|data: &[u8]| {
    static CONFIGURATION: OnceLock<Config> = OnceLock::new();
    let config = CONFIGURATION.get_or_init(|| {
        Config::from_toml(CONFIG, "request.toml", &Registry::new()).expect("loads")
    });
    let text = String::from_utf8_lossy(data);
    let mut parts = text.splitn(3, '\u{1}');
    let order = parts.next().unwrap_or_default().to_owned();
    let line = parts.next().unwrap_or("1").to_owned();
    let reason = parts.next().unwrap_or_default().to_owned();
    let tool = &config.configured_tools()[0];
    let operation = tool.versions()[0].operation();
    let downstream = config.downstream(tool.downstream()).expect("downstream");
    let arguments = json!({"order_id": order, "line": line, "reason": reason});
    let Ok(request) = toolschema_gateway::encode::request(operation, &arguments) else {
        assert!(
            matches!(order.as_str(), "" | "." | ".."),
            "{order:?} / {line:?} refused"
        );
        return;
    };
    assert!(!matches!(order.as_str(), "" | "." | ".."), "{order:?} sent");
    let url = url::Url::parse(&toolschema_gateway::encode::url(downstream, &request)).expect("a URL");
    assert_eq!(url.scheme(), "https");
    assert_eq!(url.host_str(), Some("shop.example"));
    assert_eq!(url.port(), Some(8443));
    assert_eq!(url.fragment(), None);
    let segments: Vec<&str> = url.path_segments().expect("segments").collect();
    assert_eq!(segments.len(), 5, "{url}");
    assert_eq!(
        (segments[0], segments[1], segments[3]),
        ("api", "orders", "lines")
    );
    assert_eq!(decode(segments[2]), order.as_bytes(), "{url}");
    assert_eq!(
        decode(segments[4]),
        format!("{line}.json").as_bytes(),
        "{url}"
    );
    let pairs: Vec<(String, String)> = url.query_pairs().into_owned().collect();
    assert_eq!(pairs, vec![("reason".to_owned(), reason)], "{url}");
});
