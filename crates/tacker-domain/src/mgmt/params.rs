//! The parameters of the built-in management drivers, read from the instantiate
//! request's `additionalParams` and checked without I/O, so the API refuses a missing or
//! invalid one (422, naming it) before anything is created.

use serde_json::{Map, Value};

use crate::failure::Failure;
use crate::secret::Secret;
use crate::vnfd::PackageModel;

type Object = Map<String, Value>;

fn invalid(path: &str, why: &str) -> Failure {
    Failure::unprocessable(format!("additionalParams.{path} {why}"))
}

fn section<'a>(params: &'a Object, key: &str) -> Result<&'a Object, Failure> {
    match params.get(key) {
        Some(Value::Object(m)) => Ok(m),
        Some(_) => Err(invalid(key, "must be an object")),
        None => Err(invalid(key, "is required")),
    }
}

fn text(m: &Object, path: &str, key: &str) -> Result<Option<String>, Failure> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.is_empty() => {
            Err(invalid(&format!("{path}.{key}"), "must not be empty"))
        }
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(invalid(&format!("{path}.{key}"), "must be a string")),
    }
}

fn required(m: &Object, path: &str, key: &str) -> Result<String, Failure> {
    text(m, path, key)?.ok_or_else(|| invalid(&format!("{path}.{key}"), "is required"))
}

fn package_file(model: &PackageModel, path: &str, file: &str) -> Result<(), Failure> {
    let f = file.trim_start_matches("./");
    if model.entries.contains_key(f) {
        Ok(())
    } else {
        Err(invalid(
            path,
            &format!("{file:?} is not a file of the VNF package"),
        ))
    }
}

/// `private_registry_installation_param`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrivateRegistryParams {
    /// The CP whose address the driver reaches the VM at.
    pub ssh_cp_name: String,
    /// The login.
    pub ssh_username: String,
    /// Its password.
    pub ssh_password: Secret,
    /// A `docker save` archive in the package (else the image is pulled).
    pub image_path: Option<String>,
    /// The registry's port (5000).
    pub port_no: u16,
    /// The proxy the VM reaches the outside through (apt, Docker).
    pub proxy: Option<Proxy>,
}

/// `proxy`: what the VM's package manager and Docker go out through (its URLs may hold
/// credentials, so they are secrets).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proxy {
    /// `http_proxy` (may hold `user:password@`).
    pub http_proxy: Option<Secret>,
    /// `https_proxy` (may hold `user:password@`).
    pub https_proxy: Option<Secret>,
    /// `no_proxy`: hosts and networks reached directly.
    pub no_proxy: Option<String>,
}

impl Proxy {
    const KEYS: [&'static str; 3] = ["http_proxy", "https_proxy", "no_proxy"];

    fn parse(v: Option<&Value>, path: &str) -> Result<Option<Self>, Failure> {
        let m = match v {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::Object(m)) => m,
            Some(_) => return Err(invalid(path, "must be an object")),
        };
        known_keys(m, path, &Self::KEYS)?;
        let http_proxy = text(m, path, "http_proxy")?;
        let https_proxy = text(m, path, "https_proxy")?;
        let no_proxy = text(m, path, "no_proxy")?;
        for (k, v) in [
            ("http_proxy", &http_proxy),
            ("https_proxy", &https_proxy),
            ("no_proxy", &no_proxy),
        ] {
            if v.as_deref()
                .is_some_and(|v| v.chars().any(|c| c.is_whitespace() || "\"'\\".contains(c)))
            {
                return Err(invalid(
                    &format!("{path}.{k}"),
                    "must hold no blanks or quotes",
                ));
            }
        }
        for (k, v) in [("http_proxy", &http_proxy), ("https_proxy", &https_proxy)] {
            if let Some(u) = v
                && !(u.starts_with("http://") || u.starts_with("https://"))
            {
                return Err(invalid(&format!("{path}.{k}"), "must be an http(s):// URL"));
            }
        }
        if http_proxy.is_none() && https_proxy.is_none() {
            return Err(invalid(path, "needs http_proxy and/or https_proxy"));
        }
        Ok(Some(Self {
            http_proxy: http_proxy.map(Secret::from),
            https_proxy: https_proxy.map(Secret::from),
            no_proxy,
        }))
    }
}

/// Refuses a key of `m` that is not one of `known` (a name we would not act on).
fn known_keys(m: &Object, path: &str, known: &[&str]) -> Result<(), Failure> {
    match m.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => Err(invalid(
            &format!("{path}.{k}"),
            &format!(
                "is not a parameter of this driver (known: {})",
                known.join(", ")
            ),
        )),
        None => Ok(()),
    }
}

