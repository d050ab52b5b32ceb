//! An external OAuth 2.0 authorization server on loopback: oidc-provider (npm, set up by
//! `tests/infra/node-tools.sh`) run by `tests/infra/oidc/server.mjs`. It issues RS256 JWT
//! access tokens by client credentials for audience `tacker`, the client's roles in a
//! `roles` claim, and opaque tokens for the resource `https://opaque.tacker.test`, which
//! its introspection endpoint describes to client `tacker`. Clients: `e2e-member`
//! (member) and `e2e-reader` (reader), each with the secret `<id>-secret`.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

/// A running oidc-provider, killed when dropped.
pub struct Oidc {
    /// The issuer, `http://127.0.0.1:<port>` (also its base URL).
    pub issuer: String,
    child: Child,
}

impl std::fmt::Debug for Oidc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.issuer)
    }
}

fn dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/infra/oidc");
    assert!(
        d.join("node_modules/oidc-provider").exists(),
        "{} has no oidc-provider: run tests/infra/node-tools.sh (make test does)",
        d.display()
    );
    d
}

impl Oidc {
    /// Starts the server on a free port and waits until it says it is ready.
    pub fn start() -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut child = Command::new("node")
            .arg("server.mjs")
            .arg(port.to_string())
            .current_dir(dir())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("node (Node.js) runs");
        let out = child.stdout.take().unwrap();
        let mut lines = BufReader::new(out).lines();
        let ready = lines
            .by_ref()
            .map_while(Result::ok)
            .any(|l| l.trim() == "ready");
        // Keep reading: oidc-provider warns on stdout later (its in-memory store, on the
        // first opaque token), and a closed pipe would end it.
        std::thread::spawn(move || lines.for_each(drop));
        if !ready {
            let _ = child.kill();
            let _ = child.wait();
            panic!("oidc-provider did not start on port {port}");
        }
        Self {
            issuer: format!("http://127.0.0.1:{port}"),
            child,
        }
    }

    /// Its JWKS (`jwks_uri` of its discovery document).
    pub fn jwks_url(&self) -> String {
        format!("{}/jwks", self.issuer)
    }

    /// Its token endpoint.
    pub fn token_url(&self) -> String {
        format!("{}/token", self.issuer)
    }

    /// Its RFC 7662 introspection endpoint (client `tacker`, secret `tacker-secret`).
    pub fn introspection_url(&self) -> String {
        format!("{}/token/introspection", self.issuer)
    }
}

impl Drop for Oidc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
