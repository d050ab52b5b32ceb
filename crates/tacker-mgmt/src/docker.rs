//! Docker on a VM: installed (the command for its distribution) and started when it
//! does not answer; a proxy for apt and Docker when the parameters give one.

use tacker_domain::mgmt::params::Proxy;

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

/// apt's proxy settings on the VM.
pub const APT_PROXY: &str = "/etc/apt/apt.conf.d/95tacker-proxy.conf";
/// Docker's systemd drop-in with the proxy environment.
pub const DOCKER_PROXY: &str = "/etc/systemd/system/docker.service.d/http-proxy.conf";

/// Writes `proxy` for apt and as Docker's service environment (before Docker is
/// installed, so its packages come through the proxy too). The values go over stdin:
/// they may hold credentials and never appear in a command line or a log.
pub async fn configure_proxy(s: &Session, proxy: &Proxy) -> Result<()> {
    let mut apt = String::new();
    let mut env = String::from("[Service]\n");
    for (scheme, value) in [("http", &proxy.http_proxy), ("https", &proxy.https_proxy)] {
        if let Some(v) = value.as_ref().map(|v| v.expose_text()) {
            apt.push_str(&format!("Acquire::{scheme}::Proxy \"{v}\";\n"));
            env.push_str(&format!(
                "Environment=\"{}_PROXY={v}\"\n",
                scheme.to_ascii_uppercase()
            ));
        }
    }
    if let Some(v) = &proxy.no_proxy {
        env.push_str(&format!("Environment=\"NO_PROXY={v}\"\n"));
    }
    for (step, file, content) in [
        ("configuring apt's proxy", APT_PROXY, apt),
        ("configuring Docker's proxy", DOCKER_PROXY, env),
    ] {
        let dir = file.rsplit_once('/').map_or("/", |(d, _)| d);
        s.sudo(
            step,
            &format!("mkdir -p {dir} && umask 077 && cat > {file}"),
            Some(content.as_bytes()),
        )
        .await?;
    }
    Ok(())
}

/// Restarts Docker so it runs with the proxy drop-in.
pub async fn restart_for_proxy(s: &Session) -> Result<()> {
    s.sudo(
        "restarting Docker with its proxy",
        "systemctl daemon-reload && systemctl restart docker",
        None,
    )
    .await?;
    s.sudo("checking Docker", "docker info >/dev/null", None)
        .await?;
    Ok(())
}
