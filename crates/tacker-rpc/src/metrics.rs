//! Bus traffic of a process as Prometheus counters (`bus_messages_sent_total`,
//! `bus_messages_handled_total`), mirrored from the bus's own counts.

use prometheus::{IntCounter, Registry};

use crate::Bus;

/// The counters, registered in a process's registry.
#[derive(Debug)]
pub struct BusMetrics {
    sent: IntCounter,
    handled: IntCounter,
}

impl BusMetrics {
    /// Registers the counters in `registry`.
    pub fn register(registry: &Registry) -> Result<Self, prometheus::Error> {
        let sent = IntCounter::new(
            "bus_messages_sent_total",
            "Bus messages this process sent (casts, fanouts, requests)",
        )?;
        let handled = IntCounter::new(
            "bus_messages_handled_total",
            "Bus messages this process handled",
        )?;
        registry.register(Box::new(sent.clone()))?;
        registry.register(Box::new(handled.clone()))?;
        Ok(Self { sent, handled })
    }

    /// Brings the counters up to what `bus` has counted (before a scrape).
    pub fn observe(&self, bus: &Bus) {
        let (sent, handled) = bus.counts();
        self.sent.inc_by(sent.saturating_sub(self.sent.get()));
        self.handled
            .inc_by(handled.saturating_sub(self.handled.get()));
    }
}
