//! Connecting one node to private registries (`private_registry_connection_info`):
//! Docker's `insecure-registries` (HTTP) and `certs.d` CA (HTTPS), containerd's
//! `certs.d/<server>/hosts.toml`, `/etc/hosts` lines, `docker login` (password on stdin)
//! with the credentials copied for the kubelet. Every step is idempotent; a runtime is
//! restarted only when its configuration changed.

use serde_json::{Value, json};
use tacker_domain::mgmt::params::{ConnectionType, RegistryConnection};

use crate::error::{Error, Result};
use crate::ssh::{Session, quote};

/// Docker's daemon configuration.
pub const DAEMON_JSON: &str = "/etc/docker/daemon.json";
/// Where the kubelet reads registry credentials.
pub const KUBELET_CREDENTIALS: &str = "/var/lib/kubelet/config.json";

/// A registry with its CA certificate read from the package.
#[derive(Debug, Clone)]
pub struct Registry {
    /// The parameters.
    pub conn: RegistryConnection,
    /// The CA (PEM) from `certificate_path`.
    pub ca: Option<Vec<u8>>,
}

/// `daemon.json` with `servers` in `insecure-registries` (other keys kept); `None`
/// when nothing changes.
pub fn merged_daemon_json(current: Option<&str>, servers: &[&str]) -> Result<Option<String>> {
    let mut doc: Value = match current.map(str::trim).filter(|t| !t.is_empty()) {
        Some(t) => serde_json::from_str(t)
            .map_err(|e| Error::Invalid(format!("{DAEMON_JSON} is not JSON: {e}")))?,
        None => json!({}),
    };
    let obj = doc
        .as_object_mut()
        .ok_or_else(|| Error::Invalid(format!("{DAEMON_JSON} is not a JSON object")))?;
    let list = obj
        .entry("insecure-registries")
        .or_insert_with(|| json!([]))
        .as_array_mut()
        .ok_or_else(|| {
            Error::Invalid(format!("{DAEMON_JSON}: insecure-registries is not a list"))
        })?;
    let mut changed = false;
    for s in servers {
        if !list.iter().any(|v| v.as_str() == Some(s)) {
            list.push(json!(s));
            changed = true;
        }
    }
    if !changed && current.is_some() {
        return Ok(None);
    }
    serde_json::to_string_pretty(&doc)
        .map(|t| Some(t + "\n"))
        .map_err(|e| Error::Invalid(e.to_string()))
}

/// containerd's `hosts.toml` for a registry.
pub fn hosts_toml(r: &RegistryConnection, ca_path: Option<&str>) -> String {
    let scheme = match r.connection_type {
        ConnectionType::Http => "http",
        ConnectionType::Https => "https",
    };
    let url = format!("{scheme}://{}", r.server);
    let mut t = format!(
        "server = \"{url}\"\n\n[host.\"{url}\"]\n  capabilities = [\"pull\", \"resolve\"]\n"
    );
    if let Some(ca) = ca_path {
        t.push_str(&format!("  ca = \"{ca}\"\n"));
    }
    t
}

/// What configuring a node changed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Changes {
    /// Files written.
    pub files: Vec<String>,
    /// Runtimes restarted.
    pub restarted: Vec<String>,
}

