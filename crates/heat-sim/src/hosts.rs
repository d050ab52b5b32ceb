//! The simulated network and its hosts. Each simulator claims its own /24 in
//! 10.250.0.0/16 (a lock file per /24, so simulators running at once never collide),
//! a bridge with the gateway address, and makes every server a test host: a network
//! namespace with sshd (see `tests/infra/testhosts.sh`). Hosts mode `none` hands out
//! addresses without making hosts (machines without root; opt-in).

use std::collections::BTreeSet;
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::error::SimError;

/// The host script, carried in the binary.
const SCRIPT: &str = include_str!("../../../tests/infra/testhosts.sh");

/// Whether servers become real test hosts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostsMode {
    /// Network namespaces with sshd (needs root).
    Netns,
    /// Addresses only.
    None,
}

impl std::str::FromStr for HostsMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "netns" => Ok(Self::Netns),
            "none" => Ok(Self::None),
            other => Err(format!("hosts mode {other:?} is netns or none")),
        }
    }
}

/// How hosts are made.
#[derive(Debug, Clone)]
pub struct HostSettings {
    /// Real hosts or addresses only.
    pub mode: HostsMode,
    /// The login the image has (user, password).
    pub user: String,
    /// Its password.
    pub password: String,
    /// Executables put first on every host's PATH (e.g. a `docker` shim).
    pub shims: Option<PathBuf>,
}

#[derive(Debug, Default)]
struct Alloc {
    used: BTreeSet<u8>,
    /// The last address handed out: the next one comes after it, so a replaced server
    /// gets a new address rather than the one just freed.
    cursor: u8,
    seq: u32,
    hosts: BTreeSet<String>,
}

/// The claimed network and the hosts on it.
#[derive(Debug)]
pub struct Hosts {
    settings: HostSettings,
    net: u8,
    dir: PathBuf,
    script: PathBuf,
    alloc: Mutex<Alloc>,
    _lock: std::fs::File,
}

