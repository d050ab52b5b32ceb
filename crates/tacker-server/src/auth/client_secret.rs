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
