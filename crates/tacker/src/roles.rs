//! Wiring each role from the configuration.

use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use tacker_conductor::Conductor;
use tacker_config::Config;
use tacker_db::Db;
use tacker_db::secrets::Keyring;
use tacker_rpc::{Bus, BusOptions};
use tacker_server::{Metrics, ServerState, Settings};
use tacker_storage::{PackageStore, S3Options};

use crate::cli::{Command, DbCommand, ImportCommand, SecretsCommand};
use crate::signals::shutdown_token;

pub async fn run(command: Command, cfg: Config) -> anyhow::Result<()> {
    match command {
        Command::Db {
            command: DbCommand::Migrate,
        } => migrate(&cfg).await,
        Command::Server => server(cfg).await,
        Command::Conductor => conductor(cfg).await,
        Command::AllInOne => all_in_one(cfg).await,
        Command::Secrets {
            command: SecretsCommand::Rotate,
        } => rotate(&cfg).await,
        Command::Import {
            command:
                ImportCommand::Tacker {
                    db,
                    vim_keys,
                    csar_dir,
                    dry_run,
                },
        } => crate::import::tacker(&cfg, &db, &vim_keys, &csar_dir, dry_run).await,
        Command::Config { .. }
        | Command::Import {
            command: ImportCommand::TackerConf { .. },
        }
        | Command::Csar { .. }
        | Command::Secrets { .. }
        | Command::Auth { .. } => Ok(()),
    }
}

pub(crate) fn open_db(cfg: &Config) -> anyhow::Result<Db> {
    Ok(Db::connect(
        &cfg.database.url,
        cfg.database.pool_size(),
        cfg.database.connect_timeout,
    )?)
}

async fn migrate(cfg: &Config) -> anyhow::Result<()> {
    let db = open_db(cfg)?;
    let applied = db.migrate().await.context("migrating the database")?;
    if applied.is_empty() {
        println!("database schema is current ({})", db.backend());
    }
    for m in applied {
        println!("applied {m}");
    }
    Ok(())
}

/// Waits (up to 60 s) for the database, then refuses to run on an old schema.
pub(crate) async fn ensure_schema(db: &Db) -> anyhow::Result<()> {
    let mut delay = Duration::from_millis(200);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        match db.pending_migrations().await {
            Ok(p) if p.is_empty() => return Ok(()),
            Ok(p) => bail!(
                "the database schema is not current (pending: {}); run `tacker db migrate` first",
                p.join(", ")
            ),
            Err(e) if tokio::time::Instant::now() < deadline => {
                tracing::warn!(error = %e, "database not reachable yet; retrying");
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(Duration::from_secs(5));
            }
            Err(e) => return Err(e).context("database unreachable"),
        }
    }
}

fn bus_options(cfg: &Config) -> BusOptions {
    BusOptions {
        url: cfg.bus.url.clone(),
        prefix: cfg.bus.prefix.clone(),
        publish_timeout: cfg.bus.publish_timeout,
        reconnect_max_backoff: cfg.bus.reconnect_max_backoff,
        queue_type: match cfg.bus.queue_type {
            tacker_config::QueueType::Quorum => tacker_rpc::QueueType::Quorum,
            tacker_config::QueueType::Classic => tacker_rpc::QueueType::Classic,
        },
    }
}

pub(crate) fn open_store(cfg: &Config) -> anyhow::Result<PackageStore> {
    let s = &cfg.storage;
    let s3 = S3Options {
        endpoint: s.s3_endpoint.clone(),
        region: s.s3_region.clone(),
        access_key_id: s.s3_access_key_id.clone(),
        secret_access_key: s.s3_secret_access_key.clone(),
        allow_http: s.s3_allow_http,
    };
    PackageStore::open(&s.url, &s3).context("opening package storage")
}

