//! The AMQP 0.9.1 transport (lapin): one connection per process, re-established with
//! backoff whenever it drops (to the next of the configured nodes when there are
//! several); consumers resubscribe on the new connection. The durable queues are quorum
//! queues unless `bus.queue_type` says classic; a process connecting with quorum queues
//! moves what waits in the prefix's classic queues into them.
//!
//! Across a reconnect: a publish whose confirm was not received is published again (so a
//! message may arrive twice: the conductors' handlers are idempotent, an operation or an
//! onboarding is claimed in the database once); a delivery whose ack was lost is
//! redelivered with `redelivered` set and handled the same way.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures::StreamExt;
use lapin::options::{
    BasicAckOptions, BasicCancelOptions, BasicConsumeOptions, BasicGetOptions, BasicNackOptions,
    BasicPublishOptions, BasicQosOptions, ConfirmSelectOptions, ExchangeDeclareOptions,
    ExchangeDeleteOptions, QueueBindOptions, QueueDeclareOptions, QueueDeleteOptions,
};
use lapin::types::{AMQPValue, FieldTable, ShortString};
use lapin::{
    BasicProperties, Channel, Confirmation, Connection, ConnectionProperties, ExchangeKind,
};
use tokio::sync::{Mutex, mpsc};
use tokio_util::sync::CancellationToken;

use super::{Acker, Dest, Incoming, Queue, Transport};
use crate::{BusOptions, Error, QueueType, Result};

/// Deliveries of one message a quorum queue makes before dead-lettering it (a message
/// that makes its consumer's process die every time).
const DELIVERY_LIMIT: i64 = 5;

/// Names of this prefix's exchanges and queues.
#[derive(Debug, Clone)]
struct Names {
    shared: String,
    fanout: String,
    direct: String,
    dead_exchange: String,
    dead: String,
    prefix: String,
    /// The classic queues a quorum topology drains (`None` when classic).
    legacy: Option<(String, String)>,
}

impl Names {
    fn new(prefix: &str, queue_type: QueueType) -> Self {
        let classic = (format!("{prefix}.conductor"), format!("{prefix}.dead"));
        let (shared, dead, legacy) = match queue_type {
            QueueType::Classic => (classic.0, classic.1, None),
            QueueType::Quorum => (
                format!("{prefix}.conductor-quorum"),
                format!("{prefix}.dead-quorum"),
                Some(classic),
            ),
        };
        Self {
            shared,
            fanout: format!("{prefix}.fanout"),
            direct: format!("{prefix}.direct"),
            dead_exchange: format!("{prefix}.dlx"),
            dead,
            prefix: prefix.to_owned(),
            legacy,
        }
    }

    fn member(&self, id: &str) -> String {
        format!("{}.member.{id}", self.prefix)
    }
}

struct Live {
    conn: Connection,
    publish: Channel,
}

impl Live {
    fn usable(&self) -> bool {
        self.conn.status().connected() && self.publish.status().connected()
    }
}

/// The AMQP transport; cheap to share with the consumer tasks it spawns.
pub(crate) struct Amqp(Arc<Inner>);

struct Inner {
    /// The broker's nodes, with the frame size to ask for (see [`framed`]).
    uris: Vec<lapin::uri::AMQPUri>,
    /// The node connected to last (tried first).
    preferred: AtomicUsize,
    queue_type: QueueType,
    names: Names,
    inbox: String,
    max_backoff: Duration,
    publish_timeout: Duration,
    live: Mutex<Option<Arc<Live>>>,
    /// The runtime the bus was created on: lapin binds its I/O to the runtime that
    /// connects, so connections are always made there (not on an HTTP worker's runtime).
    rt: tokio::runtime::Handle,
}

fn s(v: &str) -> ShortString {
    ShortString::from(v)
}

/// How long channels and declarations may take on a new connection.
const SETUP_TIMEOUT: Duration = Duration::from_secs(20);
/// How long one connection may spend moving classic queues into quorum ones.
const MIGRATE_TIMEOUT: Duration = Duration::from_secs(120);

fn unavailable(e: impl std::fmt::Display) -> Error {
    Error::Unavailable(e.to_string())
}

/// The frame size asked of the broker unless the URL names one (`?frame_max=`): lapin
/// keeps a send and a receive buffer of 32 frames each, which RabbitMQ's default frame
/// (128 KiB) makes 8 MiB per process; our messages are a few hundred bytes (larger ones
/// are split into frames).
const FRAME_MAX: u32 = 16 * 1024;

