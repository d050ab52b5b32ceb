//! The `[ssh]` and `[mgmt]` settings the drivers work with.

use std::time::Duration;

/// How the drivers reach VMs.
#[derive(Debug, Clone)]
pub struct SshSettings {
    /// One connection attempt.
    pub connect_timeout: Duration,
    /// How long an unreachable VM is retried (it may still be booting).
    pub boot_timeout: Duration,
    /// Longest one remote command may take.
    pub command_timeout: Duration,
    /// Nodes configured at once.
    pub max_parallel: usize,
    /// Accept a changed host key of a VNFC that was not just created or healed.
    pub accept_changed_host_keys: bool,
}

impl SshSettings {
    /// The settings of `[ssh]`.
    pub fn from_config(s: &tacker_config::SshConfig) -> Self {
        Self {
            connect_timeout: s.connect_timeout,
            boot_timeout: s.boot_timeout,
            command_timeout: s.command_timeout,
            max_parallel: s.max_parallel,
            accept_changed_host_keys: s.accept_changed_host_keys,
        }
    }
}

/// What the built-in drivers are configured with.
#[derive(Debug, Clone)]
pub struct MgmtSettings {
    /// SSH.
    pub ssh: SshSettings,
    /// Commands installing Docker, by `/etc/os-release` ID (`ubuntu` is the fallback).
    pub docker_install: Vec<(String, String)>,
    /// The registry's data directory on the private-registry VM.
    pub registry_data_dir: String,
}

impl MgmtSettings {
    /// The settings of `[ssh]` and `[mgmt]`.
    pub fn from_config(cfg: &tacker_config::Config) -> Self {
        Self {
            ssh: SshSettings::from_config(&cfg.ssh),
            docker_install: cfg
                .mgmt
                .docker_install
                .iter()
                .map(|e| (e.name.clone(), e.value.clone()))
                .collect(),
            registry_data_dir: cfg.mgmt.registry_data_dir.clone(),
        }
    }

    /// The command installing Docker on distribution `id`.
    pub fn docker_install_for(&self, id: &str) -> Option<&str> {
        let find = |k: &str| {
            self.docker_install
                .iter()
                .find(|(d, _)| d == k)
                .map(|(_, c)| c.as_str())
        };
        find(id).or_else(|| find("ubuntu"))
    }
}
