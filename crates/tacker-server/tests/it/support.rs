use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tacker_db::Db;
use tacker_domain::package::{OnboardingState, OperationalState, UsageState, VnfPackage};
use tacker_rpc::{Bus, BusOptions};
use tacker_server::{Metrics, ServerState, Settings};
use tacker_testkit::TestDb;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// A server on 127.0.0.1:0 over a fresh database.
pub struct TestApp {
    pub base: String,
    pub db: Db,
    pub http: reqwest::Client,
    stop: CancellationToken,
    _tdb: TestDb,
    _dir: tempfile::TempDir,
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
        let db = Db::connect(&tdb.url, 4, Duration::from_secs(5)).unwrap();
        let bus = Bus::connect(
            &BusOptions::new("memory://", tacker_testkit::unique_prefix()),
            "server",
        )
        .await
        .unwrap();
        let dir = tacker_testkit::temp_dir();
        let store = tacker_storage::PackageStore::from_url(&format!("file://{}/store", dir.path().display())).unwrap();
        let state = ServerState {
            db: db.clone(),
            bus,
            store,
            settings: Settings {
                public_url: None,
                page_size,
                max_json_body: 64 * 1024,
                dead_after: Duration::from_secs(10),
                max_package_size: 1024 * 1024,
                progress_interval: Duration::from_secs(1),
            },
            metrics: Arc::new(Metrics::new().unwrap()),
        };
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let stop = CancellationToken::new();
        tokio::spawn(tacker_server::run(listener, state, stop.clone()));
        Self {
            base,
            db,
            http: reqwest::Client::new(),
            stop,
            _tdb: tdb,
            _dir: dir,
        }
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
        self.db
            .run(move |c| tacker_db::packages::insert(c, &p))
            .await
            .unwrap();
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
