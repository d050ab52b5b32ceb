//! Serving requests: consume, dispatch to the handler, reply or settle.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use tracing::Instrument;

use futures::FutureExt;
use prost::Message;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::proto::{Envelope, Reply};
use crate::transport::{Dest, Incoming, Queue};
use crate::{Bus, CONTRACT_VERSION, Handler, Request, Result};

/// What a server consumes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The shared work queue (casts, calls to `Target::Any`).
    Shared,
    /// This member's own queue (fanouts, scatter-gathers, direct sends).
    Member(String),
}

/// A subscription that is already receiving; [`Subscription::serve`] handles what arrives.
pub struct Subscription {
    bus: Bus,
    rx: tokio::sync::mpsc::Receiver<Incoming>,
    stop: CancellationToken,
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Subscription")
    }
}

impl Bus {
    /// Subscribes to `source` with at most `prefetch` requests in flight; returns once the
    /// subscription is in place (retrying while the broker is unreachable, until `stop`).
    pub async fn subscribe(
        &self,
        source: Source,
        prefetch: u16,
        stop: CancellationToken,
    ) -> Result<Subscription> {
        let queue = match source {
            Source::Shared => Queue::Shared,
            Source::Member(id) => Queue::Member(id),
        };
        let rx = self
            .inner
            .transport
            .consume(queue, prefetch, stop.clone())
            .await?;
        Ok(Subscription {
            bus: self.clone(),
            rx,
            stop,
        })
    }

    /// Subscribes and serves: see [`Bus::subscribe`] and [`Subscription::serve`].
    pub async fn serve(
        &self,
        source: Source,
        handler: Arc<dyn Handler>,
        prefetch: u16,
        stop: CancellationToken,
    ) -> Result<()> {
        self.subscribe(source, prefetch, stop)
            .await?
            .serve(handler)
            .await
    }
}

impl Subscription {
    /// Handles requests until the subscription's `stop` is cancelled; then stops
    /// consuming, waits for the requests in flight and returns.
    pub async fn serve(self, handler: Arc<dyn Handler>) -> Result<()> {
        let Subscription { bus, mut rx, stop } = self;
        let tracker = TaskTracker::new();
        loop {
            tokio::select! {
                biased;
                _ = stop.cancelled() => break,
                m = rx.recv() => match m {
                    Some(m) => {
                        let bus = bus.clone();
                        let handler = handler.clone();
                        tracker.spawn(async move { bus.handle_one(m, handler).await });
                    }
                    None => break,
                },
            }
        }
        // Deliveries received but not dispatched go back to their queue.
        drop(rx);
        tracker.close();
        tracker.wait().await;
        Ok(())
    }
}

impl Bus {
    async fn handle_one(&self, m: Incoming, handler: Arc<dyn Handler>) {
        let env = match Envelope::decode(m.body.as_slice()) {
            Ok(env) if env.version == CONTRACT_VERSION => env,
            Ok(env) => {
                tracing::error!(version = env.version, method = %env.method, "unsupported contract version; dead-lettering");
                return m.acker.nack(false).await;
            }
            Err(e) => {
                tracing::error!(error = %e, "undecodable message; dead-lettering");
                return m.acker.nack(false).await;
            }
        };
        self.inner
            .handled
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let field = |k: &str| {
            env.context
                .get(k)
                .map(String::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let span = tracing::info_span!(
            "bus",
            method = %env.method,
            conductor_id = %self.inner.sender,
            request_id = %field("request_id"),
            package_id = %field("package_id"),
            op_occ_id = %field("op_occ_id"),
            vnf_instance_id = %field("vnf_instance_id"),
        );
        let request_id = env
            .context
            .get("request_id")
            .cloned()
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        let req = Request {
            method: env.method.clone(),
            payload: env.payload,
            sender: env.sender,
            context: env.context,
            redelivered: m.redelivered,
        };
        let outcome = crate::request_id::scope(
            request_id,
            AssertUnwindSafe(handler.handle(req))
                .catch_unwind()
                .instrument(span),
        )
        .await
        .unwrap_or_else(|_| Err(crate::HandlerError::new("handler panicked")));
        if !env.reply_to.is_empty() {
            let reply = Reply {
                correlation_id: env.correlation_id,
                responder: self.inner.sender.clone(),
                ok: outcome.is_ok(),
                error: outcome
                    .as_ref()
                    .err()
                    .map(ToString::to_string)
                    .unwrap_or_default(),
                payload: outcome.unwrap_or_default(),
            };
            let sent = self
                .inner
                .transport
                .publish(Dest::Reply(&env.reply_to), reply.encode_to_vec())
                .await;
            if let Err(e) = sent {
                tracing::warn!(error = %e, method = %env.method, "reply not delivered");
            }
            return m.acker.ack().await;
        }
        match outcome {
            Ok(_) => m.acker.ack().await,
            Err(e) if m.redelivered => {
                tracing::error!(method = %env.method, error = %e, "handler failed again; dead-lettering");
                m.acker.nack(false).await;
            }
            Err(e) => {
                tracing::warn!(method = %env.method, error = %e, "handler failed; redelivering once");
                m.acker.nack(true).await;
            }
        }
    }
}