fn server_state(
    cfg: &Config,
    db: Db,
    bus: Bus,
    store: PackageStore,
    keys: Arc<Keyring>,
    all_in_one: bool,
) -> anyhow::Result<ServerState> {
    Ok(ServerState {
        auth: Arc::new(crate::auth::from_config(cfg, all_in_one)?),
        db,
        bus,
        store,
        settings: Settings {
            public_url: cfg.server.public_url.as_ref().map(|u| u.base().to_owned()),
            page_size: cfg.server.page_size,
            max_json_body: cfg.server.max_json_body,
            dead_after: cfg.conductor.dead_after,
            max_package_size: cfg.onboarding.max_package_size,
            progress_interval: (cfg.onboarding.stall_timeout / 4).max(Duration::from_millis(200)),
            refuse_duplicate_subscriptions: cfg.server.duplicate_subscriptions
                == tacker_config::DuplicateSubscriptions::SeeOther,
            mgmt: cfg.mgmt.drivers.clone(),
            simulated_vim: cfg.lcm.simulated_vim,
            helm: helm_binary(cfg)?.is_some(),
            max_filter_terms: cfg.server.max_filter_terms,
            max_instances_per_tenant: cfg.server.max_instances_per_tenant,
            max_subscriptions_per_tenant: cfg.server.max_subscriptions_per_tenant,
            body_idle_timeout: cfg.server.body_idle_timeout,
            client_request_timeout: cfg.server.client_request_timeout,
            keep_alive: cfg.server.keep_alive,
            tls: server_tls(cfg)?,
            outbound: cfg.outbound.allowed_networks.clone(),
            auto_heal_window: cfg.fm.auto_heal_window,
            auto_scale_window: cfg.fm.auto_scale_window,
            max_alerts_per_call: cfg.fm.max_alerts_per_call,
        },
        limits: Arc::new(tacker_server::limits::Limits::new(
            cfg.server.max_concurrent_uploads,
            cfg.server.upload_slot_wait,
            cfg.server.rate_limit,
            cfg.server.rate_burst,
        )),
        metrics: Arc::new(Metrics::new()?),
        notify: Arc::new(tacker_outbound::Client::new(
            cfg.lcm.http_timeout,
            tacker_outbound::Guard::new(cfg.outbound.allowed_networks.clone()),
        )?),
        keys,
    })
}

/// HTTPS on the API port from `server.tls_*`.
fn server_tls(cfg: &Config) -> anyhow::Result<Option<Arc<rustls::ServerConfig>>> {
    let s = &cfg.server;
    if s.tls_cert.is_empty() {
        return Ok(None);
    }
    let read = |f: &str, what: &str| {
        std::fs::read_to_string(f).with_context(|| format!("reading server.{what} {f}"))
    };
    let ca = match s.tls_client_ca.as_str() {
        "" => None,
        f => Some(read(f, "tls_client_ca")?),
    };
    Ok(Some(tacker_server::tls::server_config(
        &read(&s.tls_cert, "tls_cert")?,
        &read(&s.tls_key, "tls_key")?,
        ca.as_deref(),
    )?))
}

/// The helm binary for Helm VIMs: `helm.binary` must be runnable when set; unset,
/// `helm` from `PATH` when there is one (`None`: Helm VIMs are refused).
pub fn helm_binary(cfg: &Config) -> anyhow::Result<Option<std::path::PathBuf>> {
    match cfg.helm.binary.as_str() {
        "" => Ok(tacker_infra_k8s::helm::locate("helm")),
        b => tacker_infra_k8s::helm::locate(b).map(Some).ok_or_else(|| {
            anyhow::anyhow!(
                "helm.binary {b:?} is not an executable file (or a program in PATH): \
                 install Helm 3 there, or unset helm.binary to run without Helm VIMs"
            )
        }),
    }
}

