//! Which values are secrets, decided by where they live rather than only by their names:
//!
//! - VIM credentials (see [`crate::vim::connection`]): every value of `accessInfo` (and of
//!   a registered VIM's `auth_cred`) but the identity fields, every value of `extra` but
//!   its area and the like, and the `interfaceInfo` values whose names look secret. They
//!   are sealed at rest and answered masked.
//! - `additionalParams`: the value (of any type, whole) of every key holding one of
//!   [`SECRET_WORDS`], or a name the package declares secret (a property of its
//!   additional-parameters data type with `metadata: {secret: true}`), or one a built-in
//!   management driver declares. They are sealed in the stored request (the conductor
//!   opens them) and answered as `***`; the instantiate request's are also kept sealed
//!   with the instance for later hooks.
//! - Passwords in URLs (`http://user:password@proxy`) are masked wherever they appear.

use serde_json::{Map, Value};

use super::op::OpOcc;
use super::request::OperationParams;

use crate::secret::seal_value;
pub use crate::secret::{MASK, SEALED_PREFIX};
use crate::vim::connection::{VimConnectionInfo, shown as shown_connections};

/// Words that make a key of `additionalParams` (or of any request body as answered) a
/// secret, compared without case: `ssh_password`, `registry_token`, `api_token`,
/// `private_key`, `apiKey`, `credential`, `db_passwd`, `ca_cert`, ...
pub const SECRET_WORDS: [&str; 9] = [
    "password",
    "passwd",
    "pwd",
    "passphrase",
    "secret",
    "token",
    "key",
    "credential",
    "cert",
];

/// The parameters the built-in management drivers declare secret (by key, at any depth
/// of `additionalParams`).
pub const DRIVER_SECRET_PARAMS: [&str; 3] = ["ssh_password", "password", "registry_password"];

/// Whether a key names a secret by one of [`SECRET_WORDS`].
pub fn is_secret_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    SECRET_WORDS.iter().any(|w| k.contains(w))
}

/// Whether a key of `additionalParams` holds a secret: by its name, by a driver's
/// declaration, or by the package's (`declared`).
fn is_secret_param(key: &str, declared: &[String]) -> bool {
    is_secret_key(key) || DRIVER_SECRET_PARAMS.contains(&key) || declared.iter().any(|d| d == key)
}

/// The password of a URL's userinfo (`http://user:password@host`) masked; `None`
/// when `s` carries none.
pub fn mask_url_password(s: &str) -> Option<String> {
    let start = s.find("://")? + 3;
    let authority_end = s[start..].find('/').map_or(s.len(), |i| start + i);
    let at = s[start..authority_end].rfind('@').map(|i| start + i)?;
    let colon = s[start..at].find(':').map(|i| start + i)?;
    if colon + 1 == at || &s[colon + 1..at] == MASK {
        return None;
    }
    Some(format!("{}{MASK}{}", &s[..=colon], &s[at..]))
}

/// Replaces, at any depth, the whole value of every secret key (see
/// [`SECRET_WORDS`]) with [`MASK`], and passwords in URLs (`http://user:password@proxy`).
pub fn mask(v: &mut Value) {
    mask_declared(v, &[]);
}

/// [`mask`], with the keys `declared` secret too.
fn mask_declared(v: &mut Value, declared: &[String]) {
    match v {
        Value::Object(m) => mask_map(m, declared),
        Value::Array(items) => items.iter_mut().for_each(|x| mask_declared(x, declared)),
        Value::String(s) => {
            if let Some(m) = mask_url_password(s) {
                *s = m;
            }
        }
        _ => {}
    }
}

fn mask_map(m: &mut Map<String, Value>, declared: &[String]) {
    for (k, v) in m.iter_mut() {
        if is_secret_param(k, declared) && !v.is_null() {
            *v = Value::String(MASK.into());
        } else {
            mask_declared(v, declared);
        }
    }
}

