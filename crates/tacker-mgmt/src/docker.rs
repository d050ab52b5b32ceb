//! Docker on a VM: installed when absent (the command for its distribution).

use crate::error::{Error, Result};
use crate::settings::MgmtSettings;
use crate::ssh::Session;

/// Installs Docker when `docker` is not there.
pub async fn ensure(s: &Session, settings: &MgmtSettings) -> Result<()> {
    let has = s.sudo_status("command -v docker >/dev/null", None).await?;
    if has.status == 0 {
        return Ok(());
    }
    let id = s
        .run(
            "reading /etc/os-release",
            ". /etc/os-release && echo \"$ID\"",
        )
        .await?
        .stdout
        .trim()
        .to_owned();
    let cmd = settings.docker_install_for(&id).ok_or_else(|| {
        Error::Invalid(format!(
            "{}: Docker is not installed and mgmt.docker_install has no command for {id:?} (nor ubuntu)",
            s.target.name
        ))
    })?;
    tracing::info!(node = %s.target.name, distribution = %id, "installing Docker");
    s.sudo("installing Docker", cmd, None).await?;
    s.sudo("checking Docker", "docker --version", None).await?;
    Ok(())
}
