//! Registered VIMs: Tacker's rows made ours, their credentials decrypted with Tacker's
//! keys and sealed with ours (by the VIM store) on the way.

use std::sync::Arc;

use serde_json::{Value, json};
use tacker_db::Db;
use tacker_db::secrets::Keyring;
use tacker_db::vims::Conflict;
use tacker_domain::vim::{Vim, VimType, parse_new};
use uuid::Uuid;

use crate::json::object;
use crate::source::TackerVim;
use crate::summary::Outcome;
use crate::vim_keys::VimKeys;
use crate::{Error, Result};

/// Credentials Tacker encrypts inside `auth_cred` (Kubernetes VIMs).
const ENCRYPTED_IN_CRED: [&str; 3] = ["bearer_token", "ssl_ca_cert", "client_secret"];

/// Tacker's VIM `t` as ours: its credentials decrypted with `keys` and checked by the
/// rules a registration through our API follows. `Err`: why it cannot be imported.
pub fn ours(t: &TackerVim, keys: &VimKeys) -> std::result::Result<Vim, String> {
    let mut cred = object(Some(&t.auth_cred), "auth_cred")?;
    let key_type = cred.remove("key_type");
    cred.remove("secret_uuid");
    if key_type.as_ref().and_then(Value::as_str) == Some("barbican_key") {
        return Err(
            "its key is kept in Barbican (key_type barbican_key), which this import \
                    does not read: register it again with its credentials"
                .into(),
        );
    }
    // Our registrations hold the URL once, at the top.
    cred.remove("auth_url");
    let open = |token: &str, what: &str| {
        keys.decrypt(&t.id, token)
            .ok_or_else(|| format!("no key in --vim-keys opens its {what}"))
    };
    if let Some(p) = t.password.as_deref().filter(|p| !p.is_empty()) {
        cred.insert("password".into(), json!(open(p, "password")?));
    }
    for k in ENCRYPTED_IN_CRED {
        if let Some(token) = cred.get(k).and_then(Value::as_str).map(str::to_owned) {
            cred.insert(k.into(), json!(open(&token, k)?));
        }
    }
    let vim_type: VimType = t
        .vim_type
        .parse()
        .map_err(|_| format!("type {:?} is not openstack or kubernetes", t.vim_type))?;
    let body = json!({"vim": {
        "name": t.name,
        "description": t.description.clone().unwrap_or_default(),
        "type": vim_type.as_str(),
        "auth_url": t.auth_url,
        "auth_cred": cred,
        "vim_project": object(Some(&t.vim_project), "vim_project")?,
        "is_default": t.is_default,
        "extra": object(t.extra.as_deref(), "extra")?,
    }});
    let mut vim = parse_new(&body, &t.tenant_id).map_err(|f| f.detail)?;
    vim.id =
        t.id.parse::<Uuid>()
            .map_err(|e| format!("id is not a UUID: {e}"))?;
    if let Some(at) = t.created_at {
        vim.created_at = at;
    }
    Ok(vim)
}

/// Whether `a` and `b` register the same VIM the same way (times aside).
fn same(a: &Vim, b: &Vim) -> bool {
    (
        &a.name,
        &a.description,
        a.vim_type,
        &a.auth_url,
        &a.auth_cred,
        &a.vim_project,
        a.is_default,
        &a.extra,
        &a.tenant_id,
    ) == (
        &b.name,
        &b.description,
        b.vim_type,
        &b.auth_url,
        &b.auth_cred,
        &b.vim_project,
        b.is_default,
        &b.extra,
        &b.tenant_id,
    )
}

fn conflict(c: Conflict) -> Outcome {
    Outcome::Skipped(match c {
        Conflict::Name => "another VIM of its project already has its name here".into(),
        Conflict::Default(other) => format!("VIM {other} is already its project's default here"),
    })
}

/// Imports `vim` (or, with `dry_run`, says what importing it would do). A VIM of this id
/// here that differs is left as it is (changed here since, or in Tacker: it is said).
pub async fn import(db: &Db, keyring: &Arc<Keyring>, vim: Vim, dry_run: bool) -> Result<Outcome> {
    let id = vim.id;
    match db.vims().get(id, keyring).await? {
        Some(e) if same(&e, &vim) => return Ok(Outcome::Unchanged),
        Some(_) => {
            return Ok(Outcome::Skipped(
                "a VIM of this id here differs from Tacker's (changed here or in Tacker \
                 since the last import): kept as it is here"
                    .into(),
            ));
        }
        None => {}
    }
    if dry_run {
        return Ok(Outcome::Imported);
    }
    let result = db.vims().create(&vim, keyring).await.map_err(Error::Db)?;
    Ok(match result {
        None => Outcome::Imported,
        Some(c) => conflict(c),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fernet::{generate_key, seal};

    fn keys_with(vim_id: &str) -> (VimKeys, String, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("vims-{}", Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let key = generate_key();
        std::fs::write(dir.join(vim_id), &key).unwrap();
        (VimKeys::open(&dir).unwrap(), key, dir)
    }

    fn tacker_vim(id: &str, key: &str) -> TackerVim {
        TackerVim {
            id: id.into(),
            vim_type: "openstack".into(),
            tenant_id: "p1".into(),
            name: "vim-a".into(),
            description: None,
            is_default: true,
            extra: Some(r#"{"area": "east"}"#.into()),
            created_at: None,
            password: Some(seal(key, b"s3cret")),
            auth_url: "http://127.0.0.1:15000/v3".into(),
            vim_project: r#"{"name": "p1", "project_domain_name": "Default"}"#.into(),
            auth_cred: r#"{"username": "u", "user_domain_name": "Default", "cert_verify": "True",
                "auth_url": "http://127.0.0.1:15000/v3", "key_type": "fernet_key"}"#
                .into(),
        }
    }

    #[test]
    fn credentials_are_decrypted_and_tackers_bookkeeping_dropped() {
        let id = Uuid::new_v4().to_string();
        let (keys, key, dir) = keys_with(&id);
        let v = ours(&tacker_vim(&id, &key), &keys).unwrap();
        assert_eq!(v.id.to_string(), id);
        assert_eq!(v.auth_cred["password"], "s3cret");
        for gone in ["key_type", "auth_url", "secret_uuid"] {
            assert!(!v.auth_cred.contains_key(gone), "{gone}");
        }
        assert_eq!(v.extra["area"], "east");
        assert_eq!((v.tenant_id.as_str(), v.is_default), ("p1", true));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn what_cannot_be_opened_or_registered_says_why() {
        let id = Uuid::new_v4().to_string();
        let (keys, _, dir) = keys_with("another-vim");
        let other = generate_key();
        let why = ours(&tacker_vim(&id, &other), &keys).unwrap_err();
        assert!(
            why.contains("no key in --vim-keys opens its password"),
            "{why}"
        );
        let mut barbican = tacker_vim(&id, &other);
        barbican.auth_cred =
            r#"{"username": "u", "key_type": "barbican_key", "secret_uuid": "s"}"#.into();
        assert!(ours(&barbican, &keys).unwrap_err().contains("Barbican"));
        let mut no_project = tacker_vim(&id, &other);
        no_project.password = None;
        let why = ours(&no_project, &keys).unwrap_err();
        assert!(why.contains("username and password"), "{why}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
