//! Conductor metrics.

use prometheus::{IntCounterVec, IntGauge, Opts, Registry, TextEncoder};

/// The conductor's metrics.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    ready: IntGauge,
    handled: IntCounterVec,
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
        registry.register(Box::new(ready.clone()))?;
        registry.register(Box::new(handled.clone()))?;
        Ok(Self {
            registry,
            ready,
            handled,
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

    /// The Prometheus text exposition.
    pub fn render(&self) -> String {
        TextEncoder::new()
            .encode_to_string(&self.registry.gather())
            .unwrap_or_default()
    }
}
