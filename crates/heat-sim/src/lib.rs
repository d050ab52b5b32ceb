#![doc = include_str!("../README.md")]

pub mod api;
pub mod engine;
pub mod error;
pub mod external;
pub mod faults;
pub mod hosts;
pub mod hot;
pub mod keystone;

use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use actix_web::{App, HttpResponse, HttpServer, web};

pub use hosts::{HostSettings, HostsMode};

/// How the simulator runs.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The one user.
    pub user: String,
    /// Its password.
    pub password: String,
    /// Its project.
    pub project: String,
    /// How long a token lives.
    pub token_lifetime: Duration,
    /// Servers as test hosts, the image's login, shims.
    pub hosts: HostSettings,
    /// Serve HTTPS with a generated CA.
    pub tls: bool,
    /// A real Keystone (`.../v3`) whose tokens are accepted besides heat-sim's own.
    pub keystone_url: Option<String>,
    /// A real Glance whose images servers must boot from (by id or name).
    pub glance_url: Option<String>,
    /// How long a token the real Keystone vouched for is trusted before it is asked
    /// again (keystonemiddleware's `token_cache_time`): a revoked token is refused once
    /// this has passed.
    pub token_cache: Duration,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            user: "tacker".into(),
            password: "tacker-password".into(),
            project: "nfv".into(),
            token_lifetime: Duration::from_secs(3600),
            hosts: HostSettings {
                mode: HostsMode::Netns,
                user: "ubuntu".into(),
                password: "ubuntu".into(),
                shims: None,
            },
            tls: false,
            keystone_url: None,
            glance_url: None,
            token_cache: Duration::from_secs(300),
        }
    }
}

/// The simulator: its identity service, tokens and engine.
#[derive(Debug)]
pub struct Sim {
    /// Base URL (`http://127.0.0.1:port`).
    pub url: String,
    /// The one identity.
    pub identity: keystone::Identity,
    /// Issued tokens.
    pub tokens: keystone::Tokens,
    /// Stacks and hosts.
    pub engine: Arc<engine::Engine>,
}