fn port(v: Option<&Value>, path: &str) -> Result<Option<u16>, Failure> {
    let n = match v {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => s.trim().parse::<u64>().ok(),
        Some(_) => None,
    };
    match n.and_then(|n| u16::try_from(n).ok()).filter(|n| *n > 0) {
        Some(p) => Ok(Some(p)),
        None => Err(invalid(path, "must be a port number (1-65535)")),
    }
}

impl PrivateRegistryParams {
    const KEY: &'static str = "private_registry_installation_param";

    /// Reads them from `additionalParams`.
    pub fn parse(params: &Object) -> Result<Self, Failure> {
        let p = Self::KEY;
        let s = section(params, p)?;
        known_keys(
            s,
            p,
            &[
                "ssh_cp_name",
                "ssh_username",
                "ssh_password",
                "image_path",
                "port_no",
                "proxy",
            ],
        )?;
        Ok(Self {
            ssh_cp_name: required(s, p, "ssh_cp_name")?,
            ssh_username: required(s, p, "ssh_username")?,
            ssh_password: required(s, p, "ssh_password")?.into(),
            image_path: text(s, p, "image_path")?,
            port_no: port(s.get("port_no"), &format!("{p}.port_no"))?.unwrap_or(5000),
            proxy: Proxy::parse(s.get("proxy"), &format!("{p}.proxy"))?,
        })
    }

    /// Checks the package files they name.
    pub fn check(&self, model: &PackageModel) -> Result<(), Failure> {
        match &self.image_path {
            Some(f) => package_file(model, &format!("{}.image_path", Self::KEY), f),
            None => Ok(()),
        }
    }
}

/// How the nodes of one role (masters, workers) are reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeParams {
    /// The autoscaling aspect of these nodes, if they scale.
    pub aspect_id: Option<String>,
    /// The CP the driver reaches a node at.
    pub ssh_cp_name: String,
    /// The CP of the cluster network.
    pub nic_cp_name: String,
    /// The login.
    pub username: String,
    /// Its password.
    pub password: Secret,
    /// Pod network (masters).
    pub pod_cidr: Option<String>,
    /// Service network (masters).
    pub cluster_cidr: Option<String>,
    /// The CP of the cluster's API address (masters).
    pub cluster_cp_name: Option<String>,
}

impl NodeParams {
    fn parse(s: &Object, path: &str) -> Result<Self, Failure> {
        Ok(Self {
            aspect_id: text(s, path, "aspect_id")?,
            ssh_cp_name: required(s, path, "ssh_cp_name")?,
            nic_cp_name: required(s, path, "nic_cp_name")?,
            username: required(s, path, "username")?,
            password: required(s, path, "password")?.into(),
            pod_cidr: text(s, path, "pod_cidr")?,
            cluster_cidr: text(s, path, "cluster_cidr")?,
            cluster_cp_name: text(s, path, "cluster_cp_name")?,
        })
    }
}

/// HTTP or HTTPS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnectionType {
    /// `"0"`: plain HTTP (insecure-registries).
    Http,
    /// `"1"`: HTTPS (with a CA when given).
    Https,
}

/// One `private_registry_connection_info` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryConnection {
    /// HTTP or HTTPS.
    pub connection_type: ConnectionType,
    /// `host:port` (or a name).
    pub server: String,
    /// Login (with `password`).
    pub username: Option<String>,
    /// Password.
    pub password: Option<Secret>,
    /// The CA certificate in the package.
    pub certificate_path: Option<String>,
    /// A line for `/etc/hosts` (`<IP> <FQDN>`).
    pub hosts_string: Option<String>,
}

impl RegistryConnection {
    fn parse(s: &Object, path: &str) -> Result<Self, Failure> {
        let connection_type = match s.get("connection_type") {
            Some(Value::String(t)) if t == "0" => ConnectionType::Http,
            Some(Value::String(t)) if t == "1" => ConnectionType::Https,
            Some(Value::Number(n)) if n.as_u64() == Some(0) => ConnectionType::Http,
            Some(Value::Number(n)) if n.as_u64() == Some(1) => ConnectionType::Https,
            None | Some(Value::Null) => {
                return Err(invalid(&format!("{path}.connection_type"), "is required"));
            }
            Some(_) => {
                return Err(invalid(
                    &format!("{path}.connection_type"),
                    "must be \"0\" (HTTP) or \"1\" (HTTPS)",
                ));
            }
        };
        let username = text(s, path, "username")?;
        let password = text(s, path, "password")?;
        if username.is_some() != password.is_some() {
            return Err(invalid(path, "needs username and password together"));
        }
        let hosts_string = text(s, path, "hosts_string")?;
        if let Some(h) = &hosts_string {
            let mut parts = h.split_whitespace();
            let ok = parts
                .next()
                .is_some_and(|ip| ip.parse::<std::net::IpAddr>().is_ok())
                && parts.next().is_some()
                && !h.contains('\n');
            if !ok {
                return Err(invalid(
                    &format!("{path}.hosts_string"),
                    "must be \"<IP address> <FQDN>\"",
                ));
            }
        }
        let server = required(s, path, "server")?;
        if server.contains(char::is_whitespace) || server.contains('/') {
            return Err(invalid(&format!("{path}.server"), "must be host[:port]"));
        }
        Ok(Self {
            connection_type,
            server,
            username,
            password: password.map(Secret::from),
            certificate_path: text(s, path, "certificate_path")?,
            hosts_string,
        })
    }
}