/// `url` parsed, with [`FRAME_MAX`] when it names no frame size.
fn framed(url: &str) -> Result<lapin::uri::AMQPUri> {
    let mut uri = url
        .parse::<lapin::uri::AMQPUri>()
        .map_err(Error::InvalidUrl)?;
    uri.query.frame_max.get_or_insert(FRAME_MAX);
    Ok(uri)
}

impl Amqp {
    /// The transport of `opts` (its `url` one node or several, comma-separated).
    pub(crate) fn new(opts: &BusOptions) -> Result<Self> {
        let uris = opts
            .url
            .split(',')
            .map(|u| framed(u.trim()))
            .collect::<Result<Vec<_>>>()?;
        let prefix = &opts.prefix;
        let names = Names::new(prefix, opts.queue_type);
        let inbox = format!("{prefix}.reply.{}", uuid::Uuid::new_v4().simple());
        Ok(Self(Arc::new(Inner {
            uris,
            preferred: AtomicUsize::new(0),
            queue_type: opts.queue_type,
            names,
            inbox,
            max_backoff: opts.reconnect_max_backoff,
            publish_timeout: opts.publish_timeout,
            live: Mutex::new(None),
            rt: tokio::runtime::Handle::current(),
        })))
    }
}

impl Inner {
    /// The current connection, connecting (once, no retry) when there is none.
    async fn live(&self) -> Result<Arc<Live>> {
        let mut guard = self.live.lock().await;
        if let Some(l) = guard.as_ref().filter(|l| l.usable()) {
            return Ok(l.clone());
        }
        let conn = self.connect().await?;
        // A broker that took the connection but does not answer (one out of file
        // handles holds every new channel) must not hold this lock, and every caller
        // behind it, for ever: the set-up fails and the next call tries again.
        let setup = async {
            let publish = conn.create_channel().await.map_err(unavailable)?;
            publish
                .confirm_select(ConfirmSelectOptions::default())
                .await
                .map_err(unavailable)?;
            self.declare_topology(&publish).await?;
            Ok::<_, Error>(publish)
        };
        let publish = match tokio::time::timeout(SETUP_TIMEOUT, setup).await {
            Ok(r) => r?,
            Err(_) => {
                let _ = conn.close(200, s("set-up timed out")).await;
                return Err(unavailable(format!(
                    "the broker did not declare the topology within {SETUP_TIMEOUT:?}"
                )));
            }
        };
        match tokio::time::timeout(MIGRATE_TIMEOUT, self.migrate(&conn)).await {
            Ok(Ok(())) => {}
            // Tried again at the next connection; nothing is lost meanwhile (a message is
            // acknowledged in the old queue only once confirmed in the new one).
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "moving the classic queues into the quorum ones failed")
            }
            Err(_) => tracing::warn!(
                "moving the classic queues into the quorum ones did not end within {MIGRATE_TIMEOUT:?}; continued at the next connection"
            ),
        }
        tracing::info!(prefix = %self.names.prefix, "connected to the AMQP broker");
        let live = Arc::new(Live { conn, publish });
        *guard = Some(live.clone());
        Ok(live)
    }

    /// A connection to the first node that answers, from the one connected to last.
    async fn connect(&self) -> Result<Connection> {
        let n = self.uris.len();
        let start = self.preferred.load(Ordering::Relaxed) % n;
        // A node that does not answer must not hold the others up long.
        let timeout = if n == 1 {
            Duration::from_secs(10)
        } else {
            Duration::from_secs(5)
        };
        let mut last = None;
        for k in 0..n {
            let i = (start + k) % n;
            let props = ConnectionProperties::default()
                .with_connection_name(format!("tacker {}", self.names.prefix).into());
            let uri = self.uris[i].clone();
            let connecting = self.rt.spawn(async move {
                tokio::time::timeout(timeout, Connection::connect_uri(uri, props)).await
            });
            let result = match connecting.await {
                Err(e) => Err(unavailable(e)),
                Ok(Err(_)) => Err(unavailable("connect timed out")),
                Ok(Ok(r)) => r.map_err(unavailable),
            };
            match result {
                Ok(conn) => {
                    if i != start || n > 1 {
                        tracing::info!(node = i + 1, of = n, "connected to a broker node");
                    }
                    self.preferred.store(i, Ordering::Relaxed);
                    return Ok(conn);
                }
                Err(e) => {
                    if n > 1 {
                        tracing::warn!(node = i + 1, of = n, error = %e, "broker node unreachable; trying the next");
                    }
                    last = Some(e);
                }
            }
        }
        Err(last.unwrap_or_else(|| unavailable("no broker URL")))
    }

    /// Connects with exponential backoff until it works or `stop` is cancelled.
    async fn live_retrying(&self, stop: &CancellationToken) -> Option<Arc<Live>> {
        let mut delay = Duration::from_millis(100);
        loop {
            match self.live().await {
                Ok(l) => return Some(l),
                Err(e) => tracing::warn!(error = %e, retry_in = ?delay, "AMQP broker unreachable"),
            }
            tokio::select! {
                _ = stop.cancelled() => return None,
                _ = tokio::time::sleep(delay) => {}
            }
            delay = (delay * 2).min(self.max_backoff);
        }
    }

    async fn declare_topology(&self, ch: &Channel) -> Result<()> {
        let n = &self.names;
        let durable = ExchangeDeclareOptions {
            durable: true,
            ..Default::default()
        };
        for (name, kind) in [
            (&n.fanout, ExchangeKind::Fanout),
            (&n.direct, ExchangeKind::Direct),
            (&n.dead_exchange, ExchangeKind::Fanout),
        ] {
            ch.exchange_declare(s(name), kind, durable, FieldTable::default())
                .await
                .map_err(unavailable)?;
        }
        let q = QueueDeclareOptions {
            durable: true,
            ..Default::default()
        };
        let mut dead_args = FieldTable::default();
        if self.queue_type == QueueType::Quorum {
            dead_args.insert(s("x-queue-type"), AMQPValue::LongString("quorum".into()));
        }
        ch.queue_declare(s(&n.dead), q, dead_args)
            .await
            .map_err(|e| self.refused(&n.dead, e))?;
        ch.queue_bind(
            s(&n.dead),
            s(&n.dead_exchange),
            s(""),
            QueueBindOptions::default(),
            FieldTable::default(),
        )
        .await
        .map_err(unavailable)?;
        let mut args = FieldTable::default();
        args.insert(
            s("x-dead-letter-exchange"),
            AMQPValue::LongString(n.dead_exchange.as_str().into()),
        );
        if self.queue_type == QueueType::Quorum {
            args.insert(s("x-queue-type"), AMQPValue::LongString("quorum".into()));
            args.insert(
                s("x-delivery-limit"),
                AMQPValue::LongLongInt(DELIVERY_LIMIT),
            );
        }
        ch.queue_declare(s(&n.shared), q, args)
            .await
            .map_err(|e| self.refused(&n.shared, e))?;
        Ok(())
    }

    /// A declaration the broker refused; for a quorum queue, saying what to set.
    fn refused(&self, queue: &str, e: lapin::Error) -> Error {
        match self.queue_type {
            QueueType::Quorum => unavailable(format!(
                "the broker refused quorum queue {queue} ({e}): a broker without quorum \
                 queues (RabbitMQ before 3.8, or the quorum_queue feature flag off) needs \
                 bus.queue_type = \"classic\""
            )),
            QueueType::Classic => unavailable(e),
        }
    }

    /// Moves what waits in the prefix's classic queues into the quorum ones, then
    /// deletes them (once empty): the migration to `bus.queue_type = "quorum"`. Each
    /// message is acknowledged in the old queue only once the broker confirmed it in the
    /// new one, so a crash in between leaves it in both at worst (handled once: the
    /// handlers are idempotent).
    async fn migrate(&self, conn: &Connection) -> Result<()> {
        let Some((old_shared, old_dead)) = &self.names.legacy else {
            return Ok(());
        };
        for (from, to, dlx) in [
            (old_shared, &self.names.shared, true),
            (old_dead, &self.names.dead, false),
        ] {
            // Declared as the classic topology declared it (a passive declaration of a
            // queue that is not there would close the channel with an error): when it
            // was not there it is made empty here and deleted at once.
            let probe = conn.create_channel().await.map_err(unavailable)?;
            let mut args = FieldTable::default();
            if dlx {
                args.insert(
                    s("x-dead-letter-exchange"),
                    AMQPValue::LongString(self.names.dead_exchange.as_str().into()),
                );
            }
            let durable = QueueDeclareOptions {
                durable: true,
                ..Default::default()
            };
            let declared = probe
                .queue_declare(s(from), durable, args)
                .await
                .map_err(unavailable)?;
            if declared.message_count() == 0 {
                let empty = QueueDeleteOptions {
                    if_empty: true,
                    ..Default::default()
                };
                let _ = probe.queue_delete(s(from), empty).await;
                let _ = probe.close(200, s("done")).await;
                continue;
            }
            probe
                .confirm_select(ConfirmSelectOptions::default())
                .await
                .map_err(unavailable)?;
            let mut moved = 0usize;
            while let Some(m) = probe
                .basic_get(s(from), BasicGetOptions { no_ack: false })
                .await
                .map_err(unavailable)?
            {
                let d = m.delivery;
                let confirm = probe
                    .basic_publish(
                        s(""),
                        s(to),
                        BasicPublishOptions::default(),
                        &d.data,
                        d.properties.clone(),
                    )
                    .await
                    .map_err(unavailable)?
                    .await
                    .map_err(unavailable)?;
                if !matches!(confirm, Confirmation::Ack(_)) {
                    return Err(unavailable(format!(
                        "moving a message from {from} to {to}: not confirmed"
                    )));
                }
                d.acker
                    .ack(BasicAckOptions::default())
                    .await
                    .map_err(unavailable)?;
                moved += 1;
            }
            let empty = QueueDeleteOptions {
                if_empty: true,
                ..Default::default()
            };
            let _ = probe.queue_delete(s(from), empty).await;
            let _ = probe.close(200, s("done")).await;
            tracing::info!(from = %from, to = %to, moved, "classic queue moved into the quorum queue");
        }
        Ok(())
    }

    /// Forgets `live` if it is still the current connection (it failed).
    async fn drop_live(&self, live: &Arc<Live>) {
        let mut guard = self.live.lock().await;
        if guard.as_ref().is_some_and(|l| Arc::ptr_eq(l, live)) {
            *guard = None;
        }
    }

    async fn publish_once(&self, dest: Dest<'_>, body: &[u8]) -> Result<()> {
        let live = self.live().await?;
        let n = &self.names;
        let (exchange, key, persistent, mandatory) = match dest {
            Dest::Shared => ("", n.shared.clone(), true, true),
            Dest::Fanout => (n.fanout.as_str(), String::new(), false, false),
            Dest::Member(id) => (n.direct.as_str(), id.to_owned(), false, true),
            Dest::Reply(addr) => ("", addr.to_owned(), false, false),
        };
        let props = BasicProperties::default()
            .with_delivery_mode(if persistent { 2 } else { 1 })
            .with_content_type(s("application/x-protobuf"));
        let opts = BasicPublishOptions {
            mandatory,
            ..Default::default()
        };
        let confirm = async {
            live.publish
                .basic_publish(s(exchange), s(&key), opts, body, props)
                .await?
                .await
        };
        match confirm.await {
            Ok(Confirmation::Ack(None)) | Ok(Confirmation::NotRequested) => Ok(()),
            Ok(Confirmation::Ack(Some(_))) => Err(Error::Rejected(match dest {
                Dest::Member(id) => format!("no member {id:?} is listening"),
                _ => format!("unroutable message to {key:?}"),
            })),
            // A quorum queue whose leader is being elected nacks; the channel may keep
            // nacking until the old leader is back, so the retry goes on a new one.
            Ok(Confirmation::Nack(_)) => {
                self.drop_live(&live).await;
                Err(unavailable("the broker nacked the message"))
            }
            Err(e) => {
                self.drop_live(&live).await;
                Err(unavailable(e))
            }
        }
    }
}

