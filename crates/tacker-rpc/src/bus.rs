//! The bus: cast, fanout, direct send, call and scatter-gather over a transport.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use prost::Message;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::proto::{Envelope, Reply};
use crate::transport::{Dest, Queue, Transport, amqp::Amqp, memory::Memory};
use crate::{CONTRACT_VERSION, Error, Method, Result};

/// How to reach the broker (its `Debug` masks the URL's password).
#[derive(Clone)]
pub struct BusOptions {
    /// `memory://` or `amqp://user:password@host:port/vhost` (several, comma-separated:
    /// the nodes of a cluster, tried in turn).
    pub url: String,
    /// Prefix of every exchange and queue name.
    pub prefix: String,
    /// How long a publish waits for the broker.
    pub publish_timeout: Duration,
    /// Upper bound of the reconnect backoff.
    pub reconnect_max_backoff: Duration,
    /// The type of the durable queues (AMQP).
    pub queue_type: QueueType,
}

/// The type of the durable queues: the conductors' shared queue and the dead letters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueType {
    /// RabbitMQ quorum queues: replicated over the cluster's nodes, a delivery limit.
    Quorum,
    /// Classic queues: on one node.
    Classic,
}

impl BusOptions {
    /// Options with default timeouts and quorum queues.
    pub fn new(url: impl Into<String>, prefix: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            prefix: prefix.into(),
            publish_timeout: Duration::from_secs(10),
            reconnect_max_backoff: Duration::from_secs(10),
            queue_type: QueueType::Quorum,
        }
    }
}

/// Who a call goes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Any one conductor (the shared queue).
    Any,
    /// The named member.
    Member(String),
}

/// The outcome of a scatter-gather.
#[derive(Debug)]
pub struct Gathered<R> {
    /// One reply per member that answered: its response or its handler's error.
    pub replies: BTreeMap<String, std::result::Result<R, String>>,
    /// Members asked that did not answer before the deadline.
    pub missing: Vec<String>,
}

type Pending = Mutex<HashMap<String, mpsc::UnboundedSender<Reply>>>;

pub(crate) struct Inner {
    pub(crate) transport: Box<dyn Transport>,
    pub(crate) sender: String,
    /// Messages sent (requests, casts, fanouts; not replies).
    pub(crate) sent: std::sync::atomic::AtomicU64,
    /// Messages handled by this process's handler.
    pub(crate) handled: std::sync::atomic::AtomicU64,
    pending: Arc<Pending>,
    stop: CancellationToken,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// A handle on the bus; clones share one connection.
#[derive(Clone)]
pub struct Bus {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Bus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bus")
            .field("sender", &self.inner.sender)
            .finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Removes a pending call when its waiter goes away (reply, timeout or cancellation).
struct PendingGuard<'a> {
    pending: &'a Pending,
    id: String,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        lock(self.pending).remove(&self.id);
    }
}

impl Bus {
    /// Connects to the bus as `sender` (a conductor id, or a server name). AMQP connects
    /// lazily and keeps retrying in the background; a bad URL fails at once.
    pub async fn connect(opts: &BusOptions, sender: impl Into<String>) -> Result<Self> {
        let transport: Box<dyn Transport> = if opts.url == "memory://" {
            Box::new(Memory::new(&opts.prefix))
        } else if opts.url.starts_with("amqp://") || opts.url.starts_with("amqps://") {
            Box::new(Amqp::new(opts)?)
        } else {
            return Err(Error::InvalidUrl(format!(
                "{:?}: expected memory:// or amqp://",
                opts.url
            )));
        };
        let stop = CancellationToken::new();
        let pending: Arc<Pending> = Arc::default();
        let mut replies = transport.consume(Queue::Replies, 256, stop.clone()).await?;
        let routes = pending.clone();
        tokio::spawn(async move {
            while let Some(m) = replies.recv().await {
                if let Ok(reply) = Reply::decode(m.body.as_slice())
                    && let Some(tx) = lock(&routes).get(&reply.correlation_id)
                {
                    let _ = tx.send(reply);
                }
                m.acker.ack().await;
            }
        });
        let inner = Inner {
            sent: Default::default(),
            handled: Default::default(),
            transport,
            sender: sender.into(),
            pending,
            stop,
        };
        Ok(Self {
            inner: Arc::new(inner),
        })
    }

    /// The name this handle sends as.
    pub fn sender(&self) -> &str {
        &self.inner.sender
    }

    /// Messages this handle has sent and handled so far (for metrics).
    pub fn counts(&self) -> (u64, u64) {
        use std::sync::atomic::Ordering::Relaxed;
        (
            self.inner.sent.load(Relaxed),
            self.inner.handled.load(Relaxed),
        )
    }

    fn envelope<M: Method>(&self, msg: &M, context: &[(&str, &str)]) -> Envelope {
        self.inner
            .sent
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Envelope {
            version: CONTRACT_VERSION,
            method: M::NAME.to_owned(),
            payload: msg.encode_to_vec(),
            sender: self.inner.sender.clone(),
            reply_to: String::new(),
            correlation_id: String::new(),
            context: context
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .chain(crate::request_id::current().map(|id| ("request_id".to_owned(), id)))
                .collect(),
        }
    }

