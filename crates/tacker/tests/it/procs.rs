//! A cluster of real processes: `tacker server`(s) and `tacker conductor`s on PostgreSQL
//! and RabbitMQ.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};
use tacker_testkit::TestDb;

use crate::support::{ClusterEnv, Proc, answers, free_port, wait_status};

/// One conductor process.
pub struct Node {
    pub proc: Proc,
    pub health: String,
    pub cache: PathBuf,
}

/// Servers and named conductors, each a real process.
pub struct Cluster {
    pub env: ClusterEnv,
    /// The first server's base URL.
    pub api: String,
    /// Every server's base URL.
    pub apis: Vec<String>,
    pub http: reqwest::Client,
    pub db: tacker_db::Db,
    pub prefix: String,
    pub servers: Vec<Proc>,
    pub nodes: BTreeMap<String, Node>,
    pub bus_url: String,
    _tdb: Option<TestDb>,
}

/// The onboarding download deadline in these clusters.
pub const DOWNLOAD_TIMEOUT: &str = "6s";

/// `[mgmt] drivers` of the test clusters: the built-in drivers for Tacker's sample
/// names, the test packages' hooks (`Scripts/mgmt.py`) doing nothing.
pub const NOOP_HOOKS: &str = "Scripts/mgmt.py=noop,Scripts/sample_script.py=noop,\
Scripts/private_registry_mgmt.py=private-registry,Scripts/kubernetes_mgmt.py=kubernetes-cluster";

/// The same with the test packages' hooks on the simulated VIM's driver (fault
/// injection); needs `lcm.simulated_vim`.
pub const SIM_HOOKS: &str = "Scripts/mgmt.py=sim,Scripts/sample_script.py=noop,\
Scripts/private_registry_mgmt.py=private-registry,Scripts/kubernetes_mgmt.py=kubernetes-cluster";

impl Cluster {
    pub async fn start(conductors: &[&str]) -> Self {
        Self::start_with(1, conductors, &[]).await
    }

    /// `servers` API servers and `conductors`, with extra environment for all of them
    /// (later entries win).
    /// One server with `auth.mode = "keystone"` on the tests' Keystone `os` (its service
    /// user `tacker`), the given conductors, and `extra` settings.
    pub async fn with_keystone(
        os: &tacker_testkit::keystone::OpenStack,
        conductors: &[&str],
        extra: &[(&str, &str)],
    ) -> Self {
        let password = os.tacker_password();
        let mut env = vec![
            ("TACKER__AUTH__MODE", "keystone"),
            ("TACKER__AUTH__KEYSTONE_URL", os.keystone.as_str()),
            ("TACKER__AUTH__KEYSTONE_USERNAME", "tacker"),
            ("TACKER__AUTH__KEYSTONE_PASSWORD", password.as_str()),
            ("TACKER__AUTH__KEYSTONE_PROJECT", "service"),
        ];
        env.extend_from_slice(extra);
        Self::start_with(1, conductors, &env).await
    }

    pub async fn start_with(servers: usize, conductors: &[&str], extra: &[(&str, &str)]) -> Self {
        let tdb = TestDb::postgres();
        let url = tdb.url.clone();
        Self::start_on(
            Some(tdb),
            &url,
            &tacker_testkit::amqp_url(),
            servers,
            conductors,
            extra,
        )
        .await
    }

    /// The same on database `db_url` (migrated) and broker `bus_url`.
    pub async fn start_on(
        tdb: Option<TestDb>,
        db_url: &str,
        bus_url: &str,
        servers: usize,
        conductors: &[&str],
        extra: &[(&str, &str)],
    ) -> Self {
        let prefix = tacker_testkit::unique_prefix();
        let mut env = ClusterEnv::new(db_url, bus_url, &prefix);
        let defaults = [
            ("TACKER__ONBOARDING__DOWNLOAD_TIMEOUT", DOWNLOAD_TIMEOUT),
            ("TACKER__ONBOARDING__RECOVERY_INTERVAL", "300ms"),
            ("TACKER__ONBOARDING__STALL_TIMEOUT", "10s"),
            ("TACKER__ONBOARDING__ALLOWED_URI_NETWORKS", "127.0.0.1/32"),
            ("TACKER__LCM__NOTIFICATION_MAX_BACKOFF", "500ms"),
            // The test packages' hooks (Scripts/mgmt.py) need no work on real VIMs.
            ("TACKER__MGMT__DRIVERS", NOOP_HOOKS),
        ];
        for (k, v) in defaults.iter().chain(extra) {
            env.vars.push(((*k).into(), (*v).into()));
        }
        let ports: Vec<u16> = (0..servers).map(|_| free_port()).collect();
        // Links point at the first server.
        env.vars.push((
            "TACKER__SERVER__PUBLIC_URL".into(),
            format!("http://127.0.0.1:{}", ports[0]),
        ));
        let apis: Vec<String> = ports
            .iter()
            .map(|p| format!("http://127.0.0.1:{p}"))
            .collect();
        let procs = ports
            .iter()
            .enumerate()
            .map(|(n, port)| {
                Proc::spawn(
                    env.command(&[("TACKER__SERVER__BIND", format!("127.0.0.1:{port}"))])
                        .arg("server"),
                    &env.log_path(&format!("server-{n}")),
                )
            })
            .collect();
        let db = tacker_db::Db::connect(db_url, 2, Duration::from_secs(5)).unwrap();
        let mut c = Cluster {
            env,
            api: apis[0].clone(),
            apis,
            http: reqwest::Client::new(),
            db,
            prefix,
            servers: procs,
            nodes: BTreeMap::new(),
            bus_url: bus_url.to_owned(),
            _tdb: tdb,
        };
        for id in conductors {
            c.start_conductor(id);
        }
        for (api, server) in c.apis.iter().zip(&c.servers) {
            let url = format!("{api}/readyz");
            if !answers(&c.http, &url, 200, Duration::from_secs(30)).await {
                let log = server.log_text();
                let tail: Vec<&str> = log.lines().rev().take(30).collect();
                let tail: Vec<&str> = tail.into_iter().rev().collect();
                panic!(
                    "{url} never answered 200; the server's log ends:\n{}",
                    tail.join("\n")
                );
            }
        }
        for id in conductors {
            c.wait_ready(id).await;
        }
        c
    }

