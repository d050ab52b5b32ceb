//! Multi-conductor onboarding with real processes: `tacker server` and three (then four)
//! `tacker conductor` processes on PostgreSQL and RabbitMQ.

use std::time::Duration;

use serde_json::{Value, json};
use tacker_testkit::csar::{valid, valid_with_vnfd_id};

use crate::procs::{Cluster, file_server};

#[tokio::test]
async fn uploads_onboard_on_every_conductor_and_delete_reaches_them_all() {
    let c = Cluster::start(&["pc-1", "pc-2", "pc-3"]).await;
    let id = c.upload(valid().zip()).await;
    // The first time ONBOARDED is visible, every cache already holds the package.
    let p = c
        .wait_state(&id, &["ONBOARDED", "CREATED"], Duration::from_secs(30))
        .await;
    let held: Vec<bool> = ["pc-1", "pc-2", "pc-3"]
        .iter()
        .map(|n| c.cached(n, &id))
        .collect();
    assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
    assert_eq!(held, [true, true, true]);

    // upload_from_uri with basic auth, fetched by whichever conductor takes the cast.
    let base = file_server(valid_with_vnfd_id("from-uri-vnfd").zip());
    let uri_id = c.create().await;
    let r = c
        .http
        .post(format!("{}/vnfpkgm/v1/vnf_packages/{uri_id}/package_content/upload_from_uri", c.api))
        .json(&json!({"addressInformation": format!("{base}/private.zip"), "userName": "ops", "password": "secret"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let p = c
        .wait_state(&uri_id, &["ONBOARDED", "CREATED"], Duration::from_secs(30))
        .await;
    assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
    assert_eq!(p["vnfdId"], "from-uri-vnfd");
    assert!(
        ["pc-1", "pc-2", "pc-3"]
            .iter()
            .all(|n| c.cached(n, &uri_id))
    );

    // Delete: storage and every cache lose it.
    let url = format!("{}/vnfpkgm/v1/vnf_packages/{id}", c.api);
    c.http
        .patch(&url)
        .header("content-type", "application/merge-patch+json")
        .body(r#"{"operationalState":"DISABLED"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(c.http.delete(&url).send().await.unwrap().status(), 204);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    while c.stored(&id) || ["pc-1", "pc-2", "pc-3"].iter().any(|n| c.cached(n, &id)) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "content of a deleted package remains"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(c.stored(&uri_id), "the other package is untouched");
    c.teardown().await;
}

/// A package large enough that caching it takes a moment.
fn big_package(vnfd_id: &str) -> Vec<u8> {
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let noise: Vec<u8> = (0..48 * 1024 * 1024 / 8)
        .flat_map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed.to_le_bytes()
        })
        .collect();
    valid_with_vnfd_id(vnfd_id)
        .with("Files/images/big.img", noise)
        .zip()
}

/// Whether conductor `id` is in the middle of filling its cache.
fn filling(c: &Cluster, id: &str) -> bool {
    std::fs::read_dir(&c.nodes[id].cache)
        .map(|d| {
            d.flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with(".tmp-"))
        })
        .unwrap_or(false)
}

#[tokio::test]
async fn a_conductor_killed_mid_download_fails_the_onboarding_within_the_deadline() {
    let c = Cluster::start(&["pc-1", "pc-2", "pc-3"]).await;
    let id = c.upload(big_package("big-1")).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while !filling(&c, "pc-3") {
        assert!(
            tokio::time::Instant::now() < deadline,
            "pc-3 never started caching"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    c.signal("pc-3", "KILL");
    let started = std::time::Instant::now();
    let p = c
        .wait_state(&id, &["CREATED", "ONBOARDED"], Duration::from_secs(30))
        .await;
    assert_eq!(p["onboardingState"], "CREATED", "{p}");
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "ended within the deadline: {:?}",
        started.elapsed()
    );
    let detail = p["onboardingFailureDetails"]["detail"].as_str().unwrap();
    assert!(detail.contains("pc-3"), "{detail}");
    assert!(!c.stored(&id));
    assert!(!c.cached("pc-1", &id) && !c.cached("pc-2", &id));
    c.teardown().await;
}

#[tokio::test]
async fn a_coordinator_killed_mid_onboarding_is_recovered_by_a_live_conductor() {
    let c = Cluster::start(&["pc-1", "pc-2", "pc-3"]).await;
    let id = c.upload(big_package("big-2")).await;
    c.wait_state(&id, &["PROCESSING"], Duration::from_secs(30))
        .await;
    let coordinator = c.coordinator(&id).await.expect("a coordinator");
    c.signal(&coordinator, "KILL");
    let p = c
        .wait_state(&id, &["CREATED", "ONBOARDED"], Duration::from_secs(30))
        .await;
    assert_eq!(p["onboardingState"], "CREATED", "{p}");
    let detail = p["onboardingFailureDetails"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("coordinator lost") && detail.contains(&coordinator),
        "{detail}"
    );
    assert!(!c.stored(&id));
    for n in ["pc-1", "pc-2", "pc-3"]
        .iter()
        .filter(|n| **n != coordinator)
    {
        assert!(!c.cached(n, &id), "{n} keeps it");
    }
    c.teardown().await;
}

/// Kills conductor `id` and starts it again at once under the same id and cache (a
/// StatefulSet pod restarting).
fn restart(c: &mut Cluster, id: &str) {
    c.kill(id);
    c.start_conductor(id);
}

#[tokio::test]
async fn a_coordinator_that_comes_back_under_the_same_id_settles_its_onboarding_before_ready() {
    let mut c = Cluster::start(&["pc-1", "pc-2", "pc-3"]).await;
    let id = c.upload(big_package("big-3")).await;
    c.wait_state(&id, &["PROCESSING"], Duration::from_secs(30))
        .await;
    let coordinator = c.coordinator(&id).await.expect("a coordinator");
    let started = std::time::Instant::now();
    restart(&mut c, &coordinator);
    let p = c
        .wait_state(&id, &["CREATED", "ONBOARDED"], Duration::from_secs(30))
        .await;
    assert_eq!(p["onboardingState"], "CREATED", "{p}");
    let detail = p["onboardingFailureDetails"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("coordinator restarted") && detail.contains(&coordinator),
        "{detail}"
    );
    c.wait_ready(&coordinator).await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "settled at start, not after a timeout: {:?}",
        started.elapsed()
    );
    assert!(!c.stored(&id));
    for n in ["pc-1", "pc-2", "pc-3"] {
        assert!(!c.cached(n, &id), "{n} keeps it");
    }
    // The same package onboards again everywhere.
    let zip = big_package("big-3");
    let r = c
        .http
        .put(format!(
            "{}/vnfpkgm/v1/vnf_packages/{id}/package_content",
            c.api
        ))
        .header("Content-Type", "application/zip")
        .body(zip)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let p = c
        .wait_state(&id, &["CREATED", "ONBOARDED"], Duration::from_secs(60))
        .await;
    assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
    for n in ["pc-1", "pc-2", "pc-3"] {
        assert!(c.cached(n, &id), "{n} lacks it");
    }
    c.teardown().await;
}

#[tokio::test]
async fn a_member_that_restarts_mid_download_is_asked_again_and_holds_the_package() {
    let mut c = Cluster::start(&["pc-1", "pc-2", "pc-3"]).await;
    let id = c.upload(big_package("big-4")).await;
    c.wait_state(&id, &["PROCESSING"], Duration::from_secs(30))
        .await;
    let coordinator = c.coordinator(&id).await.expect("a coordinator");
    let member = ["pc-1", "pc-2", "pc-3"]
        .into_iter()
        .find(|n| *n != coordinator)
        .unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while !filling(&c, member) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{member} never started caching"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    restart(&mut c, member);
    let p = c
        .wait_state(&id, &["CREATED", "ONBOARDED"], Duration::from_secs(60))
        .await;
    assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
    c.wait_ready(member).await;
    for n in ["pc-1", "pc-2", "pc-3"] {
        assert!(c.cached(n, &id), "{n} lacks it, yet it is ONBOARDED");
    }
    c.teardown().await;
}

#[tokio::test]
async fn a_fourth_conductor_syncs_every_package_before_it_turns_ready() {
    let mut c = Cluster::start(&["pc-1", "pc-2", "pc-3"]).await;
    // More packages than a conductor fetches at once when it syncs.
    let mut ids = Vec::new();
    for i in 0..9 {
        ids.push(
            c.upload(valid_with_vnfd_id(&format!("sync-{i}")).zip())
                .await,
        );
    }
    for id in &ids {
        assert_eq!(
            c.wait_state(id, &["ONBOARDED", "CREATED"], Duration::from_secs(30))
                .await["onboardingState"],
            "ONBOARDED"
        );
    }
    c.start_conductor("pc-4");
    // While it starts, more work arrives; it must take none of it before READY.
    let mut later = Vec::new();
    for i in 9..11 {
        later.push(
            c.upload(valid_with_vnfd_id(&format!("sync-{i}")).zip())
                .await,
        );
    }
    let health = format!("{}/readyz", c.nodes["pc-4"].health);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(r) = c.http.get(&health).send().await
            && r.status() == 200
        {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "pc-4 never READY");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // The moment its readiness passes, it holds every package that was ONBOARDED before.
    for id in &ids {
        assert!(c.cached("pc-4", id), "pc-4 READY without {id}");
    }
    for id in &later {
        c.wait_state(id, &["ONBOARDED", "CREATED"], Duration::from_secs(30))
            .await;
    }
    let log = c.nodes["pc-4"].proc.log_text();
    let ready_at = log.find("READY").expect("READY logged");
    let synced_at = log.find("cache in sync").expect("sync logged");
    assert!(synced_at < ready_at, "synced before READY:\n{log}");
    if let Some(coordinated) = log.find("coordinating onboarding") {
        assert!(coordinated > ready_at, "took a cast before READY:\n{log}");
    }
    let row: Vec<_> = c.db.conductors().list().await.unwrap();
    assert!(
        row.iter()
            .any(|r| r.id == "pc-4" && r.state == tacker_domain::conductor::ConductorState::Ready)
    );
    let _ = c.state(&ids[0]).await;
    c.teardown().await;
}

#[tokio::test]
async fn a_conductor_process_that_cannot_write_its_cache_is_named_and_nothing_is_kept() {
    let c = Cluster::start(&["pc-1", "pc-2", "pc-3"]).await;
    let broken = c.nodes["pc-2"].cache.clone();
    tacker_testkit::csar::make_read_only(&broken);
    let id = c.upload(valid().zip()).await;
    let p = c
        .wait_state(&id, &["CREATED", "ONBOARDED"], Duration::from_secs(30))
        .await;
    tacker_testkit::csar::make_writable(&broken);
    assert_eq!(p["onboardingState"], "CREATED", "{p}");
    let detail = p["onboardingFailureDetails"]["detail"].as_str().unwrap();
    assert!(detail.contains("pc-2"), "{detail}");
    assert!(!c.stored(&id));
    assert!(["pc-1", "pc-2", "pc-3"].iter().all(|n| !c.cached(n, &id)));
    // Fixed: the next upload onboards everywhere.
    let r = c
        .http
        .put(format!(
            "{}/vnfpkgm/v1/vnf_packages/{id}/package_content",
            c.api
        ))
        .header("content-type", "application/zip")
        .body(valid().zip())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let p = c
        .wait_state(&id, &["CREATED", "ONBOARDED"], Duration::from_secs(30))
        .await;
    assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
    assert!(["pc-1", "pc-2", "pc-3"].iter().all(|n| c.cached(n, &id)));
    c.teardown().await;
}

#[tokio::test]
async fn twenty_concurrent_uploads_onboard_across_the_processes() {
    let c = Cluster::start(&["pc-1", "pc-2", "pc-3"]).await;
    let uploads =
        (0..20).map(|i| c.upload(valid_with_vnfd_id(&format!("concurrent-{i:02}")).zip()));
    let ids = futures::future::join_all(uploads).await;
    for id in &ids {
        let p = c
            .wait_state(id, &["CREATED", "ONBOARDED"], Duration::from_secs(60))
            .await;
        assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
        assert!(["pc-1", "pc-2", "pc-3"].iter().all(|n| c.cached(n, id)));
    }
    // The work was shared: more than one conductor coordinated.
    let coordinators = ["pc-1", "pc-2", "pc-3"]
        .iter()
        .filter(|n| {
            c.nodes[**n]
                .proc
                .log_text()
                .contains("coordinating onboarding")
        })
        .count();
    assert!(coordinators > 1, "one conductor did all the work");
    c.teardown().await;
}

/// One request id follows an upload from the API into every conductor's JSON logs.
#[tokio::test]
async fn a_request_id_follows_an_upload_across_processes_in_json_logs() {
    let c = Cluster::start_with(1, &["rq-1", "rq-2"], &[("TACKER__LOG__FORMAT", "json")]).await;
    let id = c.create().await;
    let r = c
        .http
        .put(format!(
            "{}/vnfpkgm/v1/vnf_packages/{id}/package_content",
            c.api
        ))
        .header("content-type", "application/zip")
        .header("x-request-id", "req-trace-4711")
        .body(valid().zip())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    assert_eq!(r.headers()["x-request-id"], "req-trace-4711");
    let p = c
        .wait_state(&id, &["ONBOARDED", "CREATED"], Duration::from_secs(30))
        .await;
    assert_eq!(p["onboardingState"], "ONBOARDED");
    // Every conductor cached it under that request (the coordinator's fan-out carries it).
    for node in ["rq-1", "rq-2"] {
        let log = c.nodes[node].proc.log_text();
        let line = log
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|l| l.to_string().contains("req-trace-4711"))
            .unwrap_or_else(|| panic!("{node} never logged the request id:\n{log}"));
        assert!(line.to_string().contains(&id), "{line}");
    }
    // Without a client id, the server makes one.
    let r = c
        .http
        .get(format!("{}/vnfpkgm/v1/vnf_packages", c.api))
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["x-request-id"].len(), 36);
    c.teardown().await;
}

