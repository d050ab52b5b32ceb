//! One run of the `helm` v3 binary per call, against the operation's VIM.
//!
//! Every session has a private directory (mode 0700, removed when the session ends)
//! holding the kubeconfig built from the VIM connection (mode 0600), the values files
//! and Helm's own cache/config/data homes, so nothing is shared between operations or
//! read from the conductor's home. Credentials are only in that kubeconfig, never on a
//! command line; whatever Helm prints is masked before it reaches failure details.

use std::ffi::OsString;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use base64::Engine;
use serde_json::{Value, json};
use tacker_domain::lcm::driver::{Auth, VimConnection};

use crate::error::{Error, Result};

/// Largest output read from one helm command.
const MAX_OUTPUT: usize = 32 * 1024 * 1024;

/// A private place to run helm for one operation.
pub struct Session {
    binary: PathBuf,
    dir: tempfile::TempDir,
    secrets: Vec<String>,
    timeout: Duration,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("binary", &self.binary)
            .finish_non_exhaustive()
    }
}

/// Writes `content` to a new file readable by the owner only.
fn private_file(path: &Path, content: &[u8]) -> Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| Error::Helm(format!("writing {}: {e}", path.display())))?;
    f.write_all(content)
        .map_err(|e| Error::Helm(format!("writing {}: {e}", path.display())))
}

/// The kubeconfig of `vim` (JSON, which kubeconfig readers accept as YAML), with the
/// API server at `server` (its endpoint pinned to a checked address) and the name its
/// certificate is for.
fn kubeconfig(
    vim: &VimConnection,
    (server, tls_server_name): (String, Option<String>),
) -> Result<(Value, Vec<String>)> {
    let mut cluster = json!({"server": server});
    if let Some(name) = tls_server_name {
        cluster["tls-server-name"] = json!(name);
    }
    if let Some(pem) = vim.interface(&["ssl_ca_cert"]) {
        cluster["certificate-authority-data"] =
            json!(base64::engine::general_purpose::STANDARD.encode(pem));
    }
    let mut secrets = Vec::new();
    let user = match vim.auth() {
        Auth::Token(t) => {
            let t = t.expose_str().unwrap_or_default();
            secrets.push(t.to_owned());
            json!({"token": t})
        }
        Auth::Password { user, password } => {
            let p = password.and_then(|p| p.expose_str()).unwrap_or_default();
            if !p.is_empty() {
                secrets.push(p.to_owned());
            }
            json!({"username": user, "password": p})
        }
        Auth::None => json!({}),
    };
    let cfg = json!({
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "vim", "cluster": cluster}],
        "users": [{"name": "vnfm", "user": user}],
        "contexts": [{"name": "vim", "context": {"cluster": "vim", "user": "vnfm"}}],
        "current-context": "vim",
    });
    Ok((cfg, secrets))
}

impl Session {
    /// A session against `vim` with `binary`; each command may run `timeout` at most.
    /// The API server's address is resolved and checked here (`allowed`:
    /// `outbound.allowed_networks`), and helm is pointed at that address.
    pub async fn new(
        binary: &Path,
        vim: &VimConnection,
        timeout: Duration,
        allowed: &[ipnet::IpNet],
    ) -> Result<Self> {
        let endpoint = vim.interface(&["endpoint"]).ok_or_else(|| {
            Error::Vim(format!(
                "vimConnectionInfo.{}.interfaceInfo.endpoint is required",
                vim.id
            ))
        })?;
        let server = crate::guard::pinned(endpoint, allowed)
            .await
            .map_err(|why| Error::Vim(format!("endpoint {endpoint} refused: {why}")))?;
        let dir = tempfile::Builder::new()
            .prefix("tacker-helm-")
            .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700))
            .tempdir()
            .map_err(|e| Error::Helm(format!("creating a private directory: {e}")))?;
        let (cfg, secrets) = kubeconfig(vim, server)?;
        private_file(&dir.path().join("kubeconfig"), cfg.to_string().as_bytes())?;
        Ok(Self {
            binary: binary.to_owned(),
            dir,
            secrets,
            timeout,
        })
    }

    /// Writes `values` to a private file of this session and returns its path.
    pub fn values_file(&self, name: &str, values: &Value) -> Result<PathBuf> {
        let path = self.dir.path().join(format!("{name}.json"));
        let _ = std::fs::remove_file(&path);
        private_file(&path, values.to_string().as_bytes())?;
        Ok(path)
    }

    fn mask(&self, s: &str) -> String {
        self.secrets
            .iter()
            .fold(s.to_owned(), |s, secret| s.replace(secret.as_str(), "***"))
    }

    /// Runs `helm args...`; its standard output, or the failure with what Helm said.
    pub async fn run(&self, args: &[OsString]) -> Result<String> {
        let home = self.dir.path();
        let mut cmd = tokio::process::Command::new(&self.binary);
        cmd.args(args)
            .env_clear()
            .env("KUBECONFIG", home.join("kubeconfig"))
            .env("HELM_CACHE_HOME", home.join("cache"))
            .env("HELM_CONFIG_HOME", home.join("config"))
            .env("HELM_DATA_HOME", home.join("data"))
            .env("HOME", home)
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let child = cmd.spawn().map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::Invalid(format!(
                    "the helm binary {} is not found: install Helm 3 or set helm.binary",
                    self.binary.display()
                ))
            } else {
                Error::Helm(format!("starting {}: {e}", self.binary.display()))
            }
        })?;
        let verb = args
            .first()
            .map(|a| a.to_string_lossy().into_owned())
            .unwrap_or_default();
        let out = tokio::time::timeout(self.timeout, child.wait_with_output())
            .await
            .map_err(|_| Error::Timeout {
                what: format!("helm {verb}"),
                after: self.timeout,
                state: String::new(),
            })?
            .map_err(|e| Error::Helm(format!("running helm {verb}: {e}")))?;
        if out.stdout.len() > MAX_OUTPUT {
            return Err(Error::Helm(format!(
                "helm {verb} printed more than {MAX_OUTPUT} bytes"
            )));
        }
        if out.status.success() {
            return Ok(String::from_utf8_lossy(&out.stdout).into_owned());
        }
        let stderr = self.mask(String::from_utf8_lossy(&out.stderr).trim());
        let said = stderr
            .lines()
            .rfind(|l| !l.trim().is_empty())
            .unwrap_or("no message")
            .trim_start_matches("Error: ")
            .to_owned();
        Err(classify(&verb, &said))
    }
}

