//! Where the API is and how to authenticate: flags, then environment (`TACKER_URL`,
//! `TACKER_TOKEN`), then the config file (`$TACKERCTL_CONFIG`, else
//! `~/.config/tackerctl/config.toml`: `url = "..."`, `token = "..."` or `client_id`,
//! `client_secret`, `token_url`), then the default.

use std::path::PathBuf;

use serde::Deserialize;

use crate::error::{Error, Result};

/// The default API endpoint (`make run`).
pub const DEFAULT_URL: &str = "http://127.0.0.1:9890";

/// The config file's keys.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct File {
    /// API base URL.
    pub url: Option<String>,
    /// Bearer token.
    pub token: Option<String>,
    /// OAuth 2.0 client id (client credentials grant).
    pub client_id: Option<String>,
    /// OAuth 2.0 client secret.
    pub client_secret: Option<String>,
    /// Token endpoint (default `<url>/oauth2/token`).
    pub token_url: Option<String>,
    /// CA certificates (PEM file) for an https API.
    pub cacert: Option<PathBuf>,
    /// Client certificate (PEM file) for mutual TLS.
    pub cert: Option<PathBuf>,
    /// Its private key (PEM file).
    pub key: Option<PathBuf>,
}

/// The config file to read, if any.
pub fn path(flag: Option<&PathBuf>) -> Option<PathBuf> {
    if let Some(p) = flag {
        return Some(p.clone());
    }
    if let Some(p) = std::env::var_os("TACKERCTL_CONFIG") {
        return Some(p.into());
    }
    let home = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    let p = home.join("tackerctl/config.toml");
    p.is_file().then_some(p)
}

/// Reads the config file (an explicit one must exist).
pub fn load(flag: Option<&PathBuf>) -> Result<File> {
    let Some(p) = path(flag) else {
        return Ok(File::default());
    };
    let text = std::fs::read_to_string(&p)
        .map_err(|e| Error::Local(format!("config file {}: {e}", p.display())))?;
    toml::from_str(&text).map_err(|e| Error::Local(format!("config file {}: {e}", p.display())))
}
