//! The database fails over under load: a server and a conductor on a PostgreSQL primary
//! with a synchronous replica (`tests/infra/pg-failover.sh`, a libpq multi-host URL with
//! `target_session_attrs=read-write`); the primary is SIGKILLed while packages are being
//! created, uploads onboarded and instantiations run, and the replica promoted. Requests
//! during the switch are answered 503 (never 500), the server serves again on the
//! promoted replica, no acknowledged write is lost and the work in flight ends visibly.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::procs::Cluster;
use crate::support::tacker;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_failover_is_503_during_the_switch_and_loses_no_acknowledged_write() {
    crate::vm::need_root();
    let pg = tacker_testkit::pgpair::PgPair::up();
    let out = tacker()
        .env("TACKER__DATABASE__URL", &pg.url)
        .args(["db", "migrate"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let c = Cluster::start_on(
        None,
        &pg.url,
        &tacker_testkit::amqp_url(),
        1,
        &["c1"],
        &[
            ("TACKER__DATABASE__CONNECT_TIMEOUT", "2s"),
            ("TACKER__LCM__SIMULATED_VIM", "true"),
            // Twenty operations held at once and the onboardings beside them.
            ("TACKER__BUS__PREFETCH", "32"),
        ],
    )
    .await;
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    let url = format!("{}/vnfpkgm/v1/vnf_packages", c.api);
    let t = Duration::from_secs(90);

    // Work in flight when the primary goes: 40 uploads and 20 instantiations (simulated
    // VIM), the instantiations held in PROCESSING across the switch.
    let vnfd = |k: usize| format!("00000000-0000-4000-8000-{k:012}");
    let first = c
        .upload(tacker_testkit::csar::valid_with_vnfd_id(&vnfd(0)).zip())
        .await;
    assert_eq!(
        c.wait_state(&first, &["ONBOARDED", "CREATED"], t).await["onboardingState"],
        "ONBOARDED"
    );
    let mut uploads = Vec::new();
    let mut ops = Vec::new();
    // The instantiations hold in PROCESSING while this file exists (the simulated VIM).
    let hold = pg.path("hold");
    std::fs::write(&hold, "").unwrap();
    for k in 1..=40 {
        uploads.push(
            c.upload(tacker_testkit::csar::valid_with_vnfd_id(&vnfd(k)).zip())
                .await,
        );
        if k > 20 {
            continue;
        }
        let r = c
            .lcm(0, reqwest::Method::POST, "/vnf_instances")
            .json(&json!({"vnfdId": vnfd(0)}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
        let i = r.json::<serde_json::Value>().await.unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let body = json!({"flavourId": "simple",
            "vimConnectionInfo": {"vim1": {"vimType": "TACKER.SIM.V_1"}},
            "additionalParams": {"sim": {"holdFile": hold.display().to_string()}}});
        let (status, op) = c.task(0, &i, "instantiate", body).await;
        assert_eq!(status, 202);
        ops.push(op.unwrap());
    }
    for op in &ops {
        c.wait_op(op, &["PROCESSING"], t).await;
    }

    // Packages are created every 20 ms; the primary is killed after a second and the
    // replica promoted a second later.
    let started = Instant::now();
    let mut created = Vec::new();
    let mut statuses = std::collections::BTreeMap::new();
    let (mut killed_at, mut promoted, mut back_after) = (None, false, None);
    while started.elapsed() < Duration::from_secs(40) {
        let r = http.post(&url).json(&json!({})).send().await;
        let status = match r {
            Ok(r) => {
                let s = r.status().as_u16();
                if s == 503 {
                    assert!(
                        r.headers().contains_key("retry-after"),
                        "503 without Retry-After"
                    );
                }
                if s == 201 {
                    let v: serde_json::Value = r.json().await.unwrap();
                    created.push(v["id"].as_str().unwrap().to_owned());
                    if let Some(k) = killed_at
                        && promoted
                        && back_after.is_none()
                    {
                        back_after = Some(Instant::elapsed(&k));
                    }
                }
                s
            }
            Err(e) => panic!("no answer: {e}"),
        };
        *statuses.entry(status).or_insert(0) += 1;
        if killed_at.is_none() && started.elapsed() > Duration::from_secs(1) {
            pg.kill();
            killed_at = Some(Instant::now());
        }
        if let Some(k) = killed_at
            && !promoted
            && k.elapsed() > Duration::from_secs(1)
        {
            pg.promote();
            promoted = true;
        }
        if back_after.is_some() {
            // The instantiations held across the failover may go on now.
            let _ = std::fs::remove_file(&hold);
            if created.len() >= 60 {
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let back_after = back_after.expect("the server never served again after the promotion");
    assert!(
        statuses.keys().all(|s| *s == 201 || *s == 503),
        "answers during the failover: {statuses:?}"
    );
    assert!(
        statuses.contains_key(&503),
        "no request fell in the switch: {statuses:?}"
    );
    // Every acknowledged creation is there (synchronous replication).
    for id in &created {
        let r = http.get(format!("{url}/{id}")).send().await.unwrap();
        assert_eq!(r.status(), 200, "package {id} acknowledged, then lost");
    }
    // The work in flight ended, visibly: nothing stuck in a transient state.
    let mut ended = std::collections::BTreeMap::new();
    for p in &uploads {
        let got = c.wait_state(p, &["ONBOARDED", "CREATED"], t).await;
        let state = got["onboardingState"].as_str().unwrap().to_owned();
        if state == "CREATED" {
            assert!(!got["onboardingFailureDetails"].is_null(), "{got}");
        }
        *ended.entry(state).or_insert(0) += 1;
    }
    for op in &ops {
        let got = c
            .wait_op(op, &["COMPLETED", "FAILED_TEMP", "ROLLED_BACK"], t)
            .await;
        *ended
            .entry(got["operationState"].as_str().unwrap().to_owned())
            .or_insert(0) += 1;
    }
    eprintln!(
        "answers {statuses:?}; served again {back_after:?} after the kill (the replica promoted 1 s after it); work in flight ended {ended:?}"
    );
    c.teardown().await;
}

/// How the node leading the conductors' queue is lost.
#[derive(Clone, Copy, PartialEq)]
enum Loss {
    /// SIGKILLed, later started again on its data.
    Killed,
    /// SIGKILLed with its data directory deleted, later re-joined empty (forgotten by
    /// the others, joined, the quorum queues grown back onto it).
    Disk,
}

/// 40 uploads and 20 instantiations in flight while the broker node leading the
/// conductors' quorum queue is SIGKILLed and later restarted: every upload ends ONBOARDED
/// and cached on both conductors, every operation COMPLETED once; nothing is stuck.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn work_in_flight_survives_the_loss_of_the_broker_node_leading_the_conductors_queue() {
    broker_node_lost(Loss::Killed).await;
}

/// The same with the node's whole data directory lost: it re-joins empty, and the
/// conductors' queue has its three replicas again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn work_in_flight_survives_a_broker_node_that_lost_its_disk() {
    broker_node_lost(Loss::Disk).await;
}

async fn broker_node_lost(loss: Loss) {
    use tacker_testkit::csar::valid_with_vnfd_id;
    crate::vm::need_root();
    let rabbit = tacker_testkit::rabbit::RabbitCluster::up();
    let tdb = tacker_testkit::TestDb::postgres();
    let db = tdb.url.clone();
    let c = Cluster::start_on(
        Some(tdb),
        &db,
        &rabbit.urls,
        1,
        &["c1", "c2"],
        &[("TACKER__LCM__SIMULATED_VIM", "true")],
    )
    .await;
    let t = Duration::from_secs(120);
    let vnfd = |k: usize| format!("00000000-0000-4000-8000-{k:012}");
    let first = c.upload(valid_with_vnfd_id(&vnfd(0)).zip()).await;
    assert_eq!(
        c.wait_state(&first, &["ONBOARDED", "CREATED"], t).await["onboardingState"],
        "ONBOARDED"
    );
    let queue = format!("{}.conductor-quorum", c.prefix);
    let leader = rabbit.leader(&queue);

    // The leader is lost after the 8th upload and back after the 28th.
    let mut packages = vec![first];
    let mut ops = Vec::new();
    for k in 1..=40 {
        packages.push(c.upload(valid_with_vnfd_id(&vnfd(k)).zip()).await);
        if k <= 20 {
            let r = c
                .lcm(0, reqwest::Method::POST, "/vnf_instances")
                .json(&json!({"vnfdId": vnfd(0)}))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 201);
            let i = r.json::<serde_json::Value>().await.unwrap()["id"]
                .as_str()
                .unwrap()
                .to_owned();
            let body = json!({"flavourId": "simple",
                "vimConnectionInfo": {"vim1": {"vimType": "TACKER.SIM.V_1"}}});
            let (status, op) = c.task(0, &i, "instantiate", body).await;
            assert_eq!(status, 202);
            ops.push((i, op.unwrap()));
        }
        match (k, loss) {
            (8, Loss::Killed) => rabbit.kill(&leader),
            (8, Loss::Disk) => rabbit.wipe(&leader),
            (28, Loss::Killed) => rabbit.start(&leader),
            (28, Loss::Disk) => rabbit.rejoin(&leader),
            _ => {}
        }
    }
    for p in &packages {
        let got = c.wait_state(p, &["ONBOARDED", "CREATED"], t).await;
        assert_eq!(got["onboardingState"], "ONBOARDED", "{got}");
    }
    for (i, op) in &ops {
        let got = c
            .wait_op(op, &["COMPLETED", "FAILED_TEMP", "ROLLED_BACK"], t)
            .await;
        assert_eq!(got["operationState"], "COMPLETED", "{got}");
        // Once: one occurrence of the instance.
        let list: Vec<serde_json::Value> = c
            .lcm(
                0,
                reqwest::Method::GET,
                &format!("/vnf_lcm_op_occs?filter=(eq,vnfInstanceId,{i})"),
            )
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(list.len(), 1, "{list:?}");
    }
    // The conductors' caches match the database: every package on both.
    let deadline = Instant::now() + t;
    for p in &packages {
        while !(c.cached("c1", p) && c.cached("c2", p)) {
            assert!(
                Instant::now() < deadline,
                "package {p} not cached on both conductors"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    // The queue is replicated on the three nodes again (the lost disk's node included).
    assert_eq!(rabbit.members(&queue), "1 2 3");
    c.teardown().await;
}