/// Holds the channel open until the delivery is settled, even after the consumer stopped.
struct AmqpAck(
    lapin::Acker,
    #[expect(dead_code, reason = "held open, never read")] Channel,
);

#[async_trait::async_trait]
impl Acker for AmqpAck {
    async fn ack(self: Box<Self>) {
        // On a dead channel the broker redelivers the message anyway.
        if let Err(e) = self.0.ack(BasicAckOptions::default()).await {
            tracing::debug!(error = %e, "ack failed; the broker will redeliver");
        }
    }
    async fn nack(self: Box<Self>, requeue: bool) {
        let opts = BasicNackOptions {
            requeue,
            ..Default::default()
        };
        if let Err(e) = self.0.nack(opts).await {
            tracing::debug!(error = %e, "nack failed; the broker will redeliver");
        }
    }
}

#[async_trait::async_trait]
impl Transport for Amqp {
    async fn publish(&self, dest: Dest<'_>, body: Vec<u8>) -> Result<()> {
        let this = &self.0;
        let deadline = tokio::time::Instant::now() + this.publish_timeout;
        let mut delay = Duration::from_millis(100);
        loop {
            let attempt = tokio::time::timeout_at(deadline, this.publish_once(dest, &body)).await;
            match attempt {
                Ok(Ok(())) => return Ok(()),
                Ok(Err(e @ Error::Rejected(_))) => return Err(e),
                Ok(Err(e)) if tokio::time::Instant::now() + delay < deadline => {
                    tracing::debug!(error = %e, "publish failed; retrying");
                    tokio::time::sleep(delay).await;
                    delay = (delay * 2).min(this.max_backoff);
                }
                Ok(Err(e)) => return Err(e),
                Err(_) => {
                    return Err(unavailable(format!(
                        "broker did not confirm within {:?}",
                        this.publish_timeout
                    )));
                }
            }
        }
    }

