//! One entry of `vimConnectionInfo` (SOL003 `VimConnectionInfo`), typed, with its
//! secrets held as [`Secret`]s by where they live:
//!
//! - `accessInfo`: every value but the identity fields of [`ACCESS_SHOWN`];
//! - `extra`: every value but those of [`EXTRA_SHOWN`] (Tacker's `extra.helm_info`
//!   carries `masternode_password`);
//! - `interfaceInfo`: the values whose names look secret (`client_key`, ...).
//!
//! Unknown keys round-trip: an entry serializes to the JSON it was read from, so stored
//! rows keep their shape. The rules about entries live here: [`VimConnectionInfo::reference`]
//! (a `vimId` without credentials names a registered VIM), sealing and opening, and what
//! an answer shows ([`VimConnectionInfo::shown`]). [`VimConnection`] is an entry resolved
//! for a driver, with its authentication typed.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::secret::{MASK, Secret};

/// The identity fields of VIM credentials (`accessInfo`, a registered VIM's
/// `auth_cred`), the only ones answered: every other value is a secret.
pub const ACCESS_SHOWN: [&str; 18] = [
    "username",
    "userId",
    "user_id",
    "userDomain",
    "user_domain_name",
    "user_domain_id",
    "region",
    "project",
    "projectId",
    "project_id",
    "project_name",
    "projectDomain",
    "project_domain_name",
    "project_domain_id",
    "tenant",
    "auth_url",
    "cert_verify",
    "ssl_ca_cert",
];

/// The keys of a VIM's `extra` answered and stored in clear (its area, its namespace,
/// whether it runs Helm, the instance that registered it): every other value is a secret.
pub const EXTRA_SHOWN: [&str; 5] = [
    "area",
    "namespace",
    "use_helm",
    "region",
    "registered_by_vnf_instance",
];

/// VIM connections by id (`vimConnectionInfo`).
pub type VimConnections = BTreeMap<String, VimConnectionInfo>;

/// Where a value of a VIM connection lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// `interfaceInfo`.
    Interface,
    /// `accessInfo` (and a registered VIM's `auth_cred`).
    Access,
    /// `extra`.
    Extra,
}

impl Place {
    /// Whether the value of `key` here is a secret.
    pub fn is_secret(self, key: &str) -> bool {
        match self {
            // Certificates here are the CA's: public.
            Place::Interface => {
                crate::lcm::secrets::is_secret_key(key)
                    && !key.to_ascii_lowercase().contains("cert")
            }
            Place::Access => !ACCESS_SHOWN.contains(&key),
            Place::Extra => !EXTRA_SHOWN.contains(&key),
        }
    }
}

/// One part of a VIM connection (`interfaceInfo`, `accessInfo`, `extra`): the values
/// answered, and the secrets.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    place: Place,
    shown: Map<String, Value>,
    secrets: BTreeMap<String, Secret>,
}

impl Part {
    /// The values of `m`, each shown or secret as `place` says.
    pub fn read(place: Place, m: Map<String, Value>) -> Self {
        let mut part = Self {
            place,
            shown: Map::new(),
            secrets: BTreeMap::new(),
        };
        for (k, v) in m {
            part.insert(k, v);
        }
        part
    }

    /// Sets `key` to `v` (a secret where the key makes it one).
    pub fn insert(&mut self, key: String, v: Value) {
        if self.place.is_secret(&key) {
            self.shown.remove(&key);
            self.secrets.insert(key, Secret::new(v));
        } else {
            self.secrets.remove(&key);
            self.shown.insert(key, v);
        }
    }

    /// Everything, secrets included (for storage and for drivers).
    pub fn to_map(&self) -> Map<String, Value> {
        let mut m = self.shown.clone();
        for (k, s) in &self.secrets {
            m.insert(k.clone(), s.expose().clone());
        }
        m
    }

    /// A value answered, when it is a non-empty string.
    pub fn text(&self, key: &str) -> Option<&str> {
        self.shown
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    }

    /// The values answered.
    pub fn shown(&self) -> &Map<String, Value> {
        &self.shown
    }

    /// A secret.
    pub fn secret(&self, key: &str) -> Option<&Secret> {
        self.secrets.get(key).filter(|s| !s.expose().is_null())
    }

    /// A secret that is a non-empty string.
    pub fn secret_text(&self, key: &str) -> Option<&str> {
        self.secret(key)
            .and_then(Secret::expose_str)
            .filter(|s| !s.is_empty())
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.shown.is_empty() && self.secrets.is_empty()
    }

    fn secrets_mut(&mut self) -> impl Iterator<Item = &mut Secret> {
        self.secrets.values_mut()
    }
}

