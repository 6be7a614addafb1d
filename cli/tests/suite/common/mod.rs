//! What the binary's tests share: running it, serving over HTTP, reading
//! event streams.

#![allow(dead_code, unreachable_pub)]

use std::io::{BufRead, BufReader, Read};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use serde_json::Value;

pub const BIN: &str = env!("CARGO_BIN_EXE_toolschema");

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub fn run(args: &[&str]) -> (bool, String, String) {
    let output = Command::new(BIN)
        .args(args)
        .current_dir(root())
        .output()
        .expect("the binary runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

pub struct Http {
    pub child: Child,
    pub port: u16,
    /// The admin API's port, when it serves one.
    pub admin: Option<u16>,
}

impl Http {
    pub fn start() -> Http {
        Http::start_with(&[])
    }

    pub fn start_with(extra: &[&str]) -> Http {
        Http::spawn(
            Command::new(BIN)
                .args(["serve", "--bind", "127.0.0.1:0"])
                .args(extra),
        )
    }

    /// Runs `command` (a `serve` on HTTP) until it says where it serves.
    pub fn spawn(command: &mut Command) -> Http {
        let mut child = command
            .current_dir(root())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starts");
        let stderr = child.stderr.take().expect("stderr");
        let mut lines = BufReader::new(stderr).lines();
        let mut admin = None;
        let port = loop {
            let line = lines
                .next()
                .expect("the server announces itself")
                .expect("line");
            if let Some(rest) = line.strip_prefix("toolschema is serving on http://127.0.0.1:") {
                break rest.trim().parse().expect("a port");
            }
            if let Some(rest) =
                line.strip_prefix("admin API (operators' keys only): http://127.0.0.1:")
            {
                admin = Some(rest.trim_end_matches("/v1/").parse().expect("a port"));
            }
        };
        std::thread::spawn(move || for _ in lines {});
        Http { child, port, admin }
    }
}

impl Drop for Http {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn connect(port: u16) -> TcpStream {
    toolschema_test_support::connect(SocketAddr::from(([127, 0, 0, 1], port)))
}

pub fn read_events(stream: &mut TcpStream, count: usize) -> Vec<Value> {
    let mut seen = String::new();
    let mut chunk = [0u8; 4096];
    loop {
        let messages: Vec<Value> = seen
            .lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .filter_map(|data| serde_json::from_str(data).ok())
            .collect();
        if messages.len() >= count {
            return messages;
        }
        let n = stream.read(&mut chunk).expect("events arrive");
        assert!(n > 0, "the stream closed");
        seen.push_str(&String::from_utf8_lossy(&chunk[..n]));
    }
}
