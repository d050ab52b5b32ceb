//! Host keys: pinned per VNFC on first contact, re-pinned when the VNFC was just created
//! or healed (a new VM), refused otherwise when they change.

use std::sync::{Arc, Mutex};

use russh::client;
use russh::keys::PublicKeyOrCertificate;

/// What key a connection accepts.
#[derive(Debug, Clone)]
pub struct KeyCheck {
    /// The key pinned for this VNFC, if any.
    pub pinned: Option<String>,
    /// The VNFC is new (created or healed by this operation): any key is pinned.
    pub fresh: bool,
    /// Accept a changed key anyway (`ssh.accept_changed_host_keys`).
    pub accept_changed: bool,
}

impl KeyCheck {
    /// Whether `seen` is acceptable.
    pub fn accepts(&self, seen: &str) -> bool {
        match &self.pinned {
            None => true,
            Some(p) => p == seen || self.fresh || self.accept_changed,
        }
    }
}

/// The key in OpenSSH form without a comment (`ssh-ed25519 AAAA...`).
pub fn openssh(k: &PublicKeyOrCertificate) -> String {
    let text = match k {
        PublicKeyOrCertificate::PublicKey { key, .. } => key.to_openssh().unwrap_or_default(),
        PublicKeyOrCertificate::Certificate(c) => c.to_openssh().unwrap_or_default(),
    };
    text.split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The client side of one connection: checks the host key and remembers it.
#[derive(Debug)]
pub struct Client {
    pub(super) check: KeyCheck,
    pub(super) seen: Arc<Mutex<Option<String>>>,
}

impl client::Handler for Client {
    type Error = russh::Error;

    async fn check_server_key(
        &mut self,
        key: &PublicKeyOrCertificate,
    ) -> Result<bool, Self::Error> {
        let seen = openssh(key);
        let ok = self.check.accepts(&seen);
        if let Ok(mut s) = self.seen.lock() {
            *s = Some(seen);
        }
        Ok(ok)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_key_is_refused_unless_the_vnfc_is_new_or_changes_are_accepted() {
        let pinned = KeyCheck {
            pinned: Some("ssh-ed25519 A".into()),
            fresh: false,
            accept_changed: false,
        };
        assert!(pinned.accepts("ssh-ed25519 A"));
        assert!(!pinned.accepts("ssh-ed25519 B"));
        assert!(
            KeyCheck {
                fresh: true,
                ..pinned.clone()
            }
            .accepts("ssh-ed25519 B")
        );
        assert!(
            KeyCheck {
                accept_changed: true,
                ..pinned.clone()
            }
            .accepts("ssh-ed25519 B")
        );
        assert!(
            KeyCheck {
                pinned: None,
                ..pinned
            }
            .accepts("anything")
        );
    }
}
