//! Built-in clients' secrets, stored as Argon2id PHC strings.

use argon2::Argon2;
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};

use super::AuthError;

/// The PHC string of `secret` (a new random salt each time).
pub fn hash(secret: &str) -> Result<String, AuthError> {
    Argon2::default()
        .hash_password(secret.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| AuthError::Key(format!("hashing the secret: {e}")))
}

/// Whether `secret` matches `phc` (a malformed hash never matches).
pub fn matches(secret: &str, phc: &str) -> bool {
    PasswordHash::new(phc).is_ok_and(|h| {
        Argon2::default()
            .verify_password(secret.as_bytes(), &h)
            .is_ok()
    })
}

/// One check: the secret, the PHC string, where the answer goes, and the place it holds
/// among the checks admitted (freed when the check ends, even if nobody waits for it).
type Job = (
    String,
    String,
    tokio::sync::oneshot::Sender<bool>,
    tokio::sync::OwnedSemaphorePermit,
);

/// Threads of their own for secret checks. A check takes Argon2id's 19 MiB, and a
/// thread's allocator keeps what it freed: on `n` long-lived threads that memory is
/// reused check after check, where on any of the blocking pool's threads each could keep
/// its own.
pub struct CheckPool {
    jobs: std::sync::mpsc::Sender<Job>,
}

impl std::fmt::Debug for CheckPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CheckPool").finish_non_exhaustive()
    }
}

impl CheckPool {
    /// `n` threads (at least one), ending when the pool is dropped.
    pub fn new(n: usize) -> Self {
        let (jobs, queue) = std::sync::mpsc::channel::<Job>();
        let queue = std::sync::Arc::new(std::sync::Mutex::new(queue));
        for i in 0..n.max(1) {
            let queue = queue.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("secret-check-{i}"))
                .spawn(move || {
                    loop {
                        let job = match queue.lock() {
                            Ok(q) => q.recv(),
                            Err(_) => return,
                        };
                        let Ok((secret, phc, answer, place)) = job else {
                            return;
                        };
                        let _ = answer.send(matches(&secret, &phc));
                        drop(place);
                    }
                });
            if let Err(e) = spawned {
                tracing::error!(error = %e, "could not start a secret-check thread");
            }
        }
        Self { jobs }
    }

    /// Whether `secret` matches `phc`, checked on one of the pool's threads while
    /// `place` is held; `None` when no thread answers.
    pub async fn matches(
        &self,
        secret: String,
        phc: String,
        place: tokio::sync::OwnedSemaphorePermit,
    ) -> Option<bool> {
        let (answer, answered) = tokio::sync::oneshot::channel();
        self.jobs.send((secret, phc, answer, place)).ok()?;
        answered.await.ok()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_hash_matches_its_secret_only() {
        let h = super::hash("s3cret").unwrap();
        assert!(h.starts_with("$argon2id$"));
        assert!(super::matches("s3cret", &h));
        assert!(!super::matches("s3cret!", &h));
        assert!(!super::matches("s3cret", "not a hash"));
    }
}
