use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tacker_db::Db;
use tacker_db::secrets::Keyring;
use tacker_domain::package::{OnboardingState, OperationalState, UsageState, VnfPackage};
use tacker_rpc::{Bus, BusOptions};
use tacker_server::{Metrics, ServerState, Settings};
use tacker_testkit::TestDb;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// A server on 127.0.0.1:0 over a fresh database, with in-process conductors when asked.
pub struct TestApp {
    pub base: String,
    pub db: Db,
    pub http: reqwest::Client,
    pub store: tacker_storage::PackageStore,
    pub conductors: Vec<tacker_conductor::Conductor>,
    pub dir: tempfile::TempDir,
    stop: CancellationToken,
    _tdb: TestDb,
    _moto: Option<tacker_testkit::moto::Moto>,
    prefix: String,
    opts: Options,
    pub keys: Arc<Keyring>,
}

/// The simulated VIM for infra, and for the test package's `Scripts/mgmt.py` hooks.
pub fn sim() -> Arc<tacker_conductor::lcm::sim::SimDriver> {
    static SIM: std::sync::OnceLock<Arc<tacker_conductor::lcm::sim::SimDriver>> =
        std::sync::OnceLock::new();
    SIM.get_or_init(Default::default).clone()
}

/// The test package's hooks run on the simulated VIM's driver.
pub const MGMT_DRIVERS: [&str; 2] = ["Scripts/mgmt.py=sim", "Scripts/sample_script.py=noop"];

/// A kube-sim over plain HTTP that takes bearer token `token`: the cluster behind the
/// Kubernetes VIMs these tests register (registration checks the credentials).
pub fn kube_sim(token: &str) -> kube_sim::Handle {
    kube_sim::spawn(kube_sim::Settings {
        token: Some(token.to_owned()),
        ..Default::default()
    })
    .unwrap()
}

/// The built-in token endpoint's limits of `defaults.toml`.
pub fn token_limits() -> tacker_server::auth::TokenLimits {
    let a = tacker_config::Config::defaults().unwrap().auth;
    tacker_server::auth::TokenLimits::new(
        a.token_concurrency,
        a.token_rate_limit,
        a.token_rate_burst,
    )
}

/// The configuration these tests run with: the defaults, with short timeouts.
fn config(opts: &Options, base: &str) -> tacker_config::Config {
    let mut cfg = tacker_config::Config::defaults().unwrap();
    cfg.server.public_url = Some(base.parse().unwrap());
    cfg.outbound.allowed_networks = vec!["127.0.0.1/32".parse().unwrap()];
    // Kubernetes VIMs of these tests are kube-sims over plain HTTP (`kube_sim()`).
    cfg.kubernetes.allow_http = true;
    cfg.conductor.heartbeat_interval = Duration::from_millis(200);
    cfg.conductor.dead_after = Duration::from_secs(2);
    cfg.conductor.shutdown_timeout = Duration::from_secs(10);
    let o = &mut cfg.onboarding;
    o.max_package_size = opts.max_package_size;
    o.download_timeout = opts.download_timeout;
    o.allowed_uri_networks = opts
        .allowed_uri_networks
        .iter()
        .map(|n| n.parse().unwrap())
        .collect();
    o.stall_timeout = Duration::from_secs(3);
    o.recovery_interval = Duration::from_millis(300);
    let l = &mut cfg.lcm;
    l.nfvo_grant_url = opts.nfvo_grant_url.as_deref().map(|u| u.parse().unwrap());
    l.grant_timeout = Duration::from_secs(5);
    l.notification_max_backoff = Duration::from_millis(500);
    l.notification_retention = opts.notification_retention;
    l.op_retention = opts.op_retention;
    l.notification_max_age = opts.notification_max_age;
    l.sync_interval = Duration::ZERO;
    cfg.fm.auto_heal_window = opts.auto_heal_window;
    cfg.fm.auto_scale_window = Duration::from_millis(100);
    cfg.fm.cooldown = opts.cooldown;
    cfg.fm.loop_interval = opts.loop_interval;
    cfg.pm.rules_dir = opts
        .pm_rules_dir
        .as_ref()
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    cfg.mgmt.drivers = tacker_domain::mgmt::Mapping::parse(
        &opts
            .conductor_mgmt
            .clone()
            .unwrap_or(MGMT_DRIVERS.to_vec())
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>(),
    )
    .unwrap();
    cfg
}

/// What every conductor of a test cluster shares.
struct Shared<'a> {
    db: &'a Db,
    prefix: &'a str,
    store: &'a tacker_storage::PackageStore,
    dir: &'a std::path::Path,
    opts: &'a Options,
    base: &'a str,
    keys: &'a Arc<Keyring>,
}

