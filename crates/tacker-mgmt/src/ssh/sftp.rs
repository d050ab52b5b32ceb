//! SFTP uploads: a package file streamed to the VM (never read whole into memory), its
//! progress logged, then moved into place as root.

use std::path::Path;

use russh_sftp::client::SftpSession;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{Session, quote};
use crate::error::{Error, Result};

const CHUNK: usize = 256 * 1024;

impl Session {
    /// Uploads local file `local` to `remote` (owned by root, mode `mode`); `step`
    /// names it in errors.
    pub async fn upload(&self, step: &str, local: &Path, remote: &str, mode: u32) -> Result<()> {
        let size = tokio::fs::metadata(local)
            .await
            .map_err(|e| Error::Package {
                path: local.display().to_string(),
                cause: e.to_string(),
            })?
            .len();
        let staging = format!(".tacker-upload-{}", uuid::Uuid::new_v4().simple());
        let transfer = async {
            let ch = self
                .handle
                .channel_open_session()
                .await
                .map_err(|e| self.ssh_error(e))?;
            ch.request_subsystem(true, "sftp")
                .await
                .map_err(|e| self.ssh_error(e))?;
            let sftp = SftpSession::new(ch.into_stream())
                .await
                .map_err(|e| self.ssh_error(e))?;
            let mut remote_file = sftp.create(&staging).await.map_err(|e| self.ssh_error(e))?;
            let mut file = tokio::fs::File::open(local)
                .await
                .map_err(|e| Error::Package {
                    path: local.display().to_string(),
                    cause: e.to_string(),
                })?;
            let mut buf = vec![0u8; CHUNK];
            let (mut sent, mut logged) = (0u64, 0u64);
            loop {
                let n = file.read(&mut buf).await.map_err(|e| Error::Package {
                    path: local.display().to_string(),
                    cause: e.to_string(),
                })?;
                if n == 0 {
                    break;
                }
                remote_file
                    .write_all(&buf[..n])
                    .await
                    .map_err(|e| self.ssh_error(e))?;
                sent += n as u64;
                if sent - logged >= (size / 10).max(8 * 1024 * 1024) || sent == size {
                    tracing::info!(node = %self.target.name, step, sent, size, "uploading");
                    logged = sent;
                }
            }
            remote_file
                .shutdown()
                .await
                .map_err(|e| self.ssh_error(e))?;
            let _ = sftp.close().await;
            Ok::<_, Error>(())
        };
        tokio::time::timeout(self.settings.command_timeout, transfer)
            .await
            .map_err(|_| Error::Timeout {
                node: self.target.name.clone(),
                step: step.to_owned(),
                after: self.settings.command_timeout,
            })??;
        let dir = Path::new(remote)
            .parent()
            .map(|d| d.display().to_string())
            .unwrap_or_else(|| "/".into());
        let home = self.run("finding the home directory", "pwd").await?.stdout;
        let staged = format!("{}/{staging}", home.trim());
        self.sudo(
            step,
            &format!(
                "set -e; mkdir -p {d}; install -m {mode:o} {s} {r}; rm -f {s}",
                d = quote(&dir),
                s = quote(&staged),
                r = quote(remote)
            ),
            None,
        )
        .await?;
        Ok(())
    }
}
