#![doc = include_str!("../README.md")]

/// A `Debug` of `$t` showing only the named fields: the others hold secrets (or bulk).
macro_rules! debug_shows {
    ($t:ty, $name:literal $(, $field:ident)*) => {
        impl std::fmt::Debug for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct($name)
                    $(.field(stringify!($field), &self.$field))*
                    .finish_non_exhaustive()
            }
        }
    };
}
pub(crate) use debug_shows;

pub mod auth;
mod entry_stream;
mod error;
mod extract;
mod http;
pub mod limits;
mod metrics;
mod query;
mod range;
mod request_id;
mod routes;
mod scope;
pub mod tls;
mod wire;
mod zip_stream;

use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use actix_web::{App, HttpServer, web};
use tacker_db::Db;
use tacker_rpc::Bus;
use tacker_storage::PackageStore;
use tokio_util::sync::CancellationToken;

pub use error::ApiError;
pub use metrics::Metrics;
pub use routes::ROUTES;
pub use routes::openapi::Route;

/// Settings the routes need (from the `[server]` and `[conductor]` sections).
#[derive(Debug, Clone)]
pub struct Settings {
    /// Base URL for links; `None` derives it from each request.
    pub public_url: Option<String>,
    /// Items per page.
    pub page_size: usize,
    /// Largest JSON body in bytes.
    pub max_json_body: usize,
    /// Heartbeat age after which a conductor is not live.
    pub dead_after: Duration,
    /// Largest package in bytes.
    pub max_package_size: u64,
    /// How often an upload in flight records progress (well under the stall timeout).
    pub progress_interval: Duration,
    /// Whether a duplicate package subscription is answered 303 (else created).
    pub refuse_duplicate_subscriptions: bool,
    /// Which management driver runs which hook artifact (`[mgmt] drivers`): requests
    /// whose hooks have none, or whose driver parameters are wrong, are refused.
    pub mgmt: tacker_domain::mgmt::Mapping,
    /// Whether the simulated VIM (`TACKER.SIM.V_1`) may be used (`lcm.simulated_vim`).
    pub simulated_vim: bool,
    /// Whether a helm binary is there for `ETSINFV.HELM.V_3` VIMs (`helm.binary`).
    pub helm: bool,
    /// Most comparisons a list filter may make.
    pub max_filter_terms: usize,
    /// VNF instances one tenant may have (`server.max_instances_per_tenant`; 0: any).
    pub max_instances_per_tenant: u64,
    /// LCM subscriptions one tenant may have (0: any).
    pub max_subscriptions_per_tenant: u64,
    /// How long an upload may send nothing before it is 408.
    pub body_idle_timeout: Duration,
    /// How long a client has to send the request head (actix `client_request_timeout`).
    pub client_request_timeout: Duration,
    /// How long an idle connection is kept open.
    pub keep_alive: Duration,
    /// HTTPS (and mutual TLS) on the API port, when configured.
    pub tls: Option<Arc<rustls::ServerConfig>>,
    /// Internal networks the VNFM may reach (`outbound.allowed_networks`): VIM endpoints
    /// elsewhere in loopback, link-local or reserved ranges are refused.
    pub outbound: Vec<ipnet::IpNet>,
    /// How long auto-heal alerts of one instance are gathered (`fm.auto_heal_window`).
    pub auto_heal_window: Duration,
    /// How long auto-scale alerts of one aspect are gathered (`fm.auto_scale_window`).
    pub auto_scale_window: Duration,
    /// Alerts one webhook call may carry (`fm.max_alerts_per_call`).
    pub max_alerts_per_call: usize,
}

/// Everything a request handler can reach.
#[derive(Debug, Clone)]
pub struct ServerState {
    /// The database.
    pub db: Db,
    /// The bus.
    pub bus: Bus,
    /// Package storage.
    pub store: PackageStore,
    /// Settings.
    pub settings: Settings,
    /// Metrics registry.
    pub metrics: Arc<Metrics>,
    /// Outbound HTTP towards subscribers (callback tests).
    pub notify: Arc<tacker_outbound::Client>,
    /// Keys sealing secrets at rest (registered VIMs' credentials).
    pub keys: Arc<tacker_db::secrets::Keyring>,
    /// Who may call the API.
    pub auth: Arc<auth::Auth>,
    /// Limits that need state: uploads in flight, request rates.
    pub limits: Arc<limits::Limits>,
}

/// Registers every route on an actix `App`.
pub fn configure(cfg: &mut web::ServiceConfig) {
    routes::configure(cfg);
}

/// Serves the API on `listener` until `shutdown` is cancelled, then drains in-flight
/// requests (up to 30 s) and returns.
pub async fn run(
    listener: TcpListener,
    state: ServerState,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let metrics = state.metrics.clone();
    let (head_timeout, keep_alive, tls) = (
        state.settings.client_request_timeout,
        state.settings.keep_alive,
        state.settings.tls.clone(),
    );
    let data = web::Data::new(state);
    let server = HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .wrap(actix_web::middleware::from_fn(limits::rate))
            .wrap(actix_web::middleware::from_fn(auth::authenticate))
            .wrap(metrics::Track(metrics.clone()))
            .wrap(actix_web::middleware::from_fn(request_id::assign))
            .wrap(actix_web::middleware::NormalizePath::new(
                actix_web::middleware::TrailingSlash::MergeOnly,
            ))
            // Outermost: every answer, the authentication's and the rate limit's too.
            .wrap(actix_web::middleware::from_fn(wire::shape))
            .configure(configure)
    })
    .disable_signals()
    .client_request_timeout(head_timeout)
    .keep_alive(keep_alive)
    .shutdown_timeout(30)
    .on_connect(tls::on_connect);
    let server = match tls {
        Some(config) => server.listen_rustls_0_23(listener, (*config).clone())?,
        None => server.listen(listener)?,
    }
    .run();
    let handle = server.handle();
    tokio::spawn(async move {
        shutdown.cancelled().await;
        handle.stop(true).await;
    });
    server.await
}