async fn start_conductor(sh: &Shared<'_>, n: usize) -> tacker_conductor::Conductor {
    let Shared {
        db,
        prefix,
        store,
        dir,
        opts,
        base,
        keys,
    } = *sh;
    use tacker_conductor::lcm::{Drivers, LcmSettings, sim::SIM_VIM};
    let id = format!("c{n}");
    let mut cfg = config(opts, base);
    cfg.conductor.cache_dir = dir.join("cache").join(&id).display().to_string();
    let mut drivers = Drivers::default();
    drivers.infra.insert(SIM_VIM.to_owned(), sim());
    if opts.kubernetes {
        drivers.infra.insert(
            tacker_conductor::lcm::KUBERNETES.to_owned(),
            Arc::new(tacker_infra_k8s::KubernetesDriver::new(
                tacker_infra_k8s::K8sSettings::from_config(&cfg),
            )),
        );
    }
    drivers
        .mgmt
        .insert(tacker_domain::mgmt::DriverName::Sim, sim());
    let lcm = LcmSettings::from_config(&cfg, drivers).unwrap();
    let mut settings =
        tacker_conductor::Settings::from_config(&cfg, id.clone(), None, lcm, keys.clone()).unwrap();
    settings.host = "test".into();
    let cbus = Bus::connect(&BusOptions::new("memory://", prefix.to_owned()), id)
        .await
        .unwrap();
    tacker_conductor::Conductor::start(settings, db.clone(), cbus, store.clone())
        .await
        .unwrap()
}

/// How a test cluster is set up.
#[derive(Debug, Clone)]
pub struct Options {
    pub page_size: usize,
    pub conductors: usize,
    pub max_package_size: u64,
    pub allowed_uri_networks: Vec<&'static str>,
    pub download_timeout: Duration,
    /// Package storage on S3 (moto) instead of the local filesystem.
    pub s3: bool,
    /// External NFVO Grant API base (None: built-in NFVO).
    pub nfvo_grant_url: Option<String>,
    /// Duplicate package subscriptions answered 303.
    pub refuse_duplicate_subscriptions: bool,
    /// `fm.auto_heal_window`.
    pub auto_heal_window: Duration,
    /// `fm.cooldown`.
    pub cooldown: Duration,
    /// `fm.loop_interval`.
    pub loop_interval: Duration,
    /// `pm.rules_dir`.
    pub pm_rules_dir: Option<std::path::PathBuf>,
    /// `lcm.simulated_vim` at the API (the conductors always have the simulated VIM).
    pub simulated_vim: bool,
    /// `lcm.notification_retention` of the conductors.
    pub notification_retention: Duration,
    /// `lcm.op_retention` of the conductors.
    pub op_retention: Duration,
    /// `lcm.notification_max_age` of the conductors.
    pub notification_max_age: Duration,
    /// `[mgmt] drivers` of the API server.
    pub server_mgmt: Vec<&'static str>,
    /// `[mgmt] drivers` of the conductors, when other than the server's.
    pub conductor_mgmt: Option<Vec<&'static str>>,
    /// The server's authentication (None: mode `none`).
    pub auth: Option<Arc<tacker_server::auth::Auth>>,
    /// A bearer token `http` sends with every request.
    pub token: Option<String>,
    /// `server.max_concurrent_uploads`, `rate_limit`, `rate_burst`, `body_idle_timeout`.
    pub uploads: usize,
    /// `server.upload_slot_wait`.
    pub upload_slot_wait: Duration,
    pub rate: (u32, u32),
    pub body_idle_timeout: Duration,
    /// HTTPS on the API port (the base URL is then https).
    pub tls: Option<Arc<rustls::ServerConfig>>,
    /// `server.max_instances_per_tenant`, `max_subscriptions_per_tenant` (0: unlimited).
    pub quotas: (u64, u64),
    /// The conductors run the Kubernetes driver (registering a Kubernetes VIM has it
    /// check the credentials); else they drive the simulated VIM only.
    pub kubernetes: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            page_size: 100,
            conductors: 0,
            max_package_size: 1024 * 1024,
            allowed_uri_networks: vec!["127.0.0.1/32"],
            download_timeout: Duration::from_secs(10),
            s3: false,
            nfvo_grant_url: None,
            refuse_duplicate_subscriptions: true,
            auto_heal_window: Duration::from_millis(300),
            cooldown: Duration::from_millis(500),
            loop_interval: Duration::from_millis(100),
            pm_rules_dir: None,
            simulated_vim: true,
            notification_retention: Duration::from_secs(7 * 24 * 3600),
            op_retention: Duration::ZERO,
            notification_max_age: Duration::from_secs(7 * 24 * 3600),
            server_mgmt: MGMT_DRIVERS.to_vec(),
            conductor_mgmt: None,
            auth: None,
            token: None,
            uploads: 64,
            upload_slot_wait: Duration::from_secs(2),
            rate: (0, 100),
            body_idle_timeout: Duration::from_secs(30),
            tls: None,
            quotas: (0, 0),
            kubernetes: false,
        }
    }
}

