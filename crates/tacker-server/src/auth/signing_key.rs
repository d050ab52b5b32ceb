//! The built-in token endpoint's Ed25519 key: read from PKCS#8 PEM, generated for
//! all-in-one, published as a JWK.

use aws_lc_rs::signature::{Ed25519KeyPair, KeyPair};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use jsonwebtoken::{DecodingKey, EncodingKey};
use sha2::Digest;

use super::AuthError;

const PEM_LABEL: &str = "PRIVATE KEY";

/// An Ed25519 signing key and its id.
#[derive(Clone)]
pub struct SigningKey {
    encoding: EncodingKey,
    public: Vec<u8>,
    kid: String,
}

crate::debug_shows!(SigningKey, "SigningKey", kid);

impl SigningKey {
    /// Parses a PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`) Ed25519 key.
    pub fn from_pem(text: &str) -> Result<Self, AuthError> {
        let bad = |why: &str| AuthError::Key(format!("not an Ed25519 PKCS#8 PEM key: {why}"));
        let begin = format!("-----BEGIN {PEM_LABEL}-----");
        let end = format!("-----END {PEM_LABEL}-----");
        let body = text
            .split_once(&begin)
            .and_then(|(_, rest)| rest.split_once(&end))
            .map(|(b, _)| b)
            .ok_or_else(|| bad("no PRIVATE KEY block"))?;
        let der = STANDARD
            .decode(body.split_whitespace().collect::<String>())
            .map_err(|_| bad("the block is not base64"))?;
        let pair = Ed25519KeyPair::from_pkcs8(&der).map_err(|e| bad(&e.to_string()))?;
        let public = pair.public_key().as_ref().to_vec();
        let kid = hex::encode(&sha2::Sha256::digest(&public)[..8]);
        Ok(Self {
            encoding: EncodingKey::from_ed_der(&der),
            public,
            kid,
        })
    }

    /// A new key as PKCS#8 PEM.
    pub fn generate_pem() -> Result<String, AuthError> {
        let pair =
            Ed25519KeyPair::generate().map_err(|_| AuthError::Key("no randomness".into()))?;
        let der = pair
            .to_pkcs8()
            .map_err(|_| AuthError::Key("encoding the key".into()))?;
        let b64 = STANDARD.encode(der.as_ref());
        let mut pem = format!("-----BEGIN {PEM_LABEL}-----\n");
        for line in b64.as_bytes().chunks(64) {
            pem.push_str(&String::from_utf8_lossy(line));
            pem.push('\n');
        }
        pem.push_str(&format!("-----END {PEM_LABEL}-----\n"));
        Ok(pem)
    }

    /// The key id written into tokens' `kid` (a digest of the public key).
    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// The key signing tokens.
    pub fn encoding(&self) -> &EncodingKey {
        &self.encoding
    }

    /// The key checking tokens.
    pub fn decoding(&self) -> DecodingKey {
        DecodingKey::from_ed_der(&self.public)
    }

    /// The public key as a JWK (for `/oauth2/jwks`).
    pub fn jwk(&self) -> serde_json::Value {
        serde_json::json!({
            "kty": "OKP",
            "crv": "Ed25519",
            "alg": "EdDSA",
            "use": "sig",
            "kid": self.kid,
            "x": URL_SAFE_NO_PAD.encode(&self.public),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_key_reads_back_with_the_same_id() {
        let pem = SigningKey::generate_pem().unwrap();
        let a = SigningKey::from_pem(&pem).unwrap();
        let b = SigningKey::from_pem(&pem).unwrap();
        assert_eq!(a.kid(), b.kid());
        assert_eq!(a.jwk()["x"], b.jwk()["x"]);
        assert!(SigningKey::from_pem("garbage").is_err());
    }

    #[test]
    fn an_openssl_pkcs8_v1_key_is_accepted() {
        // `openssl genpkey -algorithm ed25519` (PKCS#8 v1, 48 bytes).
        let pem = "-----BEGIN PRIVATE KEY-----\n\
                   MC4CAQAwBQYDK2VwBCIEIHH5c7nUMoQZ6XbHzq1mrA1WbB1YVJ9cJKQ2rX3fmWFe\n\
                   -----END PRIVATE KEY-----\n";
        let k = SigningKey::from_pem(pem).unwrap();
        assert_eq!(k.kid().len(), 16);
    }
}
