use std::time::Duration;

use serde_json::{Value, json};
use tacker_rpc::proto::{Ping, Pong};
use tacker_rpc::{Bus, BusOptions};
use tacker_testkit::TestDb;

use crate::support::{ClusterEnv, Proc, free_port, wait_status};

/// `tacker server` and two `tacker conductor` processes on PostgreSQL + RabbitMQ.
#[tokio::test]
async fn server_and_two_conductor_processes_on_postgres_and_rabbitmq() {
    let tdb = TestDb::postgres();
    let amqp = tacker_testkit::amqp_url();
    let prefix = tacker_testkit::unique_prefix();
    let env = ClusterEnv::new(&tdb.url, &amqp, &prefix);
    let http = reqwest::Client::new();

    // The schema is current (the template is migrated): migrate is a no-op and says so.
    let out = env.command(&[]).args(["db", "migrate"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("schema is current"));

    let api_port = free_port();
    let api = format!("http://127.0.0.1:{api_port}");
    let mut server = Proc::spawn(
        env.command(&[("TACKER__SERVER__BIND", format!("127.0.0.1:{api_port}"))])
            .arg("server"),
        &env.log_path("server"),
    );
    let mut conductors = Vec::new();
    let mut health = Vec::new();
    for id in ["pc-1", "pc-2"] {
        let port = free_port();
        health.push(format!("http://127.0.0.1:{port}"));
        conductors.push(Proc::spawn(
            env.command(&[
                ("TACKER__CONDUCTOR__ID", id.into()),
                (
                    "TACKER__CONDUCTOR__HEALTH_BIND",
                    format!("127.0.0.1:{port}"),
                ),
            ])
            .arg("conductor"),
            &env.log_path(id),
        ));
    }
    wait_status(
        &http,
        &format!("{api}/readyz"),
        200,
        Duration::from_secs(30),
    )
    .await;
    for h in &health {
        wait_status(&http, &format!("{h}/readyz"), 200, Duration::from_secs(30)).await;
    }

    // Both conductors are registered and live.
    let members: Vec<Value> = http
        .get(format!("{api}/admin/v1/conductors"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let live: Vec<&str> = members
        .iter()
        .filter(|m| m["live"] == true)
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(live, ["pc-1", "pc-2"], "{members:?}");
    assert!(members.iter().all(|m| m["state"] == "READY"));

    // The package API works through the real server process.
    let r = http
        .post(format!("{api}/vnfpkgm/v1/vnf_packages"))
        .json(&json!({"userDefinedData": {"k": "v"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let pkg: Value = r.json().await.unwrap();
    let list: Vec<Value> = http
        .get(format!("{api}/vnfpkgm/v1/vnf_packages"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["id"], pkg["id"]);

    // Over RabbitMQ, both conductor processes answer a scatter-gather.
    let bus = Bus::connect(&BusOptions::new(amqp.clone(), prefix.clone()), "test")
        .await
        .unwrap();
    let ids = vec!["pc-1".to_owned(), "pc-2".to_owned()];
    let g = bus
        .scatter_gather::<Ping, Pong>(
            &Ping { note: "x".into() },
            &ids,
            &[],
            Duration::from_secs(5),
        )
        .await
        .unwrap();
    assert!(g.missing.is_empty(), "{g:?}");

    // SIGKILL one conductor: after dead_after it is no longer live and does not answer.
    conductors[0].signal("KILL");
    conductors[0].wait(Duration::from_secs(5));
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let members: Vec<Value> = http
        .get(format!("{api}/admin/v1/conductors"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let live: Vec<&str> = members
        .iter()
        .filter(|m| m["live"] == true)
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(live, ["pc-2"], "{members:?}");
    let g = bus
        .scatter_gather::<Ping, Pong>(
            &Ping { note: "y".into() },
            &ids,
            &[],
            Duration::from_secs(2),
        )
        .await
        .unwrap();
    assert_eq!(g.missing, ["pc-1"]);

    // SIGTERM the other: it records STOPPING and exits cleanly.
    conductors[1].signal("TERM");
    assert_eq!(
        conductors[1].wait(Duration::from_secs(15)),
        Some(0),
        "{}",
        conductors[1].log_text()
    );
    let members: Vec<Value> = http
        .get(format!("{api}/admin/v1/conductors"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let pc2 = members.iter().find(|m| m["id"] == "pc-2").unwrap();
    assert_eq!(pc2["state"], "STOPPING");
    assert_eq!(pc2["live"], false);

    server.signal("TERM");
    assert_eq!(
        server.wait(Duration::from_secs(15)),
        Some(0),
        "{}",
        server.log_text()
    );
    bus.teardown().await.unwrap();
}

/// A server refuses to run on a database that was never migrated.
#[tokio::test]
async fn server_refuses_an_unmigrated_database() {
    let dir = tempfile::tempdir().unwrap();
    let env = ClusterEnv::new(
        &format!("sqlite://{}/fresh.db", dir.path().display()),
        "memory://",
        "x",
    );
    let out = env
        .command(&[("TACKER__SERVER__BIND", format!("127.0.0.1:{}", free_port()))])
        .arg("server")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("tacker db migrate"));
    let out = env.command(&[]).args(["db", "migrate"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("applied"));
}
