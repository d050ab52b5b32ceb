//! Registered VIMs (Tacker's `/v1.0/vims`): what requests naming only a `vimId` resolve
//! to. Credentials (`auth_cred` but its identity fields, `extra` but its area and the
//! like) are masked in every answer.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};
use uuid::Uuid;

use crate::failure::Failure;

pub mod connection;

use connection::{Part, Place};
pub use connection::{VimConnection, VimConnectionInfo, VimConnections};

crate::text_enum! {
    /// The kinds of VIM Tacker's API registers.
    VimType, "vim type" {
        /// OpenStack (Keystone v3 + Heat).
        OpenStack = "openstack",
        /// Kubernetes.
        Kubernetes = "kubernetes",
    }
}

impl VimType {
    /// The SOL003 `vimType` of its connections.
    pub fn sol_type(self) -> &'static str {
        match self {
            VimType::OpenStack => "ETSINFV.OPENSTACK_KEYSTONE.V_3",
            VimType::Kubernetes => "ETSINFV.KUBERNETES.V_1",
        }
    }
}

/// A registered VIM.
#[derive(Debug, Clone, PartialEq)]
pub struct Vim {
    /// Id.
    pub id: Uuid,
    /// Unique name.
    pub name: String,
    /// Description.
    pub description: String,
    /// Its kind.
    pub vim_type: VimType,
    /// Keystone (`.../v3`) or the Kubernetes API server.
    pub auth_url: String,
    /// Credentials (secrets included; masked when answered).
    pub auth_cred: Map<String, Value>,
    /// `vim_project` (`name`, `project_domain_name`; the namespace for Kubernetes).
    pub vim_project: Map<String, Value>,
    /// The VIM used when a request names none.
    pub is_default: bool,
    /// `extra` (e.g. `area`, `helm_info`).
    pub extra: Map<String, Value>,
    /// The project that registered it.
    pub tenant_id: String,
    /// Created.
    pub created_at: DateTime<Utc>,
    /// Last updated.
    pub updated_at: Option<DateTime<Utc>>,
}

/// `m` as answered: its values that are secrets where they live (`place`) as `***`.
fn masked(place: Place, m: &Map<String, Value>) -> Map<String, Value> {
    m.iter()
        .map(|(k, v)| {
            if place.is_secret(k) {
                (k.clone(), json!(crate::secret::MASK))
            } else {
                (k.clone(), v.clone())
            }
        })
        .collect()
}

/// Seals, with `seal`, the secrets of a registered VIM's `extra` in place (its area and
/// the like stay readable, for scoping).
pub fn seal_extra<E>(
    extra: &mut Map<String, Value>,
    seal: &mut dyn FnMut(&str) -> Result<String, E>,
) -> Result<(), E> {
    for (k, v) in extra.iter_mut() {
        if Place::Extra.is_secret(k) {
            crate::secret::seal_value(v, seal)?;
        }
    }
    Ok(())
}

fn text(m: &Map<String, Value>, k: &str) -> Option<String> {
    m.get(k)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

fn object(v: Option<&Value>, what: &str) -> Result<Map<String, Value>, Failure> {
    match v {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m.clone()),
        Some(_) => Err(Failure::bad_request(format!("{what} must be an object"))),
    }
}

/// A VIM to register for `tenant` (the caller decides whose: `tenant_id` in the body is
/// checked there), read from `{"vim": {...}}`.
pub fn parse_new(body: &Value, tenant: &str) -> Result<Vim, Failure> {
    let v = body
        .get("vim")
        .and_then(Value::as_object)
        .ok_or_else(|| Failure::bad_request("the body must be {\"vim\": {...}}"))?;
    for k in v.keys() {
        if !matches!(
            k.as_str(),
            "name"
                | "description"
                | "type"
                | "auth_url"
                | "auth_cred"
                | "vim_project"
                | "is_default"
                | "extra"
                | "tenant_id"
        ) {
            return Err(Failure::bad_request(format!(
                "Unrecognized attribute(s) '{k}'"
            )));
        }
    }
    let need = |k: &str| {
        text(v, k).ok_or_else(|| {
            Failure::bad_request(format!(
                "Failed to parse request. Required attribute '{k}' not specified"
            ))
        })
    };
    let name = need("name")?;
    if name.len() > 255 {
        return Err(Failure::bad_request("name is longer than 255 characters"));
    }
    let vim_type: VimType = text(v, "type")
        .unwrap_or_else(|| "openstack".into())
        .parse()
        .map_err(|_| Failure::bad_request("type must be openstack or kubernetes"))?;
    let auth_url = need("auth_url")?;
    let url = url_of(&auth_url)?;
    let auth_url = match vim_type {
        VimType::OpenStack if !url.trim_end_matches('/').ends_with("/v3") => {
            format!("{}/v3", url.trim_end_matches('/'))
        }
        _ => url.trim_end_matches('/').to_owned(),
    };
    let auth_cred = object(v.get("auth_cred"), "auth_cred")?;
    if auth_cred.is_empty() {
        return Err(Failure::bad_request(
            "Failed to parse request. Required attribute 'auth_cred' not specified",
        ));
    }
    let vim_project = object(v.get("vim_project"), "vim_project")?;
    let vim = Vim {
        id: Uuid::new_v4(),
        name,
        description: text(v, "description").unwrap_or_default(),
        vim_type,
        auth_url,
        auth_cred,
        vim_project,
        is_default: match v.get("is_default") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(Value::String(s)) => s.eq_ignore_ascii_case("true"),
            Some(_) => return Err(Failure::bad_request("is_default must be a boolean")),
        },
        extra: object(v.get("extra"), "extra")?,
        tenant_id: tenant.to_owned(),
        created_at: Utc::now(),
        updated_at: None,
    };
    vim.check_credentials()?;
    Ok(vim)
}

