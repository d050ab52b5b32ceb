//! Prometheus metrics of the API server and the request-tracking middleware.

use std::future::{Ready, ready};
use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;

use actix_web::Error;
use actix_web::dev::{Service, ServiceRequest, ServiceResponse, Transform, forward_ready};
use futures::future::LocalBoxFuture;
use prometheus::{HistogramOpts, HistogramVec, IntCounterVec, Opts, Registry, TextEncoder};

/// The server's metrics.
#[derive(Debug)]
pub struct Metrics {
    /// The registry `/metrics` renders.
    pub registry: Registry,
    bus: tacker_rpc::BusMetrics,
    requests: IntCounterVec,
    latency: HistogramVec,
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
        registry.register(Box::new(requests.clone()))?;
        registry.register(Box::new(latency.clone()))?;
        let bus = tacker_rpc::BusMetrics::register(&registry)?;
        Ok(Self {
            registry,
            bus,
            requests,
            latency,
        })
    }

    /// Brings the bus counters up to what `bus` has counted (before a scrape).
    pub fn observe_bus(&self, bus: &tacker_rpc::Bus) {
        self.bus.observe(bus);
    }

    /// The Prometheus text exposition of every metric.
    pub fn render(&self) -> String {
        TextEncoder::new()
            .encode_to_string(&self.registry.gather())
            .unwrap_or_default()
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
        let route = req.match_pattern().unwrap_or_else(|| "unmatched".into());
        let metrics = self.metrics.clone();
        let fut = self.service.call(req);
        Box::pin(async move {
            let res = fut.await?;
            let status = res.status().as_u16();
            let secs = started.elapsed().as_secs_f64();
            metrics.observe(&method, &route, status, secs);
            tracing::debug!(%method, %route, status, ms = secs * 1000.0, "request");
            Ok(res)
        })
    }
}