/// The spans (`log.span_timings`, JSON) that closed in `log` for package `id`: the names
/// of the span (a bus message's with its method) and of every span around it, each with
/// its wall time in microseconds.
fn closed_spans(log: &str, id: &str) -> Vec<(String, Vec<String>, f64)> {
    let micros = |t: &str| {
        let (n, unit) = t.split_at(t.find(|ch: char| ch.is_alphabetic()).unwrap());
        let scale = match unit {
            "ns" => 0.001,
            "µs" => 1.0,
            "ms" => 1000.0,
            "s" => 1_000_000.0,
            other => panic!("unit {other} in {t}"),
        };
        n.parse::<f64>().unwrap() * scale
    };
    log.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|l| l["fields"]["message"] == "close")
        .filter(|l| {
            let spans = l["spans"].as_array().cloned().unwrap_or_default();
            // Bus messages name the package; HTTP requests have it in their path.
            spans.iter().chain([&l["span"]]).any(|s| {
                s["package_id"] == id || s["path"].as_str().is_some_and(|p| p.contains(id))
            })
        })
        .map(|l| {
            let f = &l["fields"];
            let outer = l["spans"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["name"].as_str().unwrap().to_owned())
                .collect();
            let total =
                micros(f["time.busy"].as_str().unwrap()) + micros(f["time.idle"].as_str().unwrap());
            let span = &l["span"];
            let name = match span["name"].as_str().unwrap() {
                "bus" => format!("bus {}", span["method"].as_str().unwrap()),
                other => other.to_owned(),
            };
            (name, outer, total)
        })
        .collect()
}