    async fn consume(
        &self,
        queue: Queue,
        prefetch: u16,
        stop: CancellationToken,
    ) -> Result<mpsc::Receiver<Incoming>> {
        let (tx, rx) = mpsc::channel(usize::from(prefetch.max(1)));
        // Subscribed before returning, so a caller knows it is listening.
        let Some(first) = self.0.subscribe_retrying(&queue, prefetch, &stop).await else {
            return Ok(rx);
        };
        let inner = self.0.clone();
        tokio::spawn(async move { inner.consume_loop(queue, prefetch, tx, stop, first).await });
        Ok(rx)
    }

    fn reply_address(&self) -> String {
        self.0.inbox.clone()
    }

    async fn healthy(&self) -> bool {
        self.0.live().await.is_ok()
    }

    async fn take_dead_letters(&self, max: usize) -> Result<Vec<Vec<u8>>> {
        let live = self.0.live().await?;
        let ch = live.conn.create_channel().await.map_err(unavailable)?;
        let mut out = Vec::new();
        while out.len() < max {
            let got = ch
                .basic_get(s(&self.0.names.dead), BasicGetOptions { no_ack: true })
                .await
                .map_err(unavailable)?;
            match got {
                Some(m) => out.push(m.delivery.data),
                None => break,
            }
        }
        let _ = ch.close(200, s("done")).await;
        Ok(out)
    }

