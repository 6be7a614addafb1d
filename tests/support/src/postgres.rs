//! A real PostgreSQL server for tests: a throwaway cluster in a temporary
//! directory, on a free loopback port, run as an unprivileged user when the
//! tests run as root (PostgreSQL refuses root). A watchdog stops the server
//! and removes the directory when the test process ends, however it ends.
//!
//! `TOOLSCHEMA_TEST_DATABASE_URL` (a server URL, say
//! `postgresql://toolschema@127.0.0.1:5499`) makes [`Postgres::shared`] use
//! a running server instead; each test still gets a database of its own.
//!
//! The server's binaries are found by `TOOLSCHEMA_PG_BIN`, else `pg_config
//! --bindir`, else the newest `/usr/lib/postgresql/*/bin`.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A PostgreSQL server the tests of this process share.
#[derive(Debug)]
pub struct Postgres {
    /// `postgresql://user@host:port`, without a database.
    server: String,
    host: String,
    port: u16,
    user: String,
    /// Ours to stop and start (not when given by the environment).
    cluster: Option<Cluster>,
}

#[derive(Debug)]
struct Cluster {
    bin: PathBuf,
    data: PathBuf,
    /// Who runs the server (`nobody` when the tests run as root).
    runner: Option<&'static str>,
    /// The server's certificate and key, when it speaks TLS.
    tls: Option<(PathBuf, PathBuf)>,
}

const USER: &str = "toolschema";

impl Postgres {
    /// The server the tests of this process share: the one
    /// `TOOLSCHEMA_TEST_DATABASE_URL` names, else one started on first use.
    pub fn shared() -> &'static Postgres {
        static SHARED: OnceLock<Postgres> = OnceLock::new();
        SHARED.get_or_init(|| match std::env::var("TOOLSCHEMA_TEST_DATABASE_URL") {
            Ok(server) if !server.trim().is_empty() => {
                Postgres::given(server.trim_end_matches('/'))
            }
            _ => Postgres::start(),
        })
    }

    /// A server of its own, in a new cluster (for tests that stop and
    /// start it).
    pub fn start() -> Postgres {
        Postgres::start_with(false).0
    }

    /// A server of its own that also speaks TLS, with a certificate for
    /// `127.0.0.1` from a certificate authority made for it (openssl); the
    /// authority's certificate (PEM), to trust.
    pub fn start_tls() -> (Postgres, PathBuf) {
        let (postgres, ca) = Postgres::start_with(true);
        (postgres, ca.expect("a certificate authority"))
    }

    fn start_with(tls: bool) -> (Postgres, Option<PathBuf>) {
        let bin = binaries();
        let runner = is_root().then_some("nobody");
        let dir = std::env::temp_dir().join(format!(
            "toolschema-pg-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        if let Some(runner) = runner {
            run(Command::new("chown").arg(runner).arg(&dir), "chown");
        }
        let data = dir.join("data");
        let mut initdb = as_runner(runner, &bin.join("initdb"));
        initdb
            .args(["-A", "trust", "-U", USER, "--no-sync", "-E", "UTF8", "-D"])
            .arg(&data);
        run(&mut initdb, "initdb");
        let port = free_port();
        let (tls, ca) = match tls {
            true => {
                let (cert, key, ca) = certificates(&dir, runner);
                (Some((cert, key)), Some(ca))
            }
            false => (None, None),
        };
        let cluster = Cluster {
            bin,
            data,
            runner,
            tls,
        };
        cluster.start(port);
        watchdog(&dir, &cluster);
        let postgres = Postgres {
            server: format!("postgresql://{USER}@127.0.0.1:{port}"),
            host: "127.0.0.1".into(),
            port,
            user: USER.into(),
            cluster: Some(cluster),
        };
        (postgres, ca)
    }

    fn given(server: &str) -> Postgres {
        let rest = server
            .strip_prefix("postgresql://")
            .or_else(|| server.strip_prefix("postgres://"))
            .expect("TOOLSCHEMA_TEST_DATABASE_URL is postgresql://user@host:port");
        let (user, address) = rest.split_once('@').unwrap_or((USER, rest));
        let (host, port) = address.rsplit_once(':').unwrap_or((address, "5432"));
        Postgres {
            server: server.to_owned(),
            host: host.to_owned(),
            port: port.parse().expect("a port"),
            user: user.to_owned(),
            cluster: None,
        }
    }

    /// The server's port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// A new, empty database; its URL.
    pub fn database(&self) -> String {
        static DATABASES: AtomicUsize = AtomicUsize::new(0);
        let name = format!(
            "test_{}_{}",
            std::process::id(),
            DATABASES.fetch_add(1, Ordering::Relaxed)
        );
        let bin = match &self.cluster {
            Some(cluster) => cluster.bin.clone(),
            None => binaries(),
        };
        run(
            Command::new(bin.join("createdb"))
                .args([
                    "-h",
                    &self.host,
                    "-p",
                    &self.port.to_string(),
                    "-U",
                    &self.user,
                ])
                .arg(&name),
            "createdb",
        );
        format!("{}/{name}", self.server)
    }

    /// Stops the server (fast shutdown: connections are closed).
    pub fn stop(&self) {
        let cluster = self.cluster.as_ref().expect("a cluster of the tests' own");
        let mut stop = as_runner(cluster.runner, &cluster.bin.join("pg_ctl"));
        stop.args(["stop", "-m", "fast", "-w", "-D"])
            .arg(&cluster.data);
        run(&mut stop, "pg_ctl stop");
    }

    /// Starts the server again, on its port.
    pub fn restart(&self) {
        let cluster = self.cluster.as_ref().expect("a cluster of the tests' own");
        cluster.start(self.port);
    }
}

