//! What the chaos suite owns and breaks: a private PostgreSQL cluster, a private
//! RabbitMQ node and a TCP proxy in front of it (the shared test services are never
//! touched). Every process is ended by the PID this suite recorded.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};

use crate::support::free_port;

/// Connections opened in an older generation are closed (the proxy's cut).
#[derive(Debug, Clone, Default)]
struct Generation(Arc<std::sync::atomic::AtomicU64>);

impl Generation {
    fn current(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
    fn bump(&self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn run(cmd: &mut Command, what: &str) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn wait_tcp(port: u16, timeout: Duration) {
    let deadline = std::time::Instant::now() + timeout;
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "nothing answers on port {port}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn pg_bin(name: &str) -> PathBuf {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL server binaries in /usr/lib/postgresql (tests/infra/services.sh)")
        .flatten()
        .map(|e| e.path().join("bin").join(name))
        .filter(|p| p.is_file())
        .collect();
    versions.sort();
    versions.pop().expect("initdb")
}

/// A PostgreSQL cluster of this test (loopback, trust, its own port and directory).
pub struct PrivatePg {
    dir: tempfile::TempDir,
    pub port: u16,
}

impl PrivatePg {
    pub fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        run(
            Command::new("chown")
                .args(["postgres:postgres"])
                .arg(dir.path()),
            "chown",
        );
        let data = dir.path().join("data");
        run(
            Command::new("runuser")
                .args(["-u", "postgres", "--"])
                .arg(pg_bin("initdb"))
                .arg("-D")
                .arg(&data)
                .args(["-U", "postgres", "--auth=trust", "-E", "UTF8"]),
            "initdb",
        );
        let me = Self {
            dir,
            port: free_port(),
        };
        me.resume();
        me
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// `postgres://...` of database `db` (created when absent).
    pub fn url(&self, db: &str) -> String {
        let out = Command::new("psql")
            .arg(format!(
                "postgres://postgres@127.0.0.1:{}/postgres",
                self.port
            ))
            .args(["-qtc", &format!("CREATE DATABASE {db}")])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() || err.contains("already exists"),
            "{err}"
        );
        format!("postgres://postgres@127.0.0.1:{}/{db}", self.port)
    }

    /// Stops the cluster (fast shutdown: connections are cut).
    pub fn stop(&self) {
        run(
            Command::new("runuser")
                .args(["-u", "postgres", "--"])
                .arg(pg_bin("pg_ctl"))
                .arg("-D")
                .arg(self.data())
                .args(["-m", "fast", "-w", "stop"]),
            "pg_ctl stop",
        );
    }

    /// Starts it again.
    pub fn resume(&self) {
        let opts = format!(
            "-c listen_addresses=127.0.0.1 -p {} -k {} -c fsync=off -c max_connections=200",
            self.port,
            self.dir.path().display()
        );
        run(
            Command::new("runuser")
                .args(["-u", "postgres", "--"])
                .arg(pg_bin("pg_ctl"))
                .arg("-D")
                .arg(self.data())
                .arg("-l")
                .arg(self.dir.path().join("log"))
                .args(["-w", "-o", &opts, "start"]),
            "pg_ctl start",
        );
        wait_tcp(self.port, Duration::from_secs(30));
    }
}

impl Drop for PrivatePg {
    fn drop(&mut self) {
        let _ = Command::new("runuser")
            .args(["-u", "postgres", "--"])
            .arg(pg_bin("pg_ctl"))
            .arg("-D")
            .arg(self.data())
            .args(["-m", "immediate", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// A RabbitMQ node of this test: its own node name, AMQP, distribution and epmd ports,
/// and directories.
pub struct PrivateRabbit {
    dir: tempfile::TempDir,
    pub port: u16,
    dist: u16,
    epmd: u16,
    wrapper: Option<std::process::Child>,
}

impl PrivateRabbit {
    pub fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        std::fs::write(
            dir.path().join("rabbitmq.conf"),
            format!("listeners.tcp.default = 127.0.0.1:{port}\nloopback_users = none\n"),
        )
        .unwrap();
        std::fs::write(dir.path().join("enabled_plugins"), "[].\n").unwrap();
        // The node and rabbitmqctl share this cookie (HOME is the node's directory).
        let cookie = dir.path().join(".erlang.cookie");
        std::fs::write(&cookie, uuid::Uuid::new_v4().simple().to_string()).unwrap();
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&cookie, std::fs::Permissions::from_mode(0o400)).unwrap();
        }
        let mut me = Self {
            dir,
            port,
            dist: free_port(),
            epmd: free_port(),
            wrapper: None,
        };
        me.resume();
        me
    }

    fn node(&self) -> String {
        format!("chaos{}@localhost", self.port)
    }

    fn env(&self, cmd: &mut Command) {
        let d = self.dir.path();
        cmd.env("RABBITMQ_NODENAME", self.node())
            .env("RABBITMQ_NODE_IP_ADDRESS", "127.0.0.1")
            .env("ERL_EPMD_ADDRESS", "127.0.0.1")
            .env("ERL_EPMD_PORT", self.epmd.to_string())
            .env("RABBITMQ_DIST_PORT", self.dist.to_string())
            .env("RABBITMQ_MNESIA_BASE", d.join("mnesia"))
            .env("RABBITMQ_LOG_BASE", d.join("log"))
            .env("ERL_CRASH_DUMP", d.join("erl_crash.dump"))
            .env("RABBITMQ_PID_FILE", d.join("beam.pid"))
            .env("RABBITMQ_ENABLED_PLUGINS_FILE", d.join("enabled_plugins"))
            .env("RABBITMQ_CONFIG_FILE", d.join("rabbitmq"))
            .env("HOME", d)
            .env(
                "RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS",
                "-kernel inet_dist_use_interface {127,0,0,1}",
            );
    }

    /// `amqp://` of the node (or of a proxy in front of it, `port`).
    pub fn url(port: u16) -> String {
        format!("amqp://guest:guest@127.0.0.1:{port}/%2f")
    }

    /// Starts the node and waits until a login works.
    pub fn resume(&mut self) {
        let mut cmd = Command::new("/usr/lib/rabbitmq/bin/rabbitmq-server");
        self.env(&mut cmd);
        let log = std::fs::File::create(self.dir.path().join("stdout.log")).unwrap();
        let child = cmd
            .stdout(Stdio::from(log.try_clone().unwrap()))
            .stderr(Stdio::from(log))
            .stdin(Stdio::null())
            .spawn()
            .expect("rabbitmq-server (tests/infra/services.sh installs it)");
        self.wrapper = Some(child);
        self.wait_login();
    }

    fn wait_login(&self) {
        let deadline = std::time::Instant::now() + Duration::from_secs(120);
        loop {
            let mut cmd = Command::new("/usr/lib/rabbitmq/bin/rabbitmqctl");
            self.env(&mut cmd);
            let ok = cmd
                .args([
                    "-n",
                    &self.node(),
                    "-q",
                    "authenticate_user",
                    "guest",
                    "guest",
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if ok {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the private RabbitMQ node did not come up: {}",
                std::fs::read_to_string(self.dir.path().join("stdout.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(300));
        }
    }

    fn beam(&self) -> Option<u32> {
        std::fs::read_to_string(self.dir.path().join("beam.pid"))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// Stops the node (the broker's own shutdown) and waits for it to exit.
    pub fn stop(&mut self) {
        let mut cmd = Command::new("/usr/lib/rabbitmq/bin/rabbitmqctl");
        self.env(&mut cmd);
        let _ = cmd
            .args(["-n", &self.node(), "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        if let Some(mut w) = self.wrapper.take() {
            let _ = w.wait();
        }
    }

    fn epmd_pid(&self) -> Option<u32> {
        let out = Command::new("ss")
            .args(["-ltnpH", &format!("sport = :{}", self.epmd)])
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&out.stdout);
        let at = text.find("pid=")?;
        text[at + 4..]
            .split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse()
            .ok()
    }
}

impl Drop for PrivateRabbit {
    fn drop(&mut self) {
        if let Some(b) = self.beam() {
            let _ = Command::new("kill")
                .args(["-KILL", &b.to_string()])
                .status();
        }
        if let Some(mut w) = self.wrapper.take() {
            let _ = w.kill();
            let _ = w.wait();
        }
        if let Some(e) = self.epmd_pid() {
            let _ = Command::new("kill").arg(e.to_string()).status();
        }
    }
}

/// A TCP proxy to `upstream` that can cut every connection and refuse new ones for a
/// while (the bus gone without touching the broker).
pub struct TcpProxy {
    pub port: u16,
    cancel: Generation,
    refusing: Arc<AtomicBool>,
}

impl TcpProxy {
    pub async fn start(upstream: u16) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let cancel = Generation::default();
        let refusing = Arc::new(AtomicBool::new(false));
        let (c, r) = (cancel.clone(), refusing.clone());
        tokio::spawn(async move {
            loop {
                let Ok((client, _)) = listener.accept().await else {
                    continue;
                };
                if r.load(Ordering::SeqCst) {
                    drop(client);
                    continue;
                }
                let generation = c.current();
                let c2 = c.clone();
                tokio::spawn(async move {
                    let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)).await else {
                        return;
                    };
                    let (mut a, mut b) = (client, server);
                    let copy = tokio::io::copy_bidirectional(&mut a, &mut b);
                    tokio::pin!(copy);
                    loop {
                        tokio::select! {
                            _ = &mut copy => return,
                            _ = tokio::time::sleep(Duration::from_millis(50)) => {
                                if c2.current() != generation {
                                    return;
                                }
                            }
                        }
                    }
                });
            }
        });
        Self {
            port,
            cancel,
            refusing,
        }
    }

    /// Closes every connection and refuses new ones for `d`.
    pub async fn cut(&self, d: Duration) {
        self.refusing.store(true, Ordering::SeqCst);
        self.cancel.bump();
        tokio::time::sleep(d).await;
        self.refusing.store(false, Ordering::SeqCst);
    }
}
