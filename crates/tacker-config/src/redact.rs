//! Hiding secrets before configuration is shown.

/// Query parameters of a URL that hold secrets (libpq's `password`, `sslpassword`; the
/// like of `token`, `secret` in any URL), by a part of their name.
const SECRET_PARAMS: &[&str] = &["pass", "pwd", "secret", "token", "credential"];

/// A URL (`scheme://user:password@host/…?password=…`) with its password, and every query
/// parameter whose name says it holds a secret, replaced by `***`. Text that is not a URL
/// is answered as it is.
pub fn url_secrets(raw: &str) -> String {
    let Ok(mut u) = url::Url::parse(raw) else {
        return raw.to_owned();
    };
    let mut changed = false;
    if u.password().is_some() {
        // set_password only fails for URLs that cannot have credentials.
        if u.set_password(Some("***")).is_err() {
            return "***".into();
        }
        changed = true;
    }
    if u.query().is_some() {
        let pairs: Vec<(String, String)> = u
            .query_pairs()
            .map(|(k, v)| {
                let name = k.to_ascii_lowercase();
                if SECRET_PARAMS.iter().any(|s| name.contains(s)) {
                    changed = true;
                    (k.into_owned(), "***".to_owned())
                } else {
                    (k.into_owned(), v.into_owned())
                }
            })
            .collect();
        if changed {
            u.query_pairs_mut().clear().extend_pairs(pairs);
        }
    }
    if changed {
        u.to_string()
    } else {
        raw.to_owned()
    }
}

/// Hides every secret of the configuration as a TOML table: passwords in URLs, the
/// NFVO password, the default VIM, the S3 secret key, client secret hashes and sealing keys
/// (their ids stay).
pub fn table(t: &mut toml::Table) {
    let mut at = |section: &str, key: &str, f: &dyn Fn(&str) -> String| {
        if let Some(v) = t
            .get_mut(section)
            .and_then(|s| s.as_table_mut())
            .and_then(|s| s.get_mut(key))
        {
            redact_strings(v, f);
        }
    };
    for (section, key) in [
        ("database", "url"),
        ("storage", "url"),
        ("storage", "s3_endpoint"),
        ("lcm", "nfvo_grant_url"),
        ("auth", "jwks_url"),
        ("auth", "keystone_url"),
        ("auth", "introspection_url"),
        ("fm", "alertmanager_url"),
        ("pm", "prometheus_reload_url"),
    ] {
        at(section, key, &url_secrets);
    }
    at("mgmt", "drivers", &entry_secrets);
    at("bus", "url", &|v| {
        v.split(',').map(url_secrets).collect::<Vec<_>>().join(",")
    });
    let stars = |v: &str| {
        if v.is_empty() {
            String::new()
        } else {
            "***".into()
        }
    };
    for (section, key) in [
        ("lcm", "nfvo_password"),
        ("lcm", "default_vim"),
        ("storage", "s3_secret_access_key"),
        ("auth", "keystone_password"),
        ("auth", "introspection_client_secret"),
    ] {
        at(section, key, &stars);
    }
    at("secrets", "keys", &|k| {
        format!(
            "{}:***",
            k.split_once(':').map(|(id, _)| id).unwrap_or_default()
        )
    });
    let clients = t
        .get_mut("auth")
        .and_then(|a| a.get_mut("clients"))
        .and_then(|c| c.as_array_mut());
    for c in clients
        .into_iter()
        .flatten()
        .filter_map(|c| c.as_table_mut())
    {
        if let Some(h) = c.get_mut("secret_hash") {
            *h = toml::Value::String("***".into());
        }
    }
}

/// Applies `f` to a string, or to every string of an array.
fn redact_strings(v: &mut toml::Value, f: &dyn Fn(&str) -> String) {
    match v {
        toml::Value::String(s) => *s = f(s),
        toml::Value::Array(items) => items.iter_mut().for_each(|i| redact_strings(i, f)),
        _ => {}
    }
}

/// A `"<name>=<URL>"` entry (`mgmt.drivers`) with the URL's secrets hidden.
pub fn entry_secrets(raw: &str) -> String {
    match raw.split_once('=') {
        Some((name, value)) => format!("{name}={}", url_secrets(value)),
        None => raw.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::{entry_secrets, url_secrets};

    #[test]
    fn passwords_in_userinfo_and_query_are_hidden() {
        assert_eq!(
            url_secrets("postgres://u:pw@db/t?sslmode=require&password=x&sslpassword=y"),
            "postgres://u:***@db/t?sslmode=require&password=***&sslpassword=***"
        );
        assert_eq!(
            url_secrets("http://minio:9000/?X-Token=abc"),
            "http://minio:9000/?X-Token=***"
        );
        assert_eq!(
            url_secrets("sqlite://./data/tacker.db"),
            "sqlite://./data/tacker.db"
        );
        assert_eq!(url_secrets("not a url"), "not a url");
        assert_eq!(
            entry_secrets("Scripts/x.py=grpcs://op:pw@driver:50051"),
            "Scripts/x.py=grpcs://op:***@driver:50051"
        );
        assert_eq!(entry_secrets("Scripts/x.py=noop"), "Scripts/x.py=noop");
    }
}
