//! The operator console's browser test fixture (`tests/console`): a
//! throwaway PostgreSQL holding the demo catalog and an operator, and the
//! binary serving it as an operator runs it (`toolschema serve
//! --database-url … --admin-bind …`). Prints one line of JSON, `{"admin":
//! URL, "mcp": URL, "key": operator key}`, once both listeners answer, and
//! serves until its standard input closes.
//!
//! `TOOLSCHEMA_BIN` names the binary (else `target/debug/toolschema`).

use std::io::Read as _;
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use toolschema_test_support::postgres::Postgres;

/// A port nobody listens on now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("a free port")
}

fn main() {
    let postgres = Postgres::start();
    let url = postgres.database();
    let bin = std::env::var("TOOLSCHEMA_BIN").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../target/debug/toolschema").to_owned()
    });
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let admin = |args: &[&str]| {
        let out = Command::new(&bin)
            .args(["admin", "--demo", "--database-url", &url])
            .args(args)
            .current_dir(root)
            .output()
            .expect("runs the binary");
        assert!(
            out.status.success(),
            "admin {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    admin(&["migrate"]);
    admin(&["load", "examples/catalog.toml"]);
    let key = admin(&["add-operator", "alice"]);
    let (mcp, console) = (free_port(), free_port());
    let mut server = Command::new(&bin)
        .args(["serve", "--demo", "--database-url", &url])
        .args(["--bind", &format!("127.0.0.1:{mcp}")])
        .args(["--admin-bind", &format!("127.0.0.1:{console}")])
        .current_dir(root)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("serves");
    let started = Instant::now();
    while [mcp, console]
        .iter()
        .any(|port| TcpStream::connect(("127.0.0.1", *port)).is_err())
    {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the server did not listen"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    println!(
        "{}",
        serde_json::json!({
            "admin": format!("http://127.0.0.1:{console}"),
            "mcp": format!("http://127.0.0.1:{mcp}"),
            "key": key,
        })
    );
    // Until the test is done with it.
    let _ = std::io::stdin().read_to_end(&mut Vec::new());
    let _ = server.kill();
    let _ = server.wait();
    drop(postgres);
}