    /// Sends `msg` to exactly one conductor (durable, confirmed).
    pub async fn cast<M: Method>(&self, msg: &M, context: &[(&str, &str)]) -> Result<()> {
        let env = self.envelope(msg, context);
        self.inner
            .transport
            .publish(Dest::Shared, env.encode_to_vec())
            .await
    }

    /// Sends `msg` to every member.
    pub async fn fanout<M: Method>(&self, msg: &M, context: &[(&str, &str)]) -> Result<()> {
        let env = self.envelope(msg, context);
        self.inner
            .transport
            .publish(Dest::Fanout, env.encode_to_vec())
            .await
    }

    /// Sends `msg` to one named member; fails when it does not listen.
    pub async fn send_to<M: Method>(
        &self,
        member: &str,
        msg: &M,
        context: &[(&str, &str)],
    ) -> Result<()> {
        let env = self.envelope(msg, context);
        self.inner
            .transport
            .publish(Dest::Member(member), env.encode_to_vec())
            .await
    }

    /// Sends `msg` and waits up to `timeout` for the reply, decoded as `R`.
    pub async fn call<M: Method, R: Method>(
        &self,
        target: Target,
        msg: &M,
        context: &[(&str, &str)],
        timeout: Duration,
    ) -> Result<R> {
        let (mut rx, _guard, env) = self.request(msg, context);
        let dest = match &target {
            Target::Any => Dest::Shared,
            Target::Member(id) => Dest::Member(id),
        };
        let timed_out = || Error::Timeout {
            method: M::NAME.into(),
            timeout,
        };
        tokio::time::timeout(
            timeout,
            self.inner.transport.publish(dest, env.encode_to_vec()),
        )
        .await
        .map_err(|_| timed_out())??;
        let reply = tokio::time::timeout(timeout, rx.recv())
            .await
            .map_err(|_| timed_out())?
            .ok_or_else(timed_out)?;
        decode_reply(reply)
    }

    /// Sends `msg` to every member and gathers one reply from each of `members` until
    /// `timeout`; members that did not answer are listed in [`Gathered::missing`].
    pub async fn scatter_gather<M: Method, R: Method>(
        &self,
        msg: &M,
        members: &[String],
        context: &[(&str, &str)],
        timeout: Duration,
    ) -> Result<Gathered<R>> {
        let deadline = tokio::time::Instant::now() + timeout;
        let (mut rx, _guard, env) = self.request(msg, context);
        tokio::time::timeout_at(
            deadline,
            self.inner
                .transport
                .publish(Dest::Fanout, env.encode_to_vec()),
        )
        .await
        .map_err(|_| Error::Timeout {
            method: M::NAME.into(),
            timeout,
        })??;
        let mut replies = BTreeMap::new();
        while replies.len() < members.len() {
            let Ok(Some(reply)) = tokio::time::timeout_at(deadline, rx.recv()).await else {
                break;
            };
            if !members.contains(&reply.responder) {
                continue;
            }
            let responder = reply.responder.clone();
            let outcome = decode_reply::<R>(reply).map_err(|e| match e {
                Error::Remote { message, .. } => message,
                other => other.to_string(),
            });
            replies.insert(responder, outcome);
        }
        let missing = members
            .iter()
            .filter(|m| !replies.contains_key(*m))
            .cloned()
            .collect();
        Ok(Gathered { replies, missing })
    }

    fn request<M: Method>(
        &self,
        msg: &M,
        context: &[(&str, &str)],
    ) -> (mpsc::UnboundedReceiver<Reply>, PendingGuard<'_>, Envelope) {
        let id = uuid::Uuid::new_v4().to_string();
        let (tx, rx) = mpsc::unbounded_channel();
        lock(&self.inner.pending).insert(id.clone(), tx);
        let mut env = self.envelope(msg, context);
        env.reply_to = self.inner.transport.reply_address();
        env.correlation_id = id.clone();
        (
            rx,
            PendingGuard {
                pending: &self.inner.pending,
                id,
            },
            env,
        )
    }

    /// Whether the broker is reachable.
    pub async fn healthy(&self) -> bool {
        self.inner.transport.healthy().await
    }

    /// Removes and returns up to `max` dead-lettered envelopes (casts whose handler
    /// failed twice, or undecodable messages as raw envelopes with only a payload).
    pub async fn take_dead_letters(&self, max: usize) -> Result<Vec<Envelope>> {
        let raw = self.inner.transport.take_dead_letters(max).await?;
        Ok(raw
            .into_iter()
            .map(|b| {
                Envelope::decode(b.as_slice()).unwrap_or_else(|_| Envelope {
                    payload: b,
                    ..Envelope::default()
                })
            })
            .collect())
    }

    /// Deletes every queue and exchange of this prefix (for tests).
    pub async fn teardown(&self) -> Result<()> {
        self.inner.transport.teardown().await
    }
}

fn decode_reply<R: Method>(reply: Reply) -> Result<R> {
    if reply.ok {
        Ok(R::decode(reply.payload.as_slice())?)
    } else {
        Err(Error::Remote {
            responder: reply.responder,
            message: reply.error,
        })
    }
}