impl Cluster {
    fn start(&self, port: u16) {
        let mut start = as_runner(self.runner, &self.bin.join("pg_ctl"));
        start
            .args(["start", "-w", "-t", "60", "-l"])
            .arg(self.data.join("../log"))
            .arg("-o")
            .arg(format!(
                "-p {port} -c listen_addresses=127.0.0.1 -k {} -c fsync=off -c max_connections=200{}",
                self.data
                    .parent()
                    .expect("the cluster's directory")
                    .display(),
                match &self.tls {
                    Some((cert, key)) => format!(
                        " -c ssl=on -c ssl_cert_file={} -c ssl_key_file={}",
                        cert.display(),
                        key.display()
                    ),
                    None => String::new(),
                }
            ))
            .arg("-D")
            .arg(&self.data);
        run(&mut start, "pg_ctl start");
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "PostgreSQL is not listening on {port}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A certificate authority and a server certificate for 127.0.0.1 it
/// signed, in `dir`: the server's certificate, its key (readable by the
/// server's user only, as PostgreSQL requires) and the authority's
/// certificate.
fn certificates(dir: &Path, runner: Option<&str>) -> (PathBuf, PathBuf, PathBuf) {
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    let (ca_key, ca) = (dir.join("ca.key"), dir.join("ca.pem"));
    run(
        Command::new("openssl")
            .args(["req", "-x509"])
            .args(ec)
            .args(["-days", "2", "-subj", "/CN=toolschema test CA", "-keyout"])
            .arg(&ca_key)
            .arg("-out")
            .arg(&ca),
        "openssl (authority)",
    );
    let (key, request, cert) = (
        dir.join("server.key"),
        dir.join("server.csr"),
        dir.join("server.pem"),
    );
    run(
        Command::new("openssl")
            .arg("req")
            .args(ec)
            .args(["-subj", "/CN=127.0.0.1", "-keyout"])
            .arg(&key)
            .arg("-out")
            .arg(&request),
        "openssl (request)",
    );
    let extensions = dir.join("server.ext");
    std::fs::write(
        &extensions,
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n",
    )
    .expect("extensions");
    run(
        Command::new("openssl")
            .args(["x509", "-req", "-days", "2", "-in"])
            .arg(&request)
            .arg("-CA")
            .arg(&ca)
            .arg("-CAkey")
            .arg(&ca_key)
            .arg("-CAcreateserial")
            .arg("-extfile")
            .arg(&extensions)
            .arg("-out")
            .arg(&cert),
        "openssl (certificate)",
    );
    run(Command::new("chmod").arg("600").arg(&key), "chmod");
    if let Some(runner) = runner {
        run(
            Command::new("chown").arg(runner).arg(&key).arg(&cert),
            "chown",
        );
    }
    (cert, key, ca)
}

/// Stops the server and removes its directory once this process is gone.
#[expect(
    clippy::zombie_processes,
    reason = "the watchdog outlives this process, which never waits for it"
)]
fn watchdog(dir: &Path, cluster: &Cluster) {
    let script = format!(
        "while kill -0 {pid} 2>/dev/null; do sleep 0.5; done; {stop} stop -m immediate -D '{data}' >/dev/null 2>&1; rm -rf '{dir}'",
        pid = std::process::id(),
        stop = match cluster.runner {
            Some(runner) => format!(
                "runuser -u {runner} -- '{}'",
                cluster.bin.join("pg_ctl").display()
            ),
            None => format!("'{}'", cluster.bin.join("pg_ctl").display()),
        },
        data = cluster.data.display(),
        dir = dir.display(),
    );
    Command::new("sh")
        .args(["-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the cluster's watchdog");
}

fn as_runner(runner: Option<&str>, program: &Path) -> Command {
    match runner {
        Some(runner) => {
            let mut command = Command::new("runuser");
            command.args(["-u", runner, "--"]).arg(program);
            command
        }
        None => Command::new(program),
    }
}

fn run(command: &mut Command, what: &str) {
    let output = command
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        output.status.success(),
        "{what} failed: {}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| out.stdout.trim_ascii() == b"0")
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

/// The directory of PostgreSQL's server binaries.
fn binaries() -> PathBuf {
    if let Some(bin) = std::env::var_os("TOOLSCHEMA_PG_BIN") {
        return PathBuf::from(bin);
    }
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output() {
        let bin = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if bin.join("initdb").exists() {
            return bin;
        }
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path().join("bin"))
        .filter(|bin| bin.join("initdb").exists())
        .collect();
    found.sort_by_key(|bin| {
        bin.parent()
            .and_then(|p| p.file_name())
            .and_then(|n| n.to_str())
            .and_then(|n| n.parse::<u32>().ok())
    });
    found.pop().expect(
        "PostgreSQL's server binaries (initdb, pg_ctl, postgres): install them, or name their directory in TOOLSCHEMA_PG_BIN, or a running server in TOOLSCHEMA_TEST_DATABASE_URL",
    )
}
