//! What a client sees, held still: a fixed set of requests over every route (packages and
//! their files, package subscriptions, VIMs, v1 and v2 LCM with every task, occurrence
//! retry/rollback/fail, LCM subscriptions, and their usual errors), each answer recorded
//! as status, the headers a client reads and the body, with what differs from run to run
//! replaced (ids by `<id-N>` in order of appearance, times, the port). Compared with
//! `tests/it/golden/answers.txt` on every run, so a refactoring that changes an answer
//! fails here; `TACKER_GOLDEN=record` writes the recording anew (review its diff).

use std::io::Read;
use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use tacker_testkit::TestDb;
use tacker_testkit::csar::valid;
use tacker_testkit::peers::{Expect, Subscriber};

use crate::lcm::{VNFD, sim_vim};
use crate::support::{Options, TestApp};

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/golden/answers.txt");

/// Replaces what changes from run to run in `text`: UUIDs and the random suffixes of
/// generated resource names (`vdu1-deployment-c08ac`; each numbered in order of first
/// appearance, so the same one reads the same everywhere), times, the server's port.
struct Normaliser {
    ids: Vec<String>,
    suffixes: Vec<String>,
    base: String,
}

/// Whether `s` starts with a generated name's suffix: `-` and five hex digits, then no
/// more of a word.
fn is_suffix(s: &[u8]) -> bool {
    s.len() >= 6
        && s[0] == b'-'
        && s[1..6]
            .iter()
            .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c))
        && s.get(6).is_none_or(|c| !c.is_ascii_alphanumeric())
}

