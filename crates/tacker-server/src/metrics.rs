//! Prometheus metrics of the API server and the request-tracking middleware.

use std::collections::BTreeMap;
use std::future::{Ready, ready};
use std::rc::Rc;
use std::sync::{Arc, PoisonError};
use std::time::Instant;

use actix_web::Error;
use actix_web::dev::{Service, ServiceRequest, ServiceResponse, Transform, forward_ready};
use futures::future::LocalBoxFuture;
use prometheus::proto::MetricFamily;
use prometheus::{HistogramOpts, HistogramVec, IntCounterVec, Opts, Registry, TextEncoder};

/// Metric families from elsewhere in the process (all-in-one's conductors).
pub type MetricSource = Box<dyn Fn() -> Vec<MetricFamily> + Send + Sync>;

/// The server's metrics.
pub struct Metrics {
    /// The registry `/metrics` renders.
    pub registry: Registry,
    bus: tacker_rpc::BusMetrics,
    requests: IntCounterVec,
    latency: HistogramVec,
    alerts: IntCounterVec,
    sources: std::sync::Mutex<Vec<MetricSource>>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Metrics {
    /// A fresh registry with the HTTP metrics registered.
    pub fn new() -> Result<Self, prometheus::Error> {
        let registry = Registry::new_custom(Some("tacker".into()), None)?;
        let requests = IntCounterVec::new(
            Opts::new(
                "http_requests_total",
                "HTTP requests by method, route and status",
            ),
            &["method", "route", "status"],
        )?;
        let latency = HistogramVec::new(
            HistogramOpts::new(
                "http_request_duration_seconds",
                "HTTP request latency by route",
            )
            .buckets(vec![
                0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
            ]),
            &["method", "route"],
        )?;
        let alerts = IntCounterVec::new(
            Opts::new(
                "alerts_total",
                "Monitoring alerts received, by what they are for (the alert's function_type, \
                 or server_notification) and what came of them (skipped: acted on by \
                 nothing, the answer says why)",
            ),
            &["function", "outcome"],
        )?;
        registry.register(Box::new(alerts.clone()))?;
        registry.register(Box::new(requests.clone()))?;
        registry.register(Box::new(latency.clone()))?;
        let bus = tacker_rpc::BusMetrics::register(&registry)?;
        Ok(Self {
            registry,
            bus,
            requests,
            latency,
            alerts,
            sources: Default::default(),
        })
    }

    /// Brings the bus counters up to what `bus` has counted (before a scrape).
    pub fn observe_bus(&self, bus: &tacker_rpc::Bus) {
        self.bus.observe(bus);
    }

    /// The Prometheus text exposition of every metric.
    pub fn render(&self) -> String {
        let mut by_name: BTreeMap<String, MetricFamily> = BTreeMap::new();
        let sources = self.sources.lock().unwrap_or_else(PoisonError::into_inner);
        let extra = sources.iter().flat_map(|s| s());
        for mut f in self.registry.gather().into_iter().chain(extra) {
            match by_name.get_mut(f.name()) {
                Some(known) => known.mut_metric().extend(f.take_metric()),
                None => {
                    by_name.insert(f.name().to_owned(), f);
                }
            }
        }
        let families: Vec<MetricFamily> = by_name.into_values().collect();
        TextEncoder::new()
            .encode_to_string(&families)
            .unwrap_or_default()
    }

    /// Adds metrics from elsewhere in this process to what `/metrics` renders (families
    /// of the same name are merged; their labels tell them apart).
    pub fn add_source(&self, source: MetricSource) {
        self.sources
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(source);
    }

    /// Counts an alert of `function` and what came of it.
    pub fn alert(&self, function: &str, outcome: &str) {
        self.alerts.with_label_values(&[function, outcome]).inc();
    }

    fn observe(&self, method: &str, route: &str, status: u16, secs: f64) {
        self.requests
            .with_label_values(&[method, route, &status.to_string()])
            .inc();
        self.latency
            .with_label_values(&[method, route])
            .observe(secs);
    }
}

/// Middleware recording every request in [`Metrics`].
pub struct Track(pub Arc<Metrics>);

impl<S, B> Transform<S, ServiceRequest> for Track
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: 'static,
{
    type Response = ServiceResponse<B>;
    type Error = Error;
    type Transform = TrackService<S>;
    type InitError = ();
    type Future = Ready<Result<Self::Transform, Self::InitError>>;

    fn new_transform(&self, service: S) -> Self::Future {
        ready(Ok(TrackService {
            service: Rc::new(service),
            metrics: self.0.clone(),
        }))
    }
}

/// The per-worker service of [`Track`].
pub struct TrackService<S> {
    service: Rc<S>,
    metrics: Arc<Metrics>,
}

impl<S, B> Service<ServiceRequest> for TrackService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: 'static,
{
    type Response = ServiceResponse<B>;
    type Error = Error;
    type Future = LocalBoxFuture<'static, Result<Self::Response, Self::Error>>;

    forward_ready!(service);

    fn call(&self, req: ServiceRequest) -> Self::Future {
        let started = Instant::now();
        let method = req.method().to_string();
        let metrics = self.metrics.clone();
        let fut = self.service.call(req);
        Box::pin(async move {
            let res = fut.await?;
            // Read after routing: the router has recorded the resource it chose, so this is
            // a look-up; before routing it would match the path against every pattern again.
            let route = res
                .request()
                .match_pattern()
                .unwrap_or_else(|| "unmatched".into());
            let status = res.status().as_u16();
            let secs = started.elapsed().as_secs_f64();
            metrics.observe(&method, &route, status, secs);
            tracing::debug!(%method, %route, status, ms = secs * 1000.0, "request");
            Ok(res)
        })
    }
}
