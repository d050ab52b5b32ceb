//! What a conductor works with (its context, shared by its handlers and background
//! passes) and its settings, read from the configuration.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tacker_config::Config;
use tacker_db::Db;
use tacker_db::secrets::Keyring;
use tacker_rpc::Bus;
use tacker_storage::{CsarCache, PackageStore};

use crate::cache::Fill;
use crate::lcm::LcmSettings;
use crate::{Error, Metrics, Result};

/// How a conductor runs.
#[derive(Debug)]
pub struct Settings {
    /// Its id (stable per StatefulSet replica).
    pub id: String,
    /// The host it runs on.
    pub host: String,
    /// Its CSAR cache.
    pub cache_dir: std::path::PathBuf,
    /// Heartbeat period.
    pub heartbeat_interval: Duration,
    /// Heartbeat age after which a conductor is not live.
    pub dead_after: Duration,
    /// Requests handled at once.
    pub prefetch: u16,
    /// Grace period for in-flight work on shutdown.
    pub shutdown_timeout: Duration,
    /// Where `/healthz`, `/readyz`, `/metrics` listen; `None` for in-process conductors.
    pub health_listener: Option<std::net::TcpListener>,
    /// Onboarding settings.
    pub onboarding: OnboardingSettings,
    /// Lifecycle management settings and drivers.
    pub lcm: LcmSettings,
    /// Keys opening secrets at rest (registered VIMs' credentials).
    pub keys: Arc<Keyring>,
    /// Fault management and the closed loop (`[fm]`).
    pub fm: tacker_config::FmConfig,
    /// PM rules' delivery and PromQL (`[pm]`).
    pub pm: crate::pm::PmSettings,
}

impl Settings {
    /// Conductor `id` as `cfg` says, with `lcm` (its drivers wired by the caller) and
    /// the keyring.
    pub fn from_config(
        cfg: &Config,
        id: String,
        health_listener: Option<std::net::TcpListener>,
        lcm: LcmSettings,
        keys: Arc<Keyring>,
    ) -> Result<Self> {
        let c = &cfg.conductor;
        Ok(Self {
            cache_dir: cfg.cache_dir(&id),
            id,
            host: tacker_config::hostname(),
            heartbeat_interval: c.heartbeat_interval,
            dead_after: c.dead_after,
            prefetch: cfg.bus.prefetch,
            shutdown_timeout: c.shutdown_timeout,
            health_listener,
            onboarding: OnboardingSettings::try_from(&cfg.onboarding)?,
            lcm,
            keys,
            fm: cfg.fm.clone(),
            pm: crate::pm::PmSettings::from_config(cfg)?,
        })
    }
}

/// How packages are onboarded (the `[onboarding]` section).
#[derive(Debug, Clone)]
pub struct OnboardingSettings {
    /// Largest package in bytes.
    pub max_package_size: u64,
    /// Deadline for every conductor to cache a package.
    pub download_timeout: Duration,
    /// upload_from_uri connect timeout.
    pub uri_connect_timeout: Duration,
    /// upload_from_uri whole-transfer timeout.
    pub uri_timeout: Duration,
    /// Internal networks upload_from_uri may reach.
    pub allowed_uri_networks: Vec<ipnet::IpNet>,
    /// No-progress time after which an UPLOADING package fails.
    pub stall_timeout: Duration,
    /// Period of the recovery sweep.
    pub recovery_interval: Duration,
    /// What a package may make a conductor read and write (expanded size, ratios).
    pub limits: tacker_csar::Limits,
}

impl TryFrom<&tacker_config::OnboardingConfig> for OnboardingSettings {
    type Error = Error;

    fn try_from(o: &tacker_config::OnboardingConfig) -> Result<Self> {
        Ok(Self {
            max_package_size: o.max_package_size,
            download_timeout: o.download_timeout,
            uri_connect_timeout: o.uri_connect_timeout,
            uri_timeout: o.uri_timeout,
            allowed_uri_networks: o.allowed_uri_networks.clone(),
            stall_timeout: o.stall_timeout,
            recovery_interval: o.recovery_interval,
            limits: tacker_csar::Limits {
                max_total_size: o.max_expanded_size,
                max_expansion_ratio: o.max_expansion_ratio,
                ..tacker_csar::Limits::default()
            },
        })
    }
}