fn is_uuid(s: &[u8]) -> bool {
    s.len() == 36
        && s.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// The length of an RFC 3339 (or `YYYY-MM-DD HH:MM:SS`) time at the start of `s`.
fn time_len(s: &[u8]) -> Option<usize> {
    let digits =
        |r: std::ops::Range<usize>| r.clone().all(|i| s.get(i).is_some_and(u8::is_ascii_digit));
    let at = |i: usize, c: u8| s.get(i) == Some(&c);
    if !(digits(0..4) && at(4, b'-') && digits(5..7) && at(7, b'-') && digits(8..10)) {
        return None;
    }
    if !((at(10, b'T') || at(10, b' '))
        && digits(11..13)
        && at(13, b':')
        && digits(14..16)
        && at(16, b':')
        && digits(17..19))
    {
        return None;
    }
    let mut n = 19;
    if at(n, b'.') {
        n += 1;
        while s.get(n).is_some_and(u8::is_ascii_digit) {
            n += 1;
        }
    }
    if at(n, b'Z') {
        n += 1;
    } else if (at(n, b'+') || at(n, b'-'))
        && digits(n + 1..n + 3)
        && at(n + 3, b':')
        && digits(n + 4..n + 6)
    {
        n += 6;
    }
    Some(n)
}

impl Normaliser {
    fn text(&mut self, text: &str) -> String {
        let text = text.replace(&self.base, "http://<server>");
        let b = text.as_bytes();
        let mut out = String::with_capacity(text.len());
        let mut i = 0;
        while i < b.len() {
            if b.len() - i >= 36 && is_uuid(&b[i..i + 36]) {
                let id = text[i..i + 36].to_owned();
                let n = match self.ids.iter().position(|x| *x == id) {
                    Some(n) => n,
                    None => {
                        self.ids.push(id);
                        self.ids.len() - 1
                    }
                };
                out.push_str(&format!("<id-{}>", n + 1));
                i += 36;
            } else if i > 0 && b[i - 1].is_ascii_alphanumeric() && is_suffix(&b[i..]) {
                let sfx = text[i..i + 6].to_owned();
                let n = match self.suffixes.iter().position(|x| *x == sfx) {
                    Some(n) => n,
                    None => {
                        self.suffixes.push(sfx);
                        self.suffixes.len() - 1
                    }
                };
                out.push_str(&format!("-<r{}>", n + 1));
                i += 6;
            } else if let Some(n) = time_len(&b[i..]) {
                out.push_str("<time>");
                i += n;
            } else {
                let c = text[i..].chars().next().unwrap_or_default();
                out.push(c);
                i += c.len_utf8().max(1);
            }
        }
        out
    }
}

/// The recording of one exchange.
struct Recorder {
    app: TestApp,
    norm: Normaliser,
    lines: Vec<String>,
}

impl Recorder {
    async fn send(
        &mut self,
        what: &str,
        r: reqwest::RequestBuilder,
    ) -> (u16, Value, Option<String>) {
        let r = r.send().await.unwrap();
        let status = r.status().as_u16();
        let h = r.headers().clone();
        let header = |n: &str| h.get(n).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let location = header("location");
        let ct = header("content-type").unwrap_or_default();
        let bytes = r.bytes().await.unwrap();
        let (body, shown) =
            if ct.starts_with("application/json") || ct.starts_with("application/problem+json") {
                let v: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
                let pretty = serde_json::to_string_pretty(&v).unwrap();
                (v, pretty)
            } else if ct.starts_with("application/zip") {
                (Value::Null, zip_listing(&bytes))
            } else if ct.starts_with("text/") || ct.contains("yaml") {
                (Value::Null, String::from_utf8_lossy(&bytes).into_owned())
            } else {
                (Value::Null, format!("<{} bytes>", bytes.len()))
            };
        let mut line = format!("### {what}\nstatus: {status}\n");
        for name in [
            "content-type",
            "location",
            "version",
            "retry-after",
            "content-disposition",
            "x-content-type-options",
            "content-security-policy",
            "www-authenticate",
            "accept-ranges",
            "content-range",
        ] {
            if let Some(v) = header(name) {
                line.push_str(&format!("{name}: {v}\n"));
            }
        }
        line.push_str(&shown);
        line.push('\n');
        let normalised = self.norm.text(&line);
        self.lines.push(normalised);
        (status, body, location)
    }

    fn req(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        let r = self.app.http.request(method, self.app.url(path));
        if path.starts_with("/vnflcm/v2") {
            r.header("Version", "2.0.0")
        } else {
            r
        }
    }

    async fn get(&mut self, path: &str) -> Value {
        let r = self.req(Method::GET, path);
        self.send(&format!("GET {path}"), r).await.1
    }

    async fn json(
        &mut self,
        method: Method,
        path: &str,
        body: Value,
    ) -> (u16, Value, Option<String>) {
        let r = self.req(method.clone(), path).json(&body);
        self.send(&format!("{method} {path} {body}"), r).await
    }

    /// Runs a task and waits (unrecorded) for its occurrence to reach one of `end`.
    async fn task(&mut self, api: &str, i: &str, task: &str, body: Value, end: &[&str]) -> String {
        let (status, _, location) = self
            .json(
                Method::POST,
                &format!("{api}/vnf_instances/{i}/{task}"),
                body,
            )
            .await;
        assert_eq!(status, 202, "{task}");
        let op = tacker_testkit::id_of(&location.unwrap());
        self.app.wait_op(&op, end).await;
        op
    }
}

/// A zip answered: its entries (name, size, CRC-32), sorted (the bytes carry times).
fn zip_listing(bytes: &[u8]) -> String {
    let Ok(mut z) = zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())) else {
        return format!("<{} bytes, not a zip>", bytes.len());
    };
    let mut out = Vec::new();
    for n in 0..z.len() {
        let mut f = z.by_index(n).unwrap();
        let name = f.name().unwrap().into_owned();
        let mut data = Vec::new();
        f.read_to_end(&mut data).unwrap();
        out.push(format!("{name} {} {:08x}", data.len(), crc32(&data)));
    }
    out.sort();
    format!("zip:\n{}", out.join("\n"))
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for b in data {
        crc ^= u32::from(*b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

async fn scenario(r: &mut Recorder, sub: &Subscriber, cluster: &str) {
    // Versions and probes.
    for p in [
        "/",
        "/healthz",
        "/readyz",
        "/admin/v1/conductors",
        "/vnflcm/api_versions",
        "/vnflcm/v1/api_versions",
        "/vnflcm/v2/api_versions",
        "/vnfpkgm/api_versions",
        "/vnfpkgm/v1/api_versions",
    ] {
        r.get(p).await;
    }

    // A package: created, uploaded, onboarded, read whole and in parts.
    let (_, p, _) = r
        .json(
            Method::POST,
            "/vnfpkgm/v1/vnf_packages",
            json!({"userDefinedData": {"k": "v"}}),
        )
        .await;
    let pkg = p["id"].as_str().unwrap().to_owned();
    let put = r
        .req(
            Method::PUT,
            &format!("/vnfpkgm/v1/vnf_packages/{pkg}/package_content"),
        )
        .header("content-type", "application/zip")
        .body(valid().zip());
    r.send("PUT package_content", put).await;
    r.app.settled(&pkg, Duration::from_secs(20)).await;
    let base = format!("/vnfpkgm/v1/vnf_packages/{pkg}");
    r.get(&base).await;
    r.get("/vnfpkgm/v1/vnf_packages").await;
    r.get("/vnfpkgm/v1/vnf_packages?filter=(eq,vnfdId,11111111-2222-3333-4444-555555555555)&all_fields").await;
    r.get("/vnfpkgm/v1/vnf_packages?exclude_default").await;
    r.get(&format!("{base}/vnfd")).await;
    let text = r
        .req(Method::GET, &format!("{base}/vnfd"))
        .header("accept", "text/plain");
    r.send("GET vnfd as text/plain (several files)", text).await;
    r.get(&format!("{base}/manifest")).await;
    r.get(&format!(
        "{base}/artifacts/Files/kubernetes/deployment.yaml"
    ))
    .await;
    r.get(&format!("{base}/artifacts/Files/nothing")).await;
    let range = r
        .req(
            Method::GET,
            &format!("{base}/artifacts/Files/kubernetes/deployment.yaml"),
        )
        .header("range", "bytes=0-9");
    r.send("GET artifact bytes=0-9", range).await;
    r.get(&format!("{base}/package_content")).await;
    r.json(
        Method::PATCH,
        &base,
        json!({"userDefinedData": {"k2": "v2"}}),
    )
    .await;
    r.json(
        Method::PATCH,
        &base,
        json!({"operationalState": "DISABLED"}),
    )
    .await;
    r.json(
        Method::PATCH,
        &base,
        json!({"operationalState": "DISABLED"}),
    )
    .await;
    r.json(Method::PATCH, &base, json!({"operationalState": "ENABLED"}))
        .await;
    r.json(Method::DELETE, &base, json!({})).await;
    r.get("/vnfpkgm/v1/vnf_packages/00000000-0000-4000-8000-000000000000")
        .await;
    r.get("/vnfpkgm/v1/vnf_packages?filter=(nope,vnfdId,1)")
        .await;
    r.get("/vnfpkgm/v1/vnf_packages?unknown=1").await;
    let bad_type = r
        .req(Method::POST, "/vnfpkgm/v1/vnf_packages")
        .header("content-type", "text/plain")
        .body("{}");
    r.send("POST package as text/plain", bad_type).await;

    // Package subscriptions.
    let (_, s, _) = r
        .json(
            Method::POST,
            "/vnfpkgm/v1/subscriptions",
            json!({"callbackUri": sub.url, "filter": {"notificationTypes": ["VnfPackageOnboardingNotification"]}}),
        )
        .await;
    let ps = s["id"].as_str().unwrap().to_owned();
    r.json(
        Method::POST,
        "/vnfpkgm/v1/subscriptions",
        json!({"callbackUri": sub.url, "filter": {"notificationTypes": ["VnfPackageOnboardingNotification"]}}),
    )
    .await;
    r.get("/vnfpkgm/v1/subscriptions").await;
    r.get(&format!("/vnfpkgm/v1/subscriptions/{ps}")).await;
    r.json(
        Method::DELETE,
        &format!("/vnfpkgm/v1/subscriptions/{ps}"),
        json!({}),
    )
    .await;

    // VIMs.
    let vim = json!({"vim": {"name": "k8s", "type": "kubernetes", "auth_url": cluster,
        "auth_cred": {"bearer_token": "tok", "username": "u"}, "vim_project": {"name": "default"},
        "extra": {"area": "a1", "helm_info": {"masternode_password": "p"}}}});
    let (_, v, _) = r.json(Method::POST, "/v1.0/vims", vim.clone()).await;
    let vim_id = v["vim"]["id"].as_str().unwrap().to_owned();
    r.json(Method::POST, "/v1.0/vims.json", vim).await;
    r.get("/v1.0/vims").await;
    r.get("/v1.0/vims.json?name=k8s").await;
    r.get(&format!("/v1.0/vims/{vim_id}")).await;
    r.json(
        Method::PUT,
        &format!("/v1.0/vims/{vim_id}"),
        json!({"vim": {"description": "d"}}),
    )
    .await;
    r.json(
        Method::PUT,
        &format!("/v1.0/vims/{vim_id}"),
        json!({"vim": {"type": "openstack"}}),
    )
    .await;
    r.json(Method::DELETE, &format!("/v1.0/vims/{vim_id}"), json!({}))
        .await;
    r.get(&format!("/v1.0/vims/{vim_id}")).await;

    // LCM subscriptions, v2 and v1.
    let (_, s, _) = r
        .json(
            Method::POST,
            "/vnflcm/v2/subscriptions",
            json!({"callbackUri": sub.url}),
        )
        .await;
    let ls = s["id"].as_str().unwrap().to_owned();
    r.get("/vnflcm/v2/subscriptions").await;
    r.get(&format!("/vnflcm/v2/subscriptions/{ls}")).await;
    r.json(
        Method::POST,
        "/vnflcm/v1/subscriptions",
        json!({"callbackUri": sub.url}),
    )
    .await;
    r.get("/vnflcm/v1/subscriptions").await;
    r.json(
        Method::DELETE,
        &format!("/vnflcm/v2/subscriptions/{ls}"),
        json!({}),
    )
    .await;

    // A second package to run instances on.
    let (_, p, _) = r
        .json(Method::POST, "/vnfpkgm/v1/vnf_packages", json!({}))
        .await;
    let pkg = p["id"].as_str().unwrap().to_owned();
    let put = r
        .req(
            Method::PUT,
            &format!("/vnfpkgm/v1/vnf_packages/{pkg}/package_content"),
        )
        .header("content-type", "application/zip")
        .body(valid().zip());
    r.send("PUT package_content", put).await;
    r.app.settled(&pkg, Duration::from_secs(20)).await;

    // v2 instance: create, read, every task, errors.
    let v2 = "/vnflcm/v2";
    r.json(
        Method::POST,
        &format!("{v2}/vnf_instances"),
        json!({"vnfdId": "unknown"}),
    )
    .await;
    let (_, i, _) = r
        .json(
            Method::POST,
            &format!("{v2}/vnf_instances"),
            json!({"vnfdId": VNFD, "vnfInstanceName": "web", "metadata": {"m": 1}}),
        )
        .await;
    let i = i["id"].as_str().unwrap().to_owned();
    r.get(&format!("{v2}/vnf_instances/{i}")).await;
    r.get(&format!("{v2}/vnf_instances")).await;
    let bad = r
        .app
        .http
        .get(r.app.url(&format!("{v2}/vnf_instances")))
        .header("Version", "9.9.9");
    r.send("GET instances with Version 9.9.9", bad).await;
    r.json(
        Method::POST,
        &format!("{v2}/vnf_instances/{i}/scale"),
        json!({"type": "SCALE_OUT", "aspectId": "a"}),
    )
    .await;
    r.json(
        Method::POST,
        &format!("{v2}/vnf_instances/{i}/instantiate"),
        json!({"flavourId": "nope"}),
    )
    .await;
    let op = r
        .task(
            v2,
            &i,
            "instantiate",
            json!({"flavourId": "simple", "vimConnectionInfo": sim_vim(),
                "additionalParams": {"ssh_password": "pw", "registry_token": "rt"}}),
            &["COMPLETED"],
        )
        .await;
    r.get(&format!("{v2}/vnf_lcm_op_occs/{op}")).await;
    r.get(&format!("{v2}/vnf_instances/{i}")).await;
    r.json(
        Method::POST,
        &format!("{v2}/vnf_instances/{i}/instantiate"),
        json!({"flavourId": "simple"}),
    )
    .await;
    r.json(
        Method::PATCH,
        &format!("{v2}/vnf_instances/{i}"),
        json!({"vnfInstanceName": "web2"}),
    )
    .await;
    r.app.wait_idle(&i).await;
    r.task(
        v2,
        &i,
        "scale",
        json!({"type": "SCALE_OUT", "aspectId": "vdu1_aspect", "numberOfSteps": 1}),
        &["COMPLETED", "FAILED_TEMP"],
    )
    .await;
    let heal = r
        .task(
            v2,
            &i,
            "heal",
            json!({"cause": "check"}),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    r.get(&format!("{v2}/vnf_lcm_op_occs/{heal}")).await;
    r.task(
        v2,
        &i,
        "change_ext_conn",
        json!({"extVirtualLinks": [], "vimConnectionInfo": sim_vim()}),
        &["COMPLETED", "FAILED_TEMP"],
    )
    .await;
    // A failing operation: retry, then another failing one rolled back, then failed.
    let failing = json!({"additionalParams": {"sim": {"fail": ["heal"], "failTimes": 1}}});
    let f = r
        .task(v2, &i, "heal", failing.clone(), &["FAILED_TEMP"])
        .await;
    r.get(&format!("{v2}/vnf_lcm_op_occs/{f}")).await;
    r.json(
        Method::POST,
        &format!("{v2}/vnf_lcm_op_occs/{f}/retry"),
        json!({}),
    )
    .await;
    r.app.wait_op(&f, &["COMPLETED"]).await;
    r.json(
        Method::POST,
        &format!("{v2}/vnf_lcm_op_occs/{f}/retry"),
        json!({}),
    )
    .await;
    let f = r
        .task(v2, &i, "heal", failing.clone(), &["FAILED_TEMP"])
        .await;
    r.json(
        Method::POST,
        &format!("{v2}/vnf_lcm_op_occs/{f}/fail"),
        json!({}),
    )
    .await;
    r.app.wait_op(&f, &["FAILED"]).await;
    let f = r.task(v2, &i, "heal", failing, &["FAILED_TEMP"]).await;
    r.json(
        Method::POST,
        &format!("{v2}/vnf_lcm_op_occs/{f}/rollback"),
        json!({}),
    )
    .await;
    let rolled = r.app.wait_op(&f, &["ROLLED_BACK", "FAILED_TEMP"]).await;
    r.get(&format!("{v2}/vnf_lcm_op_occs/{f}")).await;
    if rolled["operationState"] == "FAILED_TEMP" {
        r.json(
            Method::POST,
            &format!("{v2}/vnf_lcm_op_occs/{f}/fail"),
            json!({}),
        )
        .await;
        r.app.wait_op(&f, &["FAILED"]).await;
    }
    r.get(&format!("{v2}/vnf_lcm_op_occs")).await;
    r.get(&format!(
        "{v2}/vnf_lcm_op_occs?filter=(eq,operation,HEAL)&fields=operationParams"
    ))
    .await;
    r.json(
        Method::DELETE,
        &format!("{v2}/vnf_instances/{i}"),
        json!({}),
    )
    .await;
    r.task(
        v2,
        &i,
        "terminate",
        json!({"terminationType": "FORCEFUL"}),
        &["COMPLETED"],
    )
    .await;
    r.get(&format!("{v2}/vnf_instances/{i}")).await;
    r.json(
        Method::DELETE,
        &format!("{v2}/vnf_instances/{i}"),
        json!({}),
    )
    .await;
    r.get(&format!("{v2}/vnf_instances/{i}")).await;

    // v1: the same engine in Tacker's v1 shapes.
    let v1 = "/vnflcm/v1";
    let (_, i, _) = r
        .json(
            Method::POST,
            &format!("{v1}/vnf_instances"),
            json!({"vnfdId": VNFD}),
        )
        .await;
    let i = i["id"].as_str().unwrap().to_owned();
    let vci: Vec<Value> = sim_vim()
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| {
            let mut e = v.clone();
            e["id"] = json!(k);
            e
        })
        .collect();
    let op = r
        .task(
            v1,
            &i,
            "instantiate",
            json!({"flavourId": "simple", "vimConnectionInfo": vci}),
            &["COMPLETED"],
        )
        .await;
    r.get(&format!("{v1}/vnf_lcm_op_occs/{op}")).await;
    r.get(&format!("{v1}/vnf_instances/{i}")).await;
    r.get(&format!("{v1}/vnf_instances")).await;
    r.get(&format!("{v1}/vnf_lcm_op_occs")).await;
    r.task(
        v1,
        &i,
        "terminate",
        json!({"terminationType": "FORCEFUL"}),
        &["COMPLETED"],
    )
    .await;
    r.json(
        Method::DELETE,
        &format!("{v1}/vnf_instances/{i}"),
        json!({}),
    )
    .await;

    // The API's own description and the unknown.
    let doc = r.req(Method::GET, "/openapi.json").send().await.unwrap();
    let doc: Value = doc.json().await.unwrap();
    let mut ops: Vec<String> = doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(p, m)| {
            m.as_object()
                .unwrap()
                .keys()
                .map(move |k| format!("{k} {p}"))
        })
        .collect();
    ops.sort();
    r.lines.push(format!(
        "### GET /openapi.json (its operations)\n{}\n",
        ops.join("\n")
    ));
    r.get("/nothing/here").await;
}

impl TestApp {
    /// Waits (unrecorded) until no operation holds instance `i`.
    async fn wait_idle(&self, i: &str) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            let ops: Value = self
                .lcm(
                    Method::GET,
                    &format!("/vnf_lcm_op_occs?filter=(eq,vnfInstanceId,{i})"),
                )
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            let busy = ops.as_array().unwrap().iter().any(|o| {
                matches!(
                    o["operationState"].as_str(),
                    Some("STARTING" | "PROCESSING" | "ROLLING_BACK")
                )
            });
            if !busy {
                return;
            }
            assert!(tokio::time::Instant::now() < deadline, "{ops}");
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
    }
}

