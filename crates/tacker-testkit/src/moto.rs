//! A throwaway S3-compatible server (moto, from `tests/infra/pytools.sh`) on loopback.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `moto_server`, killed when dropped.
pub struct Moto {
    /// `http://127.0.0.1:<port>`.
    pub endpoint: String,
    child: Child,
}

impl std::fmt::Debug for Moto {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.endpoint)
    }
}

fn binary() -> std::path::PathBuf {
    if let Ok(p) = std::env::var("TACKER_TEST_MOTO") {
        return p.into();
    }
    let p =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/moto_server");
    assert!(
        p.exists(),
        "{} missing: run tests/infra/pytools.sh (make test does)",
        p.display()
    );
    p
}

impl Moto {
    /// Starts moto on a free port and waits until it answers.
    pub fn start() -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut child = Command::new(binary())
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let endpoint = format!("http://127.0.0.1:{port}");
        for _ in 0..200 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Self { endpoint, child };
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!("moto_server did not start on {endpoint}");
    }

    /// Creates a bucket (moto accepts the unsigned request).
    pub fn create_bucket(&self, name: &str) {
        let addr = self.endpoint.trim_start_matches("http://").to_owned();
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        use std::io::{Read, Write};
        write!(
            s,
            "PUT /{name} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut resp = String::new();
        s.read_to_string(&mut resp).unwrap();
        assert!(
            resp.starts_with("HTTP/1.1 200"),
            "creating bucket {name}: {resp}"
        );
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