fn lcm_settings(cfg: &Config, db: &Db) -> anyhow::Result<tacker_conductor::lcm::LcmSettings> {
    use tacker_conductor::lcm::{Drivers, LcmSettings, sim};
    let mut drivers = Drivers::default();
    let k8s_settings = tacker_infra_k8s::K8sSettings::from_config(cfg);
    if let Some(helm) = helm_binary(cfg)? {
        drivers.infra.insert(
            tacker_infra_k8s::helm::HELM.to_owned(),
            Arc::new(tacker_infra_k8s::HelmDriver::new(
                k8s_settings.clone(),
                helm,
            )),
        );
    }
    let kubernetes = Arc::new(tacker_infra_k8s::KubernetesDriver::new(k8s_settings));
    drivers
        .infra
        .insert(tacker_conductor::lcm::KUBERNETES.to_owned(), kubernetes);
    let openstack = Arc::new(
        tacker_infra_openstack::OpenStackDriver::new(
            tacker_infra_openstack::OpenStackSettings::from_config(&cfg.openstack),
        )
        .with_allowed_networks(cfg.outbound.allowed_networks.clone()),
    );
    drivers
        .infra
        .insert(tacker_infra_openstack::OPENSTACK.to_owned(), openstack);
    drivers.mgmt.extend(tacker_mgmt::drivers(
        &cfg.mgmt.drivers,
        tacker_mgmt::MgmtSettings::from_config(cfg),
        &plugin_settings(cfg)?,
    )?);
    if cfg.lcm.simulated_vim {
        let simulated = Arc::new(sim::SimDriver::with_db(db.clone()));
        drivers
            .infra
            .insert(sim::SIM_VIM.to_owned(), simulated.clone());
        drivers
            .mgmt
            .insert(tacker_domain::mgmt::DriverName::Sim, simulated);
    }
    Ok(LcmSettings::from_config(cfg, drivers)?)
}

fn plugin_settings(cfg: &Config) -> anyhow::Result<tacker_mgmt::PluginSettings> {
    let ca_pem = match cfg.mgmt.plugin_ca_file.as_str() {
        "" => None,
        f => Some(
            std::fs::read_to_string(f)
                .with_context(|| format!("reading mgmt.plugin_ca_file {f}"))?,
        ),
    };
    Ok(tacker_mgmt::PluginSettings {
        timeout: cfg.mgmt.plugin_timeout,
        ca_pem,
        public_url: cfg.public_base_url(),
    })
}

fn bind(addr: &std::net::SocketAddr, what: &str) -> anyhow::Result<TcpListener> {
    let l = TcpListener::bind(addr).with_context(|| format!("binding {what} to {addr}"))?;
    tracing::info!(address = %l.local_addr()?, "{what} listening");
    Ok(l)
}

async fn server(cfg: Config) -> anyhow::Result<()> {
    let shutdown = shutdown_token()?;
    if cfg.bus.url == "memory://" {
        tracing::warn!("bus.url is memory://: no conductor outside this process will get work");
    }
    let db = open_db(&cfg)?;
    ensure_schema(&db).await?;
    let keys = checked_keyring(&cfg, &db, false).await?;
    let sender = format!("server-{}", &uuid_suffix());
    let bus = Bus::connect(&bus_options(&cfg), sender).await?;
    let store = open_store(&cfg)?;
    let listener = bind(&cfg.server.bind, "API server")?;
    tacker_server::run(
        listener,
        server_state(&cfg, db, bus, store, keys, false)?,
        shutdown,
    )
    .await?;
    Ok(())
}

fn conductor_settings(
    cfg: &Config,
    id: String,
    health: Option<TcpListener>,
    keys: Arc<Keyring>,
    db: &Db,
) -> anyhow::Result<tacker_conductor::Settings> {
    Ok(tacker_conductor::Settings::from_config(
        cfg,
        id,
        health,
        lcm_settings(cfg, db)?,
        keys,
    )?)
}

/// The keyring, checked against what the database holds: a secret sealed with a key
/// that is not configured stops the start.
async fn checked_keyring(cfg: &Config, db: &Db, all_in_one: bool) -> anyhow::Result<Arc<Keyring>> {
    let keys = Arc::new(crate::secrets::keyring(cfg, all_in_one)?);
    let k = keys.clone();
    db.run(move |c| {
        tacker_db::vims::list(c, None, &k)?;
        tacker_db::instances::open_sealed(c, &k)?;
        tacker_db::sealed::open_all(c, &k).map(|_| ())
    })
    .await
    .context("opening the secrets stored in the database with the configured keys")?;
    Ok(keys)
}

