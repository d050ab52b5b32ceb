//! Hiding secrets before configuration is shown.

/// Replaces the password of a URL (`scheme://user:password@host`) with `***`.
pub fn url_password(raw: &str) -> String {
    match url::Url::parse(raw) {
        Ok(mut u) if u.password().is_some() => {
            // set_password only fails for URLs that cannot have credentials.
            if u.set_password(Some("***")).is_ok() {
                u.to_string()
            } else {
                "***".into()
            }
        }
        _ => raw.to_owned(),
    }
}
