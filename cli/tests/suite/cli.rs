//! The `toolschema` binary end to end: its commands, MCP over stdio, and the
//! HTTP server (MCP, REST, authentication, isolation, limits, load).

use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::common;
use common::{BIN, Http, root, run};

mod diff;
mod http;
mod stdio;

/// The demo catalog with globex's support toolset in Full mode: only
/// `globex-support`'s list changes.
fn globex_in_full(text: &str) -> String {
    text.replace(
        "mode = \"lazy\"\ntools = [\"support.open-ticket\"",
        "mode = \"full\"\ntools = [\"support.open-ticket\"",
    )
}

#[test]
fn list_prints_a_clients_tools() {
    let (ok, out, _) = run(&["list", "--client", "acme-assistant"]);
    assert!(ok);
    let list: Value = serde_json::from_str(&out).expect("JSON");
    let names: Vec<&str> = list["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "billing.get-invoice",
            "billing.list-invoices",
            "discover_tool_schema"
        ]
    );
    let (ok, _, err) = run(&["list", "--client", "nobody"]);
    assert!(!ok && err.contains("nobody"));
}

#[test]
fn list_stats_prints_what_lists_cost_in_tokens() {
    let (ok, stdout, stderr) = run(&["list", "--client", "globex-support", "--stats"]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("tokens counted with o200k_base"),
        "{stdout}"
    );
    let row = |name: &str| -> Vec<usize> {
        let line = stdout
            .lines()
            .find(|line| line.starts_with(name))
            .unwrap_or_else(|| panic!("no `{name}` row in {stdout}"));
        line[name.len()..]
            .split_whitespace()
            .map(|n| n.parse().expect("a number"))
            .collect()
    };
    let (lazy, meta, list, full) = (
        row("lazy"),
        row("discover_tool_schema"),
        row("the list"),
        row("all in Full mode"),
    );
    assert_eq!(lazy[0] + meta[0], list[0], "tools: {stdout}");
    assert_eq!(full[0], lazy[0], "the meta-tool is not in the Full list");
    assert!(list[2] < full[2], "{stdout}");
    let saving = 100.0 * (1.0 - list[2] as f64 / full[2] as f64);
    assert!(
        stdout.contains(&format!(
            "saving: {saving:.1}% of the Full list's tokens ({} fewer)",
            full[2] - list[2]
        )),
        "{stdout}"
    );

    let (ok, table, stderr) = run(&["list", "--all-clients"]);
    assert!(ok, "{stderr}");
    for client in [
        "acme-analyst",
        "acme-assistant",
        "acme-finance",
        "globex-support",
    ] {
        assert!(
            table.lines().any(|line| line.starts_with(client)),
            "{client} missing: {table}"
        );
    }
    // The same client's line says the same as its own table.
    let line = table
        .lines()
        .find(|line| line.starts_with("globex-support"))
        .expect("a line");
    assert!(
        line.contains(&format!("{} ", list[1])) && line.contains(&format!("{:.1}%", saving)),
        "{line}"
    );
    let (ok, _, stderr) = run(&["list", "--client", "nobody", "--stats"]);
    assert!(
        !ok && stderr.contains("no client application `nobody`"),
        "{stderr}"
    );
    let (ok, _, stderr) = run(&["list"]);
    assert!(!ok && stderr.contains("--client"), "{stderr}");
}