#[tokio::test]
async fn span_timings_log_every_step_of_an_onboarding_with_its_time() {
    let filter = "warn,tacker_server=info,tacker_rpc::serve=info,\
                  tacker_conductor::onboarding=info,tacker_conductor::handlers=info,\
                  tacker_conductor::cache=info";
    let c = Cluster::start_with(
        1,
        &["st-1", "st-2"],
        &[
            ("TACKER__LOG__FORMAT", "json"),
            ("TACKER__LOG__SPAN_TIMINGS", "true"),
            ("RUST_LOG", filter),
        ],
    )
    .await;
    let id = c.upload(valid().zip()).await;
    let p = c
        .wait_state(&id, &["ONBOARDED", "CREATED"], Duration::from_secs(30))
        .await;
    assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
    // Spans are logged as they close: the coordinator's turn ends right after ONBOARDED.
    tokio::time::sleep(Duration::from_millis(500)).await;

    // The server: the PUT and its steps, inside the request's span.
    let server = closed_spans(&c.servers[0].log_text(), &id);
    let names = |spans: &[(String, Vec<String>, f64)]| -> Vec<String> {
        spans.iter().map(|s| s.0.clone()).collect()
    };
    for step in [
        "upload.begin",
        "upload.store",
        "upload.record",
        "upload.cast",
    ] {
        let s = server.iter().find(|s| s.0 == step);
        let (_, outer, took) = s.unwrap_or_else(|| panic!("no {step} in {:?}", names(&server)));
        assert_eq!(outer.first().map(String::as_str), Some("request"), "{step}");
        assert!(*took > 0.0, "{step}");
    }
    let put = server
        .iter()
        .find(|s| s.0 == "request")
        .expect("the PUT's span");
    let steps: f64 = server
        .iter()
        .filter(|s| s.0.starts_with("upload."))
        .map(|s| s.2)
        .sum();
    assert!(
        put.2 >= steps,
        "the PUT ({} µs) holds its steps ({steps} µs)",
        put.2
    );

    // One conductor coordinated: each step once, inside its UploadPackage message's span.
    let logs: Vec<_> = ["st-1", "st-2"]
        .iter()
        .map(|n| closed_spans(&c.nodes[*n].proc.log_text(), &id))
        .collect();
    let coordinators: Vec<_> = logs
        .iter()
        .filter(|l| l.iter().any(|s| s.0 == "onboarding.gather"))
        .collect();
    assert_eq!(coordinators.len(), 1, "{logs:?}");
    let coordinator = coordinators[0];
    for step in [
        "onboarding.read",
        "onboarding.cache",
        "onboarding.validate",
        "onboarding.store_model",
        "onboarding.gather",
    ] {
        let n = coordinator.iter().filter(|s| s.0 == step).count();
        assert_eq!(n, 1, "{step} closed {n} times: {:?}", names(coordinator));
    }
    let turn = coordinator
        .iter()
        .find(|s| s.0 == "bus tacker.rpc.v1.UploadPackage")
        .expect("the cast's span");
    let inner: f64 = coordinator
        .iter()
        .filter(|s| s.1.len() == 1 && s.0.starts_with("onboarding."))
        .map(|s| s.2)
        .sum();
    assert!(turn.2 >= inner, "the coordinator's turn holds its steps");
    // The gathering asked and counted the members; each conductor confirmed its copy.
    assert!(
        coordinator.iter().any(|s| s.0 == "onboarding.ask"
            && s.1.last().map(String::as_str) == Some("onboarding.gather"))
    );
    for (n, log) in logs.iter().enumerate() {
        assert!(
            log.iter().any(|s| s.0 == "download.confirm"),
            "conductor {n} confirmed: {:?}",
            names(log)
        );
    }
}
