//! SOL004 digest algorithms and streaming hashing.

use sha2::Digest as _;

/// A digest algorithm a manifest or TOSCA.meta may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Algorithm {
    /// SHA-224.
    Sha224,
    /// SHA-256.
    Sha256,
    /// SHA-384.
    Sha384,
    /// SHA-512.
    Sha512,
}

impl Algorithm {
    /// Parses an algorithm name, case-insensitively, with or without the dash
    /// (`SHA-256`, `sha256`, `Sha-256`).
    pub fn parse(name: &str) -> Option<Self> {
        let n: String = name
            .trim()
            .chars()
            .filter(|c| *c != '-' && *c != '_')
            .collect();
        match n.to_ascii_lowercase().as_str() {
            "sha224" => Some(Self::Sha224),
            "sha256" => Some(Self::Sha256),
            "sha384" => Some(Self::Sha384),
            "sha512" => Some(Self::Sha512),
            _ => None,
        }
    }

    /// The SOL004 spelling.
    pub fn name(self) -> &'static str {
        match self {
            Self::Sha224 => "SHA-224",
            Self::Sha256 => "SHA-256",
            Self::Sha384 => "SHA-384",
            Self::Sha512 => "SHA-512",
        }
    }
}

/// Several hashers fed by one pass over a file.
pub(crate) struct MultiHasher {
    hashers: Vec<(Algorithm, Box<dyn sha2::digest::DynDigest + Send>)>,
}

impl MultiHasher {
    pub fn new(algorithms: &[Algorithm]) -> Self {
        let mut algs = algorithms.to_vec();
        algs.sort();
        algs.dedup();
        let hashers = algs
            .into_iter()
            .map(|a| {
                let h: Box<dyn sha2::digest::DynDigest + Send> = match a {
                    Algorithm::Sha224 => Box::new(sha2::Sha224::new()),
                    Algorithm::Sha256 => Box::new(sha2::Sha256::new()),
                    Algorithm::Sha384 => Box::new(sha2::Sha384::new()),
                    Algorithm::Sha512 => Box::new(sha2::Sha512::new()),
                };
                (a, h)
            })
            .collect();
        Self { hashers }
    }

    pub fn update(&mut self, data: &[u8]) {
        for (_, h) in &mut self.hashers {
            h.update(data);
        }
    }

    pub fn finish(self) -> Vec<(Algorithm, String)> {
        self.hashers
            .into_iter()
            .map(|(a, h)| (a, hex::encode(h.finalize())))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_case_insensitively() {
        assert_eq!(Algorithm::parse("SHA-256"), Some(Algorithm::Sha256));
        assert_eq!(Algorithm::parse("sha-512"), Some(Algorithm::Sha512));
        assert_eq!(Algorithm::parse("Sha384"), Some(Algorithm::Sha384));
        assert_eq!(Algorithm::parse(" sha-224 "), Some(Algorithm::Sha224));
        assert_eq!(Algorithm::parse("MD5"), None);
        assert_eq!(Algorithm::parse("SHA-1"), None);
    }

    #[test]
    fn one_pass_feeds_every_algorithm() {
        let mut m = MultiHasher::new(&[Algorithm::Sha256, Algorithm::Sha512, Algorithm::Sha256]);
        m.update(b"abc");
        let out = m.finish();
        assert_eq!(out.len(), 2);
        assert_eq!(
            out[0].1,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(out[1].1.starts_with("ddaf35a193617aba"));
    }
}
