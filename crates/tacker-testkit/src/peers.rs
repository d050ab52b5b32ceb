//! Real HTTP peers of the VNFM in tests: a notification subscriber and an NFVO.
#![allow(missing_docs, reason = "test peers, documented by their module")]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use serde_json::{Value, json};

/// What the subscriber requires of callers.
#[derive(Clone, Debug)]
pub enum Expect {
    Nothing,
    Basic(&'static str),
    Bearer(&'static str),
}

struct SubState {
    got: Mutex<Vec<Value>>,
    down: AtomicBool,
    hang: AtomicBool,
    hung: AtomicUsize,
    expect: Expect,
    refused: AtomicUsize,
}

/// A subscriber: answers the test GET with 204, records POSTed notifications (or answers
/// 503 while "down"); also an OAuth 2.0 token endpoint at /token (client ops:pw).
pub struct Subscriber {
    pub url: String,
    state: Arc<SubState>,
}

fn authorized(req: &HttpRequest, expect: &Expect) -> bool {
    let got = req
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    match expect {
        Expect::Nothing => true,
        Expect::Basic(b64) => got == format!("Basic {b64}"),
        Expect::Bearer(t) => got == format!("Bearer {t}"),
    }
}

impl Subscriber {
    pub fn start(expect: Expect) -> Self {
        let state = Arc::new(SubState {
            got: Mutex::default(),
            down: AtomicBool::new(false),
            hang: AtomicBool::new(false),
            hung: AtomicUsize::new(0),
            expect,
            refused: AtomicUsize::new(0),
        });
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/notify", listener.local_addr().unwrap());
        let data = web::Data::from(state.clone());
        let server = HttpServer::new(move || {
            App::new()
                .app_data(data.clone())
                .route(
                    "/notify",
                    web::get().to(|req: HttpRequest, s: web::Data<SubState>| async move {
                        if authorized(&req, &s.expect) { HttpResponse::NoContent().finish() } else { HttpResponse::Unauthorized().finish() }
                    }),
                )
                .route(
                    "/notify",
                    web::post().to(|req: HttpRequest, s: web::Data<SubState>, body: web::Json<Value>| async move {
                        if !authorized(&req, &s.expect) {
                            s.refused.fetch_add(1, Ordering::SeqCst);
                            return HttpResponse::Unauthorized().finish();
                        }
                        if s.down.load(Ordering::SeqCst) {
                            return HttpResponse::ServiceUnavailable().finish();
                        }
                        if s.hang.load(Ordering::SeqCst) {
                            s.hung.fetch_add(1, Ordering::SeqCst);
                            while s.hang.load(Ordering::SeqCst) {
                                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                            }
                            return HttpResponse::ServiceUnavailable().finish();
                        }
                        s.got.lock().unwrap().push(body.into_inner());
                        HttpResponse::NoContent().finish()
                    }),
                )
                .route(
                    "/token",
                    web::post().to(|req: HttpRequest| async move {
                        // client ops:pw
                        let ok = req.headers().get("authorization").is_some_and(|v| v == "Basic b3BzOnB3");
                        if ok {
                            HttpResponse::Ok().json(json!({"access_token": "tok-123", "token_type": "bearer", "expires_in": 300}))
                        } else {
                            HttpResponse::Unauthorized().finish()
                        }
                    }),
                )
                .route("/gone", web::get().to(|| async { HttpResponse::NotFound().finish() }))
        })
        .workers(1)
        .listen(listener)
        .unwrap()
        .run();
        tokio::spawn(server);
        Self { url, state }
    }

    pub fn base(&self) -> String {
        self.url.trim_end_matches("/notify").to_owned()
    }

    pub fn set_down(&self, down: bool) {
        self.state.down.store(down, Ordering::SeqCst);
    }

    /// While set, a notification's POST gets no answer (then 503 once unset): its
    /// delivery stays in flight.
    pub fn set_hang(&self, hang: bool) {
        self.state.hang.store(hang, Ordering::SeqCst);
    }

    /// How many POSTs were held by [`Self::set_hang`].
    pub fn hung(&self) -> usize {
        self.state.hung.load(Ordering::SeqCst)
    }

    pub fn received(&self) -> Vec<Value> {
        self.state.got.lock().unwrap().clone()
    }

    /// Waits until `pred` holds for what was received: up to [`NOTIFIED_WITHIN`] (it
    /// returns as soon as it holds; the bound is for a loaded machine, and says what
    /// never came).
    pub async fn wait(&self, what: &str, pred: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let deadline = tokio::time::Instant::now() + NOTIFIED_WITHIN;
        loop {
            let got = self.received();
            if pred(&got) {
                return got;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "never received {what} within {NOTIFIED_WITHIN:?}: {got:#?}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }
}

/// How long a test waits for a notification: the test clusters' slowest path to one is
/// a lost conductor noticed (`dead_after`, 2 s) and swept (its notification leases
/// released: a few seconds), then delivery retried with backoff (at most 500 ms apart);
/// six times that leaves room for a machine busy with other tests.
pub const NOTIFIED_WITHIN: std::time::Duration = std::time::Duration::from_secs(60);

/// The (notificationStatus, operationState) sequence received for occurrence `op`.
pub fn states_of(got: &[Value], op: &str) -> Vec<String> {
    got.iter()
        .filter(|n| n["vnfLcmOpOccId"] == op)
        .map(|n| {
            format!(
                "{}:{}",
                n["notificationStatus"].as_str().unwrap_or(""),
                n["operationState"].as_str().unwrap_or("")
            )
        })
        .collect()
}

/// How the test NFVO answers grant requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NfvoMode {
    Grant,
    Async,
    Refuse,
    /// 202 with a `Location` on another origin: `http://127.0.0.1:<port>/...`.
    AsyncElsewhere(u16),
}

/// An NFVO offering the SOL003 Grant API at `<url>/grant/v1`.
pub struct Nfvo {
    pub url: String,
    pub requests: Arc<Mutex<Vec<Value>>>,
}

impl Nfvo {
    pub fn start(mode: NfvoMode) -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/grant/v1", listener.local_addr().unwrap());
        let requests: Arc<Mutex<Vec<Value>>> = Arc::default();
        let polls = Arc::new(AtomicUsize::new(0));
        let (r, p) = (web::Data::new(requests.clone()), web::Data::new(polls));
        let server = HttpServer::new(move || {
            App::new()
                .app_data(r.clone())
                .app_data(p.clone())
                .route(
                    "/grant/v1/grants",
                    web::post().to(move |body: web::Json<Value>, r: web::Data<Arc<Mutex<Vec<Value>>>>| async move {
                        let req = body.into_inner();
                        r.lock().unwrap().push(req.clone());
                        let grant = json!({"id": "g-1", "vnfInstanceId": req["vnfInstanceId"], "vnfLcmOpOccId": req["vnfLcmOpOccId"],
                            "_links": {"self": {"href": "x"}, "vnfLcmOpOcc": {"href": "x"}, "vnfInstance": {"href": "x"}}});
                        match mode {
                            NfvoMode::Grant => HttpResponse::Created().insert_header(("Location", "/grant/v1/grants/g-1")).json(grant),
                            NfvoMode::Async => HttpResponse::Accepted().insert_header(("Location", "/grant/v1/grants/g-1")).finish(),
                            NfvoMode::Refuse => HttpResponse::Forbidden()
                                .json(json!({"status": 403, "detail": "no capacity left in zone A"})),
                            NfvoMode::AsyncElsewhere(port) => HttpResponse::Accepted()
                                .insert_header(("Location", format!("http://127.0.0.1:{port}/grant/v1/grants/g-1")))
                                .finish(),
                        }
                    }),
                )
                .route(
                    "/grant/v1/grants/{id}",
                    web::get().to(|p: web::Data<Arc<AtomicUsize>>, r: web::Data<Arc<Mutex<Vec<Value>>>>| async move {
                        // Pending for the first poll, then granted.
                        if p.fetch_add(1, Ordering::SeqCst) == 0 {
                            return HttpResponse::Accepted().finish();
                        }
                        let req = r.lock().unwrap().last().cloned().unwrap_or_default();
                        HttpResponse::Ok().json(json!({"id": "g-1", "vnfInstanceId": req["vnfInstanceId"], "vnfLcmOpOccId": req["vnfLcmOpOccId"]}))
                    }),
                )
        })
        .workers(1)
        .listen(listener)
        .unwrap()
        .run();
        tokio::spawn(server);
        Self { url, requests }
    }
}
