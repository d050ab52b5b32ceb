//! The in-process transport (`memory://`): same semantics as AMQP, inside one process.
//! Brokers are shared per prefix, so a server and conductors built from the same
//! configuration in one process talk to each other.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, mpsc};
use tokio_util::sync::CancellationToken;

use super::{Acker, Dest, Incoming, Queue, Transport};
use crate::{Error, Result};

/// A message and whether it was delivered before.
type Msg = (Vec<u8>, bool);
/// Where a member's or an inbox's messages go.
type Route = mpsc::UnboundedSender<Msg>;

#[derive(Default)]
struct Broker {
    shared: Mutex<VecDeque<Msg>>,
    shared_ready: Notify,
    members: Mutex<HashMap<String, Route>>,
    inboxes: Mutex<HashMap<String, Route>>,
    dead: Mutex<Vec<Vec<u8>>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A poisoned lock only means another thread panicked mid-update of a plain queue.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn registry() -> &'static Mutex<HashMap<String, Weak<Broker>>> {
    static R: OnceLock<Mutex<HashMap<String, Weak<Broker>>>> = OnceLock::new();
    R.get_or_init(Default::default)
}

fn broker(prefix: &str) -> Arc<Broker> {
    let mut reg = lock(registry());
    if let Some(b) = reg.get(prefix).and_then(Weak::upgrade) {
        return b;
    }
    let b = Arc::new(Broker::default());
    reg.insert(prefix.to_owned(), Arc::downgrade(&b));
    b
}

pub(crate) struct Memory {
    broker: Arc<Broker>,
    inbox: String,
}

impl Memory {
    pub(crate) fn new(prefix: &str) -> Self {
        Self {
            broker: broker(prefix),
            inbox: format!("reply.{}", uuid::Uuid::new_v4()),
        }
    }
}

/// A delivery from the shared queue: back to the front of the queue unless acked.
struct SharedAck {
    broker: Arc<Broker>,
    body: Option<Vec<u8>>,
    _permit: OwnedSemaphorePermit,
}

impl SharedAck {
    fn requeue(&mut self) {
        if let Some(body) = self.body.take() {
            lock(&self.broker.shared).push_front((body, true));
            self.broker.shared_ready.notify_one();
        }
    }
}

impl Drop for SharedAck {
    fn drop(&mut self) {
        self.requeue();
    }
}

#[async_trait::async_trait]
impl Acker for SharedAck {
    async fn ack(mut self: Box<Self>) {
        self.body = None;
    }
    async fn nack(mut self: Box<Self>, requeue: bool) {
        if requeue {
            self.requeue();
        } else if let Some(body) = self.body.take() {
            lock(&self.broker.dead).push(body);
        }
    }
}

/// A delivery from a member queue: a requeue goes back to that member.
struct MemberAck {
    tx: Option<Route>,
    body: Option<Vec<u8>>,
    _permit: OwnedSemaphorePermit,
}

#[async_trait::async_trait]
impl Acker for MemberAck {
    async fn ack(self: Box<Self>) {}
    async fn nack(mut self: Box<Self>, requeue: bool) {
        if let (true, Some(tx), Some(body)) = (requeue, self.tx.take(), self.body.take()) {
            let _ = tx.send((body, true));
        }
    }
}

#[async_trait::async_trait]
impl Transport for Memory {
    async fn publish(&self, dest: Dest<'_>, body: Vec<u8>) -> Result<()> {
        let b = &self.broker;
        match dest {
            Dest::Shared => {
                lock(&b.shared).push_back((body, false));
                b.shared_ready.notify_one();
            }
            Dest::Fanout => {
                let mut members = lock(&b.members);
                members.retain(|_, tx| tx.send((body.clone(), false)).is_ok());
            }
            Dest::Member(id) => {
                let members = lock(&b.members);
                let tx = members.get(id).ok_or_else(|| no_route(id))?;
                tx.send((body, false)).map_err(|_| no_route(id))?;
            }
            Dest::Reply(addr) => {
                let inboxes = lock(&b.inboxes);
                // A reply to a caller that is gone is dropped, as on AMQP.
                if let Some(tx) = inboxes.get(addr) {
                    let _ = tx.send((body, false));
                }
            }
        }
        Ok(())
    }