/// `k8s_cluster_installation_param`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct K8sClusterParams {
    /// The install script in the package (run on masters, then workers).
    pub script_path: String,
    /// The name the cluster is registered under as a VIM.
    pub vim_name: Option<String>,
    /// Masters.
    pub master_node: NodeParams,
    /// Workers.
    pub worker_node: NodeParams,
    /// Proxy settings passed to the script (URLs that may hold credentials).
    pub proxy: Secret,
    /// Registries every node is connected to.
    pub registries: Vec<RegistryConnection>,
}

impl K8sClusterParams {
    const KEY: &'static str = "k8s_cluster_installation_param";

    /// Reads them from `additionalParams`.
    pub fn parse(params: &Object) -> Result<Self, Failure> {
        let p = Self::KEY;
        let s = section(params, p)?;
        let node = |k: &str| -> Result<NodeParams, Failure> {
            let path = format!("{p}.{k}");
            match s.get(k) {
                Some(Value::Object(m)) => NodeParams::parse(m, &path),
                Some(_) => Err(invalid(&path, "must be an object")),
                None => Err(invalid(&path, "is required")),
            }
        };
        let registries = match s.get("private_registry_connection_info") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(list)) => list
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let path = format!("{p}.private_registry_connection_info[{i}]");
                    r.as_object()
                        .ok_or_else(|| invalid(&path, "must be an object"))
                        .and_then(|m| RegistryConnection::parse(m, &path))
                })
                .collect::<Result<_, _>>()?,
            Some(_) => {
                return Err(invalid(
                    &format!("{p}.private_registry_connection_info"),
                    "must be a list",
                ));
            }
        };
        let proxy = match s.get("proxy") {
            None | Some(Value::Null) => Secret::new(Value::Object(Map::new())),
            Some(Value::Object(m)) => Secret::new(Value::Object(m.clone())),
            Some(_) => return Err(invalid(&format!("{p}.proxy"), "must be an object")),
        };
        Ok(Self {
            script_path: required(s, p, "script_path")?,
            vim_name: text(s, p, "vim_name")?,
            master_node: node("master_node")?,
            worker_node: node("worker_node")?,
            proxy,
            registries,
        })
    }

    /// Checks the package files they name.
    pub fn check(&self, model: &PackageModel) -> Result<(), Failure> {
        package_file(
            model,
            &format!("{}.script_path", Self::KEY),
            &self.script_path,
        )?;
        for (i, r) in self.registries.iter().enumerate() {
            if let Some(c) = &r.certificate_path {
                package_file(
                    model,
                    &format!(
                        "{}.private_registry_connection_info[{i}].certificate_path",
                        Self::KEY
                    ),
                    c,
                )?;
            }
        }
        Ok(())
    }

    /// Refuses to scale the masters (422).
    pub fn check_scale(&self, aspect: &str) -> Result<(), Failure> {
        if self.master_node.aspect_id.as_deref() == Some(aspect) {
            return Err(Failure::unprocessable(format!(
                "aspect {aspect} scales the Kubernetes masters, which is not supported; scale the workers"
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn obj(v: Value) -> Object {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn registry_parameters_are_named_when_wrong() {
        let ok = PrivateRegistryParams::parse(&obj(json!({"private_registry_installation_param":
            {"ssh_cp_name": "CP1", "ssh_username": "u", "ssh_password": "p", "port_no": "5050"}})))
        .unwrap();
        assert_eq!(ok.port_no, 5050);
        assert!(!format!("{ok:?}").contains("\"p\""));
        let e = PrivateRegistryParams::parse(&obj(json!({"private_registry_installation_param":
            {"ssh_cp_name": "CP1", "ssh_username": "u"}})))
        .unwrap_err();
        assert_eq!(e.status, 422);
        assert_eq!(
            e.detail,
            "additionalParams.private_registry_installation_param.ssh_password is required"
        );
        let e = PrivateRegistryParams::parse(&obj(json!({"private_registry_installation_param":
            {"ssh_cp_name": "CP1", "ssh_username": "u", "ssh_password": "p", "port_no": 70000}})))
        .unwrap_err();
        assert!(e.detail.contains("port_no"), "{e}");
    }

    #[test]
    fn cluster_parameters_check_connection_types_and_credentials() {
        let base = json!({"k8s_cluster_installation_param": {
            "script_path": "Scripts/install.sh",
            "master_node": {"aspect_id": "master_instance", "ssh_cp_name": "m", "nic_cp_name": "m", "username": "u", "password": "p"},
            "worker_node": {"aspect_id": "worker_instance", "ssh_cp_name": "w", "nic_cp_name": "w", "username": "u", "password": "p"},
            "private_registry_connection_info": [
                {"connection_type": 0, "server": "10.250.1.5:5000"},
                {"connection_type": "1", "server": "reg.example.com", "username": "a", "password": "b",
                 "hosts_string": "10.250.1.6 reg.example.com"}]}});
        let p = K8sClusterParams::parse(&obj(base.clone())).unwrap();
        assert_eq!(p.registries[0].connection_type, ConnectionType::Http);
        assert_eq!(p.registries[1].connection_type, ConnectionType::Https);
        assert!(p.check_scale("master_instance").is_err());
        assert!(p.check_scale("worker_instance").is_ok());
        let mut bad = base.clone();
        bad["k8s_cluster_installation_param"]["private_registry_connection_info"][0]["connection_type"] =
            json!("2");
        let e = K8sClusterParams::parse(&obj(bad)).unwrap_err();
        assert!(
            e.detail
                .contains("private_registry_connection_info[0].connection_type"),
            "{e}"
        );
        let mut half = base.clone();
        half["k8s_cluster_installation_param"]["private_registry_connection_info"][1]
            .as_object_mut()
            .unwrap()
            .remove("password");
        assert!(
            K8sClusterParams::parse(&obj(half))
                .unwrap_err()
                .detail
                .contains("together")
        );
        let mut nopw = base;
        nopw["k8s_cluster_installation_param"]["worker_node"]
            .as_object_mut()
            .unwrap()
            .remove("password");
        assert_eq!(
            K8sClusterParams::parse(&obj(nopw)).unwrap_err().detail,
            "additionalParams.k8s_cluster_installation_param.worker_node.password is required"
        );
    }

    #[test]
    fn credentials_and_proxies_are_secrets_in_what_is_printed() {
        let proxy = json!({"http_proxy": "http://pu:proxy-pw-1@p:3128",
                           "https_proxy": "https://pu:proxy-pw-2@p:3128", "no_proxy": "10.0.0.0/8"});
        let reg = PrivateRegistryParams::parse(&obj(json!({"private_registry_installation_param":
            {"ssh_cp_name": "CP1", "ssh_username": "u", "ssh_password": "ssh-pw-3", "proxy": proxy}})))
        .unwrap();
        let cluster = K8sClusterParams::parse(&obj(json!({"k8s_cluster_installation_param": {
            "script_path": "Scripts/install.sh",
            "master_node": {"ssh_cp_name": "m", "nic_cp_name": "m", "username": "u", "password": "node-pw-4"},
            "worker_node": {"ssh_cp_name": "w", "nic_cp_name": "w", "username": "u", "password": "node-pw-5"},
            "proxy": {"http_proxy": "http://pu:proxy-pw-6@p:3128"},
            "private_registry_connection_info": [
                {"connection_type": "1", "server": "reg:5000", "username": "a", "password": "reg-pw-7"}]}})))
        .unwrap();
        let printed = format!("{reg:?} {cluster:?}");
        for planted in [
            "proxy-pw-1",
            "proxy-pw-2",
            "ssh-pw-3",
            "node-pw-4",
            "node-pw-5",
            "proxy-pw-6",
            "reg-pw-7",
        ] {
            assert!(!printed.contains(planted), "{planted} printed: {printed}");
        }
        assert!(
            printed.contains("10.0.0.0/8") && printed.contains("reg:5000"),
            "{printed}"
        );
        let p = reg.proxy.as_ref().unwrap();
        assert_eq!(
            p.http_proxy.as_ref().unwrap().expose_text(),
            "http://pu:proxy-pw-1@p:3128"
        );
        assert_eq!(
            p.https_proxy.as_ref().unwrap().expose_text(),
            "https://pu:proxy-pw-2@p:3128"
        );
        assert_eq!(reg.ssh_password.expose_text(), "ssh-pw-3");
        assert_eq!(cluster.master_node.password.expose_text(), "node-pw-4");
        assert_eq!(cluster.worker_node.password.expose_text(), "node-pw-5");
        assert_eq!(
            cluster.proxy.expose()["http_proxy"],
            "http://pu:proxy-pw-6@p:3128"
        );
        assert_eq!(
            cluster.registries[0]
                .password
                .as_ref()
                .unwrap()
                .expose_text(),
            "reg-pw-7"
        );
    }
}
