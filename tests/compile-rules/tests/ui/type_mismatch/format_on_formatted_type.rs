use serde::Deserialize;
use toolschema::Tool;

/// Pings a host.
#[derive(Tool, Deserialize)]
struct Ping {
    #[tool(format = "hostname")]
    address: Option<std::net::Ipv4Addr>,
}

fn main() {}
