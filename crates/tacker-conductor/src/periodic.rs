//! Background passes: every period, while the conductor is READY, until stopped.

use std::future::Future;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::Ctx;

/// Runs `pass` every `period` (a late pass delays the next) while `ctx` is READY.
pub async fn every<F, Fut>(ctx: &Ctx, period: Duration, stop: CancellationToken, mut pass: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = ()>,
{
    let mut tick = tokio::time::interval(period);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tick.tick() => {}
        }
        if ctx.is_ready() {
            pass().await;
        }
    }
}
