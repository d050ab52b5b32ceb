//! Secrets in requests: passwords in `additionalParams` (a management driver's SSH and
//! registry passwords) are kept only sealed with the instance; what is stored and
//! answered as `operationParams` carries `***` in their place.

use serde_json::{Map, Value};

use super::op::OpOcc;
use super::request::OperationParams;

/// What a secret is answered as.
pub const MASK: &str = "***";

/// Whether a key names a secret (`password`, `ssh_password`, `client_secret`, ...).
pub fn is_secret_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    k.contains("password") || k.contains("secret")
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

/// Replaces, at any depth, the value of every secret key with [`MASK`], and passwords
/// in URLs (`http://user:password@proxy`).
pub fn mask(v: &mut Value) {
    match v {
        Value::Object(m) => mask_map(m),
        Value::Array(items) => items.iter_mut().for_each(mask),
        Value::String(s) => {
            if let Some(m) = mask_url_password(s) {
                *s = m;
            }
        }
        _ => {}
    }
}

fn mask_map(m: &mut Map<String, Value>) {
    for (k, v) in m.iter_mut() {
        if is_secret_key(k) && !v.is_null() && !v.is_object() && !v.is_array() {
            *v = Value::String(MASK.into());
        } else {
            mask(v);
        }
    }
}

/// Whether `v` holds any secret (a value under a secret key, other than the mask).
pub fn has_secrets(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.iter().any(|(k, v)| {
            (is_secret_key(k) && !v.is_null() && !v.is_object() && !v.is_array() && v != MASK)
                || has_secrets(v)
        }),
        Value::Array(items) => items.iter().any(has_secrets),
        Value::String(s) => mask_url_password(s).is_some(),
        _ => false,
    }
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
            Self::ModifyInfo(_) => None,
        }
    }
}

/// The prefix of a sealed value (see `tacker_db::secrets::Keyring`).
pub const SEALED_PREFIX: &str = "enc:v1:";

/// Applies `f` to every credential of one `vimConnectionInfo` entry: the `accessInfo`
/// values an answer does not show, and secret-like `interfaceInfo` values.
fn vim_secrets<E>(
    entry: &mut Value,
    f: &mut dyn FnMut(&str) -> Result<String, E>,
) -> Result<(), E> {
    if let Some(access) = entry.get_mut("accessInfo").and_then(Value::as_object_mut) {
        for (k, v) in access.iter_mut() {
            if let Value::String(s) = v
                && !super::instance::ACCESS_SHOWN.contains(&k.as_str())
            {
                *s = f(s)?;
            }
        }
    }
    if let Some(iface) = entry
        .get_mut("interfaceInfo")
        .and_then(Value::as_object_mut)
    {
        for (k, v) in iface.iter_mut() {
            if let Value::String(s) = v
                && super::instance::secret_like(k)
            {
                *s = f(s)?;
            }
        }
    }
    Ok(())
}

/// Applies `f` (sealing or opening) to every credential of a `vimConnectionInfo` map.
pub fn map_vim_secrets<E>(
    vci: &mut Map<String, Value>,
    f: &mut dyn FnMut(&str) -> Result<String, E>,
) -> Result<(), E> {
    for entry in vci.values_mut() {
        vim_secrets(entry, f)?;
    }
    Ok(())
}

/// Applies `f` to every credential of one `vimConnectionInfo` entry.
pub fn map_vim_entry_secrets<E>(
    entry: &mut Value,
    f: &mut dyn FnMut(&str) -> Result<String, E>,
) -> Result<(), E> {
    vim_secrets(entry, f)
}

impl OperationParams {
    /// The request's `vimConnectionInfo`, mutable (to seal its credentials).
    pub fn vim_connection_info_mut(&mut self) -> Option<&mut Map<String, Value>> {
        match self {
            Self::Instantiate(r) => r.vim_connection_info.as_mut(),
            Self::ChangeExtConn(r) => r.vim_connection_info.as_mut(),
            Self::ModifyInfo(r) => r.vim_connection_info.as_mut(),
            Self::ChangeVnfpkg(r) => r.vim_connection_info.as_mut(),
            _ => None,
        }
    }
}

impl crate::lcm::SubscriptionAuth {
    /// Applies `f` (sealing or opening) to its secret.
    pub fn map_secret<E>(&mut self, f: &mut dyn FnMut(&str) -> Result<String, E>) -> Result<(), E> {
        match self {
            Self::Basic { password, .. } => *password = f(password)?,
            Self::OAuth2 {
                client_password, ..
            } => *client_password = f(client_password)?,
        }
        Ok(())
    }
}

/// A request body as stored and answered: every secret masked (also in URLs), VIM
/// credentials reduced to what an answer may show (map or v1 list form).
pub fn shown_params(body: &Value) -> Value {
    let mut out = body.clone();
    if let Some(vci) = out.get_mut("vimConnectionInfo") {
        match vci {
            Value::Object(m) => m
                .values_mut()
                .for_each(super::instance::redact_vim_connection),
            Value::Array(list) => list
                .iter_mut()
                .for_each(super::instance::redact_vim_connection),
            _ => {}
        }
    }
    mask(&mut out);
    out
}

impl OpOcc {
    /// The occurrence as stored: secrets in `additionalParams` masked in the typed
    /// request (the instantiate ones are kept sealed with the instance), and the
    /// received body as [`shown_params`] answers it.
    pub fn without_secrets(mut self) -> Self {
        if let Some(p) = self.request.additional_params_mut() {
            mask_map(p);
        }
        self.operation_params = shown_params(&self.operation_params);
        self
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use uuid::Uuid;

    use super::*;
    use crate::lcm::{LcmOperation, OperationState};

    #[test]
    fn passwords_are_masked_in_the_body_and_the_typed_request() {
        let body = json!({"flavourId": "simple", "additionalParams": {
            "private_registry_installation_param": {"ssh_cp_name": "CP1", "ssh_username": "u", "ssh_password": "s3cret"},
            "k8s_cluster_installation_param": {"private_registry_connection_info": [{"server": "r", "username": "a", "password": "b"}]}}});
        let request = OperationParams::parse(LcmOperation::Instantiate, &body).unwrap();
        assert!(has_secrets(&body));
        let op = OpOcc::new(
            Uuid::nil(),
            Uuid::nil(),
            OperationState::Starting,
            request,
            body,
        )
        .without_secrets();
        let text = format!("{} {:?}", op.operation_params, op.request);
        assert!(
            !text.contains("s3cret") && !text.contains("\"b\""),
            "{text}"
        );
        assert_eq!(
            op.operation_params["additionalParams"]["private_registry_installation_param"]["ssh_password"],
            MASK
        );
        assert_eq!(
            op.request.additional_params()["private_registry_installation_param"]["ssh_username"],
            "u"
        );
        assert!(!has_secrets(&op.operation_params));
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
                "apiKey": "ak-planted"}}});
        let mut instance = crate::lcm::subscription::tests::instance();
        instance.vim_connection_info = vci.as_object().unwrap().clone();
        let body = json!({"flavourId": "simple", "vimConnectionInfo": vci,
            "additionalParams": {"ssh_password": "ssh-planted"}});
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
        for secret in ["t0k-planted", "pw-planted", "ak-planted", "ssh-planted"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        assert!(
            text.contains("https://k") && text.contains("\"u\""),
            "{text}"
        );
    }
}