    async fn teardown(&self) -> Result<()> {
        let live = self.0.live().await?;
        let ch = live.conn.create_channel().await.map_err(unavailable)?;
        let n = &self.0.names;
        let legacy = n.legacy.iter().flat_map(|(a, b)| [a, b]);
        for q in [&n.shared, &n.dead].into_iter().chain(legacy) {
            ch.queue_delete(s(q), QueueDeleteOptions::default())
                .await
                .map_err(unavailable)?;
        }
        for e in [&n.fanout, &n.direct, &n.dead_exchange] {
            ch.exchange_delete(s(e), ExchangeDeleteOptions::default())
                .await
                .map_err(unavailable)?;
        }
        let _ = ch.close(200, s("done")).await;
        Ok(())
    }
}

impl Inner {
    /// Declares the queue a consumer reads and returns its name.
    async fn declare_source(&self, ch: &Channel, queue: &Queue) -> Result<String> {
        let n = &self.names;
        let exclusive = QueueDeclareOptions {
            exclusive: true,
            auto_delete: true,
            ..Default::default()
        };
        Ok(match queue {
            Queue::Shared => n.shared.clone(),
            Queue::Member(id) => {
                let name = n.member(id);
                ch.queue_declare(s(&name), exclusive, FieldTable::default())
                    .await
                    .map_err(unavailable)?;
                for (exchange, key) in [(&n.fanout, ""), (&n.direct, id.as_str())] {
                    ch.queue_bind(
                        s(&name),
                        s(exchange),
                        s(key),
                        QueueBindOptions::default(),
                        FieldTable::default(),
                    )
                    .await
                    .map_err(unavailable)?;
                }
                name
            }
            Queue::Replies => {
                ch.queue_declare(s(&self.inbox), exclusive, FieldTable::default())
                    .await
                    .map_err(unavailable)?;
                self.inbox.clone()
            }
        })
    }

