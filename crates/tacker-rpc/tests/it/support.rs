use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use prost::Message;
use tacker_rpc::proto::{Ping, Pong};
use tacker_rpc::{Bus, BusOptions, Handler, HandlerError, Request, Source};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// The two transports every pattern test runs on.
pub fn urls() -> [String; 2] {
    ["memory://".to_owned(), tacker_testkit::amqp_url()]
}

pub fn opts(url: &str, prefix: &str) -> BusOptions {
    let mut o = BusOptions::new(url, prefix);
    o.publish_timeout = Duration::from_secs(5);
    o.reconnect_max_backoff = Duration::from_millis(500);
    o
}

/// What a test handler saw: (member, note, redelivered).
pub type Seen = mpsc::UnboundedReceiver<(String, String, bool)>;

/// A handler that records each Ping and answers with a Pong; behaviour by note:
/// "fail-once" fails unless redelivered, "fail" always fails, "panic" panics,
/// "slow" sleeps 3 s.
pub struct Recorder {
    pub id: String,
    pub seen: mpsc::UnboundedSender<(String, String, bool)>,
    pub calls: AtomicUsize,
}

#[async_trait::async_trait]
impl Handler for Recorder {
    async fn handle(&self, req: Request) -> Result<Vec<u8>, HandlerError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let ping: Ping = req.decode().map_err(HandlerError::new)?;
        let _ = self
            .seen
            .send((self.id.clone(), ping.note.clone(), req.redelivered));
        match ping.note.as_str() {
            "fail-once" if !req.redelivered => {
                return Err(HandlerError::new("first attempt fails"));
            }
            "fail" => return Err(HandlerError::new("always fails")),
            "panic" => panic!("handler panics"),
            "slow" => tokio::time::sleep(Duration::from_secs(3)).await,
            _ => {}
        }
        Ok(Pong {
            conductor_id: self.id.clone(),
            note: ping.note,
        }
        .encode_to_vec())
    }
}

/// A member: a bus handle serving the shared queue and its own queue.
pub struct Member {
    pub bus: Bus,
    pub stop: CancellationToken,
    pub tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Member {
    pub async fn start(
        url: &str,
        prefix: &str,
        id: &str,
        seen: mpsc::UnboundedSender<(String, String, bool)>,
    ) -> Self {
        let bus = Bus::connect(&opts(url, prefix), id).await.unwrap();
        let handler: Arc<dyn Handler> = Arc::new(Recorder {
            id: id.into(),
            seen,
            calls: AtomicUsize::new(0),
        });
        let stop = CancellationToken::new();
        let mut tasks = Vec::new();
        for source in [Source::Shared, Source::Member(id.into())] {
            let (b, h, s) = (bus.clone(), handler.clone(), stop.clone());
            tasks.push(tokio::spawn(async move {
                b.serve(source, h, 4, s).await.unwrap();
            }));
        }
        Self { bus, stop, tasks }
    }

    pub async fn stop(self) {
        self.stop.cancel();
        for t in self.tasks {
            t.await.unwrap();
        }
    }
}

/// Three members c1..c3 on `url` under a fresh prefix, and a client handle.
pub async fn cluster(url: &str) -> (String, Bus, Vec<Member>, Seen) {
    let prefix = tacker_testkit::unique_prefix();
    let (tx, rx) = mpsc::unbounded_channel();
    let mut members = Vec::new();
    for id in ["c1", "c2", "c3"] {
        members.push(Member::start(url, &prefix, id, tx.clone()).await);
    }
    let client = Bus::connect(&opts(url, &prefix), "client").await.unwrap();
    // Let AMQP consumers subscribe before the first message.
    settle(&client, &members).await;
    (prefix, client, members, rx)
}

/// Waits until every member answers on its own queue.
pub async fn settle(client: &Bus, members: &[Member]) {
    let ids: Vec<String> = members.iter().map(|m| m.bus.sender().to_owned()).collect();
    for _ in 0..100 {
        let g = client
            .scatter_gather::<Ping, Pong>(
                &Ping {
                    note: "settle".into(),
                },
                &ids,
                &[],
                Duration::from_millis(300),
            )
            .await
            .unwrap();
        if g.missing.is_empty() {
            return;
        }
    }
    panic!("members never subscribed");
}

/// Collects what handlers saw for up to `wait`, dropping "settle" pings.
pub async fn drain(seen: &mut Seen, wait: Duration) -> Vec<(String, String, bool)> {
    let mut out = Vec::new();
    let deadline = tokio::time::Instant::now() + wait;
    while let Ok(Some(s)) = tokio::time::timeout_at(deadline, seen.recv()).await {
        if s.1 != "settle" {
            out.push(s);
        }
    }
    out
}

/// A TCP proxy in front of the broker whose connections the test can cut.
pub struct Proxy {
    pub port: u16,
    conns: Arc<std::sync::Mutex<Vec<tokio::task::AbortHandle>>>,
}

impl Proxy {
    pub async fn start(upstream: String) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let conns: Arc<std::sync::Mutex<Vec<tokio::task::AbortHandle>>> = Arc::default();
        let c = conns.clone();
        tokio::spawn(async move {
            loop {
                let Ok((mut inbound, _)) = listener.accept().await else {
                    return;
                };
                let up = upstream.clone();
                let h = tokio::spawn(async move {
                    if let Ok(mut out) = tokio::net::TcpStream::connect(up).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut out).await;
                    }
                });
                c.lock().unwrap().push(h.abort_handle());
            }
        });
        Self { port, conns }
    }

    /// Cuts every connection through the proxy.
    pub fn cut(&self) -> usize {
        let mut conns = self.conns.lock().unwrap();
        let n = conns.len();
        conns.drain(..).for_each(|h| h.abort());
        n
    }
}