async fn rotate(cfg: &Config) -> anyhow::Result<()> {
    let db = open_db(cfg)?;
    ensure_schema(&db).await?;
    let keys = checked_keyring(cfg, &db, false).await?;
    let current = keys.current().unwrap_or("none").to_owned();
    let (n, p) = db
        .run(move |c| {
            Ok::<_, tacker_db::Error>((
                tacker_db::vims::reseal(c, &keys)?,
                tacker_db::instances::reseal(c, &keys)? + tacker_db::sealed::reseal_all(c, &keys)?,
            ))
        })
        .await?;
    println!("re-sealed {n} VIM credential(s) and {p} row(s) of other secrets with key {current}");
    Ok(())
}

async fn conductor(cfg: Config) -> anyhow::Result<()> {
    let shutdown = shutdown_token()?;
    let id = cfg.conductor_id();
    let db = open_db(&cfg)?;
    ensure_schema(&db).await?;
    let keys = checked_keyring(&cfg, &db, false).await?;
    let bus = Bus::connect(&bus_options(&cfg), id.clone()).await?;
    let store = open_store(&cfg)?;
    let health = bind(&cfg.conductor.health_bind, "conductor health")?;
    let settings = conductor_settings(&cfg, id, Some(health), keys, &db)?;
    let c = Conductor::start(settings, db, bus, store).await?;
    shutdown.cancelled().await;
    c.shutdown().await;
    Ok(())
}

async fn all_in_one(mut cfg: Config) -> anyhow::Result<()> {
    let shutdown = shutdown_token()?;
    // Its only user is on this machine: callbacks to it are no forgery.
    if cfg.auth.mode == tacker_config::AuthMode::None {
        cfg.outbound.allowed_networks.extend([
            "127.0.0.0/8".parse::<tacker_config::IpNet>()?,
            "::1/128".parse()?,
        ]);
    }
    // Its data (database, packages, caches, keys) is its user's alone.
    if let Some(path) = cfg
        .database
        .url
        .strip_prefix("sqlite://")
        .filter(|p| !p.is_empty() && *p != ":memory:")
    {
        crate::private_file::private_sqlite(std::path::Path::new(path))?;
    }
    for dir in [
        cfg.storage.url.strip_prefix("file://"),
        Some(cfg.conductor.cache_dir.as_str()),
    ]
    .into_iter()
    .flatten()
    .filter(|d| !d.is_empty())
    {
        crate::private_file::private_dir(std::path::Path::new(dir))?;
    }
    let db = open_db(&cfg)?;
    let applied = db.migrate().await.context("migrating the database")?;
    if !applied.is_empty() {
        tracing::info!(?applied, "database migrated");
    }
    let store = open_store(&cfg)?;
    let keys = checked_keyring(&cfg, &db, true).await?;
    let base = if cfg.conductor.id.is_empty() {
        format!("{}-aio", tacker_config::hostname())
    } else {
        cfg.conductor.id.clone()
    };
    let mut conductors = Vec::new();
    for n in 1..=cfg.all_in_one.conductors {
        let id = format!("{base}-{n}");
        let bus = Bus::connect(&bus_options(&cfg), id.clone()).await?;
        let settings = conductor_settings(&cfg, id, None, keys.clone(), &db)?;
        conductors.push(Conductor::start(settings, db.clone(), bus, store.clone()).await?);
    }
    let bus = Bus::connect(&bus_options(&cfg), format!("server-{}", uuid_suffix())).await?;
    let listener = bind(&cfg.server.bind, "API server")?;
    let state = server_state(&cfg, db, bus, store, keys, true)?;
    // One /metrics, on the API port, carries the conductors' metrics too.
    for c in &conductors {
        state.metrics.add_source(Box::new(c.metric_source()));
    }
    tacker_server::run(listener, state, shutdown).await?;
    for c in conductors {
        c.shutdown().await;
    }
    Ok(())
}

fn uuid_suffix() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..6].to_owned()
}