    async fn consume(
        &self,
        queue: Queue,
        prefetch: u16,
        stop: CancellationToken,
    ) -> Result<mpsc::Receiver<Incoming>> {
        let (out, rx) = mpsc::channel(usize::from(prefetch.max(1)));
        let permits = Arc::new(Semaphore::new(usize::from(prefetch.max(1))));
        let broker = self.broker.clone();
        match queue {
            Queue::Shared => {
                tokio::spawn(shared_loop(broker, permits, out, stop));
            }
            Queue::Member(id) => {
                let (tx, mut inner) = mpsc::unbounded_channel();
                lock(&broker.members).insert(id.clone(), tx.clone());
                tokio::spawn(async move {
                    loop {
                        let permit = tokio::select! {
                            _ = stop.cancelled() => break,
                            p = permits.clone().acquire_owned() => match p { Ok(p) => p, Err(_) => break },
                        };
                        let (body, redelivered) = tokio::select! {
                            _ = stop.cancelled() => break,
                            m = inner.recv() => match m { Some(m) => m, None => break },
                        };
                        let acker = MemberAck {
                            tx: Some(tx.clone()),
                            body: Some(body.clone()),
                            _permit: permit,
                        };
                        let msg = Incoming {
                            body,
                            redelivered,
                            acker: Box::new(acker),
                        };
                        if out.send(msg).await.is_err() {
                            break;
                        }
                    }
                    let mut members = lock(&broker.members);
                    if members.get(&id).is_some_and(|t| t.same_channel(&tx)) {
                        members.remove(&id);
                    }
                });
            }
            Queue::Replies => {
                let (tx, mut inner) = mpsc::unbounded_channel();
                let addr = self.inbox.clone();
                lock(&broker.inboxes).insert(addr.clone(), tx);
                tokio::spawn(async move {
                    loop {
                        let (body, _) = tokio::select! {
                            _ = stop.cancelled() => break,
                            m = inner.recv() => match m { Some(m) => m, None => break },
                        };
                        let Ok(permit) = permits.clone().acquire_owned().await else {
                            break;
                        };
                        let acker = MemberAck {
                            tx: None,
                            body: None,
                            _permit: permit,
                        };
                        let msg = Incoming {
                            body,
                            redelivered: false,
                            acker: Box::new(acker),
                        };
                        if out.send(msg).await.is_err() {
                            break;
                        }
                    }
                    lock(&broker.inboxes).remove(&addr);
                });
            }
        }
        Ok(rx)
    }

    fn reply_address(&self) -> String {
        self.inbox.clone()
    }

    async fn healthy(&self) -> bool {
        true
    }

    async fn take_dead_letters(&self, max: usize) -> Result<Vec<Vec<u8>>> {
        let mut dead = lock(&self.broker.dead);
        let n = max.min(dead.len());
        Ok(dead.drain(..n).collect())
    }

    async fn teardown(&self) -> Result<()> {
        Ok(())
    }
}

fn no_route(id: &str) -> Error {
    Error::Rejected(format!("no member {id:?} is listening"))
}

async fn shared_loop(
    broker: Arc<Broker>,
    permits: Arc<Semaphore>,
    out: mpsc::Sender<Incoming>,
    stop: CancellationToken,
) {
    loop {
        let permit = tokio::select! {
            _ = stop.cancelled() => return,
            p = permits.clone().acquire_owned() => match p { Ok(p) => p, Err(_) => return },
        };
        let (body, redelivered) = loop {
            let notified = broker.shared_ready.notified();
            if let Some(m) = lock(&broker.shared).pop_front() {
                break m;
            }
            tokio::select! {
                _ = stop.cancelled() => return,
                _ = notified => {}
            }
        };
        // Other consumers may be waiting too: pass the wake-up on if more is queued.
        if !lock(&broker.shared).is_empty() {
            broker.shared_ready.notify_one();
        }
        let acker = SharedAck {
            broker: broker.clone(),
            body: Some(body.clone()),
            _permit: permit,
        };
        if out
            .send(Incoming {
                body,
                redelivered,
                acker: Box::new(acker),
            })
            .await
            .is_err()
        {
            return; // the acker dropped with the message: requeued
        }
    }
}
