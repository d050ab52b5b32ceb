//! The work the faults land on, driven as a client would through the REST API (retrying
//! what the API refused with 503 while a fault lasted): throttled uploads, and VNF
//! lifecycles (instantiate, heal, terminate) on the simulated VIM, FAILED_TEMP retried.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;

use super::Profile;
use crate::procs::Cluster;

const VNFD: &str = "11111111-2222-3333-4444-555555555555";

/// A small deterministic generator (xorshift64*), seeded for replays.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }
}

/// What the clients achieved.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Packages whose content upload the API accepted.
    pub accepted: Vec<String>,
    /// Uploads the API refused (503 while a fault lasted, or the connection broke).
    pub refused: usize,
    /// Instances taken through instantiate, heal and terminate.
    pub lifecycles: usize,
    /// Why the others did not finish.
    pub errors: Vec<String>,
}

/// The running clients.
pub struct Load {
    uploads: JoinHandle<Outcome>,
    lifecycles: JoinHandle<Outcome>,
    done: Arc<AtomicBool>,
}

impl Load {
    pub fn start(c: &Cluster, p: &Profile, round: usize, seed: u64) -> Self {
        let api = c.api.clone();
        let done = Arc::new(AtomicBool::new(false));
        let uploads = tokio::spawn(uploads(api.clone(), p.clone(), round, seed));
        let lifecycles = tokio::spawn(lifecycles(api, p.instances));
        Self {
            uploads,
            lifecycles,
            done,
        }
    }

    /// Whether both clients finished.
    pub fn done(&self) -> bool {
        self.done.load(Ordering::SeqCst)
            || self.uploads.is_finished() && self.lifecycles.is_finished()
    }

    pub async fn finish(self) -> Outcome {
        let mut u = self.uploads.await.unwrap();
        let l = self.lifecycles.await.unwrap();
        self.done.store(true, Ordering::SeqCst);
        u.lifecycles = l.lifecycles;
        u.errors.extend(l.errors);
        u
    }
}

fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap()
}

/// Sends until the answer is neither a broken connection nor 503 (for up to 2 min).
async fn send(make: impl Fn() -> reqwest::RequestBuilder) -> Result<reqwest::Response, String> {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        match make().send().await {
            Ok(r) if r.status() != 503 => return Ok(r),
            Ok(r) if Instant::now() > deadline => {
                return Err(format!("still 503: {}", r.text().await.unwrap_or_default()));
            }
            Err(e) if Instant::now() > deadline => return Err(e.to_string()),
            _ => tokio::time::sleep(Duration::from_millis(300)).await,
        }
    }
}

/// `bytes` sent at `rate` bytes/s, so faults land mid-upload.
fn throttled(bytes: Vec<u8>, rate: usize) -> reqwest::Body {
    const CHUNK: usize = 64 * 1024;
    let pause = Duration::from_secs_f64(CHUNK as f64 / rate.max(1) as f64);
    let stream = futures::stream::unfold((bytes, 0usize), move |(b, off)| async move {
        if off >= b.len() {
            return None;
        }
        if off > 0 {
            tokio::time::sleep(pause).await;
        }
        let end = (off + CHUNK).min(b.len());
        let piece = b[off..end].to_vec();
        Some((Ok::<_, std::io::Error>(piece), (b, end)))
    });
    reqwest::Body::wrap_stream(stream)
}

fn package(vnfd: &str, size: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let pad: Vec<u8> = (0..size / 8)
        .flat_map(|_| rng.next_u64().to_le_bytes())
        .collect();
    tacker_testkit::csar::valid_with_vnfd_id(vnfd)
        .with("Files/images/pad.bin", pad)
        .zip()
}

