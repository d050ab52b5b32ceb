#![doc = include_str!("../README.md")]

pub mod api;
mod auth;
pub mod controllers;
pub mod error;
pub mod faults;
pub mod meta;
pub mod metrics;
pub mod objects;
pub mod patch;
pub mod protobuf;
pub mod registry;
pub mod selector;
pub mod store;
pub mod tls;

use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use actix_web::{App, HttpResponse, HttpServer, middleware, web};
use serde_json::json;
use tokio::sync::Notify;

pub use faults::{ApiFault, Faults, SlowReady};
pub use store::{Store, Timing};

/// How the simulator runs.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Require `Authorization: Bearer <token>`.
    pub token: Option<String>,
    /// Require basic authentication with this user and password.
    pub basic: Option<(String, String)>,
    /// Serve HTTPS with a generated CA (for these names besides 127.0.0.1 and localhost).
    pub tls: bool,
    /// Pod readiness delay, termination delay, nodes.
    pub timing: Timing,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            token: None,
            basic: None,
            tls: false,
            timing: Timing {
                ready_delay_ms: 200,
                terminate_delay_ms: 0,
                nodes: 2,
            },
        }
    }
}

/// The simulated cluster.
#[derive(Debug)]
pub struct Sim {
    store: Mutex<Store>,
    kick: Notify,
    token: Option<String>,
    basic: Option<(String, String)>,
}

impl Sim {
    /// A cluster with the usual namespaces, `nodes` nodes and a default StorageClass.
    pub fn new(settings: &Settings) -> Arc<Self> {
        let mut store = Store::new(settings.timing);
        seed(&mut store, settings.timing.nodes);
        Arc::new(Self {
            store: Mutex::new(store),
            kick: Notify::new(),
            token: settings.token.clone(),
            basic: settings.basic.clone(),
        })
    }

    /// The state, locked.
    pub fn lock(&self) -> MutexGuard<'_, Store> {
        self.store
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Replaces every injected fault.
    pub fn set_faults(&self, faults: Faults) {
        self.lock().faults = faults;
        self.kick();
    }

    /// "The cluster healed itself": the Pod disappears at once and its controller
    /// replaces it as Kubernetes would.
    pub fn replace_pod(&self, namespace: &str, name: &str) -> Result<(), error::ApiErr> {
        let key: store::Key = ("/pods".into(), namespace.to_owned(), name.to_owned());
        let mut s = self.lock();
        let pod = s
            .get(&key)
            .cloned()
            .ok_or_else(|| error::ApiErr::not_found("pods", name))?;
        if meta::controller_uid(&pod).is_none() {
            return Err(error::ApiErr::invalid(format!(
                "Pod {name} has no controller: nothing would replace it"
            )));
        }
        let grace = objects::DeleteOpts {
            grace: Some(0),
            ..Default::default()
        };
        objects::delete(&mut s, &key, grace);
        drop(s);
        self.kick();
        Ok(())
    }

    /// `(name, uid)` of the Pods in `namespace` whose labels include `label=value`.
    pub fn pods(&self, namespace: &str, label: &str, value: &str) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = self
            .lock()
            .list("/pods", Some(namespace))
            .into_iter()
            .filter(|(_, p)| meta::labels(p).get(label).and_then(|v| v.as_str()) == Some(value))
            .map(|(k, p)| (k.2, meta::uid(&p).unwrap_or_default()))
            .collect();
        out.sort();
        out
    }

    /// Sets the load (CPU, memory, failed...) Pod `name` reports from now on.
    pub fn set_load(
        &self,
        namespace: &str,
        name: &str,
        load: metrics::Load,
    ) -> Result<(), error::ApiErr> {
        let key: store::Key = ("/pods".into(), namespace.to_owned(), name.to_owned());
        let mut s = self.lock();
        let uid = s
            .get(&key)
            .and_then(meta::uid)
            .ok_or_else(|| error::ApiErr::not_found("pods", name))?;
        metrics::set_load(&mut s.meters, &uid, load);
        Ok(())
    }

    /// Wakes the controllers.
    pub fn kick(&self) {
        self.kick.notify_one();
    }

    /// Runs the controllers until the process ends.
    pub async fn run_controllers(self: Arc<Self>) {
        loop {
            // Woken by every change; polled only while something waits for time to pass.
            let timers = self.lock().has_timers();
            if timers {
                let _ = tokio::time::timeout(Duration::from_millis(10), self.kick.notified()).await;
            } else {
                self.kick.notified().await;
            }
            // Changes come in bursts: let a burst land, then reconcile once.
            tokio::time::sleep(Duration::from_millis(2)).await;
            if controllers::reconcile(&mut self.lock(), Instant::now()) {
                self.kick();
            }
        }
    }
}