/// A failed helm command as the driver reports it: a chart that does not render is the
/// package's fault (400); a missing release is a 404; anything else is the cluster's
/// answer (502).
fn classify(verb: &str, said: &str) -> Error {
    let lower = said.to_ascii_lowercase();
    if lower.contains("release: not found") {
        Error::Api {
            code: 404,
            reason: "NotFound".into(),
            message: format!("helm {verb}: {said}"),
        }
    } else if lower.contains("parse error")
        || lower.contains("template:")
        || lower.contains("chart.yaml file is missing")
        || lower.contains("unable to load chart")
        || lower.contains("execution error")
    {
        Error::Manifest(format!("helm {verb}: {said}"))
    } else {
        Error::Helm(format!("helm {verb}: {said}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vim(access: Value) -> VimConnection {
        let info = serde_json::from_value(json!({"vimType": "ETSINFV.HELM.V_3",
            "interfaceInfo": {"endpoint": "https://127.0.0.1:6443", "ssl_ca_cert": "PEM"},
            "accessInfo": access}))
        .unwrap();
        VimConnection::new("v", info).unwrap()
    }

    #[tokio::test]
    async fn the_kubeconfig_is_private_and_secrets_are_masked() {
        let loopback = ["127.0.0.0/8".parse().unwrap()];
        let refused = Session::new(
            Path::new("helm"),
            &vim(json!({"bearer_token": "tok-123"})),
            Duration::from_secs(5),
            &[],
        )
        .await;
        assert!(matches!(refused, Err(Error::Vim(m)) if m.contains("outbound.allowed_networks")));
        let s = Session::new(
            Path::new("helm"),
            &vim(json!({"bearer_token": "tok-123"})),
            Duration::from_secs(5),
            &loopback,
        )
        .await
        .unwrap();
        let path = s.dir.path().join("kubeconfig");
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(&path).unwrap().permissions(),
        );
        assert_eq!(mode & 0o777, 0o600);
        let dir_mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(s.dir.path()).unwrap().permissions(),
        );
        assert_eq!(dir_mode & 0o777, 0o700);
        let cfg: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(cfg["users"][0]["user"]["token"], "tok-123");
        assert_eq!(
            cfg["clusters"][0]["cluster"]["certificate-authority-data"],
            base64::engine::general_purpose::STANDARD.encode("PEM")
        );
        assert_eq!(s.mask("Unauthorized tok-123 x"), "Unauthorized *** x");
        let dir = s.dir.path().to_owned();
        drop(s);
        assert!(!dir.exists(), "the private directory goes with the session");
    }

    #[test]
    fn failures_are_classified() {
        assert!(matches!(
            classify("status", "release: not found"),
            Error::Api { code: 404, .. }
        ));
        assert!(matches!(
            classify("template", "parse error at (x/templates/a.yaml:3): bad"),
            Error::Manifest(_)
        ));
        assert!(matches!(
            classify("upgrade", "UPGRADE FAILED: conflict"),
            Error::Helm(_)
        ));
    }
}
