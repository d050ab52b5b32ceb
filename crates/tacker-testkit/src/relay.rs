//! A TCP relay on loopback in front of a shared service (Keystone), which a test takes
//! down and brings back without touching the service other tests use: while down, new
//! connections are closed at once and open ones are cut.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// A running relay, stopped when dropped.
#[derive(Debug)]
pub struct Relay {
    /// Where it listens.
    pub addr: SocketAddr,
    down: Arc<watch::Sender<bool>>,
    task: tokio::task::JoinHandle<()>,
}

impl Relay {
    /// Relays a free port of 127.0.0.1 to `target` (on the current runtime).
    pub async fn start(target: SocketAddr) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (down, _) = watch::channel(false);
        let down = Arc::new(down);
        let watch = down.clone();
        let task = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                if *watch.borrow() {
                    drop(inbound);
                    continue;
                }
                let mut cut = watch.subscribe();
                tokio::spawn(async move {
                    let Ok(mut outbound) = TcpStream::connect(target).await else {
                        return;
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                        _ = cut.wait_for(|down| *down) => {}
                    }
                });
            }
        });
        Self { addr, down, task }
    }

    /// Takes the relay down (the service looks unreachable).
    pub fn down(&self) {
        self.down.send_replace(true);
    }

    /// Brings it back.
    pub fn up(&self) {
        self.down.send_replace(false);
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.down.send_replace(true);
        self.task.abort();
    }
}