#[test]
fn a_reader_that_stops_early_is_no_error() {
    // `toolschema list ... | head -c 600`: the pipe closes before the list
    // is written.
    let mut child = Command::new(BIN)
        .args(["list", "--client", "globex-support"])
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    drop(child.stdout.take());
    let output = child.wait_with_output().expect("ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn check_reports_every_problem() {
    let (ok, out, _) = run(&["check", "--demo", "examples/catalog.toml"]);
    assert!(ok, "{out}");
    assert!(
        out.contains("ok (2 tenants, 5 toolsets, 4 client applications, 0 gateway tools)"),
        "{out}"
    );
    // A file is checked against the tools it defines: the demo's are not
    // the binary's own, and a file naming them is told where they are.
    let (ok, _, err) = run(&["check", "examples/catalog.toml"]);
    assert!(!ok);
    assert!(
        err.contains("unknown tool `billing.get-invoice`")
            && err.contains("examples/catalog.toml names the demo's tools, which this binary serves only with --demo"),
        "{err}"
    );
    let dir = std::env::temp_dir().join(format!("toolschema-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "[[tenant]]\nid = \"a\"\n[[toolset]]\nid = \"s\"\ntenant = \"b\"\nmode = \"eager\"\ntools = [\"billing.get-invoce\"]\n").expect("write");
    // Refused with the demo's tools too: no hint of them.
    let (ok, _, err) = run(&["check", bad.to_str().expect("utf-8")]);
    assert!(!ok && !err.contains("--demo"), "{err}");
    let (ok, _, err) = run(&["check", "--demo", bad.to_str().expect("utf-8")]);
    assert!(!ok);
    assert!(err.contains("4 problems"), "{err}");
    assert!(err.contains("names no client application"), "{err}");
    assert!(
        err.contains(":5:10: toolset[0].tenant: unknown tenant `b`"),
        "{err}"
    );
    assert!(
        err.contains("unknown mode `eager`") && err.contains("did you mean `billing.get-invoice`"),
        "{err}"
    );
    // An empty file is not an empty catalog.
    let empty = dir.join("empty.toml");
    std::fs::write(&empty, "").expect("write");
    let (ok, out, err) = run(&["check", empty.to_str().expect("utf-8")]);
    assert!(!ok, "{out}");
    assert!(err.contains("the configuration is empty"), "{err}");
}

#[test]
fn export_checks_the_committed_file_and_keys_hash() {
    let (ok, out, err) = run(&["export", "--check", "examples/server.json"]);
    assert!(ok, "{err}");
    assert!(out.contains("up to date"));
    let (ok, out, _) = run(&["export", "--client", "globex-support"]);
    assert!(ok);
    assert!(out.contains("support.open-ticket") && !out.contains("billing."));
    let (ok, out, _) = run(&["hash-key", "demo-acme-finance-key"]);
    assert!(ok);
    assert!(
        std::fs::read_to_string(root().join("examples/catalog.toml"))
            .expect("read")
            .contains(out.trim())
    );
}

/// A folder of its own holding a configuration with one tenant and one
/// client, for imports to add to.
fn scratch_config(tag: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("toolschema-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let config = dir.join("catalog.toml");
    std::fs::write(
        &config,
        "[[tenant]]\nid = \"t\"\n\n[[client]]\nid = \"c\"\ntenant = \"t\"\n",
    )
    .expect("write");
    (dir, config)
}

const PETSTORE_IMPORT: [&str; 9] = [
    "import",
    "openapi",
    "examples/rest-gateway/petstore.json",
    "--downstream",
    "petstore",
    "--base-url",
    "http://127.0.0.1:4010",
    "--prefix",
    "petstore.",
];

#[test]
fn import_openapi_writes_drafts_and_reports_what_it_skips() {
    let (ok, json_out, stderr) = run(&PETSTORE_IMPORT);
    assert!(ok, "{stderr}");
    // What the configuration cannot carry is named, with the reason.
    assert!(
        stderr.contains("skipped uploadFile: the request body is multipart/form-data"),
        "{stderr}"
    );
    // A form of plain fields is written, sent as a form.
    assert!(!stderr.contains("skipped updatePetWithForm"), "{stderr}");
    assert!(stderr.contains("19 tools written as drafts"), "{stderr}");
    let written: toml::Table = json_out.parse().expect("TOML");
    let tools = written["gateway_tool"].as_array().expect("tools");
    assert_eq!(tools.len(), 19);
    assert!(
        tools.iter().any(
            |t| t["name"].as_str() == Some("petstore.update-pet-with-form")
                && t["version"][0]["encoding"].as_str() == Some("form")
        ),
        "{json_out}"
    );
    assert!(
        tools
            .iter()
            .flat_map(|t| t["version"].as_array().into_iter().flatten())
            .all(|v| v["status"].as_str() == Some("draft")),
        "every version is a draft"
    );
    // One downstream per security scheme, its secret named, never written.
    let downstreams: Vec<&str> = written["downstream"]
        .as_array()
        .expect("downstreams")
        .iter()
        .filter_map(|d| d["id"].as_str())
        .collect();
    assert_eq!(
        downstreams,
        ["petstore-petstore-auth", "petstore-api-key", "petstore"]
    );

    // The YAML document says the same.
    let mut yaml = PETSTORE_IMPORT;
    yaml[2] = "examples/rest-gateway/petstore.yaml";
    let (ok, yaml_out, stderr) = run(&yaml);
    assert!(ok, "{stderr}");
    assert_eq!(yaml_out, json_out);

    // Added to a configuration, the result passes `check`; an operation
    // the document lacks is refused.
    let (dir, config) = scratch_config("import");
    let config_arg = config.display().to_string();
    let mut into: Vec<&str> = PETSTORE_IMPORT.to_vec();
    into.extend(["--into", &config_arg]);
    let (ok, stdout, stderr) = run(&into);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("19 gateway tools added"), "{stdout}");
    let (ok, stdout, stderr) = run(&["check", &config_arg]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("19 gateway tools"), "{stdout}");
    // Importing again clashes with the tools now there: refused, and the
    // file is left as it was.
    let before = std::fs::read_to_string(&config).expect("read");
    let (ok, _, stderr) = run(&into);
    assert!(!ok);
    assert!(stderr.contains("duplicate gateway tool"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&config).expect("read"), before);
    let mut unknown: Vec<&str> = PETSTORE_IMPORT.to_vec();
    unknown.extend(["--operations", "getPetById,flyPet"]);
    let (ok, _, stderr) = run(&unknown);
    assert!(!ok && stderr.contains("no operation `flyPet`"), "{stderr}");
    let _ = std::fs::remove_dir_all(dir);
}

const INSURANCE_IMPORT: [&str; 7] = [
    "import",
    "wsdl",
    "examples/rest-gateway/insurance.wsdl",
    "--downstream",
    "insurance",
    "--prefix",
    "insurance.",
];

#[test]
fn import_wsdl_writes_soap_drafts_that_check_clean() {
    let (ok, stdout, stderr) = run(&INSURANCE_IMPORT);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("4 tools written as drafts"), "{stderr}");
    let written: toml::Table = stdout.parse().expect("TOML");
    let downstream = &written["downstream"].as_array().expect("downstreams")[0];
    assert_eq!(downstream["protocol"].as_str(), Some("soap"));
    assert_eq!(
        downstream["base_url"].as_str(),
        Some("http://127.0.0.1:4030/insurance")
    );
    assert!(downstream.get("soap_version").is_none());
    let tools = written["gateway_tool"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(
        names,
        [
            "insurance.get-quote",
            "insurance.list-policies",
            "insurance.cancel-policy",
            "insurance.file-claim"
        ]
    );
    // FileClaim's choice: two optional arguments, each to send alone.
    let claim = &tools[3]["version"][0];
    for name in ["invoice", "invoice_url"] {
        let argument = claim["argument"]
            .as_array()
            .and_then(|fields| fields.iter().find(|f| f["name"].as_str() == Some(name)))
            .expect("the alternative");
        assert!(argument.get("required").is_none(), "{argument}");
        assert_eq!(
            argument["description"].as_str(),
            Some("Send only one of `invoice`, `invoice_url`.")
        );
    }
    let quote = &tools[0]["version"][0];
    assert_eq!(quote["operation"].as_str(), Some("GetQuote"));
    assert_eq!(quote["namespace"].as_str(), Some("urn:pets-inc:insurance"));
    assert_eq!(
        quote["soap_action"].as_str(),
        Some("urn:pets-inc:insurance/GetQuote")
    );
    let field = |version: &toml::Value, role: &str, name: &str| -> toml::Table {
        version[role]
            .as_array()
            .and_then(|fields| fields.iter().find(|f| f["name"].as_str() == Some(name)))
            .and_then(toml::Value::as_table)
            .cloned()
            .unwrap_or_else(|| panic!("no {role} `{name}` in {version}"))
    };
    // Restrictions become keywords; attributes and repeated elements get
    // their source syntax; XSD dates keep their format only as arguments.
    let age = field(quote, "argument", "age_years");
    assert_eq!(age["source"].as_str(), Some("ageYears"));
    assert_eq!(
        (age["minimum"].as_integer(), age["maximum"].as_integer()),
        (Some(0), Some(30))
    );
    let currency = field(quote, "argument", "coverage.currency");
    assert_eq!(currency["source"].as_str(), Some("coverage.@currency"));
    assert_eq!(currency["pattern"].as_str(), Some("^(?:[A-Z]{3})$"));
    assert_eq!(
        field(quote, "argument", "extra")["max_items"].as_integer(),
        Some(5)
    );
    assert_eq!(
        field(quote, "argument", "start_date")["format"].as_str(),
        Some("date")
    );
    // The answer's lone `quote` element is read through.
    assert_eq!(
        field(quote, "result", "monthly_premium")["source"].as_str(),
        Some("quote.monthlyPremium")
    );
    assert!(
        field(quote, "result", "valid_until")
            .get("format")
            .is_none()
    );
    let cancel = &tools[2]["version"][0];
    assert_eq!(
        field(cancel, "argument", "policy_number")["pattern"].as_str(),
        Some("^(?:PI-[0-9]{6})$")
    );
    let policies = &tools[1]["version"][0];
    assert_eq!(
        field(policies, "result", "policy[].number")["source"].as_str(),
        Some("policy[].@number")
    );

    // The SOAP 1.2 port on request; the drafts pass `check` once added.
    let mut v12 = INSURANCE_IMPORT.to_vec();
    v12.extend(["--soap-version", "1.2", "--operations", "GetQuote"]);
    let (ok, stdout, stderr) = run(&v12);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("soap_version = \"1.2\"") && stdout.contains("/insurance12\""),
        "{stdout}"
    );
    let (dir, config) = scratch_config("wsdl");
    let config_arg = config.display().to_string();
    let mut into = INSURANCE_IMPORT.to_vec();
    into.extend(["--into", &config_arg]);
    let (ok, stdout, stderr) = run(&into);
    assert!(
        ok && stdout.contains("4 gateway tools added"),
        "{stdout}{stderr}"
    );
    let (ok, stdout, stderr) = run(&["check", &config_arg]);
    assert!(ok && stdout.contains("4 gateway tools"), "{stdout}{stderr}");
    let mut unknown = INSURANCE_IMPORT.to_vec();
    unknown.extend(["--operations", "GetQuote,FlyPet"]);
    let (ok, _, stderr) = run(&unknown);
    assert!(!ok && stderr.contains("no operation `FlyPet`"), "{stderr}");
    let (ok, _, stderr) = run(&["import", "wsdl", "examples/rest-gateway/petstore.json"]);
    assert!(!ok && stderr.contains("cannot be read"), "{stderr}");
    let _ = std::fs::remove_dir_all(dir);

    // The example serves what the import writes, reviewed: only statuses
    // and hints differ.
    let example: toml::Table =
        std::fs::read_to_string(root().join("examples/rest-gateway/catalog.toml"))
            .expect("the example")
            .parse()
            .expect("TOML");
    let reviewed = |tool: &toml::Value| -> toml::Value {
        let mut tool = tool.clone();
        for version in tool["version"].as_array_mut().into_iter().flatten() {
            if let Some(version) = version.as_table_mut() {
                for key in ["status", "read_only", "destructive"] {
                    version.remove(key);
                }
            }
        }
        tool
    };
    for tool in tools {
        let served = example["gateway_tool"]
            .as_array()
            .and_then(|all| all.iter().find(|t| t["name"] == tool["name"]))
            .unwrap_or_else(|| panic!("{} is not in the example", tool["name"]));
        assert_eq!(reviewed(served), reviewed(tool), "{}", tool["name"]);
    }
}

#[test]
fn the_rest_gateway_example_checks_clean() {
    let (ok, stdout, stderr) = run(&["check", "examples/rest-gateway/catalog.toml"]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("2 client applications, 12 gateway tools"),
        "{stdout}"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn the_binary_serves_without_transparent_huge_pages_unless_told() {
    // What the kernel says of a serving process: 0 when huge pages are off.
    let huge_pages = |http: &Http| {
        let status = std::fs::read_to_string(format!("/proc/{}/status", http.child.id()))
            .expect("the process's status");
        status
            .lines()
            .find_map(|line| line.strip_prefix("THP_enabled:"))
            .map(|value| value.trim().to_owned())
            .expect("a kernel that says")
    };
    let serve = || {
        let mut command = Command::new(BIN);
        command.args(["serve", "--bind", "127.0.0.1:0"]);
        command
    };
    let default = Http::spawn(serve().env_remove("MIMALLOC_ALLOW_THP"));
    assert_eq!(huge_pages(&default), "0");
    let allowed = Http::spawn(serve().env("MIMALLOC_ALLOW_THP", "1"));
    assert_eq!(huge_pages(&allowed), "1");
}
