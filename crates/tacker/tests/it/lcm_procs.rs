//! LCM with real processes: servers and conductors on PostgreSQL + RabbitMQ, the
//! simulated VIM, a real HTTP subscriber.

use std::time::Duration;

use serde_json::{Value, json};
use tacker_testkit::csar::valid;
use tacker_testkit::peers::{Expect, Subscriber, states_of};

use crate::procs::Cluster;

const VNFD: &str = "11111111-2222-3333-4444-555555555555";

async fn lcm_cluster(servers: usize, conductors: &[&str]) -> Cluster {
    lcm_cluster_with(servers, conductors, &[]).await
}

async fn lcm_cluster_with(servers: usize, conductors: &[&str], extra: &[(&str, &str)]) -> Cluster {
    let mut env = vec![
        ("TACKER__LCM__SIMULATED_VIM", "true"),
        ("TACKER__MGMT__DRIVERS", crate::procs::SIM_HOOKS),
    ];
    env.extend_from_slice(extra);
    let c = Cluster::start_with(servers, conductors, &env).await;
    let pkg = c.upload(valid().zip()).await;
    assert_eq!(
        c.wait_state(&pkg, &["ONBOARDED", "CREATED"], Duration::from_secs(30))
            .await["onboardingState"],
        "ONBOARDED"
    );
    c
}

impl Cluster {
    pub(crate) fn lcm(
        &self,
        api: usize,
        method: reqwest::Method,
        path: &str,
    ) -> reqwest::RequestBuilder {
        self.http
            .request(method, format!("{}/vnflcm/v2{path}", self.apis[api]))
            .header("Version", "2.0.0")
    }

