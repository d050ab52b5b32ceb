//! Lists at scale in a real process: 10,000 packages of about 4 KiB each (some 40 MiB as
//! answered) walked page by page and scanned whole by a filter matching none; the
//! process's peak RSS grows by a bounded amount, far below the table's size, and the
//! pages give every package once, in order.

use std::collections::HashSet;

use serde_json::Value;
use tacker_testkit::TestDb;

use crate::support::{ClusterEnv, all_in_one, psql};

const ROWS: usize = 10_000;

/// The peak resident set (`VmHWM`) of process `pid`, in KiB.
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// The next page's URL from a `Link: <...>; rel="next"` header.
fn next_link(r: &reqwest::Response) -> Option<String> {
    let link = r.headers().get("link")?.to_str().ok()?;
    let start = link.find('<')? + 1;
    let end = link.find('>')?;
    link.contains("rel=\"next\"")
        .then(|| link[start..end].to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_over_ten_thousand_large_rows_hold_bounded_memory() {
    let db = TestDb::postgres();
    let sql = format!(
        "INSERT INTO vnf_packages (id, onboarding_state, operational_state, usage_state, \
         user_defined_data, created_at, updated_at) \
         SELECT gen_random_uuid()::text, 'CREATED', 'DISABLED', 'NOT_IN_USE', \
         json_build_object('i', n, 'pad', repeat('x', 4000))::text, \
         now() - interval '1 day' + n * interval '1 millisecond', now() \
         FROM generate_series(1, {ROWS}) AS n"
    );
    psql(&db.url, &sql);

    let env = ClusterEnv::new(&db.url, "memory://", &tacker_testkit::unique_prefix());
    let (aio, url) = all_in_one(&env, "", &[("RUST_LOG", "warn".into())]).await;
    let http = reqwest::Client::new();
    let list = format!("{url}/vnfpkgm/v1/vnf_packages");
    // Warm up the HTTP and database paths on a table with nothing in it.
    for _ in 0..3 {
        let r = http
            .get(format!("{url}/vnflcm/v2/vnf_instances"))
            .header("Version", "2.0.0")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
    }
    let before = peak_rss_kib(aio.child.id());

    // Every page, following the links: each package once, in creation order.
    let (mut seen, mut order) = (HashSet::new(), Vec::new());
    let mut next = Some(format!("{list}?fields=userDefinedData"));
    while let Some(u) = next {
        let r = http.get(&u).send().await.unwrap();
        assert_eq!(r.status(), 200);
        next = next_link(&r);
        for p in r.json::<Vec<Value>>().await.unwrap() {
            assert!(
                seen.insert(p["id"].as_str().unwrap().to_owned()),
                "twice: {p}"
            );
            order.push(p["userDefinedData"]["i"].as_u64().unwrap());
        }
    }
    assert_eq!(order.len(), ROWS);
    assert!(order.windows(2).all(|w| w[0] < w[1]), "out of order");
    // A filter no row matches: the whole table is scanned for one (empty) answer.
    let r = http
        .get(format!("{list}?filter=(eq,userDefinedData/i,-1)"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<Vec<Value>>().await.unwrap(), Vec::<Value>::new());

    let grown = peak_rss_kib(aio.child.id()).saturating_sub(before);
    eprintln!("peak RSS grew by {} KiB listing {ROWS} rows", grown);
    assert!(
        grown < 24 * 1024,
        "peak RSS grew by {grown} KiB over a 40 MiB table: lists are not bounded"
    );
}
