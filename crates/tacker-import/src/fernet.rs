//! Fernet tokens (the specification at github.com/fernet/spec), opened: what Tacker seals
//! VIM credentials with. A token is `0x80 | timestamp (8) | IV (16) | AES-128-CBC
//! ciphertext (PKCS#7) | HMAC-SHA256 (32)`, base64url; a key is 32 bytes, base64url: the
//! first half signs, the second encrypts. Tokens do not expire here (Tacker's do not).

use aes::cipher::{BlockModeDecrypt, KeyIvInit, block_padding::Pkcs7};
use base64::Engine;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use hmac::{KeyInit, Mac};

/// base64url, padded or not.
const B64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::URL_SAFE,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// `token` opened with `key`; `None` when the key is not its key or the token is not a
/// Fernet token (its signature is checked before anything is decrypted).
pub fn open(key: &str, token: &str) -> Option<Vec<u8>> {
    let key = B64.decode(key.trim()).ok()?;
    let token = B64.decode(token.trim()).ok()?;
    if key.len() != 32 || token.len() < 1 + 8 + 16 + 16 + 32 || token[0] != 0x80 {
        return None;
    }
    let (signed, tag) = token.split_at(token.len() - 32);
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(&key[..16]).ok()?;
    mac.update(signed);
    mac.verify_slice(tag).ok()?;
    let (iv, ciphertext) = signed[9..].split_at(16);
    if ciphertext.len() % 16 != 0 {
        return None;
    }
    let mut buf = ciphertext.to_vec();
    let plain = cbc::Decryptor::<aes::Aes128>::new_from_slices(&key[16..], iv)
        .ok()?
        .decrypt_padded::<Pkcs7>(&mut buf)
        .ok()?;
    Some(plain.to_vec())
}

/// A token of `plain` under `key` (tests make Tacker's tokens with it).
#[cfg(test)]
pub fn seal(key: &str, plain: &[u8]) -> String {
    use aes::cipher::BlockModeEncrypt;
    let key = B64.decode(key).unwrap();
    let iv: [u8; 16] = *uuid::Uuid::new_v4().as_bytes();
    let mut out = vec![0x80];
    out.extend_from_slice(&0u64.to_be_bytes());
    out.extend_from_slice(&iv);
    let mut buf = plain.to_vec();
    buf.resize(plain.len() + 16, 0);
    let ct = cbc::Encryptor::<aes::Aes128>::new_from_slices(&key[16..], &iv)
        .unwrap()
        .encrypt_padded::<Pkcs7>(&mut buf, plain.len())
        .unwrap()
        .to_vec();
    out.extend_from_slice(&ct);
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(&key[..16]).unwrap();
    mac.update(&out);
    out.extend_from_slice(&mac.finalize().into_bytes());
    base64::engine::general_purpose::URL_SAFE.encode(out)
}

/// A new key (tests).
#[cfg(test)]
pub fn generate_key() -> String {
    let mut k = uuid::Uuid::new_v4().as_bytes().to_vec();
    k.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
    base64::engine::general_purpose::URL_SAFE.encode(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The specification's own example (generate.json).
    const KEY: &str = "cw_0x689RpI-jtRR7oE8h_eQsKImvJapLeSbXpwF4e4=";
    const TOKEN: &str = "gAAAAAAdwJ6wAAECAwQFBgcICQoLDA0ODy021cpGVWKZ_eEwCGM4BLLF_5CV9dOPmrhuVUPgJobwOz7JcbmrR64jVmpU4IwqDA==";

    #[test]
    fn the_specifications_token_opens_and_tampering_is_refused() {
        assert_eq!(open(KEY, TOKEN).as_deref(), Some(&b"hello"[..]));
        assert_eq!(
            open(KEY, TOKEN.trim_end_matches('=')).as_deref(),
            Some(&b"hello"[..])
        );
        assert_eq!(open(&generate_key(), TOKEN), None);
        let mut raw = B64.decode(TOKEN).unwrap();
        raw[30] ^= 1;
        let tampered = base64::engine::general_purpose::URL_SAFE.encode(raw);
        assert_eq!(open(KEY, &tampered), None);
        for junk in ["", "gAAAAA", "not base64!", &TOKEN[..40]] {
            assert_eq!(open(KEY, junk), None, "{junk}");
        }
    }

    #[test]
    fn what_is_sealed_opens_with_its_key_only() {
        let k = generate_key();
        for plain in [&b""[..], b"s3cret", &[7u8; 16], &[1u8; 33]] {
            let t = seal(&k, plain);
            assert_eq!(open(&k, &t).as_deref(), Some(plain));
        }
        assert_eq!(open(&generate_key(), &seal(&k, b"x")), None);
    }
}