/// One `vimConnectionInfo` entry.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VimConnectionInfo {
    /// `vimId`: a registered VIM.
    pub vim_id: Option<String>,
    /// `vimType`.
    pub vim_type: Option<String>,
    /// `interfaceInfo` (endpoint, CA certificate, ...).
    pub interface_info: Option<Part>,
    /// `accessInfo` (identity and credentials).
    pub access_info: Option<Part>,
    /// `extra`.
    pub extra: Option<Part>,
    /// Any other key, as it was given.
    pub other: Map<String, Value>,
}

impl VimConnectionInfo {
    /// Reads an entry (`what` names it in errors).
    pub fn from_value(v: Value, what: &str) -> Result<Self, String> {
        let Value::Object(m) = v else {
            return Err(format!("{what} must be an object"));
        };
        let mut e = Self::default();
        for (k, v) in m {
            match k.as_str() {
                "vimId" | "vimType" => {
                    let s = match v {
                        Value::String(s) => Some(s),
                        Value::Null => None,
                        _ => return Err(format!("{what}.{k} must be a string")),
                    };
                    if k == "vimId" {
                        e.vim_id = s;
                    } else {
                        e.vim_type = s;
                    }
                }
                "interfaceInfo" | "accessInfo" | "extra" => {
                    let place = match k.as_str() {
                        "interfaceInfo" => Place::Interface,
                        "accessInfo" => Place::Access,
                        _ => Place::Extra,
                    };
                    let part = match v {
                        Value::Object(m) => Some(Part::read(place, m)),
                        Value::Null => None,
                        _ => return Err(format!("{what}.{k} must be an object")),
                    };
                    match place {
                        Place::Interface => e.interface_info = part,
                        Place::Access => e.access_info = part,
                        Place::Extra => e.extra = part,
                    }
                }
                _ => {
                    e.other.insert(k, v);
                }
            }
        }
        Ok(e)
    }

    /// The entry as stored (secrets included, sealed where they were sealed).
    pub fn to_map(&self) -> Map<String, Value> {
        let mut m = self.other.clone();
        if let Some(id) = &self.vim_id {
            m.insert("vimId".into(), Value::String(id.clone()));
        }
        if let Some(t) = &self.vim_type {
            m.insert("vimType".into(), Value::String(t.clone()));
        }
        for (k, p) in [
            ("interfaceInfo", &self.interface_info),
            ("accessInfo", &self.access_info),
            ("extra", &self.extra),
        ] {
            if let Some(p) = p {
                m.insert(k.into(), Value::Object(p.to_map()));
            }
        }
        m
    }

    /// The entry as answered: `accessInfo` and `interfaceInfo` reduced to what is no
    /// secret, `extra` with `***` in place of its secrets.
    pub fn shown(&self) -> Map<String, Value> {
        let mut m = self.to_map();
        for (k, p) in [
            ("interfaceInfo", &self.interface_info),
            ("accessInfo", &self.access_info),
        ] {
            if let Some(p) = p {
                m.insert(k.into(), Value::Object(p.shown.clone()));
            }
        }
        if let Some(p) = &self.extra {
            let mut shown = p.shown.clone();
            for k in p.secrets.keys() {
                shown.insert(k.clone(), Value::String(MASK.into()));
            }
            m.insert("extra".into(), Value::Object(shown));
        }
        m
    }

    /// The registered VIM it names, when it names one and gives no credentials of its
    /// own (`vimId` without `accessInfo`): resolved from the registry at each operation.
    pub fn reference(&self) -> Option<&str> {
        let own = self.access_info.as_ref().is_some_and(|a| !a.is_empty());
        self.vim_id.as_deref().filter(|_| !own)
    }

    /// Its area (`extra.area`), if it names one.
    pub fn area(&self) -> Option<&str> {
        self.extra.as_ref().and_then(|e| e.text("area"))
    }

    /// `interfaceInfo.endpoint`.
    pub fn endpoint(&self) -> Option<&str> {
        self.interface_info
            .as_ref()
            .and_then(|i| i.text("endpoint"))
    }

    /// Sets `key` of the part at `place` (created when absent) to `v`, a secret where
    /// the key makes it one.
    pub fn set(&mut self, place: Place, key: &str, v: Value) {
        let part = match place {
            Place::Interface => &mut self.interface_info,
            Place::Access => &mut self.access_info,
            Place::Extra => &mut self.extra,
        };
        part.get_or_insert_with(|| Part::read(place, Map::new()))
            .insert(key.to_owned(), v);
    }

    /// Seals every secret with `seal`.
    pub fn seal<E>(&mut self, seal: &mut dyn FnMut(&str) -> Result<String, E>) -> Result<(), E> {
        for s in self.secrets_mut() {
            s.seal(seal)?;
        }
        Ok(())
    }

