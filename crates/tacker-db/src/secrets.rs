//! Secrets sealed at rest: AES-256-GCM with configured keys, stored as
//! `enc:v1:<key id>:<base64(nonce || ciphertext || tag)>`. The first key seals; every key
//! opens, so keys rotate by putting a new one first (`tacker secrets rotate` re-seals).
//! A value without the prefix is plaintext (rows written before sealing, or a deployment
//! that chose `secrets.allow_plaintext`).

use aws_lc_rs::aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use aws_lc_rs::rand::{SecureRandom, SystemRandom};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use crate::{Error, Result};

const PREFIX: &str = "enc:v1:";

/// The keys, the first sealing; a clone shares them.
#[derive(Clone)]
pub struct Keyring {
    keys: std::sync::Arc<[(String, LessSafeKey)]>,
}

impl std::fmt::Debug for Keyring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ids: Vec<&str> = self.keys.iter().map(|(id, _)| id.as_str()).collect();
        f.debug_struct("Keyring").field("key_ids", &ids).finish()
    }
}

impl Keyring {
    /// No keys: values are stored as given (only with `secrets.allow_plaintext`).
    pub fn plaintext() -> Self {
        Self {
            keys: Vec::new().into(),
        }
    }

    /// Keys written `<id>:<base64 of 32 bytes>`, the first sealing.
    pub fn parse(specs: &[String]) -> Result<Self> {
        let mut keys = Vec::new();
        for spec in specs {
            let (id, b64) = spec.split_once(':').ok_or_else(|| {
                Error::Secrets("a key is written <id>:<base64 of 32 bytes>".into())
            })?;
            if id.is_empty() || id.contains(':') {
                return Err(Error::Secrets(format!("key id {id:?} is empty or has ':'")));
            }
            let bytes = STANDARD
                .decode(b64.trim())
                .map_err(|e| Error::Secrets(format!("key {id}: not base64: {e}")))?;
            let unbound = UnboundKey::new(&AES_256_GCM, &bytes)
                .map_err(|_| Error::Secrets(format!("key {id}: not 32 bytes")))?;
            if keys.iter().any(|(k, _)| k == id) {
                return Err(Error::Secrets(format!("key id {id} appears twice")));
            }
            keys.push((id.to_owned(), LessSafeKey::new(unbound)));
        }
        Ok(Self { keys: keys.into() })
    }

    /// A new random key, written `<id>:<base64>`.
    pub fn generate(id: &str) -> Result<String> {
        let mut k = [0u8; 32];
        SystemRandom::new()
            .fill(&mut k)
            .map_err(|_| Error::Secrets("no randomness for a key".into()))?;
        Ok(format!("{id}:{}", STANDARD.encode(k)))
    }

    /// Whether values are sealed.
    pub fn seals(&self) -> bool {
        !self.keys.is_empty()
    }

    /// The id of the sealing key.
    pub fn current(&self) -> Option<&str> {
        self.keys.first().map(|(id, _)| id.as_str())
    }

    /// `plain` sealed with the first key (as is without keys).
    pub fn seal(&self, plain: &str) -> Result<String> {
        let Some((id, key)) = self.keys.first() else {
            return Ok(plain.to_owned());
        };
        let mut nonce = [0u8; NONCE_LEN];
        SystemRandom::new()
            .fill(&mut nonce)
            .map_err(|_| Error::Secrets("no randomness for a nonce".into()))?;
        let mut data = plain.as_bytes().to_vec();
        key.seal_in_place_append_tag(
            Nonce::assume_unique_for_key(nonce),
            Aad::from(id.as_bytes()),
            &mut data,
        )
        .map_err(|_| Error::Secrets("sealing failed".into()))?;
        let mut out = nonce.to_vec();
        out.extend_from_slice(&data);
        Ok(format!("{PREFIX}{id}:{}", STANDARD.encode(out)))
    }

