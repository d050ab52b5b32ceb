//! SSH to VNF VMs (russh): connect with bounded retries while a VM boots, password or
//! key login, host keys pinned per VNFC, commands with timeouts (exit status, stdout and
//! stderr captured), `sudo`, SFTP uploads. Passwords travel on stdin, never on a command
//! line, and are masked in everything captured.

mod hostkey;
mod sftp;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use russh::keys::PrivateKeyWithHashAlg;
use russh::{ChannelMsg, client};
use tacker_domain::lcm::driver::Services;

use hostkey::Client;
pub use hostkey::KeyCheck;

use crate::error::{Error, Result};
use crate::settings::SshSettings;

/// How a VM is logged into.
#[derive(Clone)]
pub enum Login {
    /// User and password.
    Password(String, String),
    /// User and private key (OpenSSH PEM).
    Key(String, Arc<russh::keys::PrivateKey>),
}

impl std::fmt::Debug for Login {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Login::Password(u, _) => write!(f, "Password({u}, ***)"),
            Login::Key(u, _) => write!(f, "Key({u})"),
        }
    }
}

impl Login {
    fn user(&self) -> &str {
        match self {
            Login::Password(u, _) | Login::Key(u, _) => u,
        }
    }
}

/// Which VM to reach.
#[derive(Debug, Clone)]
pub struct Target {
    /// The VNFC (`vnfcResourceInfo` id): host keys are pinned per VNFC.
    pub vnfc: String,
    /// A name for messages (VDU and VNFC).
    pub name: String,
    /// Its address.
    pub address: String,
    /// SSH port (22).
    pub port: u16,
    /// The login.
    pub login: Login,
    /// Whether the VNFC was just created or healed (its key is pinned anew).
    pub fresh: bool,
}

/// What a command left.
#[derive(Debug, Clone, Default)]
pub struct Output {
    /// Exit status.
    pub status: u32,
    /// Standard output (masked).
    pub stdout: String,
    /// Standard error (masked).
    pub stderr: String,
}

/// An open SSH connection to one VM.
pub struct Session {
    handle: client::Handle<Client>,
    /// The VM.
    pub target: Target,
    settings: SshSettings,
    secrets: Vec<String>,
    sudo_needs_password: bool,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

/// Single-quotes `s` for a POSIX shell.
pub fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn short(s: &str) -> String {
    let t = s.trim();
    if t.len() <= 2000 {
        return t.to_owned();
    }
    let mut cut = t.len() - 2000;
    while !t.is_char_boundary(cut) {
        cut += 1;
    }
    format!("...{}", &t[cut..])
}

impl Session {
    /// Connects and logs in, retrying (connection refused, timeouts, a VM that is not
    /// up yet) for `settings.boot_timeout`; pins or checks the host key through
    /// `services`. `secrets` are masked in everything captured.
    pub async fn open(
        target: Target,
        services: Option<&dyn Services>,
        settings: &SshSettings,
        mut secrets: Vec<String>,
    ) -> Result<Session> {
        if let Login::Password(_, p) = &target.login {
            secrets.push(p.clone());
        }
        secrets.retain(|s| !s.is_empty());
        let pinned = match services {
            Some(s) => s.host_key(&target.vnfc).await.map_err(Error::Services)?,
            None => None,
        };
        let check = KeyCheck {
            pinned: pinned.clone(),
            fresh: target.fresh,
            accept_changed: settings.accept_changed_host_keys,
        };
        let address = format!("{}:{}", target.address, target.port);
        let started = Instant::now();
        let mut delay = Duration::from_millis(250);
        let (handle, seen) = loop {
            match Self::attempt(&target, &check, settings).await {
                Ok(x) => break x,
                Err(Attempt::Fatal(e)) => return Err(e),
                Err(Attempt::Again(cause)) => {
                    if started.elapsed() + delay > settings.boot_timeout {
                        return Err(Error::Unreachable {
                            node: target.name.clone(),
                            address,
                            waited: started.elapsed(),
                            cause,
                        });
                    }
                    tracing::debug!(node = %target.name, %address, %cause, "SSH not reachable yet; retrying");
                    tokio::time::sleep(delay).await;
                    delay = (delay * 2).min(Duration::from_secs(5));
                }
            }
        };
        if let (Some(s), Some(seen)) = (services, seen.as_deref())
            && pinned.as_deref() != Some(seen)
        {
            if pinned.is_some() && !target.fresh {
                tracing::warn!(node = %target.name, %address, "host key changed; accepted (ssh.accept_changed_host_keys)");
            }
            s.pin_host_key(&target.vnfc, &target.address, seen)
                .await
                .map_err(Error::Services)?;
        }
        let mut me = Session {
            handle,
            target,
            settings: settings.clone(),
            secrets,
            sudo_needs_password: false,
        };
        let probe = me
            .exec("sudo -n true", None, settings.connect_timeout)
            .await?;
        me.sudo_needs_password = probe.status != 0;
        Ok(me)
    }

