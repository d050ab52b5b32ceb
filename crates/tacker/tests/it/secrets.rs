//! `tacker secrets rotate` over every sealed secret, and start-up refusing keys it lacks;
//! the planted secrets never reach the processes' logs, even at `debug`.

use std::time::Duration;

use serde_json::json;
use tacker_testkit::peers::{Expect, Subscriber};

use crate::procs::{Cluster, SIM_HOOKS};
use crate::support::{TEST_KEY, generate_key, psql};

fn dump(url: &str) -> String {
    let out = std::process::Command::new("pg_dump")
        .arg(url)
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test]
async fn rotation_reseals_every_secret_and_a_missing_key_stops_the_start() {
    let c = Cluster::start_with(
        1,
        &["sk-1"],
        &[
            ("TACKER__LCM__SIMULATED_VIM", "true"),
            ("TACKER__MGMT__DRIVERS", SIM_HOOKS),
            ("RUST_LOG", "debug"),
        ],
    )
    .await;
    let sub = Subscriber::start(Expect::Nothing);
    let r = c
        .lcm(0, reqwest::Method::POST, "/subscriptions")
        .json(
            &json!({"callbackUri": sub.url, "authentication": {"authType": ["BASIC"],
            "paramsBasic": {"userName": "u", "password": "rot-pw-1"}}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    // The package declares a parameter of its own secret.
    let declaring =
        tacker_testkit::csar::declaring_secret(tacker_testkit::csar::valid(), "db_login");
    let pkg = c.upload(declaring.zip()).await;
    c.wait_state(&pkg, &["ONBOARDED"], Duration::from_secs(30))
        .await;
    // The cluster behind it takes the VIM's token (registration checks it).
    let cluster = kube_sim::spawn(kube_sim::Settings {
        token: Some("rot-vbt-1".into()),
        tls: true,
        ..Default::default()
    })
    .unwrap();
    // A registered VIM whose credentials and extra hold secrets of every kind the
    // registry keeps (Tacker's helm_info carries masternode_password).
    let r = c
        .http
        .post(format!("{}/v1.0/vims", c.api))
        .json(&json!({"vim": {"name": "planted", "type": "kubernetes",
            "auth_url": cluster.url,
            "auth_cred": {"bearer_token": "rot-vbt-1", "ssl_ca_cert": cluster.ca_pem, "passwd": "rot-vpw-1",
                "kubeconfig": "rot-vkc-1", "private_key_pem": "rot-vpk-1",
                "cert_key_data": "rot-vck-1", "username": "vim-user"},
            "vim_project": {"name": "default"},
            "extra": {"area": "tokyo", "helm_info": {"masternode_ip": ["10.0.0.1"],
                "masternode_password": "rot-vmn-1"}}}}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let vim_answer = r.text().await.unwrap();
    let vim_id = serde_json::from_str::<serde_json::Value>(&vim_answer).unwrap()["vim"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let i = c.instance().await;
    let vim = json!({"vim1": {"vimType": "TACKER.SIM.V_1", "accessInfo": {"username": "a", "password": "rot-vim-1",
        "bearer_token": "rot-bt-1", "apiKey": "rot-ak-1", "kubeconfig": {"token": "rot-kc-1"}},
        "extra": {"helm_info": {"masternode_password": "rot-mn-1"}}}});
    let (status, op) = c
        .task(
            0,
            &i,
            "instantiate",
            json!({"flavourId": "simple", "vimConnectionInfo": vim,
                "additionalParams": {"sim": {"fail": ["instantiate"], "failTimes": 1},
                    "db": {"password": "rot-param-1"}, "registry_token": "rot-rt-1",
                    "api_token": "rot-at-1", "private_key": "rot-pk-1", "apiKey": "rot-pak-1",
                    "credential": {"user": "u", "pass": "rot-cr-1"}}}),
        )
        .await;
    assert_eq!(status, 202);
    // A failure and a retry, so the error paths log too.
    let op = op.unwrap();
    c.wait_op(&op, &["FAILED_TEMP"], Duration::from_secs(30))
        .await;
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
    c.wait_op(&op, &["COMPLETED"], Duration::from_secs(30))
        .await;
    // A later operation carries secrets of its own.
    let (status, heal) = c
        .task(
            0,
            &i,
            "heal",
            json!({"additionalParams": {"registry_token": "rot-hrt-1", "db_login": "rot-dl-1",
                "plain_one": "shown-1"}}),
        )
        .await;
    assert_eq!(status, 202);
    c.wait_op(&heal.unwrap(), &["COMPLETED"], Duration::from_secs(30))
        .await;
    let got = sub
        .wait("both operations' ends", |g| {
            g.iter()
                .filter(|n| n["operationState"] == "COMPLETED")
                .count()
                == 2
        })
        .await;
    let planted = [
        "rot-pw-1",
        "rot-vim-1",
        "rot-bt-1",
        "rot-ak-1",
        "rot-kc-1",
        "rot-mn-1",
        "rot-param-1",
        "rot-rt-1",
        "rot-at-1",
        "rot-pk-1",
        "rot-pak-1",
        "rot-cr-1",
        "rot-hrt-1",
        "rot-dl-1",
        "rot-vbt-1",
        "rot-vpw-1",
        "rot-vkc-1",
        "rot-vpk-1",
        "rot-vck-1",
        "rot-vmn-1",
    ];
    // Every answer: the VIM, the instance, the occurrences (one and the list).
    let mut answers = vim_answer;
    for path in [
        format!("/v1.0/vims/{vim_id}"),
        "/v1.0/vims".to_owned(),
        format!("/vnflcm/v2/vnf_instances/{i}"),
        "/vnflcm/v2/vnf_lcm_op_occs".to_owned(),
        format!("/vnflcm/v2/vnf_lcm_op_occs/{op}"),
        format!("/vnflcm/v1/vnf_lcm_op_occs/{op}"),
    ] {
        let r = c
            .http
            .get(format!("{}{path}", c.api))
            .header("Version", "2.0.0")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{path}");
        answers.push_str(&r.text().await.unwrap());
    }
    assert!(
        answers.contains("vim-user") && answers.contains("tokyo"),
        "{answers}"
    );
    let notifications = serde_json::to_string(&got).unwrap();
    for secret in planted {
        assert!(!answers.contains(secret), "{secret} answered");
        assert!(!notifications.contains(secret), "{secret} notified");
    }
    // Every process logged at debug; none of the planted secrets is in a log.
    let logs: String = c
        .servers
        .iter()
        .map(|p| p.log_text())
        .chain(c.nodes.values().map(|n| n.proc.log_text()))
        .collect();
    assert!(logs.contains("DEBUG"), "the processes log at debug");
    for secret in planted {
        assert!(!logs.contains(secret), "{secret} logged");
    }
    let db_url = c
        .env
        .vars
        .iter()
        .find(|(k, _)| k == "TACKER__DATABASE__URL")
        .unwrap()
        .1
        .clone();
    let before = dump(&db_url);
    assert!(before.contains("enc:v1:t1:"));
    for secret in planted {
        assert!(!before.contains(secret), "{secret} in the database dump");
    }
    let new_key = generate_key("t2");
    let run = |keys: String, args: &[&str]| {
        let mut cmd = c.env.command(&[("TACKER__SECRETS__KEYS", keys)]);
        cmd.args(args).output().unwrap()
    };
    let out = run(format!("{new_key},{TEST_KEY}"), &["secrets", "rotate"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("with key t2"), "{text}");
    let after = dump(&db_url);
    assert!(!after.contains("enc:v1:t1:"), "everything re-sealed");
    assert!(after.contains("enc:v1:t2:"));
    // Without the key the secrets are sealed with, a process refuses to start.
    let out = run(TEST_KEY.to_owned(), &["secrets", "rotate"]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("t2"),
        "names the missing key"
    );
    // With it alone, all is well.
    let out = run(new_key, &["secrets", "rotate"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    c.teardown().await;
}

/// The credentials of `upload_from_uri` cross the broker sealed: in the conductors'
/// durable queue and, once a message is rejected, in the dead-letter queue (both are on
/// the broker's disk), and a conductor opens them from there (the dead letter, driven
/// back into the queue, still onboards the package behind basic auth).
#[tokio::test]
async fn upload_credentials_stay_sealed_in_the_durable_and_dead_letter_queues() {
    use lapin::options::{BasicGetOptions, BasicPublishOptions, BasicRejectOptions};
    let mut c = Cluster::start_with(1, &[], &[]).await;
    let base =
        crate::procs::file_server(tacker_testkit::csar::valid_with_vnfd_id("bus-vnfd").zip());
    let pkg = c.create().await;
    let r = c
        .http
        .post(format!(
            "{}/vnfpkgm/v1/vnf_packages/{pkg}/package_content/upload_from_uri",
            c.api
        ))
        .json(&json!({"addressInformation": format!("{base}/private.zip"),
            "userName": "ops", "password": "secret"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let conn = lapin::Connection::connect(&c.bus_url, lapin::ConnectionProperties::default())
        .await
        .unwrap();
    let ch = conn.create_channel().await.unwrap();
    let shared = format!("{}.conductor-quorum", c.prefix);
    let dead = format!("{}.dead-quorum", c.prefix);
    let sealed = |what: &str, body: &[u8]| {
        let text = String::from_utf8_lossy(body);
        assert!(text.contains(&pkg), "{what}: the upload of {pkg}: {text:?}");
        assert!(text.contains("enc:v1:"), "{what}: sealed: {text:?}");
        assert!(!text.contains("secret"), "{what}: the password in clear");
    };
    let waiting = ch
        .basic_get(shared.as_str().into(), BasicGetOptions { no_ack: false })
        .await
        .unwrap()
        .expect("the cast waits in the conductors' queue");
    sealed("durable queue", &waiting.delivery.data);
    waiting
        .delivery
        .acker
        .reject(BasicRejectOptions { requeue: false })
        .await
        .unwrap();
    let mut letter = None;
    for _ in 0..50 {
        letter = ch
            .basic_get(dead.as_str().into(), BasicGetOptions { no_ack: true })
            .await
            .unwrap();
        if letter.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let letter = letter.expect("the rejected message is dead-lettered");
    sealed("dead-letter queue", &letter.delivery.data);
    // Driven back (as an operator re-drives dead letters), a conductor opens it.
    ch.basic_publish(
        "".into(),
        shared.as_str().into(),
        BasicPublishOptions::default(),
        &letter.delivery.data,
        letter.delivery.properties.clone(),
    )
    .await
    .unwrap()
    .await
    .unwrap();
    let _ = conn.close(200, "done".into()).await;
    c.start_conductor("bus-1");
    c.wait_ready("bus-1").await;
    let p = c
        .wait_state(&pkg, &["ONBOARDED", "CREATED"], Duration::from_secs(30))
        .await;
    assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
    assert_eq!(p["vnfdId"], "bus-vnfd");
    c.teardown().await;
}

/// A rotation killed mid-way loses nothing: `tacker secrets rotate` is stopped by SIGKILL
/// while it waits on a row locked by another session, two chunks (1,000 rows) committed
/// and a third in flight. The in-flight chunk is rolled back whole, every secret still
/// opens with the old and the new key, a rotation without the new key names it, and the
/// next run re-seals only the 500 rows left.
#[tokio::test]
async fn a_rotation_killed_mid_way_is_finished_by_the_next_run() {
    use std::io::Write;
    use std::process::Stdio;

    let db = tacker_testkit::TestDb::postgres();
    let env =
        crate::support::ClusterEnv::new(&db.url, "memory://", &tacker_testkit::unique_prefix());
    let old = tacker_db::secrets::Keyring::parse(&[TEST_KEY.to_owned()]).unwrap();
    let secret = old.seal("pw-killed").unwrap();
    let request = json!({"vimConnectionInfo": {"v": {"accessInfo": {"password": secret}}}});
    psql(
        &db.url,
        &format!(
            "INSERT INTO vnf_lcm_op_occs (id, vnf_instance_id, operation, operation_state, \
             state_entered_time, start_time, request, created_at) \
             SELECT 'occ-' || lpad(n::text, 5, '0'), 'i', 'INSTANTIATE', 'COMPLETED', now(), \
             now(), '{request}', now() FROM generate_series(1, 1500) AS n"
        ),
    );
    let count = |key: &str| -> usize {
        psql(
            &db.url,
            &format!("SELECT count(*) FROM vnf_lcm_op_occs WHERE request LIKE '%enc:v1:{key}:%'"),
        )
        .parse()
        .unwrap()
    };
    let new_key = generate_key("t2");
    let rotate = |keys: String| {
        let mut cmd = env.command(&[("TACKER__SECRETS__KEYS", keys)]);
        cmd.args(["secrets", "rotate"]);
        cmd
    };

    // Another session holds a row of the third chunk.
    let mut holder = std::process::Command::new("psql")
        .args([db.url.as_str(), "-qX"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut hold = holder.stdin.take().unwrap();
    writeln!(
        hold,
        "BEGIN; SELECT id FROM vnf_lcm_op_occs WHERE id = 'occ-01200' FOR UPDATE;"
    )
    .unwrap();
    let waiting = |what: &str| {
        psql(
            &db.url,
            &format!(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() \
                 AND {what}"
            ),
        ) != "0"
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !waiting("state = 'idle in transaction'") {
        assert!(
            std::time::Instant::now() < deadline,
            "the lock was not taken"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut rotation = rotate(format!("{new_key},{TEST_KEY}"))
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    while !waiting("wait_event_type = 'Lock' AND query LIKE 'UPDATE%'") {
        assert!(
            std::time::Instant::now() < deadline,
            "the rotation never reached the row"
        );
        assert!(rotation.try_wait().unwrap().is_none(), "the rotation ended");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The fault lands on work in flight: two chunks done, the third under way.
    assert_eq!((count("t2"), count("t1")), (1000, 500));
    rotation.kill().unwrap();
    rotation.wait().unwrap();
    writeln!(hold, "COMMIT;").unwrap();
    drop(hold);
    holder.wait().unwrap();
    while waiting("wait_event_type = 'Lock'") {
        assert!(
            std::time::Instant::now() < deadline,
            "the killed session lingers"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        (count("t2"), count("t1")),
        (1000, 500),
        "the chunk in flight rolled back"
    );

    // Both keys are needed now, and a start without the new one says so.
    let out = rotate(TEST_KEY.to_owned()).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("t2"));
    // The next run re-seals what is left, and only that.
    let out = rotate(format!("{new_key},{TEST_KEY}")).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("and 500 row(s)"), "{text}");
    assert_eq!((count("t2"), count("t1")), (1500, 0));
    // The new key alone opens everything.
    let out = rotate(new_key).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("and 0 row(s)"));
}
