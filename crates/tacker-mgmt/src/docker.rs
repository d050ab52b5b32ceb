//! Docker on a VM: installed (the command for its distribution) and started when it
//! does not answer.

use crate::error::{Error, Result};
use crate::settings::MgmtSettings;
use crate::ssh::Session;

/// Makes sure Docker answers (`docker info`), installing and starting it if not.
pub async fn ensure(s: &Session, settings: &MgmtSettings) -> Result<()> {
    let works = "docker info >/dev/null 2>&1";
    if s.sudo_status(works, None).await?.status == 0 {
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
            "{}: Docker does not answer and mgmt.docker_install has no command for {id:?} (nor ubuntu)",
            s.target.name
        ))
    })?;
    tracing::info!(node = %s.target.name, distribution = %id, "installing Docker");
    s.sudo("installing Docker", cmd, None).await?;
    s.sudo("starting Docker", "systemctl enable --now docker", None)
        .await?;
    s.sudo("checking Docker", "docker info >/dev/null", None)
        .await?;
    Ok(())
}