    async fn attempt(
        target: &Target,
        check: &KeyCheck,
        settings: &SshSettings,
    ) -> Result<(client::Handle<Client>, Option<String>), Attempt> {
        let seen = Arc::new(Mutex::new(None));
        let handler = Client {
            check: check.clone(),
            seen: seen.clone(),
        };
        let config = Arc::new(client::Config {
            inactivity_timeout: Some(settings.command_timeout + Duration::from_secs(60)),
            keepalive_interval: Some(Duration::from_secs(15)),
            nodelay: true,
            ..Default::default()
        });
        let address = (target.address.as_str(), target.port);
        let node = target.name.clone();
        let connected = tokio::time::timeout(
            settings.connect_timeout,
            client::connect(config, address, handler),
        )
        .await;
        let seen_key = || seen.lock().ok().and_then(|s| s.clone());
        let mut handle = match connected {
            Err(_) => {
                return Err(Attempt::Again(format!(
                    "no answer within {:?}",
                    settings.connect_timeout
                )));
            }
            Ok(Err(russh::Error::UnknownKey)) => {
                return Err(Attempt::Fatal(Error::HostKey {
                    node,
                    address: format!("{}:{}", target.address, target.port),
                    seen: seen_key().unwrap_or_default(),
                }));
            }
            Ok(Err(e)) => return Err(Attempt::Again(e.to_string())),
            Ok(Ok(h)) => h,
        };
        let user = target.login.user().to_owned();
        // sshd answers a refused password only after a delay (PAM's, about 2 s).
        let auth_limit = (settings.connect_timeout * 3).max(Duration::from_secs(10));
        let auth = tokio::time::timeout(auth_limit, async {
            match &target.login {
                Login::Password(u, p) => handle.authenticate_password(u.clone(), p.clone()).await,
                Login::Key(u, k) => {
                    let hash = handle.best_supported_rsa_hash().await?.flatten();
                    handle
                        .authenticate_publickey(
                            u.clone(),
                            PrivateKeyWithHashAlg::new(k.clone(), hash),
                        )
                        .await
                }
            }
        })
        .await;
        match auth {
            Err(_) => Err(Attempt::Again("authentication timed out".into())),
            Ok(Err(e)) => Err(Attempt::Again(e.to_string())),
            Ok(Ok(r)) if r.success() => Ok((handle, seen_key())),
            Ok(Ok(_)) => Err(Attempt::Fatal(Error::Auth {
                node,
                user,
                address: format!("{}:{}", target.address, target.port),
            })),
        }
    }

    /// Replaces every secret in `s` with `***`.
    pub fn mask(&self, s: &str) -> String {
        let mut out = s.to_owned();
        for secret in &self.secrets {
            out = out.replace(secret.as_str(), "***");
        }
        out
    }

    fn ssh_error(&self, e: impl std::fmt::Display) -> Error {
        Error::Ssh {
            node: self.target.name.clone(),
            cause: self.mask(&e.to_string()),
        }
    }

    /// Runs `command` (its stdin `stdin`), whatever its exit status.
    pub async fn exec(
        &self,
        command: &str,
        stdin: Option<&[u8]>,
        limit: Duration,
    ) -> Result<Output> {
        let run = async {
            let mut ch = self
                .handle
                .channel_open_session()
                .await
                .map_err(|e| self.ssh_error(e))?;
            ch.exec(true, command)
                .await
                .map_err(|e| self.ssh_error(e))?;
            if let Some(input) = stdin {
                ch.data(input).await.map_err(|e| self.ssh_error(e))?;
            }
            ch.eof().await.map_err(|e| self.ssh_error(e))?;
            let (mut out, mut err, mut status) = (Vec::new(), Vec::new(), None);
            while let Some(msg) = ch.wait().await {
                match msg {
                    ChannelMsg::Data { data } => out.extend_from_slice(&data),
                    ChannelMsg::ExtendedData { data, .. } => err.extend_from_slice(&data),
                    ChannelMsg::ExitStatus { exit_status } => status = Some(exit_status),
                    ChannelMsg::ExitSignal { signal_name, .. } => {
                        err.extend_from_slice(
                            format!("killed by signal {signal_name:?}").as_bytes(),
                        );
                        status = Some(255);
                    }
                    _ => {}
                }
            }
            Ok(Output {
                status: status.unwrap_or(255),
                stdout: self.mask(&String::from_utf8_lossy(&out)),
                stderr: self.mask(&String::from_utf8_lossy(&err)),
            })
        };
        tokio::time::timeout(limit, run)
            .await
            .map_err(|_| Error::Timeout {
                node: self.target.name.clone(),
                step: self.mask(command),
                after: limit,
            })?
    }

