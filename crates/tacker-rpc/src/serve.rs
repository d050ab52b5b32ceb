//! Serving requests: consume, dispatch to the handler, reply or settle.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

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

impl Bus {
    /// Serves `source` with `handler`, at most `prefetch` requests at once, until `stop`
    /// is cancelled; then stops consuming, waits for the requests in flight and returns.
    pub async fn serve(
        &self,
        source: Source,
        handler: Arc<dyn Handler>,
        prefetch: u16,
        stop: CancellationToken,
    ) -> Result<()> {
        let queue = match source {
            Source::Shared => Queue::Shared,
            Source::Member(id) => Queue::Member(id),
        };
        let mut rx = self
            .inner
            .transport
            .consume(queue, prefetch, stop.clone())
            .await?;
        let tracker = TaskTracker::new();
        loop {
            tokio::select! {
                biased;
                _ = stop.cancelled() => break,
                m = rx.recv() => match m {
                    Some(m) => {
                        let bus = self.clone();
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
        let req = Request {
            method: env.method.clone(),
            payload: env.payload,
            sender: env.sender,
            context: env.context,
            redelivered: m.redelivered,
        };
        let outcome = AssertUnwindSafe(handler.handle(req))
            .catch_unwind()
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