async fn uploads(api: String, p: Profile, round: usize, seed: u64) -> Outcome {
    let gate = Arc::new(Semaphore::new(p.upload_concurrency));
    let runs = (0..p.uploads).map(|k| {
        let (api, gate) = (api.clone(), gate.clone());
        let (size, rate) = (p.upload_bytes, p.upload_rate);
        async move {
            let _permit = gate.acquire().await;
            let http = http();
            let created = send(|| {
                http.post(format!("{api}/vnfpkgm/v1/vnf_packages"))
                    .json(&json!({}))
            })
            .await?;
            let id = created.json::<Value>().await.map_err(|e| e.to_string())?["id"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            let zip = package(&format!("chaos-{seed}-{round}-{k}"), size, seed ^ k as u64);
            let r = http
                .put(format!(
                    "{api}/vnfpkgm/v1/vnf_packages/{id}/package_content"
                ))
                .header("Content-Type", "application/zip")
                .body(throttled(zip, rate))
                .send()
                .await;
            Ok::<_, String>(match r {
                Ok(r) if r.status() == 202 => Some(id),
                _ => None,
            })
        }
    });
    let mut out = Outcome::default();
    for r in futures::future::join_all(runs).await {
        match r {
            Ok(Some(id)) => out.accepted.push(id),
            Ok(None) => out.refused += 1,
            Err(e) => out.errors.push(format!("creating a package: {e}")),
        }
    }
    out
}

/// Runs a task on instance `i` to COMPLETED, retrying FAILED_TEMP and starting again
/// after ROLLED_BACK or a refusal while a fault lasted.
async fn complete(
    http: &reqwest::Client,
    api: &str,
    i: &str,
    task: &str,
    body: &Value,
) -> Result<(), String> {
    let lcm = format!("{api}/vnflcm/v2");
    for _ in 0..12 {
        let r = send(|| {
            http.post(format!("{lcm}/vnf_instances/{i}/{task}"))
                .header("Version", "2.0.0")
                .json(body)
        })
        .await?;
        if r.status() == 409 {
            // An earlier attempt of this task holds the instance, or it already ran.
            tokio::time::sleep(Duration::from_secs(2)).await;
            let inst = get(http, &format!("{lcm}/vnf_instances/{i}")).await?;
            let want = if task == "terminate" {
                "NOT_INSTANTIATED"
            } else {
                "INSTANTIATED"
            };
            if inst["instantiationState"] == want && task != "heal" {
                return Ok(());
            }
            continue;
        }
        if r.status() != 202 {
            return Err(format!(
                "{task}: {} {}",
                r.status(),
                r.text().await.unwrap_or_default()
            ));
        }
        let op = r.headers()["location"]
            .to_str()
            .unwrap_or_default()
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_owned();
        let mut refused = 0;
        loop {
            let o = wait_end(http, &lcm, &op).await?;
            match o["operationState"].as_str().unwrap_or_default() {
                "COMPLETED" => return Ok(()),
                "FAILED_TEMP" => {
                    let r = send(|| {
                        http.post(format!("{lcm}/vnf_lcm_op_occs/{op}/retry"))
                            .header("Version", "2.0.0")
                    })
                    .await?;
                    // `send` posts again when a fault cut the answer off: a 409 then
                    // says an earlier post of this retry took effect (the occurrence
                    // left FAILED_TEMP). Only a retry refused while the occurrence stays
                    // FAILED_TEMP is a failure.
                    match r.status().as_u16() {
                        202 => refused = 0,
                        409 if refused < 3 => {
                            refused += 1;
                            tokio::time::sleep(Duration::from_millis(500)).await;
                        }
                        s => return Err(format!("retry of {op}: {s}")),
                    }
                }
                _ => break,
            }
        }
    }
    Err(format!("{task} of {i} did not complete"))
}

async fn get(http: &reqwest::Client, url: &str) -> Result<Value, String> {
    send(|| http.get(url).header("Version", "2.0.0"))
        .await?
        .json()
        .await
        .map_err(|e| e.to_string())
}

async fn wait_end(http: &reqwest::Client, lcm: &str, op: &str) -> Result<Value, String> {
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        let o = get(http, &format!("{lcm}/vnf_lcm_op_occs/{op}")).await?;
        let s = o["operationState"].as_str().unwrap_or_default();
        if matches!(s, "COMPLETED" | "FAILED_TEMP" | "ROLLED_BACK" | "FAILED") {
            return Ok(o);
        }
        if Instant::now() > deadline {
            return Err(format!("operation {op} still {s}"));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn lifecycles(api: String, n: usize) -> Outcome {
    let gate = Arc::new(Semaphore::new(5));
    let runs = (0..n).map(|_| {
        let (api, gate) = (api.clone(), gate.clone());
        async move {
            let _permit = gate.acquire().await;
            let http = http();
            let created = send(|| {
                http.post(format!("{api}/vnflcm/v2/vnf_instances"))
                    .header("Version", "2.0.0")
                    .json(&json!({"vnfdId": VNFD}))
            })
            .await?;
            let i = created.json::<Value>().await.map_err(|e| e.to_string())?["id"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            let slow = json!({"sim": {"delayMs": 700}});
            let vim = json!({"vim1": {"vimType": "TACKER.SIM.V_1"}});
            complete(
                &http,
                &api,
                &i,
                "instantiate",
                &json!({"flavourId": "simple", "vimConnectionInfo": vim, "additionalParams": slow}),
            )
            .await?;
            complete(&http, &api, &i, "heal", &json!({"additionalParams": slow})).await?;
            complete(
                &http,
                &api,
                &i,
                "terminate",
                &json!({"terminationType": "FORCEFUL"}),
            )
            .await?;
            Ok::<_, String>(())
        }
    });
    let mut out = Outcome::default();
    for r in futures::future::join_all(runs).await {
        match r {
            Ok(()) => out.lifecycles += 1,
            Err(e) => out.errors.push(e),
        }
    }
    out
}