fn url_of(s: &str) -> Result<String, Failure> {
    let u = url::Url::parse(s)
        .map_err(|e| Failure::bad_request(format!("auth_url is not a URL: {e}")))?;
    if !matches!(u.scheme(), "http" | "https") || u.host_str().is_none() {
        return Err(Failure::bad_request("auth_url must be http(s)://host..."));
    }
    if !u.username().is_empty() || u.password().is_some() {
        return Err(Failure::bad_request(
            "auth_url must not carry credentials; put them in auth_cred",
        ));
    }
    Ok(s.to_owned())
}

impl Vim {
    fn check_credentials(&self) -> Result<(), Failure> {
        let c = &self.auth_cred;
        let has = |k: &str| text(c, k).is_some();
        match self.vim_type {
            VimType::OpenStack if !(has("username") && has("password")) => Err(
                Failure::bad_request("auth_cred of an openstack VIM needs username and password"),
            ),
            VimType::OpenStack if text(&self.vim_project, "name").is_none() => Err(
                Failure::bad_request("vim_project.name (the project) is required for openstack"),
            ),
            VimType::Kubernetes if !(has("bearer_token") || has("username") && has("password")) => {
                Err(Failure::bad_request(
                    "auth_cred of a kubernetes VIM needs bearer_token, or username and password",
                ))
            }
            _ => Ok(()),
        }
    }

    /// Applies `{"vim": {...}}` of an update (`name`, `description`, `is_default`,
    /// `auth_cred` merged, `vim_project`, `extra`).
    pub fn update(&mut self, body: &Value) -> Result<(), Failure> {
        let v = body
            .get("vim")
            .and_then(Value::as_object)
            .ok_or_else(|| Failure::bad_request("the body must be {\"vim\": {...}}"))?;
        for (k, x) in v {
            match k.as_str() {
                "name" => {
                    self.name = x
                        .as_str()
                        .filter(|s| !s.is_empty())
                        .ok_or_else(|| Failure::bad_request("name must be a non-empty string"))?
                        .to_owned();
                }
                "description" => self.description = x.as_str().unwrap_or_default().to_owned(),
                "is_default" => {
                    self.is_default = x
                        .as_bool()
                        .ok_or_else(|| Failure::bad_request("is_default must be a boolean"))?;
                }
                "auth_cred" => {
                    for (ck, cv) in object(Some(x), "auth_cred")? {
                        self.auth_cred.insert(ck, cv);
                    }
                }
                "vim_project" => self.vim_project = object(Some(x), "vim_project")?,
                "extra" => self.extra = object(Some(x), "extra")?,
                other => {
                    return Err(Failure::bad_request(format!(
                        "Cannot update read-only attribute {other}"
                    )));
                }
            }
        }
        self.updated_at = Some(Utc::now());
        self.check_credentials()
    }

