//! `Debug` of what carries credentials, masking them: a `{:?}` in a log line cannot leak
//! a password.

use std::fmt;

use crate::BusOptions;
use crate::proto::UploadFromUri;

/// `***` for a non-empty secret.
fn masked(secret: &str) -> &'static str {
    if secret.is_empty() { "" } else { "***" }
}

/// A URL (or several, comma-separated) with its password masked
/// (`scheme://user:***@host`).
fn url_masked(raw: &str) -> String {
    raw.split(',')
        .map(|u| tacker_domain::lcm::secrets::mask_url_password(u).unwrap_or_else(|| u.to_owned()))
        .collect::<Vec<_>>()
        .join(",")
}

impl fmt::Debug for UploadFromUri {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UploadFromUri")
            .field("package_id", &self.package_id)
            .field("address", &url_masked(&self.address))
            .field("user_name", &self.user_name)
            .field("password", &masked(&self.password))
            .finish()
    }
}

impl fmt::Debug for BusOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BusOptions")
            .field("url", &url_masked(&self.url))
            .field("prefix", &self.prefix)
            .field("publish_timeout", &self.publish_timeout)
            .field("reconnect_max_backoff", &self.reconnect_max_backoff)
            .field("queue_type", &self.queue_type)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_never_holds_the_secrets() {
        let m = UploadFromUri {
            package_id: "p".into(),
            address: "https://u:planted-1@example.com/x.zip".into(),
            user_name: "u".into(),
            password: "planted-2".into(),
        };
        let o = BusOptions::new(
            "amqp://tacker:planted-3@mq:5672/%2f,amqp://tacker:planted-4@mq2:5672/%2f",
            "t",
        );
        let text = format!("{m:?} {o:?}");
        for s in ["planted-1", "planted-2", "planted-3", "planted-4"] {
            assert!(!text.contains(s), "{text}");
        }
        assert!(
            text.contains("example.com") && text.contains("mq:5672"),
            "{text}"
        );
    }
}