/// What a conductor works with; shared by its handlers.
#[derive(Debug)]
pub struct Ctx {
    /// Its id.
    pub id: String,
    /// This incarnation (a fresh id at every start): what it takes records it.
    pub incarnation: String,
    /// The database.
    pub db: Db,
    /// The bus, as this conductor.
    pub bus: Bus,
    /// Package storage.
    pub store: PackageStore,
    /// Its CSAR cache.
    pub cache: CsarCache,
    /// Heartbeat age after which a conductor is not live.
    pub dead_after: Duration,
    /// Onboarding settings.
    pub onboarding: OnboardingSettings,
    /// Lifecycle management settings and drivers.
    pub lcm: LcmSettings,
    /// Fault management and the closed loop.
    pub fm: tacker_config::FmConfig,
    /// PM rules' delivery and PromQL.
    pub pm: crate::pm::PmSettings,
    /// Keys opening secrets at rest.
    pub keys: Arc<Keyring>,
    /// Outbound HTTP towards subscribers and the NFVO.
    pub notify: tacker_outbound::Client,
    /// Metrics.
    pub metrics: Arc<Metrics>,
    ready: AtomicBool,
    /// When this conductor last got its heartbeat through after failing to (a database
    /// outage): until `dead_after` has passed since, the others' heartbeats may be old
    /// for the same reason, so nobody is declared lost.
    recovered_at: std::sync::Mutex<Option<std::time::Instant>>,
    heartbeat_failing: AtomicBool,
    /// Cache fills in flight, by package id (shared by everyone who needs that package).
    pub(crate) fills: std::sync::Mutex<std::collections::HashMap<String, Fill>>,
    /// Operations this conductor cast again because nobody took them, and when.
    pub(crate) recast: std::sync::Mutex<std::collections::HashMap<uuid::Uuid, std::time::Instant>>,
}

impl Ctx {
    /// The context of a conductor about to start (not READY).
    pub(crate) fn new(settings: &Settings, db: Db, bus: Bus, store: PackageStore) -> Result<Self> {
        Ok(Self {
            id: settings.id.clone(),
            incarnation: uuid::Uuid::new_v4().to_string(),
            db,
            bus,
            store,
            cache: CsarCache::open(&settings.cache_dir)?,
            dead_after: settings.dead_after,
            onboarding: settings.onboarding.clone(),
            fm: settings.fm.clone(),
            pm: settings.pm.clone(),
            notify: tacker_outbound::Client::new(
                settings.lcm.http_timeout,
                tacker_outbound::Guard::new(settings.lcm.outbound.clone()),
            )
            .map_err(|e| Error::Config(format!("http client: {e}")))?,
            lcm: settings.lcm.clone(),
            keys: settings.keys.clone(),
            metrics: Arc::new(Metrics::new()?),
            ready: AtomicBool::new(false),
            recovered_at: std::sync::Mutex::new(None),
            heartbeat_failing: AtomicBool::new(false),
            fills: Default::default(),
            recast: Default::default(),
        })
    }

    /// Whether the conductor is READY.
    pub fn is_ready(&self) -> bool {
        self.ready.load(Ordering::SeqCst)
    }

    /// Records how this conductor's heartbeat went.
    pub(crate) fn heartbeat_result(&self, ok: bool) {
        if !ok {
            self.heartbeat_failing.store(true, Ordering::SeqCst);
        } else if self.heartbeat_failing.swap(false, Ordering::SeqCst)
            && let Ok(mut r) = self.recovered_at.lock()
        {
            *r = Some(std::time::Instant::now());
        }
    }

    /// Whether this conductor may judge others by their heartbeats now: its own get
    /// through, and for `dead_after` since an outage ended.
    pub fn may_judge_liveness(&self) -> bool {
        if self.heartbeat_failing.load(Ordering::SeqCst) {
            return false;
        }
        self.recovered_at
            .lock()
            .map(|r| r.is_none_or(|t| t.elapsed() > self.dead_after))
            .unwrap_or(true)
    }

    /// Records whether the conductor is READY.
    pub(crate) fn set_ready(&self, ready: bool) {
        self.ready.store(ready, Ordering::SeqCst);
        self.metrics.set_ready(ready);
    }
}
