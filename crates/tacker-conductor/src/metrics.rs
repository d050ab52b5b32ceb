//! Conductor metrics.

use prometheus::{IntCounterVec, IntGauge, Opts, Registry, TextEncoder};

/// The conductor's metrics.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    ready: IntGauge,
    handled: IntCounterVec,
    sync_failures: prometheus::IntCounter,
    onboardings: IntCounterVec,
}

impl Metrics {
    /// A fresh registry with the conductor metrics registered.
    pub fn new() -> Result<Self, prometheus::Error> {
        let registry = Registry::new_custom(Some("tacker".into()), None)?;
        let ready = IntGauge::new("conductor_ready", "1 when this conductor is READY")?;
        let handled = IntCounterVec::new(
            Opts::new(
                "bus_requests_handled_total",
                "Bus requests handled by method and outcome",
            ),
            &["method", "outcome"],
        )?;
        let sync_failures =
            prometheus::IntCounter::new("cache_sync_failures_total", "Failed cache sync attempts")?;
        let onboardings = IntCounterVec::new(
            Opts::new(
                "onboardings_total",
                "Onboardings coordinated here, by outcome",
            ),
            &["outcome"],
        )?;
        registry.register(Box::new(ready.clone()))?;
        registry.register(Box::new(handled.clone()))?;
        registry.register(Box::new(sync_failures.clone()))?;
        registry.register(Box::new(onboardings.clone()))?;
        Ok(Self {
            registry,
            ready,
            handled,
            sync_failures,
            onboardings,
        })
    }

    /// Records readiness.
    pub fn set_ready(&self, ready: bool) {
        self.ready.set(i64::from(ready));
    }

    /// Records one handled request.
    pub fn handled(&self, method: &str, ok: bool) {
        self.handled
            .with_label_values(&[method, if ok { "ok" } else { "error" }])
            .inc();
    }

    /// Records a failed cache sync attempt.
    pub fn sync_failed(&self) {
        self.sync_failures.inc();
    }

    /// Records the outcome of an onboarding this conductor coordinated.
    pub fn onboarded(&self, ok: bool) {
        self.onboardings
            .with_label_values(&[if ok { "onboarded" } else { "failed" }])
            .inc();
    }

    /// The Prometheus text exposition.
    pub fn render(&self) -> String {
        TextEncoder::new()
            .encode_to_string(&self.registry.gather())
            .unwrap_or_default()
    }
}
