#![doc = include_str!("../README.md")]

mod cache;
mod cache_sync;
mod closed_loop;
mod ctx;
mod dispatch;
mod error;
mod handlers;
mod health;
pub mod lcm;
mod membership;
mod metrics;
mod notifier;
mod onboarding;
mod periodic;
pub mod pm;
mod recovery;
mod startup;
mod vnf_sync;

use std::sync::Arc;
use std::time::Duration;

use tacker_db::Db;
use tacker_domain::conductor::ConductorState;
use tacker_rpc::{Bus, Source};
use tacker_storage::PackageStore;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

pub use ctx::{Ctx, OnboardingSettings, Settings};
pub use error::{Error, Result};
pub use metrics::Metrics;

/// A started conductor.
#[derive(Debug)]
pub struct Conductor {
    ctx: Arc<Ctx>,
    stop_shared: CancellationToken,
    stop_member: CancellationToken,
    stop_heartbeat: CancellationToken,
    stop_health: CancellationToken,
    main: JoinHandle<()>,
    tasks: Vec<JoinHandle<()>>,
    shutdown_timeout: Duration,
}

impl Conductor {
    /// Registers, runs start-up work, turns READY and starts consuming. Returns once the
    /// conductor is registered; READY follows in the background.
    pub async fn start(settings: Settings, db: Db, bus: Bus, store: PackageStore) -> Result<Self> {
        let ctx = Arc::new(Ctx::new(&settings, db, bus, store)?);
        membership::register(&ctx, &settings.host).await?;
        tracing::info!(conductor_id = %ctx.id, incarnation = %ctx.incarnation, "registered; SYNCING");
        // What an earlier incarnation under this id owned is settled before READY.
        recovery::settle_own(&ctx).await?;

        let stop_heartbeat = CancellationToken::new();
        let stop_member = CancellationToken::new();
        let stop_shared = CancellationToken::new();
        let stop_health = CancellationToken::new();
        let mut tasks = vec![
            tokio::spawn(membership::heartbeat_loop(
                ctx.clone(),
                settings.host.clone(),
                settings.heartbeat_interval,
                stop_heartbeat.clone(),
            )),
            tokio::spawn(recovery::run(ctx.clone(), stop_shared.clone())),
            tokio::spawn(vnf_sync::run(ctx.clone(), stop_shared.clone())),
            tokio::spawn(closed_loop::run(ctx.clone(), stop_shared.clone())),
            tokio::spawn(closed_loop::reconcile::run(
                ctx.clone(),
                stop_shared.clone(),
            )),
            tokio::spawn(notifier::run(ctx.clone(), stop_heartbeat.clone())),
        ];
        if let Some(listener) = settings.health_listener {
            let (c, s) = (ctx.clone(), stop_health.clone());
            tasks.push(tokio::spawn(async move {
                if let Err(e) = health::run(listener, c, s).await {
                    tracing::error!(error = %e, "health listener failed");
                }
            }));
        }
        let handler: Arc<dyn tacker_rpc::Handler> =
            Arc::new(dispatch::Dispatcher::new(ctx.clone()));
        let main = {
            let (c, s, m) = (ctx.clone(), stop_shared.clone(), stop_member.clone());
            let prefetch = settings.prefetch;
            tokio::spawn(async move {
                // Listen on its own queue before anyone may count it as live.
                let member = match c
                    .bus
                    .subscribe(Source::Member(c.id.clone()), prefetch, m)
                    .await
                {
                    Ok(sub) => sub,
                    Err(e) => {
                        return tracing::error!(error = %e, "cannot subscribe to the member queue");
                    }
                };
                let h = handler.clone();
                let member = tokio::spawn(async move {
                    if let Err(e) = member.serve(h).await {
                        tracing::error!(error = %e, "member queue consumer failed");
                    }
                });
                if startup::run(&c, &s).await
                    && let Err(e) = c.bus.serve(Source::Shared, handler, prefetch, s).await
                {
                    tracing::error!(error = %e, "shared queue consumer failed");
                }
                let _ = member.await;
            })
        };
        Ok(Self {
            ctx,
            stop_shared,
            stop_member,
            stop_heartbeat,
            stop_health,
            main,
            tasks,
            shutdown_timeout: settings.shutdown_timeout,
        })
    }

    /// This conductor's context.
    pub fn ctx(&self) -> &Arc<Ctx> {
        &self.ctx
    }

    /// A source of this conductor's metrics, labelled with its id, for an exposition
    /// that is not its own health endpoint (all-in-one's `/metrics`).
    pub fn metric_source(
        &self,
    ) -> impl Fn() -> Vec<prometheus::proto::MetricFamily> + Send + Sync + 'static {
        let ctx = self.ctx.clone();
        move || {
            ctx.metrics.observe_bus(&ctx.bus);
            ctx.metrics.families_of(&ctx.id)
        }
    }

    /// Waits until the conductor is READY (or `timeout` passes); true when READY.
    pub async fn wait_ready(&self, timeout: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        while !self.ctx.is_ready() {
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        true
    }

    /// Graceful stop: STOPPING, stop consuming, finish in-flight work, stop heartbeating.
    pub async fn shutdown(self) {
        let ctx = self.ctx.clone();
        ctx.set_ready(false);
        if let Err(e) = membership::set_state(&ctx, ConductorState::Stopping).await {
            tracing::warn!(error = %e, "could not record STOPPING");
        }
        tracing::info!(conductor_id = %ctx.id, "STOPPING: finishing in-flight work");
        self.stop_shared.cancel();
        self.stop_member.cancel();
        if tokio::time::timeout(self.shutdown_timeout, self.main)
            .await
            .is_err()
        {
            tracing::warn!("in-flight work did not finish within the shutdown timeout");
        }
        self.stop_heartbeat.cancel();
        self.stop_health.cancel();
        for t in self.tasks {
            let _ = tokio::time::timeout(Duration::from_secs(5), t).await;
        }
        tracing::info!(conductor_id = %ctx.id, "stopped");
    }
}