/// Whether `v` holds any secret (a value under a secret key, other than the mask).
pub fn has_secrets(v: &Value) -> bool {
    match v {
        Value::Object(m) => m
            .iter()
            .any(|(k, v)| (is_secret_key(k) && !v.is_null() && v != MASK) || has_secrets(v)),
        Value::Array(items) => items.iter().any(has_secrets),
        Value::String(s) => mask_url_password(s).is_some(),
        _ => false,
    }
}

/// Seals, with `seal`, the secrets of `additionalParams`: the whole value of every key
/// that names one (see `is_secret_param`), at any depth.
pub fn seal_params<E>(
    params: &mut Map<String, Value>,
    declared: &[String],
    seal: &mut dyn FnMut(&str) -> Result<String, E>,
) -> Result<(), E> {
    for (k, v) in params.iter_mut() {
        if is_secret_param(k, declared) {
            seal_value(v, seal)?;
        } else {
            match v {
                Value::Object(m) => seal_params(m, declared, seal)?,
                Value::Array(items) => {
                    for x in items {
                        if let Value::Object(m) = x {
                            seal_params(m, declared, seal)?;
                        }
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// `vimConnectionInfo` as a request body gives it (a map by id, or v1's list), as
/// answered: each entry through [`VimConnectionInfo::shown`] (one that does not read is
/// left out).
fn shown_vci(vci: &mut Value) {
    let shown = |e: &Value| {
        VimConnectionInfo::from_value(e.clone(), "vimConnectionInfo")
            .map(|v| Value::Object(v.shown()))
            .unwrap_or(Value::Null)
    };
    match vci {
        Value::Object(m) => m.values_mut().for_each(|e| *e = shown(e)),
        Value::Array(list) => list.iter_mut().for_each(|e| *e = shown(e)),
        _ => {}
    }
}

/// `vimConnectionInfo` as answered: credentials removed.
pub fn redact_vim_connection_info(
    vci: &crate::vim::connection::VimConnections,
) -> Map<String, Value> {
    shown_connections(vci)
}

impl OperationParams {
    /// `additionalParams`, mutable (none for MODIFY_INFO).
    fn additional_params_mut(&mut self) -> Option<&mut Map<String, Value>> {
        match self {
            Self::Instantiate(r) => Some(&mut r.additional_params),
            Self::Terminate(r) => Some(&mut r.additional_params),
            Self::Scale(r) => Some(&mut r.additional_params),
            Self::Heal(r) => Some(&mut r.additional_params),
            Self::ChangeExtConn(r) => Some(&mut r.additional_params),
            Self::ChangeVnfpkg(r) => Some(&mut r.additional_params),
            Self::ScaleToLevel(r) => Some(&mut r.additional_params),
            Self::Operate(r) => Some(&mut r.additional_params),
            Self::ChangeFlavour(r) => Some(&mut r.additional_params),
            Self::ModifyInfo(_) => None,
        }
    }

    /// The request's VIM connections, mutable (to seal their credentials).
    fn vim_connections_mut(&mut self) -> Box<dyn Iterator<Item = &mut VimConnectionInfo> + '_> {
        match self {
            Self::Instantiate(r) => Box::new(
                r.vim_connection_info
                    .iter_mut()
                    .flat_map(|m| m.values_mut()),
            ),
            Self::ChangeExtConn(r) => Box::new(
                r.vim_connection_info
                    .iter_mut()
                    .flat_map(|m| m.values_mut()),
            ),
            Self::ChangeVnfpkg(r) => Box::new(
                r.vim_connection_info
                    .iter_mut()
                    .flat_map(|m| m.values_mut()),
            ),
            Self::ModifyInfo(r) => Box::new(
                r.vim_connection_info
                    .iter_mut()
                    .flat_map(|m| m.values_mut())
                    .flatten(),
            ),
            _ => Box::new(std::iter::empty()),
        }
    }

    /// Seals, with `seal`, every secret of the request as it is stored: the secrets of
    /// `additionalParams` (`declared`: the names the package declares secret) and the
    /// credentials of `vimConnectionInfo`.
    pub fn seal_secrets<E>(
        &mut self,
        declared: &[String],
        seal: &mut dyn FnMut(&str) -> Result<String, E>,
    ) -> Result<(), E> {
        if let Some(p) = self.additional_params_mut() {
            seal_params(p, declared, seal)?;
        }
        for e in self.vim_connections_mut() {
            e.seal(seal)?;
        }
        Ok(())
    }

    /// Opens, with `open`, every sealed value of `additionalParams` (the conductor hands
    /// drivers the request as it was sent; `vimConnectionInfo` is opened where a VIM is
    /// resolved).
    pub fn open_params<E>(
        &mut self,
        open: &mut dyn FnMut(&str) -> Result<String, E>,
    ) -> Result<(), E> {
        if let Some(p) = self.additional_params_mut() {
            for v in p.values_mut() {
                crate::secret::open_value(v, open)?;
            }
        }
        Ok(())
    }
}

impl crate::lcm::SubscriptionAuth {
    /// Its secret.
    fn secret(&mut self) -> &mut crate::secret::Secret {
        match self {
            Self::Basic { password, .. } => password,
            Self::OAuth2 {
                client_password, ..
            } => client_password,
        }
    }

    /// Seals its secret with `seal` (a sealed one stays as it is).
    pub fn seal<E>(&mut self, seal: &mut dyn FnMut(&str) -> Result<String, E>) -> Result<(), E> {
        self.secret().seal(seal)
    }

    /// Opens its secret with `open`.
    pub fn open<E>(&mut self, open: &mut dyn FnMut(&str) -> Result<String, E>) -> Result<(), E> {
        self.secret().open(open)
    }
}

/// A request body as stored and answered: every secret masked (also in URLs; `declared`:
/// the names the package declares secret), VIM credentials reduced to what an answer
/// may show (map or v1 list form).
pub fn shown_params_declared(body: &Value, declared: &[String]) -> Value {
    let mut out = body.clone();
    if let Some(vci) = out.get_mut("vimConnectionInfo") {
        shown_vci(vci);
    }
    mask_declared(&mut out, declared);
    out
}

/// [`shown_params_declared`] by [`SECRET_WORDS`] and the drivers' declarations alone.
pub fn shown_params(body: &Value) -> Value {
    shown_params_declared(body, &[])
}

impl OpOcc {
    /// The occurrence as stored: the secrets of the typed request sealed with `seal`
    /// (`declared`: the names the package declares secret), and the received body as
    /// [`shown_params_declared`] answers it.
    pub fn sealed<E>(
        mut self,
        declared: &[String],
        seal: &mut dyn FnMut(&str) -> Result<String, E>,
    ) -> Result<Self, E> {
        self.request.seal_secrets(declared, seal)?;
        self.operation_params = shown_params_declared(&self.operation_params, declared);
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use uuid::Uuid;

    use super::*;
    use crate::lcm::{LcmOperation, OperationState};

    use crate::secret::fake::{open as fake_open, seal as fake_seal};

    #[test]
    fn secrets_are_sealed_in_the_request_and_masked_in_the_body() {
        let body = json!({"flavourId": "simple", "additionalParams": {
            "private_registry_installation_param": {"ssh_cp_name": "CP1", "ssh_username": "u", "ssh_password": "s3cret"},
            "k8s_cluster_installation_param": {"private_registry_connection_info": [{"server": "r", "username": "a", "password": "b"}]},
            "registry_token": "rt-1", "api_token": "at-1", "private_key": "pk-1", "apiKey": "ak-1",
            "credential": {"user": "c", "pass": "cp-1"}, "db_passwd": 42, "declared_one": "dc-1"}});
        let request = OperationParams::parse(LcmOperation::Instantiate, &body).unwrap();
        assert!(has_secrets(&body));
        let declared = vec!["declared_one".to_owned()];
        let op = OpOcc::new(
            Uuid::nil(),
            Uuid::nil(),
            OperationState::Starting,
            request,
            body,
        )
        .sealed(&declared, &mut fake_seal)
        .unwrap();
        let text = format!(
            "{} {}",
            op.operation_params,
            serde_json::to_string(&op.request).unwrap()
        );
        for secret in [
            "s3cret", "\"b\"", "rt-1", "at-1", "pk-1", "ak-1", "cp-1", "dc-1", "42",
        ] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        let p = &op.operation_params["additionalParams"];
        assert_eq!(
            p["private_registry_installation_param"]["ssh_password"],
            MASK
        );
        assert_eq!(p["credential"], MASK);
        assert_eq!(
            p["private_registry_installation_param"]["ssh_username"],
            "u"
        );
        assert!(!has_secrets(&op.operation_params));
        // The conductor opens the request: every value as it was sent.
        let mut request = op.request.clone();
        request.open_params(&mut fake_open).unwrap();
        let params = request.additional_params();
        assert_eq!(params["db_passwd"], 42);
        assert_eq!(params["credential"], json!({"user": "c", "pass": "cp-1"}));
        assert_eq!(params["declared_one"], "dc-1");
        assert_eq!(
            params["k8s_cluster_installation_param"]["private_registry_connection_info"][0]["password"],
            "b"
        );
    }

    #[test]
    fn passwords_in_urls_are_masked() {
        assert_eq!(
            mask_url_password("http://user1:password1@host1:3128").as_deref(),
            Some("http://user1:***@host1:3128")
        );
        assert_eq!(mask_url_password("http://host1:3128/a@b"), None);
        assert_eq!(mask_url_password("http://user@host"), None);
        assert_eq!(mask_url_password("http://user1:***@host1"), None);
        let mut v = json!({"proxy": {"http_proxy": "http://u:p4ss@h:1", "no_proxy": "a,b"}});
        mask(&mut v);
        assert_eq!(v["proxy"]["http_proxy"], "http://u:***@h:1");
    }

    #[test]
    fn debug_output_of_instances_occurrences_and_requests_carries_no_credentials() {
        let vci = json!({"vim1": {"vimType": "kubernetes",
            "interfaceInfo": {"endpoint": "https://k", "ssl_ca_cert": "CA"},
            "accessInfo": {"bearer_token": "t0k-planted", "username": "u", "password": "pw-planted",
                "apiKey": "ak-planted"},
            "extra": {"helm_info": {"masternode_password": "mn-planted"}}}});
        let mut instance = crate::lcm::subscription::tests::instance();
        instance.vim_connection_info = serde_json::from_value(vci.clone()).unwrap();
        let body = json!({"flavourId": "simple", "vimConnectionInfo": vci,
            "additionalParams": {"ssh_password": "ssh-planted", "registry_token": "rt-planted"}});
        let request = OperationParams::parse(LcmOperation::Instantiate, &body).unwrap();
        let change = OperationParams::parse(
            LcmOperation::ChangeExtConn,
            &json!({"extVirtualLinks": [], "vimConnectionInfo": vci}),
        )
        .unwrap();
        // As read back from an old row: the body and request not yet masked.
        let op = OpOcc::new(
            Uuid::nil(),
            Uuid::nil(),
            OperationState::Starting,
            request.clone(),
            body,
        );
        let text = format!("{instance:?} {op:?} {request:?} {change:?}");
        for secret in [
            "t0k-planted",
            "pw-planted",
            "ak-planted",
            "ssh-planted",
            "rt-planted",
            "mn-planted",
        ] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        assert!(
            text.contains("https://k") && text.contains("\"u\""),
            "{text}"
        );
    }
}