    /// Opens every secret with `open`.
    pub fn open<E>(&mut self, open: &mut dyn FnMut(&str) -> Result<String, E>) -> Result<(), E> {
        for s in self.secrets_mut() {
            s.open(open)?;
        }
        Ok(())
    }

    fn secrets_mut(&mut self) -> impl Iterator<Item = &mut Secret> {
        [
            self.interface_info.as_mut(),
            self.access_info.as_mut(),
            self.extra.as_mut(),
        ]
        .into_iter()
        .flatten()
        .flat_map(Part::secrets_mut)
    }

    /// Applies a JSON merge patch (RFC 7396) to the entry, as `PATCH` and
    /// `change_vnfpkg` change a VIM connection.
    pub fn merge(&mut self, patch: &VimConnectionInfo) {
        let mut m = self.to_map();
        crate::package::merge_patch(&mut m, &patch.to_map());
        if let Ok(e) = Self::from_value(Value::Object(m), "vimConnectionInfo") {
            *self = e;
        }
    }
}

impl Serialize for VimConnectionInfo {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_map().serialize(s)
    }
}

impl<'de> Deserialize<'de> for VimConnectionInfo {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Self::from_value(Value::deserialize(d)?, "vimConnectionInfo entry")
            .map_err(serde::de::Error::custom)
    }
}

/// Every entry as answered (see [`VimConnectionInfo::shown`]).
pub fn shown(vci: &VimConnections) -> Map<String, Value> {
    vci.iter()
        .map(|(k, v)| (k.clone(), Value::Object(v.shown())))
        .collect()
}

/// Merges `patch` into `vci`: an entry `null` removes one, another is merged into the
/// entry of its id (or added).
pub fn merge(vci: &mut VimConnections, patch: &BTreeMap<String, Option<VimConnectionInfo>>) {
    for (k, p) in patch {
        match p {
            None => {
                vci.remove(k);
            }
            Some(p) => match vci.get_mut(k) {
                Some(e) => e.merge(p),
                None => {
                    vci.insert(k.clone(), p.clone());
                }
            },
        }
    }
}

/// What tells VIM connections apart for a cache of clients: the endpoint, the CA and
/// the credentials (never printed).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ConnectionKey(String);

impl std::fmt::Debug for ConnectionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ConnectionKey(***)")
    }
}

/// How a driver authenticates to a VIM.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Auth<'a> {
    /// A bearer token.
    Token(&'a Secret),
    /// A user and its password (none given: an empty one).
    Password {
        /// `accessInfo.username`.
        user: &'a str,
        /// `accessInfo.password`.
        password: Option<&'a Secret>,
    },
    /// No credentials.
    None,
}

/// A VIM connection as a driver gets it: credentials opened.
#[derive(Debug, Clone, PartialEq)]
pub struct VimConnection {
    /// Its key in `vimConnectionInfo`.
    pub id: String,
    /// `vimType`, e.g. `ETSINFV.KUBERNETES.V_1`.
    pub vim_type: String,
    /// The entry (secrets opened).
    pub info: VimConnectionInfo,
    /// The registered VIM it was resolved from (`vimId`), if any: the instance then
    /// records only the reference, never the credentials.
    pub vim_id: Option<String>,
}

impl VimConnection {
    /// Entry `info` under key `id` (it must name its `vimType`).
    pub fn new(id: &str, info: VimConnectionInfo) -> Option<Self> {
        let vim_type = info.vim_type.clone().filter(|t| !t.is_empty())?;
        Some(Self {
            id: id.to_owned(),
            vim_type,
            info,
            vim_id: None,
        })
    }

    /// Reads entry `v` under key `id` (`None`: not an entry, or no `vimType`).
    pub fn from_json(id: &str, v: &Value) -> Option<Self> {
        Self::new(id, VimConnectionInfo::from_value(v.clone(), id).ok()?)
    }

    /// `interfaceInfo.<key>`, the first of `keys` given.
    pub fn interface(&self, keys: &[&str]) -> Option<&str> {
        let i = self.info.interface_info.as_ref()?;
        keys.iter().find_map(|k| i.text(k))
    }

    /// An identity field of `accessInfo`, the first of `keys` given.
    pub fn access(&self, keys: &[&str]) -> Option<&str> {
        let a = self.info.access_info.as_ref()?;
        keys.iter().find_map(|k| a.text(k))
    }

    /// A secret of `accessInfo` that is a string.
    pub fn access_secret(&self, key: &str) -> Option<&str> {
        self.info.access_info.as_ref()?.secret_text(key)
    }

    /// `extra`, what is answered of it (the drivers' own settings such as `namespace`).
    pub fn extra(&self) -> Map<String, Value> {
        self.info
            .extra
            .as_ref()
            .map(Part::to_map)
            .unwrap_or_default()
    }

