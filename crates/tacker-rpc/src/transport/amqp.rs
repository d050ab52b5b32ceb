//! The AMQP 0.9.1 transport (lapin): one connection per process, re-established with
//! backoff whenever it drops; consumers resubscribe on the new connection.

use std::sync::Arc;
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
use crate::{Error, Result};

/// Names of this prefix's exchanges and queues.
#[derive(Debug, Clone)]
struct Names {
    shared: String,
    fanout: String,
    direct: String,
    dead_exchange: String,
    dead: String,
    prefix: String,
}

impl Names {
    fn new(prefix: &str) -> Self {
        Self {
            shared: format!("{prefix}.conductor"),
            fanout: format!("{prefix}.fanout"),
            direct: format!("{prefix}.direct"),
            dead_exchange: format!("{prefix}.dlx"),
            dead: format!("{prefix}.dead"),
            prefix: prefix.to_owned(),
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
    /// The broker, with the frame size to ask for (see [`framed`]).
    uri: lapin::uri::AMQPUri,
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
    pub(crate) fn new(
        url: &str,
        prefix: &str,
        max_backoff: Duration,
        publish_timeout: Duration,
    ) -> Result<Self> {
        let uri = framed(url)?;
        let names = Names::new(prefix);
        let inbox = format!("{prefix}.reply.{}", uuid::Uuid::new_v4().simple());
        Ok(Self(Arc::new(Inner {
            uri,
            names,
            inbox,
            max_backoff,
            publish_timeout,
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
        let props = ConnectionProperties::default()
            .with_connection_name(format!("tacker {}", self.names.prefix).into());
        let uri = self.uri.clone();
        let connecting = self.rt.spawn(async move {
            tokio::time::timeout(Duration::from_secs(10), Connection::connect_uri(uri, props)).await
        });
        let conn = connecting
            .await
            .map_err(unavailable)?
            .map_err(|_| unavailable("connect timed out"))?
            .map_err(unavailable)?;
        let publish = conn.create_channel().await.map_err(unavailable)?;
        publish
            .confirm_select(ConfirmSelectOptions::default())
            .await
            .map_err(unavailable)?;
        self.declare_topology(&publish).await?;
        tracing::info!(prefix = %self.names.prefix, "connected to the AMQP broker");
        let live = Arc::new(Live { conn, publish });
        *guard = Some(live.clone());
        Ok(live)
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
        ch.queue_declare(s(&n.dead), q, FieldTable::default())
            .await
            .map_err(unavailable)?;
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
        ch.queue_declare(s(&n.shared), q, args)
            .await
            .map_err(unavailable)?;
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
            Ok(Confirmation::Nack(_)) => Err(Error::Rejected("broker nacked the message".into())),
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
        for q in [&n.shared, &n.dead] {
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
    fn frames_are_small_unless_the_url_says_otherwise() {
        let uri = framed("amqp://guest:guest@127.0.0.1:5672/%2f").unwrap();
        assert_eq!(uri.query.frame_max, Some(FRAME_MAX));
        let uri = framed("amqp://127.0.0.1:5672/%2f?frame_max=131072").unwrap();
        assert_eq!(uri.query.frame_max, Some(131_072));
        assert!(framed("http://nope").is_err());
    }
}
