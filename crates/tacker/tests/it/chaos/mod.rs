//! The fault-injection suite: a server and three conductors as processes on a private
//! PostgreSQL cluster and a private RabbitMQ node (behind a TCP proxy), driven through
//! the REST API, while conductors are killed and restarted under the same id, the bus
//! is cut, the broker restarts and the database stops. Afterwards nothing is in
//! flight, every upload and operation ended visibly, caches equal the ONBOARDED set,
//! no notification is lost, every process still serves.
//!
//! `TACKER_CHAOS_PROFILE=short` (default, `make test`) or `long` (`make chaos`: 10
//! minutes of rounds, `TACKER_CHAOS_MINUTES` to change it); `TACKER_CHAOS_SEED` replays
//! a run (the seed is printed). The long profile runs on what an HA deployment stands
//! on: a three-node RabbitMQ cluster (the proxy in front of node 1, the other nodes
//! named beside it in `bus.url`) and a PostgreSQL primary with a synchronous replica,
//! and adds two faults: the broker node leading the conductors' queue SIGKILLed (and
//! started again), and the primary SIGKILLed with the replica promoted.

mod infra;
mod workload;

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use serde_json::Value;
use tacker_testkit::peers::{Expect, Subscriber};

use crate::procs::{Cluster, SIM_HOOKS};
use infra::{PrivatePg, PrivateRabbit, TcpProxy};
use tacker_testkit::pgpair::PgPair;
use tacker_testkit::rabbit::RabbitCluster;
use workload::{Load, Rng};

/// How much of everything.
#[derive(Debug, Clone)]
pub struct Profile {
    name: &'static str,
    /// Rounds of workload with faults (the long profile runs rounds for `minutes`).
    minutes: u64,
    uploads: usize,
    upload_bytes: usize,
    upload_rate: usize,
    upload_concurrency: usize,
    instances: usize,
    kills: usize,
    cuts: usize,
    broker_restarts: usize,
    db_stops: usize,
    /// The broker node leading the conductors' queue SIGKILLed (a cluster only).
    broker_node_losses: usize,
    /// The primary SIGKILLed, the replica promoted (a pair only; once per run).
    primary_failovers: usize,
    /// A three-node cluster and a primary with a replica, not one node of each.
    ha: bool,
}

fn profile() -> Profile {
    match std::env::var("TACKER_CHAOS_PROFILE").as_deref() {
        Ok("long") => Profile {
            name: "long",
            minutes: std::env::var("TACKER_CHAOS_MINUTES")
                .ok()
                .and_then(|m| m.parse().ok())
                .unwrap_or(10),
            uploads: 48,
            upload_bytes: 8 << 20,
            upload_rate: 2 << 20,
            upload_concurrency: 8,
            instances: 24,
            kills: 12,
            cuts: 2,
            broker_restarts: 1,
            db_stops: 1,
            broker_node_losses: 2,
            primary_failovers: 1,
            ha: true,
        },
        _ => Profile {
            name: "short",
            minutes: 0,
            uploads: 40,
            upload_bytes: 2 << 20,
            upload_rate: 1 << 20,
            upload_concurrency: 8,
            instances: 20,
            kills: 4,
            cuts: 1,
            broker_restarts: 1,
            db_stops: 1,
            broker_node_losses: 0,
            primary_failovers: 0,
            ha: false,
        },
    }
}

/// A fault and when it landed.
#[derive(Debug, Clone)]
struct Injected {
    at: Duration,
    what: String,
    /// Work in flight when it landed: uploads, onboardings, operations.
    in_flight: (usize, usize, usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    Kill,
    Cut,
    BrokerRestart,
    DbStop,
    BrokerNodeLoss,
    PrimaryFailover,
}

/// Packages UPLOADING, PROCESSING and operations in progress (from the database).
async fn in_flight(c: &Cluster) -> Option<(usize, usize, usize)> {
    use tacker_domain::package::OnboardingState;
    let pkgs = c.db.packages().in_flight().await.ok()?;
    let ops = c.db.op_occs().in_progress().await.ok()?;
    let up = pkgs
        .iter()
        .filter(|p| p.state == OnboardingState::Uploading)
        .count();
    Some((up, pkgs.len() - up, ops.len()))
}

/// While the database is stopped the API answers 503 ProblemDetails, quickly.
async fn probe_outage(api: &str) -> Result<usize, String> {
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(8))
        .build()
        .unwrap();
    let mut answered = 0;
    for path in ["/vnfpkgm/v1/vnf_packages", "/vnflcm/v2/vnf_instances"] {
        let started = Instant::now();
        let r = client
            .get(format!("{api}{path}"))
            .header("Version", "2.0.0")
            .send()
            .await
            .map_err(|e| format!("GET {path} during the outage: {e}"))?;
        let status = r.status().as_u16();
        let ctype = r
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        if status != 503 || !ctype.starts_with("application/problem+json") {
            return Err(format!(
                "GET {path} during the outage answered {status} {ctype} after {:?}",
                started.elapsed()
            ));
        }
        answered += 1;
    }
    Ok(answered)
}