    /// Runs `command` as the login user; a non-zero exit is a failure of `step`.
    pub async fn run(&self, step: &str, command: &str) -> Result<Output> {
        let out = self
            .exec(command, None, self.settings.command_timeout)
            .await?;
        self.checked(step, out)
    }

    /// Runs `script` (a shell script) as root through `sudo`, `stdin` its input; a
    /// non-zero exit is a failure of `step`. A sudo that wants a password gets it first
    /// on stdin.
    pub async fn sudo(&self, step: &str, script: &str, stdin: Option<&[u8]>) -> Result<Output> {
        let out = self.sudo_status(script, stdin).await?;
        self.checked(step, out)
    }

    /// Like [`Session::sudo`], whatever the exit status.
    pub async fn sudo_status(&self, script: &str, stdin: Option<&[u8]>) -> Result<Output> {
        tracing::debug!(node = %self.target.name, script = %self.mask(script), "sudo");
        let (command, input) = if self.sudo_needs_password {
            let Login::Password(_, p) = &self.target.login else {
                return Err(Error::Invalid(format!(
                    "{}: sudo needs a password and the login has none",
                    self.target.name
                )));
            };
            let mut input = format!("{p}\n").into_bytes();
            input.extend_from_slice(stdin.unwrap_or_default());
            (
                format!("sudo -S -p '' sh -c {}", quote(script)),
                Some(input),
            )
        } else {
            (
                format!("sudo -n sh -c {}", quote(script)),
                stdin.map(<[u8]>::to_vec),
            )
        };
        self.exec(&command, input.as_deref(), self.settings.command_timeout)
            .await
    }

    fn checked(&self, step: &str, out: Output) -> Result<Output> {
        if out.status == 0 {
            return Ok(out);
        }
        let text = if out.stderr.trim().is_empty() {
            &out.stdout
        } else {
            &out.stderr
        };
        Err(Error::Command {
            node: self.target.name.clone(),
            step: step.to_owned(),
            status: out.status,
            stderr: short(text),
        })
    }

    /// Reads a root-owned file (`None` when it does not exist).
    pub async fn read_root_file(&self, path: &str) -> Result<Option<String>> {
        let out = self
            .sudo_status(
                &format!(
                    "if [ -e {p} ]; then cat {p}; else exit 3; fi",
                    p = quote(path)
                ),
                None,
            )
            .await?;
        match out.status {
            0 => Ok(Some(out.stdout)),
            3 => Ok(None),
            _ => self.checked(&format!("reading {path}"), out).map(|_| None),
        }
    }

    /// Writes `content` to root-owned `path` (mode `mode`, parents made) when it
    /// differs from what is there; whether it changed.
    pub async fn write_root_file(&self, path: &str, content: &[u8], mode: u32) -> Result<bool> {
        let dir = std::path::Path::new(path)
            .parent()
            .map(|d| d.display().to_string())
            .unwrap_or_else(|| "/".into());
        let script = format!(
            "set -e; t=$(mktemp); cat > \"$t\"; \
             if [ -f {p} ] && cmp -s \"$t\" {p}; then rm -f \"$t\"; echo unchanged; \
             else mkdir -p {d}; install -m {mode:o} \"$t\" {p}; rm -f \"$t\"; echo changed; fi",
            p = quote(path),
            d = quote(&dir),
        );
        let out = self
            .sudo(&format!("writing {path}"), &script, Some(content))
            .await?;
        Ok(out.stdout.trim_end().ends_with("changed")
            && !out.stdout.trim_end().ends_with("unchanged"))
    }

    /// Closes the connection.
    pub async fn close(self) {
        let _ = self
            .handle
            .disconnect(russh::Disconnect::ByApplication, "", "en")
            .await;
    }
}

enum Attempt {
    /// Worth retrying (the VM may still boot).
    Again(String),
    /// Retrying will not help.
    Fatal(Error),
}
