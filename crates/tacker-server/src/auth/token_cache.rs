//! Answers about opaque tokens (Keystone's, an introspection endpoint's), kept for a
//! while so a warm request asks nobody: keyed by the token's SHA-256 (the tokens
//! themselves are not kept), each answer until the earlier of the cache time and the
//! token's expiry. Refusals are kept too (a refused token never becomes valid); an
//! unreachable authority's answer is not.

use std::collections::HashMap;
use std::sync::RwLock;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use tokio::sync::Semaphore;

use super::Principal;
use super::verifier::Refusal;

/// The most answers kept; beyond it expired ones go first, then all.
const MAX_ENTRIES: usize = 50_000;

/// Questions to the authority at once (more wait).
const CONCURRENT: usize = 32;

/// An authority's answer: the caller, or why the token is refused.
pub type Answer = Result<Principal, String>;

/// Answers by token, and the questions to the authority they save.
#[derive(Debug)]
pub struct TokenCache {
    ttl: Duration,
    entries: RwLock<HashMap<[u8; 32], (Instant, Answer)>>,
    calls: Semaphore,
}

fn key(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

impl TokenCache {
    /// A cache keeping answers `ttl` at most (zero: none).
    pub fn new(ttl: Duration) -> Self {
        Self {
            ttl,
            entries: RwLock::new(HashMap::new()),
            calls: Semaphore::new(CONCURRENT),
        }
    }

    /// The caller `token` stands for: the kept answer, else `ask`'s (the answer and how
    /// long the token stays valid), kept. An authority that cannot answer is not kept.
    pub async fn answer<F>(&self, token: &str, ask: F) -> Result<Principal, Refusal>
    where
        F: Future<Output = Result<(Answer, Option<Duration>), Refusal>>,
    {
        if let Some(answer) = self.get(token) {
            return answer.map_err(Refusal::Invalid);
        }
        let _call = self
            .calls
            .acquire()
            .await
            .map_err(|_| Refusal::Unavailable("token checks are closed".into()))?;
        let (answer, expires) = ask.await?;
        self.put(token, answer.clone(), expires);
        answer.map_err(Refusal::Invalid)
    }

    /// The answer kept about `token`, while it holds.
    pub fn get(&self, token: &str) -> Option<Answer> {
        let entries = self.entries.read().ok()?;
        match entries.get(&key(token)) {
            Some((until, answer)) if Instant::now() < *until => Some(answer.clone()),
            _ => None,
        }
    }

    /// Keeps `answer` about `token` until the cache time passes or `expires` (the
    /// token's own expiry, from now) does.
    pub fn put(&self, token: &str, answer: Answer, expires: Option<Duration>) {
        let keep = expires.map_or(self.ttl, |e| e.min(self.ttl));
        if keep.is_zero() {
            return;
        }
        let Ok(mut entries) = self.entries.write() else {
            return;
        };
        let now = Instant::now();
        if entries.len() >= MAX_ENTRIES {
            entries.retain(|_, (until, _)| now < *until);
            if entries.len() >= MAX_ENTRIES {
                entries.clear();
            }
        }
        entries.insert(key(token), (now + keep, answer));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_kept_until_the_earlier_of_cache_time_and_expiry() {
        let c = TokenCache::new(Duration::from_secs(60));
        c.put("a", Err("no".into()), None);
        assert_eq!(c.get("a"), Some(Err("no".into())));
        assert_eq!(c.get("b"), None);
        c.put("b", Err("gone".into()), Some(Duration::ZERO));
        assert_eq!(c.get("b"), None, "an expired token is not kept");
        c.put("c", Err("soon".into()), Some(Duration::from_millis(20)));
        assert!(c.get("c").is_some());
        std::thread::sleep(Duration::from_millis(40));
        assert_eq!(c.get("c"), None);
        let off = TokenCache::new(Duration::ZERO);
        off.put("a", Err("no".into()), None);
        assert_eq!(off.get("a"), None);
    }
}