    /// Opens a channel on `live` and starts consuming `queue`.
    async fn subscribe(
        &self,
        live: &Live,
        queue: &Queue,
        prefetch: u16,
    ) -> Result<(Channel, lapin::Consumer)> {
        let ch = live.conn.create_channel().await.map_err(unavailable)?;
        ch.basic_qos(prefetch.max(1), BasicQosOptions::default())
            .await
            .map_err(unavailable)?;
        let name = self.declare_source(&ch, queue).await?;
        let consumer = ch
            .basic_consume(
                s(&name),
                s(""),
                BasicConsumeOptions::default(),
                FieldTable::default(),
            )
            .await
            .map_err(unavailable)?;
        tracing::debug!(?queue, "consuming");
        Ok((ch, consumer))
    }

    /// Subscribes with exponential backoff until it works or `stop` is cancelled.
    async fn subscribe_retrying(
        &self,
        queue: &Queue,
        prefetch: u16,
        stop: &CancellationToken,
    ) -> Option<(Arc<Live>, Channel, lapin::Consumer)> {
        let mut delay = Duration::from_millis(100);
        loop {
            let live = self.live_retrying(stop).await?;
            match self.subscribe(&live, queue, prefetch).await {
                Ok((ch, consumer)) => return Some((live, ch, consumer)),
                Err(e) => tracing::warn!(error = %e, ?queue, "cannot subscribe; retrying"),
            }
            if !live.usable() {
                self.drop_live(&live).await;
            }
            tokio::select! {
                _ = stop.cancelled() => return None,
                _ = tokio::time::sleep(delay) => {}
            }
            delay = (delay * 2).min(self.max_backoff);
        }
    }

    /// Forwards deliveries into `tx` until `stop` (true) or the consumer is lost (false).
    async fn pump(
        ch: &Channel,
        consumer: &mut lapin::Consumer,
        queue: &Queue,
        tx: &mpsc::Sender<Incoming>,
        stop: &CancellationToken,
    ) -> bool {
        loop {
            tokio::select! {
                _ = stop.cancelled() => {
                    let _ = ch.basic_cancel(consumer.tag(), BasicCancelOptions::default()).await;
                    return true;
                }
                d = consumer.next() => match d {
                    Some(Ok(d)) => {
                        let msg = Incoming {
                            body: d.data,
                            redelivered: d.redelivered,
                            acker: Box::new(AmqpAck(d.acker, ch.clone())),
                        };
                        if tx.send(msg).await.is_err() {
                            return true;
                        }
                    }
                    Some(Err(e)) => {
                        tracing::warn!(error = %e, ?queue, "consumer lost; resubscribing");
                        return false;
                    }
                    None => {
                        tracing::warn!(?queue, "consumer cancelled by the broker; resubscribing");
                        return false;
                    }
                }
            }
        }
    }

    /// Consumes `queue` into `tx` until `stop`, resubscribing after every failure.
    async fn consume_loop(
        self: Arc<Self>,
        queue: Queue,
        prefetch: u16,
        tx: mpsc::Sender<Incoming>,
        stop: CancellationToken,
        first: (Arc<Live>, Channel, lapin::Consumer),
    ) {
        let (mut live, mut ch, mut consumer) = first;
        loop {
            if Self::pump(&ch, &mut consumer, &queue, &tx, &stop).await {
                return;
            }
            if !live.usable() {
                self.drop_live(&live).await;
            }
            tokio::select! {
                _ = stop.cancelled() => return,
                _ = tokio::time::sleep(Duration::from_millis(100)) => {}
            }
            let Some(next) = self.subscribe_retrying(&queue, prefetch, &stop).await else {
                return;
            };
            (live, ch, consumer) = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quorum_queues_have_names_of_their_own_and_drain_the_classic_ones() {
        let q = Names::new("t", QueueType::Quorum);
        assert_eq!(
            (q.shared.as_str(), q.dead.as_str()),
            ("t.conductor-quorum", "t.dead-quorum")
        );
        assert_eq!(q.legacy, Some(("t.conductor".into(), "t.dead".into())));
        let c = Names::new("t", QueueType::Classic);
        assert_eq!((c.shared.as_str(), c.legacy), ("t.conductor", None));
    }

    #[test]
    fn frames_are_small_unless_the_url_says_otherwise() {
        let uri = framed("amqp://guest:guest@127.0.0.1:5672/%2f").unwrap();
        assert_eq!(uri.query.frame_max, Some(FRAME_MAX));
        let uri = framed("amqp://127.0.0.1:5672/%2f?frame_max=131072").unwrap();
        assert_eq!(uri.query.frame_max, Some(131_072));
        assert!(framed("http://nope").is_err());
    }
}