/// An HTTP client sending `token` as a bearer token, if given.
fn client(token: Option<&str>) -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    if let Some(t) = token {
        headers.insert(
            reqwest::header::AUTHORIZATION,
            format!("Bearer {t}").parse().unwrap(),
        );
    }
    reqwest::Client::builder()
        .default_headers(headers)
        .build()
        .unwrap()
}

impl Drop for TestApp {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl TestApp {
    pub async fn start(tdb: TestDb) -> Self {
        Self::with_page_size(tdb, 100).await
    }

    pub async fn with_page_size(tdb: TestDb, page_size: usize) -> Self {
        Self::with(
            tdb,
            Options {
                page_size,
                ..Options::default()
            },
        )
        .await
    }

    /// A server and `opts.conductors` in-process conductors on the in-process bus.
    pub async fn with(tdb: TestDb, opts: Options) -> Self {
        let db = Db::connect(&tdb.url, 8, Duration::from_secs(5)).unwrap();
        let prefix = tacker_testkit::unique_prefix();
        let bus = Bus::connect(&BusOptions::new("memory://", prefix.clone()), "server")
            .await
            .unwrap();
        let dir = tacker_testkit::temp_dir();
        let moto = opts.s3.then(tacker_testkit::moto::Moto::start);
        let store = match &moto {
            Some(m) => {
                m.create_bucket("packages");
                let o = tacker_storage::S3Options {
                    endpoint: m.endpoint.clone(),
                    region: "us-east-1".into(),
                    access_key_id: "testing".into(),
                    secret_access_key: "testing".into(),
                    allow_http: true,
                };
                tacker_storage::PackageStore::open("s3://packages/tacker", &o).unwrap()
            }
            None => tacker_storage::PackageStore::from_url(&format!(
                "file://{}/store",
                dir.path().display()
            ))
            .unwrap(),
        };
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let scheme = if opts.tls.is_some() { "https" } else { "http" };
        let base = format!("{scheme}://{}", listener.local_addr().unwrap());
        let keys = Arc::new(Keyring::parse(&[Keyring::generate("t1").unwrap()]).unwrap());
        let mut conductors = Vec::new();
        for n in 1..=opts.conductors {
            let sh = Shared {
                db: &db,
                prefix: &prefix,
                store: &store,
                dir: dir.path(),
                opts: &opts,
                base: &base,
                keys: &keys,
            };
            let c = start_conductor(&sh, n).await;
            assert!(c.wait_ready(Duration::from_secs(10)).await);
            conductors.push(c);
        }
        let state = ServerState {
            db: db.clone(),
            bus,
            store: store.clone(),
            settings: Settings {
                public_url: None,
                page_size: opts.page_size,
                max_json_body: 64 * 1024,
                dead_after: Duration::from_secs(2),
                max_package_size: opts.max_package_size,
                progress_interval: Duration::from_millis(500),
                refuse_duplicate_subscriptions: opts.refuse_duplicate_subscriptions,
                mgmt: tacker_domain::mgmt::Mapping::parse(
                    &opts
                        .server_mgmt
                        .iter()
                        .map(|d| d.to_string())
                        .collect::<Vec<_>>(),
                )
                .unwrap(),
                simulated_vim: opts.simulated_vim,
                helm: false,
                max_filter_terms: 50,
                max_instances_per_tenant: opts.quotas.0,
                max_subscriptions_per_tenant: opts.quotas.1,
                body_idle_timeout: opts.body_idle_timeout,
                client_request_timeout: Duration::from_secs(5),
                keep_alive: Duration::from_secs(30),
                tls: opts.tls.clone(),
                outbound: vec!["127.0.0.1/32".parse().unwrap()],
                auto_heal_window: opts.auto_heal_window,
                auto_scale_window: Duration::from_millis(100),
                max_alerts_per_call: 1000,
            },
            limits: Arc::new(tacker_server::limits::Limits::new(
                opts.uploads,
                opts.upload_slot_wait,
                opts.rate.0,
                opts.rate.1,
            )),
            metrics: Arc::new(Metrics::new().unwrap()),
            notify: Arc::new(
                tacker_outbound::Client::new(
                    Duration::from_secs(5),
                    tacker_outbound::Guard::new(vec!["127.0.0.1/32".parse().unwrap()]),
                )
                .unwrap(),
            ),
            keys: keys.clone(),
            auth: opts
                .auth
                .clone()
                .unwrap_or_else(|| Arc::new(tacker_server::auth::Auth::none(None))),
        };
        let stop = CancellationToken::new();
        tokio::spawn(tacker_server::run(listener, state, stop.clone()));
        Self {
            base,
            db,
            http: client(opts.token.as_deref()),
            store,
            conductors,
            dir,
            stop,
            _tdb: tdb,
            _moto: moto,
            prefix,
            opts,
            keys,
        }
    }

