//! Built-in clients' secrets, stored as Argon2id PHC strings.

use argon2::password_hash::PasswordHasher;
use argon2::password_hash::phc::{Output, PasswordHash};
use argon2::{Argon2, Block};

use super::AuthError;

/// The PHC string of `secret` (a new random salt each time).
pub fn hash(secret: &str) -> Result<String, AuthError> {
    Argon2::default()
        .hash_password(secret.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| AuthError::Key(format!("hashing the secret: {e}")))
}

/// Checks secrets against PHC strings in one block of Argon2 memory, kept from check to
/// check: the library's own allocation of 19 MiB per check is freed in a way the
/// allocator does not reuse, and a thread checking again and again grew by as much each
/// time.
#[derive(Default)]
pub struct Checker {
    blocks: Vec<Block>,
}

impl Checker {
    /// Whether `secret` matches `phc` (a malformed hash never matches).
    pub fn matches(&mut self, secret: &str, phc: &str) -> bool {
        let Ok(hash) = PasswordHash::new(phc) else {
            return false;
        };
        let (Some(salt), Some(expected)) = (&hash.salt, &hash.hash) else {
            return false;
        };
        let (Ok(params), Ok(algorithm)) = (
            argon2::Params::try_from(&hash),
            argon2::Algorithm::try_from(hash.algorithm.as_str()),
        ) else {
            return false;
        };
        let version = match hash.version.map(argon2::Version::try_from) {
            None => argon2::Version::default(),
            Some(Ok(v)) => v,
            Some(Err(_)) => return false,
        };
        let n = params.block_count();
        if self.blocks.len() != n {
            self.blocks = vec![Block::new(); n];
        }
        let mut buffer = [0u8; Output::MAX_LENGTH];
        let Some(out) = buffer.get_mut(..expected.len()) else {
            return false;
        };
        Argon2::new(algorithm, version, params)
            .hash_password_into_with_memory(secret.as_bytes(), salt, out, &mut self.blocks[..])
            .is_ok()
            // Output compares in constant time.
            && Output::new(out).is_ok_and(|o| o == *expected)
    }
}

/// One check: the secret, the PHC string, where the answer goes, and the place it holds
/// among the checks admitted (freed when the check ends, even if nobody waits for it).
type Job = (
    String,
    String,
    tokio::sync::oneshot::Sender<bool>,
    tokio::sync::OwnedSemaphorePermit,
);

/// Threads of their own for secret checks, each with its [`Checker`]: `n` times
/// Argon2id's 19 MiB, whatever the number of checks.
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
                    let mut checker = Checker::default();
                    loop {
                        let job = match queue.lock() {
                            Ok(q) => q.recv(),
                            Err(_) => return,
                        };
                        let Ok((secret, phc, answer, place)) = job else {
                            return;
                        };
                        let _ = answer.send(checker.matches(&secret, &phc));
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
        let mut c = super::Checker::default();
        assert!(c.matches("s3cret", &h));
        assert!(!c.matches("s3cret!", &h));
        assert!(!c.matches("s3cret", "not a hash"));
        // A hash of other parameters (less memory) is checked in memory of its size.
        use argon2::password_hash::PasswordHasher;
        let params = argon2::Params::new(64, 1, 1, None).unwrap();
        let small =
            argon2::Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, params)
                .hash_password(b"pw")
                .unwrap()
                .to_string();
        assert!(c.matches("pw", &small));
        assert!(!c.matches("pw!", &small));
        assert!(c.matches("s3cret", &h), "back to the first hash's memory");
    }
}
