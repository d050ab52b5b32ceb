//! Conductor metrics.

use std::time::Duration;

use prometheus::{
    HistogramOpts, HistogramVec, IntCounterVec, IntGauge, IntGaugeVec, Opts, Registry, TextEncoder,
};

/// The conductor's metrics.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    bus: tacker_rpc::BusMetrics,
    ready: IntGauge,
    handled: IntCounterVec,
    sync_failures: prometheus::IntCounter,
    onboardings: IntCounterVec,
    onboarding_seconds: HistogramVec,
    lcm_ops: IntCounterVec,
    lcm_seconds: HistogramVec,
    hook_seconds: HistogramVec,
    notifications: IntCounterVec,
    redeliveries: IntCounterVec,
    live: IntGauge,
    cached: IntGauge,
    undelivered: IntGauge,
    occurrences: IntGaugeVec,
    automatic: IntCounterVec,
    open_alarms: IntGauge,
}

const DURATION_BUCKETS: [f64; 12] = [
    0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 15.0, 60.0, 300.0,
];

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
        let onboarding_seconds = HistogramVec::new(
            HistogramOpts::new(
                "onboarding_duration_seconds",
                "Time from taking an onboarding to its end, by outcome",
            )
            .buckets(DURATION_BUCKETS.to_vec()),
            &["outcome"],
        )?;
        let lcm_ops = IntCounterVec::new(
            Opts::new(
                "lcm_operations_total",
                "LCM operation occurrences this conductor moved to an end state, by operation and state",
            ),
            &["operation", "state"],
        )?;
        let lcm_seconds = HistogramVec::new(
            HistogramOpts::new(
                "lcm_operation_duration_seconds",
                "Start to end state of LCM operation occurrences, by operation and state",
            )
            .buckets(DURATION_BUCKETS.to_vec()),
            &["operation", "state"],
        )?;
        let hook_seconds = HistogramVec::new(
            HistogramOpts::new(
                "mgmt_hook_duration_seconds",
                "Management driver hooks run here, by driver, hook and outcome",
            )
            .buckets(DURATION_BUCKETS.to_vec()),
            &["driver", "hook", "outcome"],
        )?;
        let notifications = IntCounterVec::new(
            Opts::new(
                "notification_deliveries_total",
                "Notification delivery attempts, by outcome (delivered, retry)",
            ),
            &["outcome"],
        )?;
        let redeliveries = IntCounterVec::new(
            Opts::new(
                "bus_redeliveries_total",
                "Bus requests the broker delivered again, by method",
            ),
            &["method"],
        )?;
        let live = IntGauge::new("conductors_live", "Live conductors, as this one sees them")?;
        let cached = IntGauge::new("cache_packages", "Packages in this conductor's cache")?;
        let undelivered = IntGauge::new(
            "notifications_undelivered",
            "Notifications queued and not delivered yet (the whole cluster's backlog)",
        )?;
        let occurrences = IntGaugeVec::new(
            Opts::new(
                "lcm_op_occurrences",
                "Operation occurrences stored, by state (the whole cluster's)",
            ),
            &["state"],
        )?;
        let automatic = IntCounterVec::new(
            Opts::new(
                "automatic_operations_total",
                "Operations this conductor started on its own (auto-heal, auto-scale), by operation",
            ),
            &["operation"],
        )?;
        let open_alarms = IntGauge::new(
            "alarms_open",
            "Alarms raised and not cleared (the whole cluster's)",
        )?;
        registry.register(Box::new(automatic.clone()))?;
        registry.register(Box::new(open_alarms.clone()))?;
        for m in [&onboarding_seconds, &lcm_seconds, &hook_seconds] {
            registry.register(Box::new(m.clone()))?;
        }
        for m in [&lcm_ops, &notifications, &redeliveries] {
            registry.register(Box::new(m.clone()))?;
        }
        registry.register(Box::new(live.clone()))?;
        registry.register(Box::new(cached.clone()))?;
        registry.register(Box::new(undelivered.clone()))?;
        registry.register(Box::new(occurrences.clone()))?;
        registry.register(Box::new(ready.clone()))?;
        registry.register(Box::new(handled.clone()))?;
        registry.register(Box::new(sync_failures.clone()))?;
        registry.register(Box::new(onboardings.clone()))?;
        let bus = tacker_rpc::BusMetrics::register(&registry)?;
        Ok(Self {
            registry,
            bus,
            ready,
            handled,
            sync_failures,
            onboardings,
            onboarding_seconds,
            lcm_ops,
            lcm_seconds,
            hook_seconds,
            notifications,
            redeliveries,
            live,
            cached,
            undelivered,
            occurrences,
            automatic,
            open_alarms,
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
    pub fn onboarded(&self, ok: bool, took: Duration) {
        let outcome = if ok { "onboarded" } else { "failed" };
        self.onboardings.with_label_values(&[outcome]).inc();
        self.onboarding_seconds
            .with_label_values(&[outcome])
            .observe(took.as_secs_f64());
    }

    /// Records an LCM occurrence reaching an end state after `took`.
    pub fn lcm_ended(&self, operation: &str, state: &str, took: Duration) {
        self.lcm_ops.with_label_values(&[operation, state]).inc();
        self.lcm_seconds
            .with_label_values(&[operation, state])
            .observe(took.as_secs_f64());
    }

    /// Records a management driver hook that ran for `took`.
    pub fn hook_ran(&self, driver: &str, hook: &str, ok: bool, took: Duration) {
        // Plugin endpoints are labelled as "plugin" (their addresses are no label).
        let driver = if driver.starts_with("grpc") {
            "plugin"
        } else {
            driver
        };
        self.hook_seconds
            .with_label_values(&[driver, hook, if ok { "ok" } else { "error" }])
            .observe(took.as_secs_f64());
    }

    /// Records a notification delivery attempt.
    pub fn notification(&self, delivered: bool) {
        self.notifications
            .with_label_values(&[if delivered { "delivered" } else { "retry" }])
            .inc();
    }

    /// Records a redelivered bus request.
    pub fn redelivered(&self, method: &str) {
        self.redeliveries.with_label_values(&[method]).inc();
    }

    /// Records the live set's size and this cache's package count.
    pub fn set_cluster(&self, live: usize, cached: usize) {
        self.live.set(i64::try_from(live).unwrap_or(i64::MAX));
        self.cached.set(i64::try_from(cached).unwrap_or(i64::MAX));
    }

    /// Counts an operation started automatically.
    pub fn automatic_started(&self, operation: &str) {
        self.automatic.with_label_values(&[operation]).inc();
    }

    /// Records the open alarms.
    pub fn set_open_alarms(&self, n: i64) {
        self.open_alarms.set(n);
    }

    /// Records the notification backlog.
    pub fn set_undelivered(&self, n: i64) {
        self.undelivered.set(n);
    }

    /// Records the stored operation occurrences per state.
    pub fn set_occurrences(&self, counts: &[(String, i64)]) {
        self.occurrences.reset();
        for (state, n) in counts {
            self.occurrences
                .with_label_values(&[state.as_str()])
                .set(*n);
        }
    }

    /// Brings the bus counters up to what `bus` has counted (before a scrape).
    pub fn observe_bus(&self, bus: &tacker_rpc::Bus) {
        self.bus.observe(bus);
    }

    /// Every metric, each labelled `conductor_id="<id>"` (for one exposition of several
    /// conductors, as all-in-one serves on its API port).
    pub fn families_of(&self, id: &str) -> Vec<prometheus::proto::MetricFamily> {
        let mut families = self.registry.gather();
        for f in &mut families {
            for m in f.mut_metric() {
                let mut labels = m.take_label();
                let mut l = prometheus::proto::LabelPair::default();
                l.set_name("conductor_id".into());
                l.set_value(id.into());
                labels.insert(0, l);
                m.set_label(labels);
            }
        }
        families
    }

    /// The Prometheus text exposition.
    pub fn render(&self) -> String {
        TextEncoder::new()
            .encode_to_string(&self.registry.gather())
            .unwrap_or_default()
    }
}