    pub fn start_conductor(&mut self, id: &str) {
        let port = free_port();
        let cache = self.env.dir.path().join("cache").join(id);
        let proc = Proc::spawn(
            self.env
                .command(&[
                    ("TACKER__CONDUCTOR__ID", id.into()),
                    (
                        "TACKER__CONDUCTOR__HEALTH_BIND",
                        format!("127.0.0.1:{port}"),
                    ),
                    ("TACKER__CONDUCTOR__CACHE_DIR", cache.display().to_string()),
                ])
                .arg("conductor"),
            &self.env.log_path(id),
        );
        self.nodes.insert(
            id.into(),
            Node {
                proc,
                health: format!("http://127.0.0.1:{port}"),
                cache,
            },
        );
    }

    pub async fn wait_ready(&self, id: &str) {
        wait_status(
            &self.http,
            &format!("{}/readyz", self.nodes[id].health),
            200,
            Duration::from_secs(30),
        )
        .await;
    }

    pub fn signal(&self, id: &str, sig: &str) {
        self.nodes[id].proc.signal(sig);
    }

    /// SIGKILLs conductor `id` and waits until it is gone.
    pub fn kill(&mut self, id: &str) {
        self.signal(id, "KILL");
        if let Some(n) = self.nodes.get_mut(id) {
            let _ = n.proc.wait(Duration::from_secs(5));
        }
    }

    pub fn cached(&self, id: &str, pkg: &str) -> bool {
        self.nodes[id].cache.join(pkg).join("package.zip").is_file()
    }

    pub fn stored(&self, pkg: &str) -> bool {
        self.env
            .dir
            .path()
            .join("store/vnf_packages")
            .join(pkg)
            .join("package.zip")
            .is_file()
    }

    pub async fn create(&self) -> String {
        let r: Value = self
            .http
            .post(format!("{}/vnfpkgm/v1/vnf_packages", self.api))
            .json(&json!({}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        r["id"].as_str().unwrap().to_owned()
    }

    pub async fn upload(&self, zip: Vec<u8>) -> String {
        let id = self.create().await;
        let r = self
            .http
            .put(format!(
                "{}/vnfpkgm/v1/vnf_packages/{id}/package_content",
                self.api
            ))
            .header("content-type", "application/zip")
            .body(zip)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 202);
        id
    }

    pub async fn get(&self, id: &str) -> Value {
        self.http
            .get(format!("{}/vnfpkgm/v1/vnf_packages/{id}", self.api))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    pub async fn state(&self, id: &str) -> String {
        self.get(id).await["onboardingState"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    pub async fn wait_state(&self, id: &str, states: &[&str], timeout: Duration) -> Value {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let p = self.get(id).await;
            if states.contains(&p["onboardingState"].as_str().unwrap_or_default()) {
                return p;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "package {id} never reached {states:?}: {p}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    pub async fn coordinator(&self, id: &str) -> Option<String> {
        let id: uuid::Uuid = id.parse().unwrap();
        let all = self.db.packages().in_flight().await.unwrap();
        all.into_iter()
            .find(|p| p.id == id)
            .and_then(|p| p.coordinator)
    }

    pub async fn teardown(self) {
        let opts = tacker_rpc::BusOptions::new(self.bus_url.clone(), self.prefix.clone());
        let bus = tacker_rpc::Bus::connect(&opts, "t").await.unwrap();
        let _ = bus.teardown().await;
    }
}

/// Serves `/private.zip` with basic auth ops:secret.
pub fn file_server(zip: Vec<u8>) -> String {
    use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let zip = web::Data::new(zip);
    let server = HttpServer::new(move || {
        App::new().app_data(zip.clone()).route(
            "/private.zip",
            web::get().to(|req: HttpRequest, z: web::Data<Vec<u8>>| async move {
                let ok = req
                    .headers()
                    .get("authorization")
                    .is_some_and(|v| v == "Basic b3BzOnNlY3JldA==");
                if ok {
                    HttpResponse::Ok().body(z.get_ref().clone())
                } else {
                    HttpResponse::Unauthorized().finish()
                }
            }),
        )
    })
    .workers(1)
    .listen(listener)
    .unwrap()
    .run();
    tokio::spawn(server);
    base
}