/// A started simulator.
pub struct Running {
    /// Base URL; Keystone is at `<url>/v3`.
    pub url: String,
    /// The CA certificate to trust (PEM), when serving HTTPS.
    pub ca_pem: Option<String>,
    /// The simulator.
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

fn routes(cfg: &mut web::ServiceConfig) {
    use api::{admin, heat};
    use keystone as ks;
    const S: &str = "/heat-api/v1/{project}/stacks";
    cfg.route("/", web::get().to(ks::versions))
        .route("/v3", web::get().to(ks::v3))
        .route("/v3/", web::get().to(ks::v3))
        .route("/v3/auth/tokens", web::post().to(ks::issue))
        .route("/v3/auth/tokens", web::get().to(ks::validate))
        .route(S, web::get().to(heat::list))
        .route(S, web::post().to(heat::create))
        .route(
            &format!("{S}/{{name}}/{{rest:(events|resources|template|files)}}"),
            web::route().to(heat::redirect),
        )
        .route(&format!("{S}/{{name}}/{{id}}"), web::get().to(heat::show))
        .route(&format!("{S}/{{name}}/{{id}}"), web::patch().to(heat::update))
        .route(&format!("{S}/{{name}}/{{id}}"), web::put().to(heat::update))
        .route(&format!("{S}/{{name}}/{{id}}"), web::delete().to(heat::delete))
        .route(&format!("{S}/{{name}}/{{id}}/template"), web::get().to(heat::template))
        .route(&format!("{S}/{{name}}/{{id}}/files"), web::get().to(heat::files))
        .route(&format!("{S}/{{name}}/{{id}}/resources"), web::get().to(heat::resources))
        .route(&format!("{S}/{{name}}/{{id}}/events"), web::get().to(heat::events))
        .route(
            &format!("{S}/{{name}}/{{id}}/resources/{{resource}}"),
            web::get().to(heat::resource),
        )
        .route(
            &format!("{S}/{{name}}/{{id}}/resources/{{resource}}"),
            web::patch().to(heat::mark),
        )
        .route(
            &format!("{S}/{{name}}/{{id}}/resources/{{resource}}/signal"),
            web::post().to(heat::signal),
        )
        .route(
            &format!("{S}/{{name}}/{{id}}/resources/{{resource}}/events"),
            web::get().to(heat::events),
        )
        .route(&format!("{S}/{{name}}"), web::route().to(heat::redirect))
        .route(
            "/compute/v2.1/servers/{id}",
            web::get().to(crate::api::nova::show),
        )
        .route(
            "/compute/v2.1/servers/{id}/action",
            web::post().to(crate::api::nova::action),
        )
        .route("/sim/network", web::get().to(admin::network))
        .route("/sim/servers", web::get().to(admin::servers))
        .route("/sim/servers/{id}/kill", web::post().to(admin::kill))
        .route("/sim/servers/{id}/link/{state}", web::post().to(admin::link))
        .route("/sim/faults", web::get().to(admin::get_faults))
        .route("/sim/faults", web::put().to(admin::put_faults))
        .route("/sim/faults", web::delete().to(admin::clear_faults))
        .route("/sim/tokens/expire", web::post().to(admin::expire_tokens))
        .default_service(web::to(|| async {
            HttpResponse::NotFound().json(serde_json::json!({
                "code": 404, "title": "Not Found",
                "error": {"type": "NotFound", "message": "The resource could not be found.", "traceback": null}}))
        }));
}

/// Claims a network, then starts serving on `listener` (inside a Tokio runtime; drive
/// `server`).
pub fn serve(listener: TcpListener, settings: &Settings) -> std::io::Result<Running> {
    let addr = listener.local_addr()?;
    let hosts = hosts::Hosts::claim(settings.hosts.clone())?;
    let scheme = if settings.tls { "https" } else { "http" };
    let url = format!("{scheme}://{addr}");
    let sim = Arc::new(Sim {
        url: url.clone(),
        identity: keystone::Identity {
            user: settings.user.clone(),
            password: settings.password.clone(),
            project: settings.project.clone(),
            project_id: uuid::Uuid::new_v4().simple().to_string(),
            token_lifetime: settings.token_lifetime,
            region: "RegionOne".into(),
        },
        tokens: keystone::Tokens::default(),
        engine: engine::Engine::new(
            hosts,
            external::External::new(
                settings.keystone_url.clone(),
                settings.glance_url.clone(),
                settings.token_cache,
            ),
        ),
    });
    let data = web::Data::from(sim.clone());
    let http = HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .app_data(web::JsonConfig::default().limit(16 * 1024 * 1024))
            .configure(routes)
    })
    .workers(2)
    .disable_signals()
    .shutdown_timeout(1);
    let (ca_pem, http) = if settings.tls {
        let tls = kube_sim::tls::generate(&[
            "127.0.0.1".into(),
            "localhost".into(),
            addr.ip().to_string(),
        ])
        .map_err(std::io::Error::other)?;
        let cfg = Arc::unwrap_or_clone(tls.config);
        (Some(tls.ca_pem), http.listen_rustls_0_23(listener, cfg)?)
    } else {
        (None, http.listen(listener)?)
    };
    Ok(Running {
        url,
        ca_pem,
        sim,
        server: http.run(),
    })
}

/// A simulator running on its own thread (for tests): its hosts go when dropped.
#[derive(Debug)]
pub struct Handle {
    /// Base URL; Keystone is at `<url>/v3`.
    pub url: String,
    /// CA certificate (PEM) when serving HTTPS.
    pub ca_pem: Option<String>,
    /// The simulator.
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
        self.sim.engine.hosts.shutdown();
    }
}

/// Starts a simulator on 127.0.0.1 (a free port) on a thread of its own.
pub fn spawn(settings: Settings) -> std::io::Result<Handle> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let (tx, rx) = std::sync::mpsc::channel();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::Builder::new()
        .name("heat-sim".into())
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
        .map_err(|_| std::io::Error::other("heat-sim thread ended"))??;
    Ok(Handle {
        url,
        ca_pem,
        sim,
        stop: Some(stop_tx),
        thread: Some(thread),
    })
}