    /// Starts conductor `n` now (it syncs, then turns READY in the background).
    pub async fn add_conductor(&mut self, n: usize) -> usize {
        let sh = Shared {
            db: &self.db,
            prefix: &self.prefix,
            store: &self.store,
            dir: self.dir.path(),
            opts: &self.opts,
            base: &self.base,
            keys: &self.keys,
        };
        let c = start_conductor(&sh, n).await;
        self.conductors.push(c);
        self.conductors.len() - 1
    }

    /// The cache directory of conductor `n` (1-based).
    pub fn cache_dir(&self, n: usize) -> std::path::PathBuf {
        self.dir.path().join("cache").join(format!("c{n}"))
    }

    /// Drops the database under the running server.
    pub fn drop_database(&self) {
        self._tdb.drop_now();
    }

    /// Both backends.
    pub async fn each() -> Vec<TestApp> {
        vec![
            Self::start(TestDb::postgres()).await,
            Self::start(TestDb::sqlite()).await,
        ]
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub async fn create(&self, body: Value) -> Value {
        let r = self
            .http
            .post(self.url("/vnfpkgm/v1/vnf_packages"))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
        r.json().await.unwrap()
    }

    /// Inserts a package as onboarding would leave it (there is no upload in this suite).
    pub async fn insert_onboarded(&self, op: OperationalState, usage: UsageState) -> Uuid {
        let mut p = VnfPackage::new(Uuid::new_v4(), Default::default(), chrono::Utc::now());
        p.onboarding_state = OnboardingState::Onboarded;
        p.operational_state = op;
        p.usage_state = usage;
        let id = p.id;
        self.db.packages().insert(&p).await.unwrap();
        id
    }
}

/// Asserts a ProblemDetails answer with `status` whose detail contains `needle`.
pub async fn assert_problem(r: reqwest::Response, status: u16, needle: &str) {
    assert_eq!(r.status().as_u16(), status, "status");
    let ct = r.headers()["content-type"].to_str().unwrap().to_owned();
    assert_eq!(ct, "application/problem+json");
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["status"], status);
    let detail = body["detail"].as_str().unwrap();
    assert!(detail.contains(needle), "{detail:?} lacks {needle:?}");
}

impl TestApp {
    /// Creates a package and PUTs `zip` as its content; returns the id and the status.
    pub async fn upload(&self, zip: Vec<u8>) -> (String, u16) {
        let id = self.create(serde_json::json!({})).await["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let status = self.put_content(&id, zip).await;
        (id, status)
    }

    pub async fn put_content(&self, id: &str, zip: Vec<u8>) -> u16 {
        self.http
            .put(self.url(&format!("/vnfpkgm/v1/vnf_packages/{id}/package_content")))
            .header("content-type", "application/zip")
            .body(zip)
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    }

    pub async fn get_package(&self, id: &str) -> Value {
        self.http
            .get(self.url(&format!("/vnfpkgm/v1/vnf_packages/{id}")))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// Polls until the package leaves UPLOADING/PROCESSING (or `timeout`); returns it.
    pub async fn settled(&self, id: &str, timeout: Duration) -> Value {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let p = self.get_package(id).await;
            let s = p["onboardingState"].as_str().unwrap_or_default().to_owned();
            if s != "UPLOADING" && s != "PROCESSING" {
                return p;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "package {id} stuck in {s}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Whether conductor `n`'s cache holds package `id`.
    pub fn cached(&self, n: usize, id: &str) -> bool {
        self.cache_dir(n).join(id).join("package.zip").is_file()
    }

    /// Whether package storage holds package `id`.
    pub async fn stored(&self, id: &str) -> bool {
        self.store
            .size(&tacker_storage::PackageStore::package_key(id))
            .await
            .is_ok()
    }
}
