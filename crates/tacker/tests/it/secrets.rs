//! `tacker secrets rotate` over every sealed secret, and start-up refusing keys it lacks;
//! the planted secrets never reach the processes' logs, even at `debug`.

use std::time::Duration;

use serde_json::json;
use tacker_testkit::peers::{Expect, Subscriber};

use crate::procs::{Cluster, SIM_HOOKS};
use crate::support::{TEST_KEY, tacker};

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
    let pkg = c.upload(tacker_testkit::csar::valid().zip()).await;
    c.wait_state(&pkg, &["ONBOARDED"], Duration::from_secs(30))
        .await;
    let i = c.instance().await;
    let vim = json!({"vim1": {"vimType": "TACKER.SIM.V_1", "accessInfo": {"username": "a", "password": "rot-vim-1",
        "bearer_token": "rot-bt-1", "apiKey": "rot-ak-1"}}});
    let (status, op) = c
        .task(
            0,
            &i,
            "instantiate",
            json!({"flavourId": "simple", "vimConnectionInfo": vim,
                "additionalParams": {"sim": {"fail": ["instantiate"], "failTimes": 1},
                    "db": {"password": "rot-param-1"}}}),
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
    sub.wait("notifications", |g| g.len() >= 4).await;
    // Every process logged at debug; none of the planted secrets is in a log.
    let logs: String = c
        .servers
        .iter()
        .map(|p| p.log_text())
        .chain(c.nodes.values().map(|n| n.proc.log_text()))
        .collect();
    assert!(logs.contains("DEBUG"), "the processes log at debug");
    for secret in [
        "rot-pw-1",
        "rot-vim-1",
        "rot-bt-1",
        "rot-ak-1",
        "rot-param-1",
    ] {
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
    assert!(
        before.contains("enc:v1:t1:")
            && !before.contains("rot-pw-1")
            && !before.contains("rot-vim-1")
    );
    let new_key = {
        let out = tacker()
            .args(["secrets", "generate-key", "t2"])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    };
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
    let shared = format!("{}.conductor", c.prefix);
    let dead = format!("{}.dead", c.prefix);
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
