//! API authentication from `[auth]`: the verifier, the built-in token endpoint and its
//! key (all-in-one makes its own on the first start in mode `oauth2`).

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, bail};
use tacker_config::Config;
use tacker_server::auth::{
    Auth, BuiltinClient, Claims, Introspection, Issuer, Keystone, Mode, Opaque, Principal,
    ServiceUser, SigningKey, TokenLimits, Verifier,
};

/// Where all-in-one keeps its signing key when none is configured.
const AIO_KEY_FILE: &str = "./data/auth-signing.pem";

fn signing_key(cfg: &Config, all_in_one: bool) -> anyhow::Result<Option<SigningKey>> {
    let file = &cfg.auth.signing_key_file;
    let path = match (file.is_empty(), all_in_one) {
        (false, _) => Path::new(file),
        (true, true) => {
            let p = Path::new(AIO_KEY_FILE);
            if !p.exists() {
                crate::private_file::create(p, &SigningKey::generate_pem()?)?;
                tracing::info!(file = %p.display(), "generated the token signing key");
            }
            p
        }
        (true, false) => return Ok(None),
    };
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading auth.signing_key_file {}", path.display()))?;
    Ok(Some(SigningKey::from_pem(&text).with_context(|| {
        format!("auth.signing_key_file {}", path.display())
    })?))
}

/// The authentication of the API server.
pub fn from_config(cfg: &Config, all_in_one: bool) -> anyhow::Result<Auth> {
    let a = &cfg.auth;
    if a.mode == tacker_config::AuthMode::None {
        let public_host = cfg
            .server
            .public_url
            .as_ref()
            .and_then(|u| u.url().host_str().map(str::to_owned));
        if a.allow_insecure_none {
            tracing::warn!(
                "auth.mode = none with allow_insecure_none: anyone reaching the API is an administrator"
            );
        }
        return Ok(Auth {
            mode: Mode::None {
                check_host: !a.allow_insecure_none,
                hosts: public_host.into_iter().collect(),
            },
            issuer: None,
            public_metrics: true,
        });
    }
    let keystone = a.mode == tacker_config::AuthMode::Keystone;
    // All-in-one makes the built-in endpoint's key in mode oauth2 only: under Keystone
    // it serves the configured key, if any.
    let key = signing_key(cfg, all_in_one && !keystone)?;
    if key.is_none() && a.jwks_url.is_none() && a.introspection_url.is_none() && !keystone {
        bail!(
            "auth.mode = \"oauth2\" needs a way to check tokens: auth.signing_key_file \
             (the built-in token endpoint; `tacker auth generate-key` makes one), \
             auth.jwks_url or auth.introspection_url"
        );
    }
    if key.is_none() && !a.clients.is_empty() {
        bail!("auth.clients need auth.signing_key_file: the built-in token endpoint signs with it");
    }
    let fixed = key
        .iter()
        .map(|k| (k.kid().to_owned(), k.decoding()))
        .collect();
    let clients: Arc<HashMap<String, BuiltinClient>> = Arc::new(
        a.clients
            .iter()
            .map(|c| (c.id.clone(), builtin_client(c)))
            .collect(),
    );
    let claims = Claims {
        issuer: a.issuer.clone(),
        audience: a.audience.clone(),
        roles: a.roles_claim.clone(),
        tenant: a.tenant_claim.clone(),
    };
    let mut verifier = Verifier::new(
        claims.clone(),
        fixed,
        a.jwks_url.as_ref().map(ToString::to_string),
        clients.clone(),
    )?;
    if let Some(opaque) = opaque(a, claims)? {
        verifier = verifier.with_opaque(opaque);
    }
    let issuer = match key {
        None => None,
        Some(key) => Some(Issuer {
            key,
            clients,
            lifetime: a.token_lifetime,
            issuer: a.issuer.clone(),
            audience: a.audience.clone(),
            decoy_hash: tacker_server::auth::hash_secret(&uuid::Uuid::new_v4().to_string())?,
            limits: TokenLimits::new(a.token_concurrency, a.token_rate_limit, a.token_rate_burst),
        }),
    };
    Ok(Auth {
        mode: Mode::OAuth2(Box::new(verifier)),
        issuer,
        public_metrics: a.public_metrics,
    })
}

/// Who checks opaque tokens: Keystone in mode `keystone`, else the introspection
/// endpoint when one is configured.
fn opaque(a: &tacker_config::AuthConfig, claims: Claims) -> anyhow::Result<Option<Opaque>> {
    if a.mode == tacker_config::AuthMode::Keystone {
        let url = a
            .keystone_url
            .as_ref()
            .context("auth.mode = \"keystone\" needs auth.keystone_url")?;
        let user = ServiceUser {
            username: a.keystone_username.clone(),
            password: a.keystone_password.clone(),
            project: a.keystone_project.clone(),
            user_domain: a.keystone_user_domain.clone(),
            project_domain: a.keystone_project_domain.clone(),
        };
        return Ok(Some(Opaque::Keystone(Keystone::new(
            url.as_str(),
            user,
            a.keystone_cache,
        )?)));
    }
    let Some(url) = &a.introspection_url else {
        return Ok(None);
    };
    Ok(Some(Opaque::Introspection(Introspection::new(
        url.as_str(),
        &a.introspection_client_id,
        &a.introspection_client_secret,
        claims,
        a.introspection_cache,
    )?)))
}

/// A configured client: its highest role, its tenant, its `TENANT_`/`VENDOR_`/`AREA_`
/// roles and the `alert` role (carried like them: in every token, checked against the
/// configuration when a token is presented).
fn builtin_client(c: &tacker_config::AuthClient) -> BuiltinClient {
    BuiltinClient {
        secret_hash: c.secret_hash.clone(),
        role: Principal::highest(c.roles.iter().map(String::as_str)),
        tenant: Some(c.tenant.clone()).filter(|t| !t.is_empty()),
        attributes: c
            .roles
            .iter()
            .filter(|r| {
                r.as_str() == tacker_server::auth::ALERT_ROLE
                    || tacker_config::ATTRIBUTE_ROLES
                        .iter()
                        .any(|p| r.starts_with(p))
            })
            .cloned()
            .collect(),
    }
}

/// `tacker auth generate-key [--out FILE]`: a new key on stdout, or into FILE (0600)
/// when it does not exist yet (so a start-up job may run it on every start).
pub fn generate_key(out: Option<&Path>) -> anyhow::Result<()> {
    let pem = SigningKey::generate_pem()?;
    match out {
        None => print!("{pem}"),
        Some(p) if p.exists() => {
            SigningKey::from_pem(&std::fs::read_to_string(p)?)
                .with_context(|| format!("{} exists but holds no usable key", p.display()))?;
            println!("{} exists; kept", p.display());
        }
        Some(p) => {
            crate::private_file::create(p, &pem)?;
            println!("wrote {}", p.display());
        }
    }
    Ok(())
}

/// `tacker auth hash-secret`: the secret from stdin (one line), its hash on stdout.
pub fn hash_secret_from_stdin() -> anyhow::Result<()> {
    let mut text = String::new();
    std::io::stdin()
        .take(4096)
        .read_to_string(&mut text)
        .context("reading the secret from stdin")?;
    let secret = text.trim_end_matches(['\n', '\r']);
    if secret.len() < 16 {
        bail!("a client secret needs at least 16 characters");
    }
    println!("{}", tacker_server::auth::hash_secret(secret)?);
    Ok(())
}
