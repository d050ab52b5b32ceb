//! Tacker's VIM key directory (`[vim_keys] openstack`): one Fernet key per VIM, in a file
//! named after the VIM's id, or one shared key (`[vim_keys] default_secret_key`, a file
//! of any name in the same directory).

use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// The key directory.
pub struct VimKeys {
    dir: PathBuf,
}

impl VimKeys {
    /// The directory `dir` (it must be readable).
    pub fn open(dir: &Path) -> Result<Self> {
        std::fs::read_dir(dir)
            .map_err(|e| Error::Directory(format!("--vim-keys {}: {e}", dir.display())))?;
        Ok(Self {
            dir: dir.to_owned(),
        })
    }

    /// The key file of VIM `vim_id` first, then every other key file.
    fn candidates(&self, vim_id: &str) -> Vec<String> {
        let mut keys = Vec::new();
        let own = self.dir.join(vim_id);
        if let Ok(k) = std::fs::read_to_string(&own) {
            keys.push(k);
        }
        let mut others: Vec<PathBuf> = std::fs::read_dir(&self.dir)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        others.sort();
        for p in others.into_iter().filter(|p| *p != own && p.is_file()) {
            if let Ok(k) = std::fs::read_to_string(&p) {
                keys.push(k);
            }
        }
        keys
    }

    /// `token` (a Fernet token Tacker made for VIM `vim_id`) decrypted, as text; `None`
    /// when no key in the directory opens it.
    pub fn decrypt(&self, vim_id: &str, token: &str) -> Option<String> {
        self.candidates(vim_id)
            .into_iter()
            .find_map(|key| String::from_utf8(crate::fernet::open(&key, token)?).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fernet::{generate_key, seal};

    #[test]
    fn a_vims_own_key_or_a_shared_one_opens_its_token() {
        let dir = tempfile_dir();
        let (own, shared) = (generate_key(), generate_key());
        std::fs::write(dir.join("vim-a"), &own).unwrap();
        std::fs::write(dir.join("shared"), &shared).unwrap();
        let keys = VimKeys::open(&dir).unwrap();
        let (a, b) = (seal(&own, b"pw-a"), seal(&shared, b"pw-b"));
        assert_eq!(keys.decrypt("vim-a", &a).as_deref(), Some("pw-a"));
        assert_eq!(keys.decrypt("vim-b", &b).as_deref(), Some("pw-b"));
        let stranger = seal(&generate_key(), b"x");
        assert_eq!(keys.decrypt("vim-a", &stranger), None);
        assert!(VimKeys::open(&dir.join("nowhere")).is_err());
        std::fs::remove_dir_all(dir).unwrap();
    }

    fn tempfile_dir() -> PathBuf {
        let d = std::env::temp_dir().join(format!("vim-keys-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }
}