    /// The key of this connection in a cache of clients.
    pub fn key(&self) -> ConnectionKey {
        let part = |p: &Option<Part>| p.as_ref().map(Part::to_map).unwrap_or_default();
        ConnectionKey(
            serde_json::json!([
                part(&self.info.interface_info),
                part(&self.info.access_info)
            ])
            .to_string(),
        )
    }

    /// How to authenticate: a bearer token, else a user and password.
    pub fn auth(&self) -> Auth<'_> {
        let Some(a) = self.info.access_info.as_ref() else {
            return Auth::None;
        };
        if let Some(t) = a
            .secret("bearer_token")
            .filter(|t| t.expose_str().is_some_and(|s| !s.is_empty()))
        {
            return Auth::Token(t);
        }
        match a.text("username") {
            Some(user) => Auth::Password {
                user,
                password: a.secret("password"),
            },
            None => Auth::None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn fake_seal(s: &str) -> Result<String, ()> {
        Ok(format!("enc:v1:k:{}", s.chars().rev().collect::<String>()))
    }

    #[test]
    fn an_entry_round_trips_and_classifies_its_values_by_where_they_live() {
        let v = json!({"vimId": "v", "vimType": "kubernetes", "custom": [1],
            "interfaceInfo": {"endpoint": "https://k", "ssl_ca_cert": "CA", "client_key": "ck-1"},
            "accessInfo": {"username": "u", "passwd": "pw-1", "kubeconfig": {"users": ["kc-1"]}},
            "extra": {"area": "tokyo", "helm_info": {"masternode_password": "mn-1"}}});
        let e = VimConnectionInfo::from_value(v.clone(), "e").unwrap();
        assert_eq!(serde_json::to_value(&e).unwrap(), v, "round trip");
        let debug = format!("{e:?}");
        for s in ["ck-1", "pw-1", "kc-1", "mn-1"] {
            assert!(!debug.contains(s), "{s} in {debug}");
        }
        let shown = Value::Object(e.shown());
        assert_eq!(shown["accessInfo"], json!({"username": "u"}));
        assert_eq!(
            shown["interfaceInfo"],
            json!({"endpoint": "https://k", "ssl_ca_cert": "CA"})
        );
        assert_eq!(shown["extra"], json!({"area": "tokyo", "helm_info": "***"}));
        assert_eq!(shown["custom"], json!([1]));
        let mut sealed = e.clone();
        sealed.seal(&mut fake_seal).unwrap();
        let text = serde_json::to_string(&sealed).unwrap();
        for s in ["ck-1", "pw-1", "kc-1", "mn-1"] {
            assert!(!text.contains(s), "{s} in {text}");
        }
        assert!(text.contains("tokyo") && text.contains("https://k"));
        assert_eq!(e.reference(), None, "credentials of its own");
        let reference =
            VimConnectionInfo::from_value(json!({"vimId": "v", "accessInfo": {}}), "e").unwrap();
        assert_eq!(reference.reference(), Some("v"));
    }

    #[test]
    fn a_driver_reads_typed_authentication() {
        let e = |a: Value| {
            VimConnection::new(
                "v",
                VimConnectionInfo::from_value(json!({"vimType": "t", "accessInfo": a}), "e")
                    .unwrap(),
            )
            .unwrap()
        };
        assert!(
            matches!(e(json!({"bearer_token": "t"})).auth(), Auth::Token(t) if t.expose_str() == Some("t"))
        );
        assert!(
            matches!(e(json!({"username": "u", "password": "p"})).auth(),
            Auth::Password { user: "u", password: Some(p) } if p.expose_str() == Some("p"))
        );
        assert_eq!(e(json!({})).auth(), Auth::None);
        assert!(
            VimConnection::new("v", VimConnectionInfo::default()).is_none(),
            "no vimType"
        );
    }

    #[test]
    fn a_patch_merges_into_an_entry_and_null_removes_one() {
        let mut vci: VimConnections = serde_json::from_value(json!({
            "a": {"vimType": "t", "accessInfo": {"username": "u", "password": "p"}},
            "b": {"vimType": "t"}}))
        .unwrap();
        let patch: BTreeMap<String, Option<VimConnectionInfo>> = serde_json::from_value(json!({
            "a": {"accessInfo": {"password": "p2"}}, "b": null,
            "c": {"vimType": "t2"}}))
        .unwrap();
        merge(&mut vci, &patch);
        assert_eq!(
            serde_json::to_value(&vci).unwrap(),
            json!({"a": {"vimType": "t", "accessInfo": {"username": "u", "password": "p2"}},
                "c": {"vimType": "t2"}})
        );
    }
}
