//! The keyring sealing secrets at rest, from `[secrets]`; all-in-one makes its own key
//! on the first start.

use std::path::Path;

use anyhow::{Context, bail};
use tacker_config::Config;
use tacker_db::secrets::Keyring;

/// Where all-in-one keeps its key when none is configured.
const AIO_KEY_FILE: &str = "./data/secrets.key";

fn read_keys(path: &Path) -> anyhow::Result<Vec<String>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading secrets.key_file {}", path.display()))?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect())
}

fn generate(path: &Path) -> anyhow::Result<Vec<String>> {
    let key = Keyring::generate("aio1")?;
    crate::private_file::create(path, &format!("{key}\n"))?;
    tracing::info!(file = %path.display(), "generated a key sealing secrets at rest");
    Ok(vec![key])
}

/// The keyring of this process. `all_in_one` makes (or reuses) its own key file when
/// nothing is configured; the other roles refuse to start without a key unless
/// `secrets.allow_plaintext`.
pub fn keyring(cfg: &Config, all_in_one: bool) -> anyhow::Result<Keyring> {
    let s = &cfg.secrets;
    let mut specs = s.keys.clone();
    if !s.key_file.is_empty() {
        specs.extend(read_keys(Path::new(&s.key_file))?);
    }
    if specs.is_empty() && all_in_one && !s.allow_plaintext {
        let path = Path::new(AIO_KEY_FILE);
        specs = if path.exists() {
            read_keys(path)?
        } else {
            generate(path)?
        };
    }
    if specs.is_empty() {
        if s.allow_plaintext {
            tracing::warn!("secrets.allow_plaintext: secrets are stored unsealed");
            return Ok(Keyring::plaintext());
        }
        bail!(
            "no key to seal secrets at rest: set secrets.keys (TACKER__SECRETS__KEYS=<id>:<base64>, \
             `tacker secrets generate-key` prints one) or secrets.key_file; \
             secrets.allow_plaintext = true stores them unsealed (development only)"
        );
    }
    Ok(Keyring::parse(&specs)?)
}