fn run(
    script: &Path,
    dir: &Path,
    settings: &HostSettings,
    args: &[&str],
) -> Result<String, String> {
    let mut cmd = std::process::Command::new(script);
    cmd.args(args)
        .env("TI_DIR", dir)
        .env("TI_USER", &settings.user)
        .env("TI_PASS", &settings.password);
    if let Some(s) = &settings.shims {
        cmd.env("TI_SHIMS", s);
    }
    let out = cmd
        .output()
        .map_err(|e| format!("running {}: {e}", script.display()))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "{} {} failed: {}",
            script.display(),
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

impl Hosts {
    /// Claims a free /24 (removing what an earlier simulator that died left on it) and,
    /// with real hosts, sets up its bridge.
    pub fn claim(settings: HostSettings) -> std::io::Result<Self> {
        let base = std::env::temp_dir().join("heat-sim");
        std::fs::create_dir_all(base.join("locks"))?;
        for net in 1..=254u8 {
            let lock = std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(base.join("locks").join(format!("{net}.lock")))?;
            if lock.try_lock().is_err() {
                continue;
            }
            let dir = base.join(net.to_string());
            std::fs::create_dir_all(&dir)?;
            let script = dir.join("testhosts.sh");
            std::fs::write(&script, SCRIPT)?;
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))?;
            }
            let me = Self {
                settings,
                net,
                dir,
                script,
                alloc: Mutex::new(Alloc::default()),
                _lock: lock,
            };
            if me.settings.mode == HostsMode::Netns {
                me.clean_stale();
                me.cmd(&["bridge-up", &me.bridge(), &format!("{}/24", me.gateway())])
                    .map_err(std::io::Error::other)?;
            }
            return Ok(me);
        }
        Err(std::io::Error::other(
            "every /24 of 10.250.0.0/16 is taken by another heat-sim",
        ))
    }

    fn cmd(&self, args: &[&str]) -> Result<String, String> {
        run(&self.script, &self.dir, &self.settings, args)
    }

    fn clean_stale(&self) {
        let prefix = format!("h{}-", self.net);
        if let Ok(list) = self.cmd(&["list", &prefix]) {
            for name in list.lines().filter(|l| !l.is_empty()) {
                tracing::warn!(
                    host = name,
                    "removing a host an earlier heat-sim left behind"
                );
                let _ = self.cmd(&["host-down", name]);
            }
        }
        let _ = self.cmd(&["bridge-down", &self.bridge()]);
    }

    fn bridge(&self) -> String {
        format!("hsbr{}", self.net)
    }

    /// The simulated network, e.g. `10.250.7.0/24`.
    pub fn cidr(&self) -> String {
        format!("10.250.{}.0/24", self.net)
    }

    /// The gateway address (the bridge's, in this machine's namespace).
    pub fn gateway(&self) -> Ipv4Addr {
        Ipv4Addr::new(10, 250, self.net, 1)
    }

    /// Whether servers are real hosts.
    pub fn mode(&self) -> HostsMode {
        self.settings.mode
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Alloc> {
        self.alloc
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Takes an address: `wanted` if it is free and in the network, else the next free.
    pub fn allocate(&self, wanted: Option<&str>) -> Result<Ipv4Addr, SimError> {
        let mut a = self.lock();
        let last = match wanted {
            Some(w) => {
                let ip: Ipv4Addr = w
                    .parse()
                    .map_err(|_| SimError::bad(format!("{w:?} is not an IPv4 address")))?;
                let [p, q, r, s] = ip.octets();
                if [p, q, r] != [10, 250, self.net] || !(10..=250).contains(&s) {
                    return Err(SimError::bad(format!(
                        "IP address {ip} is not in the simulated network {} (10..250)",
                        self.cidr()
                    )));
                }
                if a.used.contains(&s) {
                    return Err(SimError::conflict(format!("IP address {ip} is in use")));
                }
                s
            }
            None => {
                let start = a.cursor.clamp(9, 250);
                (start + 1..=250u8)
                    .chain(10..=start)
                    .find(|s| !a.used.contains(s))
                    .ok_or_else(|| SimError::conflict("no free address in the simulated network"))?
            }
        };
        a.used.insert(last);
        a.cursor = last;
        Ok(Ipv4Addr::new(10, 250, self.net, last))
    }

    /// Returns an address to the pool.
    pub fn release(&self, ip: Ipv4Addr) {
        let [_, _, _, s] = ip.octets();
        self.lock().used.remove(&s);
    }

    /// Makes a host called `hostname` with these addresses; its name in this machine
    /// (the namespace is `ti-<name>`). Blocks until sshd answers.
    pub fn up(&self, hostname: &str, addrs: &[Ipv4Addr]) -> Result<String, String> {
        let name = {
            let mut a = self.lock();
            a.seq += 1;
            let n = format!("h{}-{}", self.net, a.seq);
            a.hosts.insert(n.clone());
            n
        };
        if self.settings.mode == HostsMode::None {
            return Ok(name);
        }
        let clean: String = hostname
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '-'
                }
            })
            .take(63)
            .collect();
        let mut args = vec![
            "host-up".to_owned(),
            name.clone(),
            if clean.is_empty() {
                name.clone()
            } else {
                clean
            },
            self.bridge(),
        ];
        args.extend(addrs.iter().map(|a| format!("{a}/24")));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        match self.cmd(&refs) {
            Ok(_) => Ok(name),
            Err(e) => {
                self.lock().hosts.remove(&name);
                Err(e)
            }
        }
    }

    /// Adds an address (a floating IP) to a running host.
    pub fn add_address(&self, name: &str, ip: Ipv4Addr) -> Result<(), String> {
        if self.settings.mode == HostsMode::None {
            return Ok(());
        }
        self.cmd(&["addr-add", name, &format!("{ip}/24")])
            .map(|_| ())
    }

    /// Brings a host's link up or down (down: unreachable, as a VM stuck booting).
    pub fn set_link(&self, name: &str, up: bool) -> Result<(), String> {
        if self.settings.mode == HostsMode::None {
            return Ok(());
        }
        self.cmd(&["link", name, if up { "up" } else { "down" }])
            .map(|_| ())
    }

    /// Removes a host.
    pub fn down(&self, name: &str) {
        self.lock().hosts.remove(name);
        if self.settings.mode == HostsMode::Netns
            && let Err(e) = self.cmd(&["host-down", name])
        {
            tracing::warn!(host = name, error = %e, "removing a host failed");
        }
    }

    /// The host's PID 1 as seen from this machine (its files are under
    /// `/proc/<pid>/root`).
    pub fn init_pid(&self, name: &str) -> Option<u32> {
        std::fs::read_to_string(self.dir.join(format!("{name}.initpid")))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// Hosts running now.
    pub fn running(&self) -> Vec<String> {
        self.lock().hosts.iter().cloned().collect()
    }

    /// Removes every host and the bridge.
    pub fn shutdown(&self) {
        let names = self.running();
        for n in names {
            self.down(&n);
        }
        if self.settings.mode == HostsMode::Netns {
            let _ = self.cmd(&["bridge-down", &self.bridge()]);
        }
    }
}

impl Drop for Hosts {
    fn drop(&mut self) {
        self.shutdown();
    }
}