#[tokio::test]
async fn every_answer_is_what_it_was() {
    let app = TestApp::with(
        TestDb::postgres(),
        Options {
            conductors: 1,
            kubernetes: true,
            ..Options::default()
        },
    )
    .await;
    let sub = Subscriber::start(Expect::Nothing);
    let cluster = crate::support::kube_sim("tok");
    let base = app.base.clone();
    let mut r = Recorder {
        app,
        norm: Normaliser {
            ids: Vec::new(),
            suffixes: Vec::new(),
            base,
        },
        lines: Vec::new(),
    };
    scenario(&mut r, &sub, &cluster.url).await;
    let sub_port = sub
        .url
        .rsplit_once(':')
        .map(|(_, p)| p.split('/').next().unwrap_or_default().to_owned());
    let mut got = r
        .lines
        .join("\n")
        .replace(&cluster.url, "http://<kubernetes>");
    if let Some(p) = sub_port {
        got = got.replace(&format!("127.0.0.1:{p}"), "<subscriber>");
    }
    if std::env::var("TACKER_GOLDEN").as_deref() == Ok("record") {
        std::fs::create_dir_all(std::path::Path::new(GOLDEN).parent().unwrap()).unwrap();
        std::fs::write(GOLDEN, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(GOLDEN)
        .expect("no recording: run with TACKER_GOLDEN=record on the code whose answers are right");
    if got != want {
        // The whole of it beside the recording, for a diff.
        let now = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("golden-answers-now.txt");
        let _ = std::fs::write(&now, &got);
        eprintln!("this run's answers: {}", now.display());
        let (g, w): (Vec<&str>, Vec<&str>) = (
            got.split("\n### ").collect(),
            want.split("\n### ").collect(),
        );
        for (n, (a, b)) in g.iter().zip(&w).enumerate() {
            if a != b {
                panic!("answer {n} differs\n--- recorded\n### {b}\n+++ now\n### {a}");
            }
        }
        panic!("{} answers now, {} recorded", g.len(), w.len());
    }
}