    /// The plaintext of a stored value (sealed or not).
    pub fn open(&self, stored: &str) -> Result<String> {
        let Some(rest) = stored.strip_prefix(PREFIX) else {
            return Ok(stored.to_owned());
        };
        let (id, b64) = rest
            .split_once(':')
            .ok_or_else(|| Error::Secrets("a sealed value without a key id".into()))?;
        let key = self
            .keys
            .iter()
            .find(|(k, _)| k == id)
            .map(|(_, k)| k)
            .ok_or_else(|| {
                Error::Secrets(format!(
                    "a value is sealed with key {id}, which is not configured"
                ))
            })?;
        let raw = STANDARD
            .decode(b64)
            .map_err(|_| Error::Secrets("a sealed value is not base64".into()))?;
        if raw.len() < NONCE_LEN {
            return Err(Error::Secrets("a sealed value is truncated".into()));
        }
        let (nonce, data) = raw.split_at(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(nonce)
            .map_err(|_| Error::Secrets("a sealed value has a bad nonce".into()))?;
        let mut data = data.to_vec();
        let plain = key
            .open_in_place(nonce, Aad::from(id.as_bytes()), &mut data)
            .map_err(|_| Error::Secrets(format!("a value sealed with key {id} does not open")))?;
        String::from_utf8(plain.to_vec())
            .map_err(|_| Error::Secrets("a sealed value is not text".into()))
    }

    /// `stored` sealed with the current key; `None` when it already is (or, without
    /// keys, when it stays as it is). Plaintext gets sealed.
    pub fn reseal(&self, stored: &str) -> Result<Option<String>> {
        if let Some(current) = self.current()
            && stored
                .strip_prefix(PREFIX)
                .and_then(|rest| rest.split_once(':'))
                .is_some_and(|(id, _)| id == current)
        {
            return Ok(None);
        }
        let again = self.seal(&self.open(stored)?)?;
        Ok((again != stored).then_some(again))
    }

    /// Key ids in stored values that this keyring cannot open.
    pub fn unknown_key(&self, stored: &str) -> Option<String> {
        let id = stored.strip_prefix(PREFIX)?.split_once(':')?.0;
        (!self.keys.iter().any(|(k, _)| k == id)).then(|| id.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_seal_open_and_rotate() {
        let k1 = Keyring::generate("k1").unwrap();
        let k2 = Keyring::generate("k2").unwrap();
        let one = Keyring::parse(std::slice::from_ref(&k1)).unwrap();
        let sealed = one.seal("s3cret-password").unwrap();
        assert!(sealed.starts_with("enc:v1:k1:") && !sealed.contains("s3cret"));
        assert_ne!(sealed, one.seal("s3cret-password").unwrap(), "fresh nonce");
        assert_eq!(one.open(&sealed).unwrap(), "s3cret-password");
        // Rotation: the new key seals, the old one still opens.
        let both = Keyring::parse(&[k2.clone(), k1]).unwrap();
        assert_eq!(both.open(&sealed).unwrap(), "s3cret-password");
        assert!(both.seal("x").unwrap().starts_with("enc:v1:k2:"));
        // Re-sealing leaves what the current key sealed, seals the rest.
        assert_eq!(both.reseal(&both.seal("y").unwrap()).unwrap(), None);
        let again = both.reseal(&sealed).unwrap().unwrap();
        assert!(again.starts_with("enc:v1:k2:"));
        assert_eq!(both.open(&again).unwrap(), "s3cret-password");
        assert!(
            both.reseal("plain")
                .unwrap()
                .unwrap()
                .starts_with("enc:v1:k2:")
        );
        assert_eq!(Keyring::plaintext().reseal("plain").unwrap(), None);
        // Without the key, or tampered: an error, never garbage.
        let other = Keyring::parse(&[k2]).unwrap();
        assert!(other.open(&sealed).is_err());
        assert_eq!(other.unknown_key(&sealed).as_deref(), Some("k1"));
        let mut bad = sealed.clone();
        bad.replace_range(bad.len() - 4.., "AAAA");
        assert!(one.open(&bad).is_err());
        assert_eq!(one.open("plain").unwrap(), "plain");
        assert!(Keyring::parse(&["k:short".into()]).is_err());
    }
}
