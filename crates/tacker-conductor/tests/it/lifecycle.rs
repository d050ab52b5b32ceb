use std::time::Duration;

use tacker_conductor::lcm::{Drivers, LcmSettings};
use tacker_conductor::{Conductor, Settings};
use tacker_db::Db;
use tacker_domain::conductor::ConductorState;
use tacker_rpc::proto::{Ping, Pong};
use tacker_rpc::{Bus, BusOptions};
use tacker_storage::PackageStore;
use tacker_testkit::TestDb;

struct Env {
    db: Db,
    bus_opts: BusOptions,
    store: PackageStore,
    dir: tempfile::TempDir,
    _tdb: TestDb,
}

fn env(tdb: TestDb, bus_url: &str) -> Env {
    let dir = tacker_testkit::temp_dir();
    Env {
        db: Db::connect(&tdb.url, 4, Duration::from_secs(5)).unwrap(),
        bus_opts: BusOptions::new(bus_url, tacker_testkit::unique_prefix()),
        store: PackageStore::from_url(&format!("file://{}/store", dir.path().display())).unwrap(),
        dir,
        _tdb: tdb,
    }
}

async fn start(e: &Env, id: &str, health: Option<std::net::TcpListener>) -> Conductor {
    let mut cfg = tacker_config::Config::defaults().unwrap();
    cfg.conductor.cache_dir = e.dir.path().join("cache").join(id).display().to_string();
    cfg.conductor.heartbeat_interval = Duration::from_millis(200);
    cfg.conductor.dead_after = Duration::from_secs(1);
    cfg.conductor.shutdown_timeout = Duration::from_secs(5);
    cfg.bus.prefetch = 4;
    // The built-in SSH drivers live in tacker-mgmt, which a bare conductor has not.
    cfg.mgmt.drivers = tacker_domain::mgmt::Mapping::default();
    let lcm = LcmSettings::from_config(&cfg, Drivers::default()).unwrap();
    let keys = std::sync::Arc::new(tacker_db::secrets::Keyring::plaintext());
    let mut settings = Settings::from_config(&cfg, id.into(), health, lcm, keys).unwrap();
    settings.host = "test-host".into();
    let bus = Bus::connect(&e.bus_opts, id).await.unwrap();
    Conductor::start(settings, e.db.clone(), bus, e.store.clone())
        .await
        .unwrap()
}

/// (backend, bus) combinations: PostgreSQL + RabbitMQ and SQLite + in-process.
fn envs() -> Vec<Env> {
    vec![
        env(TestDb::postgres(), &tacker_testkit::amqp_url()),
        env(TestDb::sqlite(), "memory://"),
    ]
}

#[tokio::test]
async fn conductors_register_turn_ready_answer_and_stop_gracefully() {
    for e in envs() {
        let health = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let health_url = format!("http://{}", health.local_addr().unwrap());
        let c1 = start(&e, "c1", Some(health)).await;
        let c2 = start(&e, "c2", None).await;
        assert!(c1.wait_ready(Duration::from_secs(10)).await);
        assert!(c2.wait_ready(Duration::from_secs(10)).await);
        assert!(
            c1.ctx().cache.dir().is_dir(),
            "cache dir created at start-up"
        );

        let live =
            e.db.conductors()
                .live_ready(Duration::from_secs(1))
                .await
                .unwrap();
        assert_eq!(
            live.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
            ["c1", "c2"]
        );

        let http = reqwest::Client::new();
        let r = http
            .get(format!("{health_url}/readyz"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let metrics = http
            .get(format!("{health_url}/metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(metrics.contains("tacker_conductor_ready 1"), "{metrics}");

        // Over the bus, every live conductor answers.
        let client = Bus::connect(&e.bus_opts, "test-client").await.unwrap();
        let members: Vec<String> = live.iter().map(|c| c.id.clone()).collect();
        let mut gathered = None;
        for _ in 0..50 {
            let g = client
                .scatter_gather::<Ping, Pong>(
                    &Ping { note: "hi".into() },
                    &members,
                    &[],
                    Duration::from_millis(500),
                )
                .await
                .unwrap();
            if g.missing.is_empty() {
                gathered = Some(g);
                break;
            }
        }
        let g = gathered.expect("both conductors answer");
        assert_eq!(g.replies["c2"].as_ref().unwrap().conductor_id, "c2");

        // SIGTERM-equivalent: STOPPING at once, out of the live set, readiness gone.
        c1.shutdown().await;
        let all = e.db.conductors().list().await.unwrap();
        assert_eq!(all[0].state, ConductorState::Stopping);
        let live =
            e.db.conductors()
                .live_ready(Duration::from_secs(1))
                .await
                .unwrap();
        assert_eq!(
            live.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
            ["c2"]
        );
        assert!(
            http.get(format!("{health_url}/readyz"))
                .send()
                .await
                .is_err(),
            "listener closed"
        );

        client.teardown().await.unwrap();
        c2.shutdown().await;
    }
}

#[tokio::test]
async fn a_conductor_restarting_with_the_same_id_reuses_its_row() {
    let e = env(TestDb::sqlite(), "memory://");
    let c = start(&e, "c1", None).await;
    assert!(c.wait_ready(Duration::from_secs(5)).await);
    c.shutdown().await;
    let c = start(&e, "c1", None).await;
    assert!(c.wait_ready(Duration::from_secs(5)).await);
    let all = e.db.conductors().list().await.unwrap();
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].state, ConductorState::Ready);
    c.shutdown().await;
}