    /// The body answered: of `auth_cred` only the identity fields (every other value
    /// `***`), of `extra` only what is no secret (see [`crate::lcm::secrets`]).
    pub fn to_json(&self) -> Value {
        let credentials = masked(Place::Access, &self.auth_cred);
        let regions = match self.vim_type {
            VimType::OpenStack => {
                vec![text(&self.extra, "region").unwrap_or_else(|| "RegionOne".into())]
            }
            VimType::Kubernetes => text(&self.vim_project, "name").into_iter().collect(),
        };
        json!({
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "type": self.vim_type,
            "tenant_id": self.tenant_id,
            "auth_url": self.auth_url,
            "auth_cred": credentials,
            "vim_project": self.vim_project,
            "status": "ACTIVE",
            "is_default": self.is_default,
            "placement_attr": {"regions": regions},
            "extra": masked(Place::Extra, &self.extra),
            "created_at": self.created_at.format("%Y-%m-%d %H:%M:%S").to_string(),
            "updated_at": self.updated_at.map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string()),
        })
    }

    /// Its area (`extra.area`, Tacker's enhanced policy), if it names one.
    pub fn area(&self) -> Option<&str> {
        self.extra
            .get("area")
            .and_then(Value::as_str)
            .filter(|a| !a.is_empty())
    }

    /// A Kubernetes VIM registered with `extra.use_helm: true` (Tacker's way): its CNFs
    /// are Helm charts (`ETSINFV.HELM.V_3`).
    pub fn uses_helm(&self) -> bool {
        self.vim_type == VimType::Kubernetes
            && self.extra.get("use_helm").and_then(Value::as_bool) == Some(true)
    }

    /// The `vimType` its connections have (Helm's for a Kubernetes VIM with `use_helm`).
    pub fn connection_type(&self) -> &'static str {
        if self.uses_helm() {
            crate::lcm::vim_type::HELM
        } else {
            self.vim_type.sol_type()
        }
    }

    /// The VIM as a connection (credentials included: for drivers only), under key `id`.
    pub fn connection(&self, id: &str) -> VimConnection {
        let c = &self.auth_cred;
        let mut interface = Map::new();
        interface.insert("endpoint".into(), json!(self.auth_url));
        let mut access = Map::new();
        let mut extra = self.extra.clone();
        match self.vim_type {
            VimType::OpenStack => {
                if let Some(ca) = text(c, "ssl_ca_cert") {
                    interface.insert("ssl_ca_cert".into(), json!(ca));
                }
                for (from, to) in [
                    ("username", "username"),
                    ("password", "password"),
                    ("user_domain_name", "userDomain"),
                ] {
                    if let Some(v) = text(c, from) {
                        access.insert(to.into(), json!(v));
                    }
                }
                if let Some(p) = text(&self.vim_project, "name") {
                    access.insert("project".into(), json!(p));
                }
                if let Some(d) = text(&self.vim_project, "project_domain_name") {
                    access.insert("projectDomain".into(), json!(d));
                }
                if let Some(r) = text(&self.extra, "region") {
                    access.insert("region".into(), json!(r));
                }
            }
            VimType::Kubernetes => {
                if let Some(ca) = text(c, "ssl_ca_cert") {
                    interface.insert("ssl_ca_cert".into(), json!(ca));
                }
                for k in ["bearer_token", "username", "password"] {
                    if let Some(v) = text(c, k) {
                        access.insert(k.into(), json!(v));
                    }
                }
                if let Some(ns) = text(&self.vim_project, "name") {
                    extra.insert("namespace".into(), json!(ns));
                }
            }
        }
        let vim_type = self.connection_type().to_owned();
        VimConnection {
            id: id.to_owned(),
            vim_type: vim_type.clone(),
            info: VimConnectionInfo {
                vim_id: None,
                vim_type: Some(vim_type),
                interface_info: Some(Part::read(Place::Interface, interface)),
                access_info: Some(Part::read(Place::Access, access)),
                extra: Some(Part::read(Place::Extra, extra)),
                other: Map::new(),
            },
            vim_id: Some(self.id.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registration_checks_and_masks() {
        let body = json!({"vim": {"name": "v1", "type": "openstack", "auth_url": "http://k:5000",
            "auth_cred": {"username": "u", "password": "p4ss", "user_domain_name": "Default"},
            "vim_project": {"name": "nfv", "project_domain_name": "Default"}, "is_default": true}});
        let v = parse_new(&body, "t").unwrap();
        assert_eq!(v.auth_url, "http://k:5000/v3");
        let shown = v.to_json().to_string();
        assert!(
            !shown.contains("p4ss") && shown.contains("\"***\""),
            "{shown}"
        );
        let c = v.connection("vim1");
        assert_eq!(c.vim_type, "ETSINFV.OPENSTACK_KEYSTONE.V_3");
        assert_eq!(c.access_secret("password"), Some("p4ss"));
        assert_eq!(c.access(&["project"]), Some("nfv"));
        let mut no_pw = body.clone();
        no_pw["vim"]["auth_cred"] = json!({"username": "u"});
        assert!(parse_new(&no_pw, "t").is_err());
        let mut bad = body.clone();
        bad["vim"]["auth_url"] = json!("http://user:pw@k/v3");
        assert!(parse_new(&bad, "t").is_err());
        let k = json!({"vim": {"name": "k", "type": "kubernetes", "auth_url": "https://k:6443",
            "auth_cred": {"bearer_token": "tok"}, "vim_project": {"name": "default"}}});
        let k = parse_new(&k, "t").unwrap();
        assert!(!k.to_json().to_string().contains("tok\""));
        assert_eq!(k.connection("x").access_secret("bearer_token"), Some("tok"));
        assert_eq!(k.connection("x").vim_type, "ETSINFV.KUBERNETES.V_1");
        let mut helm = k.clone();
        helm.extra.insert("use_helm".into(), json!(true));
        assert_eq!(helm.connection("x").vim_type, "ETSINFV.HELM.V_3");
    }
}