fn seed(store: &mut Store, nodes: usize) {
    let mut add = |plural: &str, v: serde_json::Value| {
        if let Some(k) = registry::by_resource(plural)
            && let Err(e) = objects::create(store, k, "", v)
        {
            tracing::error!(error = %e, "seeding the cluster");
        }
    };
    for ns in ["default", "kube-system", "kube-public", "kube-node-lease"] {
        add("/namespaces", json!({"metadata": {"name": ns}}));
    }
    for n in 1..=nodes {
        add(
            "/nodes",
            json!({
                "metadata": {"name": format!("node-{n}"), "labels": {"kubernetes.io/hostname": format!("node-{n}")}},
                "status": {"conditions": [{"type": "Ready", "status": "True"}]},
            }),
        );
    }
    add(
        "storage.k8s.io/storageclasses",
        json!({
            "metadata": {"name": "standard", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
            "provisioner": "kube-sim.io/hostpath",
            "reclaimPolicy": "Delete",
            "volumeBindingMode": "Immediate",
        }),
    );
}

/// A started simulator.
pub struct Running {
    /// Base URL (`http://127.0.0.1:port` or `https://...`).
    pub url: String,
    /// The CA certificate to trust (PEM), when serving HTTPS.
    pub ca_pem: Option<String>,
    /// The cluster.
    pub sim: Arc<Sim>,
    /// The server.
    pub server: actix_web::dev::Server,
}

impl std::fmt::Debug for Running {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Running")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

/// Starts serving on `listener` (call inside a Tokio runtime; drive `server`).
pub fn serve(listener: TcpListener, settings: &Settings) -> std::io::Result<Running> {
    let addr: SocketAddr = listener.local_addr()?;
    let sim = Sim::new(settings);
    tokio::spawn(sim.clone().run_controllers());
    let data = web::Data::new(sim.clone());
    let http = HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .app_data(web::PayloadConfig::new(16 * 1024 * 1024))
            .wrap(middleware::from_fn(auth::check))
            .route(
                "/version",
                web::get().to(|| async { api::discovery::version() }),
            )
            .route("/openapi/v2", web::get().to(api::openapi::v2))
            .route(
                "/healthz",
                web::get().to(|| async { HttpResponse::Ok().body("ok") }),
            )
            .route(
                "/readyz",
                web::get().to(|| async { HttpResponse::Ok().body("ok") }),
            )
            .route(
                "/livez",
                web::get().to(|| async { HttpResponse::Ok().body("ok") }),
            )
            .route("/sim/faults", web::get().to(api::admin::get_faults))
            .route("/sim/faults", web::put().to(api::admin::put_faults))
            .route("/sim/faults", web::delete().to(api::admin::clear_faults))
            .route("/sim/timing", web::get().to(api::admin::get_timing))
            .route("/sim/timing", web::patch().to(api::admin::patch_timing))
            .route(
                "/sim/namespaces/{ns}/pods/{name}/replace",
                web::post().to(api::admin::replace_pod),
            )
            .route(
                "/sim/namespaces/{ns}/pods/{name}/load",
                web::get().to(api::admin::get_load),
            )
            .route(
                "/sim/namespaces/{ns}/pods/{name}/load",
                web::put().to(api::admin::put_load),
            )
            .route("/metrics", web::get().to(api::admin::metrics))
            .default_service(web::to(api::dispatch))
    })
    .workers(2)
    .disable_signals()
    .shutdown_timeout(1);
    let (url, ca_pem, http) = if settings.tls {
        let tls = tls::generate(&[
            "127.0.0.1".into(),
            "localhost".into(),
            addr.ip().to_string(),
        ])
        .map_err(std::io::Error::other)?;
        let cfg = Arc::unwrap_or_clone(tls.config);
        (
            format!("https://{addr}"),
            Some(tls.ca_pem),
            http.listen_rustls_0_23(listener, cfg)?,
        )
    } else {
        (format!("http://{addr}"), None, http.listen(listener)?)
    };
    Ok(Running {
        url,
        ca_pem,
        sim,
        server: http.run(),
    })
}

/// A simulator running on its own thread (for tests): stops when dropped.
#[derive(Debug)]
pub struct Handle {
    /// Base URL.
    pub url: String,
    /// CA certificate (PEM) when serving HTTPS.
    pub ca_pem: Option<String>,
    /// The cluster.
    pub sim: Arc<Sim>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Handle {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Starts a simulator on 127.0.0.1 (a free port) on a thread of its own.
pub fn spawn(settings: Settings) -> std::io::Result<Handle> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let (tx, rx) = std::sync::mpsc::channel();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::Builder::new()
        .name("kube-sim".into())
        .spawn(move || {
            let rt = match tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
            {
                Ok(rt) => rt,
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return;
                }
            };
            rt.block_on(async move {
                match serve(listener, &settings) {
                    Ok(r) => {
                        let handle = r.server.handle();
                        let _ = tx.send(Ok((r.url, r.ca_pem, r.sim)));
                        tokio::spawn(r.server);
                        let _ = stop_rx.await;
                        handle.stop(false).await;
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                    }
                }
            });
        })?;
    let (url, ca_pem, sim) = rx
        .recv()
        .map_err(|_| std::io::Error::other("kube-sim thread ended"))??;
    Ok(Handle {
        url,
        ca_pem,
        sim,
        stop: Some(stop_tx),
        thread: Some(thread),
    })
}