    pub(crate) async fn subscribe(&self, sub: &Subscriber) {
        let r = self
            .lcm(0, reqwest::Method::POST, "/subscriptions")
            .json(&json!({"callbackUri": sub.url}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
    }

    pub(crate) async fn instance(&self) -> String {
        let r = self
            .lcm(0, reqwest::Method::POST, "/vnf_instances")
            .json(&json!({"vnfdId": VNFD}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
        r.json::<Value>().await.unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    pub(crate) async fn task(
        &self,
        api: usize,
        i: &str,
        task: &str,
        body: Value,
    ) -> (u16, Option<String>) {
        let r = self
            .lcm(
                api,
                reqwest::Method::POST,
                &format!("/vnf_instances/{i}/{task}"),
            )
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        let op = r
            .headers()
            .get("location")
            .map(|l| tacker_testkit::id_of(l.to_str().unwrap()));
        (status, op)
    }

    pub(crate) async fn op(&self, id: &str) -> Value {
        self.lcm(0, reqwest::Method::GET, &format!("/vnf_lcm_op_occs/{id}"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    pub(crate) async fn wait_op(&self, id: &str, states: &[&str], timeout: Duration) -> Value {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let op = self.op(id).await;
            if states.contains(&op["operationState"].as_str().unwrap_or_default()) {
                return op;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "op {id} never reached {states:?}: {op}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// A conductor killed while it delivers a notification (the subscriber holds the POST
/// unanswered): another conductor delivers it once the lost conductor is noticed, in a
/// few seconds, not when the 30 s delivery lease runs out (as before this change).
#[tokio::test]
async fn a_notification_in_delivery_when_its_conductor_dies_is_delivered_by_another() {
    let mut c = lcm_cluster(1, &["nd-1", "nd-2"]).await;
    let sub = Subscriber::start(Expect::Nothing);
    c.subscribe(&sub).await;
    sub.set_hang(true);
    let i = c.instance().await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while sub.hung() == 0 {
        assert!(tokio::time::Instant::now() < deadline, "no delivery began");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let db_url = c
        .env
        .vars
        .iter()
        .find(|(k, _)| k == "TACKER__DATABASE__URL")
        .unwrap()
        .1
        .clone();
    let holder = crate::support::psql(
        &db_url,
        "SELECT claimed_by FROM notification_outbox WHERE delivered_at IS NULL \
         AND claimed_until > now() AT TIME ZONE 'UTC'",
    );
    assert!(c.nodes.contains_key(&holder), "claimed by {holder:?}");
    c.kill(&holder);
    let killed = std::time::Instant::now();
    sub.set_hang(false);
    sub.wait("the creation notification, from the other conductor", |g| {
        g.iter().any(|n| {
            n["notificationType"] == "VnfIdentifierCreationNotification"
                && n["vnfInstanceId"] == i.as_str()
        })
    })
    .await;
    assert!(
        killed.elapsed() < Duration::from_secs(15),
        "delivered {:?} after the kill: the lease was waited out",
        killed.elapsed()
    );
}

/// The conductors' JSON log lines of the operation's runs (the RunLcmOp spans) name the
/// operation and its instance; there is at least one.
fn runs_are_traced(c: &Cluster, op: &str, instance: &str) {
    let lines: Vec<String> = c
        .nodes
        .values()
        .flat_map(|n| {
            n.proc
                .log_text()
                .lines()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .filter(|l| l.contains("\"method\":\"tacker.rpc.v1.RunLcmOp\"") && l.contains(op))
        .collect();
    assert!(!lines.is_empty(), "no log line of a RunLcmOp run of {op}");
    for l in &lines {
        assert!(
            l.contains(&format!("\"vnf_instance_id\":\"{instance}\"")),
            "a RunLcmOp span without its instance: {l}"
        );
    }
}

fn sim_vim() -> Value {
    json!({"vim1": {"vimType": "TACKER.SIM.V_1"}})
}

#[tokio::test]
async fn a_conductor_killed_mid_operation_leaves_it_failed_temp_and_retry_completes_elsewhere() {
    let c = lcm_cluster_with(1, &["lc-1", "lc-2"], &[("TACKER__LOG__FORMAT", "json")]).await;
    let sub = Subscriber::start(Expect::Nothing);
    c.subscribe(&sub).await;
    let i = c.instance().await;
    let hold = c.env.dir.path().join("hold");
    std::fs::write(&hold, "").unwrap();
    let body = json!({"flavourId": "simple", "vimConnectionInfo": sim_vim(),
        "additionalParams": {"sim": {"holdFile": hold.display().to_string()}}});
    let (status, op) = c.task(0, &i, "instantiate", body).await;
    assert_eq!(status, 202);
    let op = op.unwrap();
    c.wait_op(&op, &["PROCESSING"], Duration::from_secs(20))
        .await;
    let uid: uuid::Uuid = op.parse().unwrap();
    let runner =
        c.db.run(move |db| tacker_db::op_occs::get(db, uid))
            .await
            .unwrap()
            .unwrap()
            .conductor_id
            .unwrap();
    c.signal(&runner, "KILL");
    let killed = std::time::Instant::now();
    let failed = c
        .wait_op(&op, &["FAILED_TEMP", "COMPLETED"], Duration::from_secs(20))
        .await;
    assert_eq!(failed["operationState"], "FAILED_TEMP", "{failed}");
    // dead_after is 2 s here: within dead_after + 10 s.
    assert!(
        killed.elapsed() < Duration::from_secs(12),
        "{:?}",
        killed.elapsed()
    );
    assert!(
        failed["error"]["detail"]
            .as_str()
            .unwrap()
            .contains(&runner),
        "{failed}"
    );
    sub.wait("FAILED_TEMP notified", |g| {
        states_of(g, &op).contains(&"RESULT:FAILED_TEMP".to_owned())
    })
    .await;
    // The other conductor completes the retry.
    std::fs::remove_file(&hold).unwrap();
    let r = c
        .lcm(
            0,
            reqwest::Method::POST,
            &format!("/vnf_lcm_op_occs/{op}/retry"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let done = c
        .wait_op(&op, &["COMPLETED", "FAILED_TEMP"], Duration::from_secs(20))
        .await;
    assert_eq!(done["operationState"], "COMPLETED", "{done}");
    let got = sub
        .wait("the retry's result", |g| states_of(g, &op).len() == 5)
        .await;
    assert_eq!(
        states_of(&got, &op),
        [
            "START:STARTING",
            "START:PROCESSING",
            "RESULT:FAILED_TEMP",
            "START:PROCESSING",
            "RESULT:COMPLETED"
        ]
    );
    runs_are_traced(&c, &op, &i);
    c.teardown().await;
}

/// The simulated VIM's "fail once" holds across conductors: the retry of an occurrence
/// that failed on one conductor runs on another (the first is gone) and completes,
/// instead of failing again on a count the other conductor never saw.
#[tokio::test]
async fn a_simulated_failure_counted_on_one_conductor_is_not_repeated_on_another() {
    let c = lcm_cluster(1, &["fc-1", "fc-2"]).await;
    let i = c.instance().await;
    // Held while PROCESSING, to see which conductor runs it, then failed there.
    let hold = c.env.dir.path().join("hold");
    std::fs::write(&hold, "").unwrap();
    let body = json!({"flavourId": "simple", "vimConnectionInfo": sim_vim(),
        "additionalParams": {"sim": {"fail": ["instantiate"], "failTimes": 1,
            "holdFile": hold.display().to_string()}}});
    let (status, op) = c.task(0, &i, "instantiate", body).await;
    assert_eq!(status, 202);
    let op = op.unwrap();
    c.wait_op(&op, &["PROCESSING"], Duration::from_secs(20))
        .await;
    let uid: uuid::Uuid = op.parse().unwrap();
    let runner =
        c.db.run(move |db| tacker_db::op_occs::get(db, uid))
            .await
            .unwrap()
            .unwrap()
            .conductor_id
            .unwrap();
    std::fs::remove_file(&hold).unwrap();
    let failed = c
        .wait_op(&op, &["FAILED_TEMP", "COMPLETED"], Duration::from_secs(20))
        .await;
    assert_eq!(failed["operationState"], "FAILED_TEMP", "{failed}");
    assert!(
        failed["error"]["detail"]
            .as_str()
            .unwrap()
            .contains("simulated failure at instantiate"),
        "{failed}"
    );
    c.signal(&runner, "KILL");
    let r = c
        .lcm(
            0,
            reqwest::Method::POST,
            &format!("/vnf_lcm_op_occs/{op}/retry"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let done = c
        .wait_op(&op, &["COMPLETED", "FAILED_TEMP"], Duration::from_secs(30))
        .await;
    // Its runner is dead: the other conductor ran the retry.
    assert_eq!(done["operationState"], "COMPLETED", "{done}");
    c.teardown().await;
}

/// A cancellation asked for while its runner is dead: nobody carries it out, the
/// recovery settles the occurrence FAILED_TEMP as for any dead runner, and the pending
/// cancellation is cleared with it.
#[tokio::test]
async fn a_cancellation_whose_runner_died_is_settled_by_the_recovery() {
    let c = lcm_cluster(1, &["cc-1", "cc-2"]).await;
    let i = c.instance().await;
    let hold = c.env.dir.path().join("hold");
    std::fs::write(&hold, "").unwrap();
    let body = json!({"flavourId": "simple", "vimConnectionInfo": sim_vim(),
        "additionalParams": {"sim": {"holdFile": hold.display().to_string()}}});
    let (status, op) = c.task(0, &i, "instantiate", body).await;
    assert_eq!(status, 202);
    let op = op.unwrap();
    c.wait_op(&op, &["PROCESSING"], Duration::from_secs(20))
        .await;
    let uid: uuid::Uuid = op.parse().unwrap();
    let runner =
        c.db.run(move |db| tacker_db::op_occs::get(db, uid))
            .await
            .unwrap()
            .unwrap()
            .conductor_id
            .unwrap();
    c.signal(&runner, "STOP");
    let r = c
        .lcm(
            0,
            reqwest::Method::POST,
            &format!("/vnf_lcm_op_occs/{op}/cancel"),
        )
        .json(&json!({"cancelMode": "GRACEFUL"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    assert_eq!(c.op(&op).await["isCancelPending"], true);
    c.signal(&runner, "KILL");
    let ended = c
        .wait_op(&op, &["FAILED_TEMP", "COMPLETED"], Duration::from_secs(20))
        .await;
    assert_eq!(ended["operationState"], "FAILED_TEMP", "{ended}");
    assert!(
        ended["error"]["detail"].as_str().unwrap().contains(&runner),
        "settled by the recovery: {ended}"
    );
    assert_eq!(ended["isCancelPending"], false);
    c.teardown().await;
}

/// The broker loses the cast (its queue purged while no conductor listens, as a broker
/// restart without the message would): the occurrence waits in STARTING with nobody
/// running it, until a conductor's sweep casts it again; it then runs once.
#[tokio::test]
async fn an_operation_whose_cast_was_lost_is_cast_again_and_runs_once() {
    let mut c = lcm_cluster_with(1, &["lo-1", "lo-2"], &[("TACKER__LOG__FORMAT", "json")]).await;
    let sub = Subscriber::start(Expect::Nothing);
    c.subscribe(&sub).await;
    let i = c.instance().await;
    for id in ["lo-1", "lo-2"] {
        c.kill(id);
    }
    let body = json!({"flavourId": "simple", "vimConnectionInfo": sim_vim()});
    let (status, op) = c.task(0, &i, "instantiate", body).await;
    assert_eq!(status, 202);
    let op = op.unwrap();
    // The cast is in the conductors' queue: the broker loses it.
    let conn = lapin::Connection::connect(&c.bus_url, lapin::ConnectionProperties::default())
        .await
        .unwrap();
    let ch = conn.create_channel().await.unwrap();
    let purged = ch
        .queue_purge(
            format!("{}.conductor-quorum", c.prefix).as_str().into(),
            lapin::options::QueuePurgeOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(purged, 1, "the cast was waiting in the queue");
    let _ = conn.close(0, "done".into()).await;
    assert_eq!(c.op(&op).await["operationState"], "STARTING");
    for id in ["lo-1", "lo-2"] {
        c.start_conductor(id);
    }
    let done = c
        .wait_op(
            &op,
            &["COMPLETED", "FAILED_TEMP", "ROLLED_BACK"],
            Duration::from_secs(30),
        )
        .await;
    assert_eq!(done["operationState"], "COMPLETED", "{done}");
    let recast: Vec<&str> = ["lo-1", "lo-2"]
        .into_iter()
        .filter(|id| {
            c.nodes[*id]
                .proc
                .log_text()
                .contains("no conductor took the operation; casting it again")
        })
        .collect();
    assert!(!recast.is_empty(), "nobody cast it again");
    runs_are_traced(&c, &op, &i);
    // Run once, however many casts: each state notified once.
    sub.wait("the result", |g| {
        states_of(g, &op).contains(&"RESULT:COMPLETED".to_owned())
    })
    .await;
    // Later casts (the sweep every 300 ms, dead_after 2 s) change nothing.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(
        states_of(&sub.received(), &op),
        ["START:STARTING", "START:PROCESSING", "RESULT:COMPLETED"]
    );
    c.teardown().await;
}

#[tokio::test]
async fn two_concurrent_operations_through_two_servers_one_wins() {
    let c = lcm_cluster(2, &["lc-1", "lc-2"]).await;
    let i = c.instance().await;
    let (_, op) = c
        .task(
            0,
            &i,
            "instantiate",
            json!({"flavourId": "simple", "vimConnectionInfo": sim_vim()}),
        )
        .await;
    c.wait_op(&op.unwrap(), &["COMPLETED"], Duration::from_secs(20))
        .await;
    for _ in 0..5 {
        let slow = json!({"additionalParams": {"sim": {"delayMs": 300}}});
        let (a, b) = tokio::join!(
            c.task(0, &i, "heal", slow.clone()),
            c.task(1, &i, "heal", slow)
        );
        let mut statuses = [a.0, b.0];
        statuses.sort();
        assert_eq!(statuses, [202, 409], "exactly one operation starts");
        let op = a.1.or(b.1).unwrap();
        c.wait_op(&op, &["COMPLETED"], Duration::from_secs(20))
            .await;
    }
    c.teardown().await;
}

#[tokio::test]
async fn notifications_survive_a_subscriber_outage_and_a_conductor_restart() {
    let mut c = lcm_cluster(1, &["lc-1", "lc-2"]).await;
    let sub = Subscriber::start(Expect::Nothing);
    c.subscribe(&sub).await;
    sub.set_down(true);
    let i = c.instance().await;
    let (_, op) = c
        .task(
            0,
            &i,
            "instantiate",
            json!({"flavourId": "simple", "vimConnectionInfo": sim_vim()}),
        )
        .await;
    let op = op.unwrap();
    c.wait_op(&op, &["COMPLETED"], Duration::from_secs(20))
        .await;
    let (_, heal) = c.task(0, &i, "heal", json!({})).await;
    let heal = heal.unwrap();
    c.wait_op(&heal, &["COMPLETED"], Duration::from_secs(20))
        .await;
    // Every conductor dies with the notifications undelivered, then comes back.
    c.signal("lc-1", "KILL");
    c.signal("lc-2", "KILL");
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert!(sub.received().is_empty());
    // lc-1 died in the middle of delivering: it holds the claims (a minute's lease),
    // unless the kill already left them held by the conductor that was delivering.
    let held =
        c.db.run(|db| {
            let heads = tacker_db::outbox::heads(db)?;
            for seq in &heads {
                tacker_db::outbox::claim(db, *seq, "lc-1", Duration::from_secs(60))?;
            }
            Ok::<_, tacker_db::Error>(heads.len())
        })
        .await
        .unwrap();
    assert!(held > 0, "deliveries were in flight");
    c.start_conductor("lc-1");
    c.start_conductor("lc-2");
    c.wait_ready("lc-1").await;
    sub.set_down(false);
    let got = sub.wait("all seven", |g| g.len() >= 7).await;
    assert_eq!(got.len(), 7, "nothing lost, nothing twice: {got:#?}");
    assert_eq!(
        got[0]["notificationType"],
        "VnfIdentifierCreationNotification"
    );
    assert_eq!(
        states_of(&got, &op),
        ["START:STARTING", "START:PROCESSING", "RESULT:COMPLETED"]
    );
    assert_eq!(
        states_of(&got, &heal),
        ["START:STARTING", "START:PROCESSING", "RESULT:COMPLETED"]
    );
    c.teardown().await;
}

/// The conductor running an automatic heal is killed: the heal is settled (FAILED_TEMP,
/// as any operation of a lost conductor), the alerts that keep coming start no second
/// heal, and the operator's retry completes it; still one heal.
#[tokio::test]
async fn an_automatic_heal_whose_conductor_dies_is_settled_and_not_repeated() {
    let c = lcm_cluster_with(
        1,
        &["ah-1", "ah-2"],
        &[
            ("TACKER__FM__AUTO_HEAL_WINDOW", "300ms"),
            ("TACKER__FM__LOOP_INTERVAL", "200ms"),
            ("TACKER__FM__COOLDOWN", "1s"),
        ],
    )
    .await;
    let i = c.instance().await;
    let (status, op) = c
        .task(
            0,
            &i,
            "instantiate",
            json!({"flavourId": "simple", "vimConnectionInfo": sim_vim()}),
        )
        .await;
    assert_eq!(status, 202);
    c.wait_op(&op.unwrap(), &["COMPLETED"], Duration::from_secs(20))
        .await;
    // Opted in; every step of its operations holds while the file exists.
    let hold = c.env.dir.path().join("hold-auto");
    std::fs::write(&hold, "").unwrap();
    let r = c
        .lcm(0, reqwest::Method::PATCH, &format!("/vnf_instances/{i}"))
        .json(
            &json!({"vnfConfigurableProperties": {"isAutohealEnabled": true},
            "extensions": {"sim": {"holdFile": hold.display().to_string()}}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let modify = tacker_testkit::id_of(r.headers()["location"].to_str().unwrap());
    // The modification itself holds too: release it for that.
    std::fs::remove_file(&hold).unwrap();
    c.wait_op(&modify, &["COMPLETED"], Duration::from_secs(20))
        .await;
    std::fs::write(&hold, "").unwrap();
    let v: Value = c
        .lcm(0, reqwest::Method::GET, &format!("/vnf_instances/{i}"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let vnfc = v["instantiatedVnfInfo"]["vnfcInfo"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let alert = json!({"alerts": [{"status": "firing", "startsAt": "2026-12-03T10:00:00Z", "fingerprint": "kill-1",
        "labels": {"receiver_type": "tacker", "function_type": "auto_heal", "vnf_instance_id": i, "vnfc_info_id": vnfc}}]});
    let post_alert = || async {
        let r = c
            .http
            .post(format!("{}/alert/auto_healing", c.api))
            .json(&alert)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
    };
    post_alert().await;
    let heals = || async {
        let v: Vec<Value> = c
            .lcm(
                0,
                reqwest::Method::GET,
                &format!("/vnf_lcm_op_occs?filter=(eq,operation,HEAL);(eq,vnfInstanceId,{i})"),
            )
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        v
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    let heal = loop {
        if let Some(h) = heals().await.first() {
            break h["id"].as_str().unwrap().to_owned();
        }
        assert!(tokio::time::Instant::now() < deadline, "no automatic heal");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    c.wait_op(&heal, &["PROCESSING"], Duration::from_secs(20))
        .await;
    let uid: uuid::Uuid = heal.parse().unwrap();
    let runner =
        c.db.run(move |db| tacker_db::op_occs::get(db, uid))
            .await
            .unwrap()
            .unwrap()
            .conductor_id
            .unwrap();
    c.signal(&runner, "KILL");
    let failed = c
        .wait_op(
            &heal,
            &["FAILED_TEMP", "COMPLETED"],
            Duration::from_secs(30),
        )
        .await;
    assert_eq!(failed["operationState"], "FAILED_TEMP", "{failed}");
    assert_eq!(failed["isAutomaticInvocation"], true);
    // The alert keeps firing: nothing more starts.
    std::fs::remove_file(&hold).unwrap();
    for _ in 0..5 {
        post_alert().await;
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert_eq!(heals().await.len(), 1, "{:?}", heals().await);
    // The operator retries it: completed, by the other conductor; still one heal.
    let r = c
        .lcm(
            0,
            reqwest::Method::POST,
            &format!("/vnf_lcm_op_occs/{heal}/retry"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let done = c
        .wait_op(
            &heal,
            &["COMPLETED", "FAILED_TEMP"],
            Duration::from_secs(30),
        )
        .await;
    assert_eq!(done["operationState"], "COMPLETED", "{done}");
    post_alert().await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(heals().await.len(), 1, "{:?}", heals().await);
}