/// Connects the node behind `s` to `registries`.
pub async fn configure(s: &Session, registries: &[Registry]) -> Result<Changes> {
    let mut ch = Changes::default();
    if registries.is_empty() {
        return Ok(ch);
    }
    // Names first: logins may need them.
    for r in registries {
        if let Some(line) = &r.conn.hosts_string {
            let out = s
                .sudo(
                    "adding the registry to /etc/hosts",
                    &format!(
                        "grep -qxF {l} /etc/hosts || {{ echo {l} >> /etc/hosts; echo added; }}",
                        l = quote(line)
                    ),
                    None,
                )
                .await?;
            if out.stdout.contains("added") {
                ch.files.push("/etc/hosts".into());
            }
        }
    }
    let (mut docker_changed, mut containerd_changed) = (false, false);
    let insecure: Vec<&str> = registries
        .iter()
        .filter(|r| r.conn.connection_type == ConnectionType::Http)
        .map(|r| r.conn.server.as_str())
        .collect();
    if !insecure.is_empty() {
        let current = s.read_root_file(DAEMON_JSON).await?;
        if let Some(next) = merged_daemon_json(current.as_deref(), &insecure)?
            && s.write_root_file(DAEMON_JSON, next.as_bytes(), 0o644)
                .await?
        {
            docker_changed = true;
            ch.files.push(DAEMON_JSON.into());
        }
    }
    for r in registries {
        let server = &r.conn.server;
        let mut containerd_ca = None;
        if let Some(ca) = &r.ca {
            let docker_ca = format!("/etc/docker/certs.d/{server}/ca.crt");
            if s.write_root_file(&docker_ca, ca, 0o644).await? {
                ch.files.push(docker_ca);
            }
            let path = format!("/etc/containerd/certs.d/{server}/ca.crt");
            if s.write_root_file(&path, ca, 0o644).await? {
                containerd_changed = true;
                ch.files.push(path.clone());
            }
            containerd_ca = Some(path);
        }
        let hosts = format!("/etc/containerd/certs.d/{server}/hosts.toml");
        let body = hosts_toml(&r.conn, containerd_ca.as_deref());
        if s.write_root_file(&hosts, body.as_bytes(), 0o644).await? {
            containerd_changed = true;
            ch.files.push(hosts);
        }
    }
    for (changed, unit) in [
        (docker_changed, "docker"),
        (containerd_changed, "containerd"),
    ] {
        if changed {
            s.sudo(
                &format!("restarting {unit}"),
                &format!("systemctl restart {unit}"),
                None,
            )
            .await?;
            ch.restarted.push(unit.into());
        }
    }
    let mut logged_in = false;
    for r in registries {
        let (Some(user), Some(password)) = (&r.conn.username, &r.conn.password) else {
            continue;
        };
        s.sudo(
            &format!("logging in to registry {}", r.conn.server),
            &format!(
                "docker login --username {} --password-stdin {}",
                quote(user),
                quote(&r.conn.server)
            ),
            Some(password.expose_text().as_bytes()),
        )
        .await?;
        logged_in = true;
    }
    if logged_in {
        let out = s
            .sudo(
                "making the registry credentials available to the kubelet",
                &format!(
                    "set -e; mkdir -p /var/lib/kubelet; \
                     if ! cmp -s /root/.docker/config.json {k}; then install -m 600 /root/.docker/config.json {k}; echo copied; fi",
                    k = KUBELET_CREDENTIALS
                ),
                None,
            )
            .await?;
        if out.stdout.contains("copied") {
            ch.files.push(KUBELET_CREDENTIALS.into());
        }
    }
    Ok(ch)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn daemon_json_keeps_other_keys_and_adds_each_server_once() {
        let next = merged_daemon_json(Some(r#"{"log-driver": "json-file"}"#), &["10.0.0.1:5000"])
            .unwrap()
            .unwrap();
        let v: Value = serde_json::from_str(&next).unwrap();
        assert_eq!(v["log-driver"], "json-file");
        assert_eq!(v["insecure-registries"], json!(["10.0.0.1:5000"]));
        assert_eq!(
            merged_daemon_json(Some(&next), &["10.0.0.1:5000"]).unwrap(),
            None
        );
        assert!(merged_daemon_json(None, &["a:1"]).unwrap().is_some());
        assert!(merged_daemon_json(Some("not json"), &["a:1"]).is_err());
    }

    #[test]
    fn hosts_toml_names_the_scheme_and_the_ca() {
        let r = RegistryConnection {
            connection_type: ConnectionType::Https,
            server: "reg.example.com".into(),
            username: None,
            password: None,
            certificate_path: None,
            hosts_string: None,
        };
        let t = hosts_toml(&r, Some("/etc/containerd/certs.d/reg.example.com/ca.crt"));
        assert!(t.starts_with("server = \"https://reg.example.com\""), "{t}");
        assert!(
            t.contains("ca = \"/etc/containerd/certs.d/reg.example.com/ca.crt\""),
            "{t}"
        );
    }
}