/// The faults of one profile, in a random order.
fn faults(p: &Profile, rng: &mut Rng) -> Vec<Fault> {
    let mut f: Vec<Fault> = std::iter::repeat_n(Fault::Kill, p.kills)
        .chain(std::iter::repeat_n(Fault::Cut, p.cuts))
        .chain(std::iter::repeat_n(Fault::BrokerRestart, p.broker_restarts))
        .chain(std::iter::repeat_n(Fault::DbStop, p.db_stops))
        .chain(std::iter::repeat_n(
            Fault::BrokerNodeLoss,
            p.broker_node_losses,
        ))
        .collect();
    rng.shuffle(&mut f);
    f
}

/// Injects the `pending` faults while `load` runs, each once work is in flight; what
/// landed when. Faults left when the load ends wait for the next round.
async fn inject(
    c: &mut Cluster,
    env: &mut Broken<'_>,
    pending: &mut Vec<Fault>,
    rng: &mut Rng,
    t0: Instant,
    load: &Load,
) -> Vec<Injected> {
    let ids: Vec<String> = c.nodes.keys().cloned().collect();
    let mut log = Vec::new();
    while let Some(f) = pending.last().copied() {
        tokio::time::sleep(Duration::from_millis(300 + rng.below(1500) as u64)).await;
        // A fault must land on work in flight.
        let mut flight = None;
        while !load.done() {
            if let Some(n) = in_flight(c).await
                && n.0 + n.1 + n.2 > 0
            {
                flight = Some(n);
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let Some(flight) = flight else {
            return log;
        };
        pending.pop();
        let at = t0.elapsed();
        let what = match f {
            Fault::Kill => {
                let id = ids[rng.below(ids.len())].clone();
                c.signal(&id, "KILL");
                let _ = c
                    .nodes
                    .get_mut(&id)
                    .unwrap()
                    .proc
                    .wait(Duration::from_secs(10));
                tokio::time::sleep(Duration::from_millis(rng.below(2000) as u64)).await;
                c.start_conductor(&id);
                format!("SIGKILL {id}, restarted under the same id")
            }
            Fault::Cut => {
                let secs = 5 + rng.below(6) as u64;
                env.proxy.cut(Duration::from_secs(secs)).await;
                format!("bus cut for {secs} s (proxy)")
            }
            Fault::BrokerRestart => {
                let started = Instant::now();
                env.bus.restart();
                format!("RabbitMQ node restarted ({:?} down)", started.elapsed())
            }
            Fault::BrokerNodeLoss => {
                let Bus::Cluster(r) = &*env.bus else {
                    unreachable!("broker node losses need the cluster")
                };
                let leader = r.leader(&format!("{}.conductor-quorum", c.prefix));
                r.kill(&leader);
                let down = 2 + rng.below(4) as u64;
                tokio::time::sleep(Duration::from_secs(down)).await;
                r.start(&leader);
                format!(
                    "RabbitMQ node {leader} leading the conductors' queue SIGKILLed, started again {down} s later"
                )
            }
            Fault::PrimaryFailover => {
                let Db::Pair(pg) = env.db else {
                    unreachable!("a failover needs the replica")
                };
                pg.kill();
                tokio::time::sleep(Duration::from_secs(1)).await;
                pg.promote();
                "PostgreSQL primary SIGKILLed, the replica promoted 1 s later".to_owned()
            }
            Fault::DbStop => {
                env.db.stop();
                let started = Instant::now();
                let probed = probe_outage(&c.api).await;
                let rest = Duration::from_secs(10).saturating_sub(started.elapsed());
                tokio::time::sleep(rest).await;
                env.db.resume();
                match probed {
                    Ok(n) => format!("PostgreSQL stopped for 10 s ({n} API probes answered 503)"),
                    Err(e) => panic!("during the database outage: {e}"),
                }
            }
        };
        println!(
            "chaos: t={:>6.1}s {what} (in flight: {} uploads, {} onboardings, {} operations)",
            at.as_secs_f64(),
            flight.0,
            flight.1,
            flight.2
        );
        log.push(Injected {
            at,
            what,
            in_flight: flight,
        });
    }
    log
}

/// What the faults break.
struct Broken<'a> {
    db: &'a Db,
    bus: &'a mut Bus,
    proxy: &'a TcpProxy,
}

/// The broker: one node of the test's own, or a three-node cluster.
enum Bus {
    Node(PrivateRabbit),
    Cluster(RabbitCluster),
}

impl Bus {
    /// The port the proxy fronts.
    fn port(&self) -> u16 {
        match self {
            Bus::Node(r) => r.port,
            Bus::Cluster(r) => r.port(1),
        }
    }

    /// `bus.url` through the proxy on `proxy` (and the other nodes of a cluster).
    fn url(&self, proxy: u16) -> String {
        let first = PrivateRabbit::url(proxy);
        match self {
            Bus::Node(_) => first,
            Bus::Cluster(r) => format!(
                "{first},{},{}",
                PrivateRabbit::url(r.port(2)),
                PrivateRabbit::url(r.port(3))
            ),
        }
    }

    /// Stops the node behind the proxy and starts it again.
    fn restart(&mut self) {
        match self {
            Bus::Node(r) => {
                r.stop();
                r.resume();
            }
            Bus::Cluster(r) => {
                r.kill("1");
                r.start("1");
            }
        }
    }
}

/// The database: a cluster of the test's own, or a primary with a replica.
enum Db {
    Single(PrivatePg),
    Pair(PgPair),
}

impl Db {
    fn url(&self) -> String {
        match self {
            Db::Single(pg) => pg.url("tacker"),
            Db::Pair(pg) => pg.url.clone(),
        }
    }

    /// Stops the (current) primary.
    fn stop(&self) {
        match self {
            Db::Single(pg) => pg.stop(),
            Db::Pair(pg) => pg.stop(),
        }
    }

    fn resume(&self) {
        match self {
            Db::Single(pg) => pg.resume(),
            Db::Pair(pg) => pg.start(),
        }
    }
}

/// Every operation occurrence, following the list's `Link: rel="next"` pages.
async fn every_op(c: &Cluster) -> Vec<Value> {
    let mut out = Vec::new();
    let mut url = format!("{}/vnflcm/v2/vnf_lcm_op_occs", c.api);
    loop {
        let r = c
            .http
            .get(&url)
            .header("Version", "2.0.0")
            .send()
            .await
            .unwrap();
        let next = r
            .headers()
            .get("link")
            .and_then(|l| l.to_str().ok())
            .and_then(|l| l.split(';').next())
            .map(|u| {
                u.trim()
                    .trim_start_matches('<')
                    .trim_end_matches('>')
                    .to_owned()
            });
        let page: Vec<Value> = r.json().await.unwrap();
        out.extend(page);
        match next {
            Some(n) => url = n,
            None => return out,
        }
    }
}

/// Every accepted upload ended ONBOARDED, or CREATED with the reason.
async fn check_ended(c: &Cluster, accepted: &[String], ended: &mut BTreeMap<String, usize>) {
    for id in accepted {
        let pkg = c.get(id).await;
        let state = pkg["onboardingState"].as_str().unwrap_or_default();
        *ended.entry(state.to_owned()).or_default() += 1;
        assert!(
            state == "ONBOARDED"
                || state == "CREATED" && pkg["onboardingFailureDetails"]["detail"].is_string(),
            "package {id} ended {state} without details: {pkg}"
        );
    }
}

/// Disables and deletes the packages.
async fn clear_packages(c: &Cluster, ids: &[String]) {
    for id in ids {
        let url = format!("{}/vnfpkgm/v1/vnf_packages/{id}", c.api);
        let _ = c
            .http
            .patch(&url)
            .header("Content-Type", "application/merge-patch+json")
            .body(r#"{"operationalState": "DISABLED"}"#)
            .send()
            .await
            .unwrap();
        let r = c.http.delete(&url).send().await.unwrap();
        assert_eq!(
            r.status(),
            204,
            "deleting {id}: {}",
            r.text().await.unwrap_or_default()
        );
    }
}

/// Waits until nothing is in flight; panics after `bound`.
async fn settled(c: &Cluster, bound: Duration) {
    let deadline = Instant::now() + bound;
    loop {
        if in_flight(c).await == Some((0, 0, 0)) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "still in flight {bound:?} after the last fault: {:?}",
            in_flight(c).await
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Every conductor's cache equals the ONBOARDED set (polled: caches converge).
async fn caches_converge(c: &Cluster, bound: Duration) {
    let deadline = Instant::now() + bound;
    loop {
        let onboarded: BTreeSet<String> =
            c.db.packages()
                .onboarded()
                .await
                .unwrap()
                .into_iter()
                .map(|(id, _)| id.to_string())
                .collect();
        let mut diff = Vec::new();
        for (id, n) in &c.nodes {
            let cached: BTreeSet<String> = std::fs::read_dir(&n.cache)
                .map(|d| {
                    d.flatten()
                        .filter(|e| e.path().join("package.zip").is_file())
                        .map(|e| e.file_name().to_string_lossy().into_owned())
                        .collect()
                })
                .unwrap_or_default();
            if cached != onboarded {
                diff.push(format!(
                    "{id}: missing {:?}, extra {:?}",
                    onboarded.difference(&cached).collect::<Vec<_>>(),
                    cached.difference(&onboarded).collect::<Vec<_>>()
                ));
            }
        }
        if diff.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "caches differ from the ONBOARDED set: {diff:?}"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// Every operation's end state was notified; repeated notifications repeat their id.
fn notifications_complete(got: &[Value], ops: &[Value]) -> Result<(), String> {
    let mut by_id: BTreeMap<String, &Value> = BTreeMap::new();
    for n in got {
        let id = n["id"].as_str().unwrap_or_default().to_owned();
        if let Some(prev) = by_id.insert(id.clone(), n)
            && prev != n
        {
            return Err(format!(
                "notification {id} delivered twice with different bodies"
            ));
        }
    }
    for op in ops {
        let (id, state) = (
            op["id"].as_str().unwrap(),
            op["operationState"].as_str().unwrap(),
        );
        let seen = got
            .iter()
            .any(|n| n["vnfLcmOpOccId"] == id && n["operationState"] == state);
        if !seen {
            return Err(format!("no notification of {state} for operation {id}"));
        }
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn conductors_the_bus_and_the_database_fail_under_load_and_nothing_is_lost() {
    crate::vm::need_root();
    let p = profile();
    let seed = std::env::var("TACKER_CHAOS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| uuid::Uuid::new_v4().as_u64_pair().0);
    println!(
        "chaos: profile {} seed {seed} (TACKER_CHAOS_SEED={seed} replays it)",
        p.name
    );
    let mut rng = Rng::new(seed);
    let (db, mut bus) = if p.ha {
        (Db::Pair(PgPair::up()), Bus::Cluster(RabbitCluster::up()))
    } else {
        (
            Db::Single(PrivatePg::start()),
            Bus::Node(PrivateRabbit::start()),
        )
    };
    let proxy = TcpProxy::start(bus.port()).await;
    let db_url = db.url();
    let migrated = crate::support::tacker()
        .env("TACKER__DATABASE__URL", &db_url)
        .env("TACKER__SECRETS__KEYS", crate::support::TEST_KEY)
        .args(["db", "migrate"])
        .output()
        .unwrap();
    assert!(migrated.status.success(), "{migrated:?}");
    let settings = [
        ("TACKER__LCM__SIMULATED_VIM", "true"),
        ("TACKER__MGMT__DRIVERS", SIM_HOOKS),
        ("TACKER__ONBOARDING__DOWNLOAD_TIMEOUT", "20s"),
        ("TACKER__ONBOARDING__STALL_TIMEOUT", "8s"),
        ("TACKER__ONBOARDING__RECOVERY_INTERVAL", "500ms"),
        ("TACKER__DATABASE__CONNECT_TIMEOUT", "2s"),
        ("TACKER__BUS__RECONNECT_MAX_BACKOFF", "1s"),
        ("TACKER__LCM__SYNC_INTERVAL", "0s"),
    ];
    let mut c = Cluster::start_on(
        None,
        &db_url,
        &bus.url(proxy.port),
        1,
        &["ch-1", "ch-2", "ch-3"],
        &settings,
    )
    .await;
    let sub = Subscriber::start(Expect::Nothing);
    c.subscribe(&sub).await;
    let lcm_pkg = c.upload(tacker_testkit::csar::valid().zip()).await;
    assert_eq!(
        c.wait_state(&lcm_pkg, &["ONBOARDED", "CREATED"], Duration::from_secs(60))
            .await["onboardingState"],
        "ONBOARDED"
    );

    let t0 = Instant::now();
    let until = t0 + Duration::from_secs(p.minutes * 60);
    let mut round = 0;
    let mut injected = Vec::new();
    let mut accepted = Vec::new();
    let mut pending = faults(&p, &mut rng);
    // The primary fails over once (no replica is left after it): the first fault.
    pending.extend(std::iter::repeat_n(
        Fault::PrimaryFailover,
        p.primary_failovers,
    ));
    // The bound: a lost coordinator is noticed after dead_after, a stalled upload after
    // stall_timeout, a download round after download_timeout.
    let bound = Duration::from_secs(2 + 8 + 20 + 30);
    let mut ended: BTreeMap<String, usize> = BTreeMap::new();
    loop {
        round += 1;
        let load = Load::start(&c, &p, round, seed);
        let mut env = Broken {
            db: &db,
            bus: &mut bus,
            proxy: &proxy,
        };
        injected.extend(inject(&mut c, &mut env, &mut pending, &mut rng, t0, &load).await);
        let outcome = load.finish().await;
        println!(
            "chaos: round {round}: {} uploads accepted, {} refused while faults lasted; {} instances through instantiate/heal/terminate",
            outcome.accepted.len(),
            outcome.refused,
            outcome.lifecycles
        );
        assert_eq!(
            outcome.lifecycles, p.instances,
            "lifecycles that could not finish: {:?}",
            outcome.errors
        );
        // After each round: nothing in flight within the bound, every accepted upload
        // ended visibly, then the round's packages go (so long runs stay small) and the
        // caches follow.
        settled(&c, bound).await;
        check_ended(&c, &outcome.accepted, &mut ended).await;
        clear_packages(&c, &outcome.accepted).await;
        caches_converge(&c, bound).await;
        accepted.extend(outcome.accepted);
        if pending.is_empty() {
            if Instant::now() >= until {
                break;
            }
            pending = faults(&p, &mut rng);
        }
    }

    println!("chaos: accepted uploads ended {ended:?}");
    // Every operation ended, and every FAILED_TEMP one completes on retry.
    let all = every_op(&c).await;
    for op in &all {
        let s = op["operationState"].as_str().unwrap();
        assert!(
            matches!(s, "COMPLETED" | "FAILED_TEMP" | "ROLLED_BACK" | "FAILED"),
            "operation {} ended {s}",
            op["id"]
        );
    }
    let ops: Vec<Value> = all.clone();
    let expected = ops.clone();
    let got = sub
        .wait("every end state notified", |g| {
            notifications_complete(g, &expected).is_ok()
        })
        .await;
    notifications_complete(&got, &ops).unwrap();
    // Every process still serves; only the conductors killed on purpose restarted.
    for (i, s) in c.servers.iter_mut().enumerate() {
        assert!(s.child.try_wait().unwrap().is_none(), "server {i} exited");
    }
    for (id, n) in c.nodes.iter_mut() {
        assert!(
            n.proc.child.try_wait().unwrap().is_none(),
            "conductor {id} exited"
        );
    }
    for id in c.nodes.keys().cloned().collect::<Vec<_>>() {
        c.wait_ready(&id).await;
    }
    // Every fault landed on work in flight.
    let idle: Vec<&Injected> = injected
        .iter()
        .filter(|f| f.in_flight.0 + f.in_flight.1 + f.in_flight.2 == 0)
        .collect();
    assert!(
        idle.is_empty(),
        "faults that hit idle processes prove nothing: {idle:?}"
    );
    for f in &injected {
        println!("chaos: landed t={:.1}s {}", f.at.as_secs_f64(), f.what);
    }
    println!(
        "chaos: {} faults over {} round(s), {} uploads, {} operations; seed {seed}",
        injected.len(),
        round,
        accepted.len(),
        ops.len()
    );
    c.teardown().await;
}
