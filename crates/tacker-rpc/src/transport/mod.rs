//! What a transport provides: publishing to a destination, consuming from a source,
//! acknowledging. Patterns (call, scatter-gather, serving) are built on these in `bus`.

pub(crate) mod amqp;
pub(crate) mod memory;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::Result;

/// Where a message goes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Dest<'a> {
    /// The shared work queue: exactly one consumer takes it.
    Shared,
    /// Every member.
    Fanout,
    /// One named member (fails when it has no queue).
    Member(&'a str),
    /// A reply inbox.
    Reply(&'a str),
}

/// What a consumer reads.
#[derive(Debug, Clone)]
pub(crate) enum Queue {
    /// The shared work queue.
    Shared,
    /// A member's own queue (fanouts and direct messages).
    Member(String),
    /// This transport's reply inbox.
    Replies,
}

/// A delivered message and how to settle it.
pub(crate) struct Incoming {
    pub body: Vec<u8>,
    pub redelivered: bool,
    pub acker: Box<dyn Acker>,
}

/// Settles one delivery. Dropping an unsettled delivery returns it to its queue (in-process)
/// or leaves it to the broker, which redelivers it when the channel closes (AMQP).
#[async_trait::async_trait]
pub(crate) trait Acker: Send {
    /// Done with it.
    async fn ack(self: Box<Self>);
    /// Failed: back to the queue (`requeue`) or to the dead letters.
    async fn nack(self: Box<Self>, requeue: bool);
}

#[async_trait::async_trait]
pub(crate) trait Transport: Send + Sync + 'static {
    /// Publishes `body` to `dest`; returns once the broker has it (confirmed).
    async fn publish(&self, dest: Dest<'_>, body: Vec<u8>) -> Result<()>;
    /// Starts consuming `queue` with at most `prefetch` unsettled deliveries; returns once
    /// subscribed (or stopped). The stream ends when `stop` is cancelled. Survives
    /// reconnects.
    async fn consume(
        &self,
        queue: Queue,
        prefetch: u16,
        stop: CancellationToken,
    ) -> Result<mpsc::Receiver<Incoming>>;
    /// The address of this transport's reply inbox.
    fn reply_address(&self) -> String;
    /// Whether the broker is reachable now.
    async fn healthy(&self) -> bool;
    /// Removes and returns up to `max` dead-lettered messages.
    async fn take_dead_letters(&self, max: usize) -> Result<Vec<Vec<u8>>>;
    /// Deletes every queue and exchange of this prefix (tests).
    async fn teardown(&self) -> Result<()>;
}
