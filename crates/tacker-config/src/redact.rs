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
