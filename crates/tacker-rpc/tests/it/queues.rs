//! The durable queues on the real broker: quorum queues by default (and a broker that
//! refuses one named in the error), casts waiting in the classic queue of an earlier
//! deployment moved into the quorum queue and handled, several broker URLs with the
//! first one dead and the one in use going away.

use std::time::Duration;

use lapin::options::QueueDeclareOptions;
use lapin::types::{AMQPValue, FieldTable};
use lapin::{Connection, ConnectionProperties};
use tacker_rpc::proto::Ping;
use tacker_rpc::{Bus, QueueType};
use tokio::sync::mpsc;

use crate::support::{Member, drain, opts};

/// Declares `queue` durable with `x-queue-type` = `kind` (and the other arguments the
/// bus gives it: `dlx`, the delivery limit of a quorum queue): whether the broker agrees
/// (a queue of another type under that name is a precondition failure).
async fn declared_as(queue: &str, kind: &str, dlx: Option<&str>) -> bool {
    let conn = Connection::connect(&tacker_testkit::amqp_url(), ConnectionProperties::default())
        .await
        .unwrap();
    let ch = conn.create_channel().await.unwrap();
    let mut args = FieldTable::default();
    args.insert("x-queue-type".into(), AMQPValue::LongString(kind.into()));
    if let Some(x) = dlx {
        args.insert(
            "x-dead-letter-exchange".into(),
            AMQPValue::LongString(x.into()),
        );
        if kind == "quorum" {
            args.insert("x-delivery-limit".into(), AMQPValue::LongLongInt(5));
        }
    }
    let opts = QueueDeclareOptions {
        durable: true,
        passive: false,
        ..Default::default()
    };
    let ok = ch.queue_declare(queue.into(), opts, args).await.is_ok();
    let _ = conn.close(200, "done".into()).await;
    ok
}

/// Whether `queue` exists.
async fn exists(queue: &str) -> bool {
    let conn = Connection::connect(&tacker_testkit::amqp_url(), ConnectionProperties::default())
        .await
        .unwrap();
    let ch = conn.create_channel().await.unwrap();
    let passive = QueueDeclareOptions {
        passive: true,
        ..Default::default()
    };
    let ok = ch
        .queue_declare(queue.into(), passive, FieldTable::default())
        .await
        .is_ok();
    let _ = conn.close(200, "done".into()).await;
    ok
}

fn ping(note: &str) -> Ping {
    Ping { note: note.into() }
}

#[tokio::test]
async fn casts_waiting_in_a_classic_queue_move_into_the_quorum_queue() {
    let url = tacker_testkit::amqp_url();
    let prefix = tacker_testkit::unique_prefix();
    // An earlier deployment (classic queues) left three casts no conductor took.
    let mut classic = opts(&url, &prefix);
    classic.queue_type = QueueType::Classic;
    let old = Bus::connect(&classic, "old-server").await.unwrap();
    for n in ["one", "two", "three"] {
        old.cast(&ping(n), &[]).await.unwrap();
    }
    let dlx = format!("{prefix}.dlx");
    assert!(declared_as(&format!("{prefix}.conductor"), "classic", Some(&dlx)).await);

    // A conductor of this version (quorum queues) connects: they are moved and handled.
    let (tx, mut seen) = mpsc::unbounded_channel();
    let member = Member::start(&url, &prefix, "c1", tx).await;
    let mut notes: Vec<String> = drain(&mut seen, Duration::from_secs(3))
        .await
        .into_iter()
        .map(|s| s.1)
        .collect();
    notes.sort();
    assert_eq!(notes, ["one", "three", "two"]);
    assert!(
        !exists(&format!("{prefix}.conductor")).await,
        "the emptied classic queue is deleted"
    );
    // The queues are quorum queues: declaring them classic is refused.
    let shared = format!("{prefix}.conductor-quorum");
    assert!(declared_as(&shared, "quorum", Some(&dlx)).await);
    assert!(!declared_as(&shared, "classic", Some(&dlx)).await);
    let dead = format!("{prefix}.dead-quorum");
    assert!(declared_as(&dead, "quorum", None).await);
    assert!(!declared_as(&dead, "classic", None).await);
    // New casts flow through it.
    let client = Bus::connect(&opts(&url, &prefix), "client").await.unwrap();
    client.cast(&ping("four"), &[]).await.unwrap();
    let got = drain(&mut seen, Duration::from_secs(2)).await;
    assert_eq!(got.len(), 1, "{got:?}");
    member.stop().await;
    client.teardown().await.unwrap();
}

#[tokio::test]
async fn a_broker_url_list_skips_a_dead_node_and_fails_over_when_the_node_goes() {
    let direct = tacker_testkit::amqp_url();
    let url = url::Url::parse(&direct).unwrap();
    let broker: std::net::SocketAddr =
        format!("{}:{}", url.host_str().unwrap(), url.port().unwrap_or(5672))
            .parse()
            .unwrap();
    let via = |port: u16| {
        let mut u = url.clone();
        u.set_host(Some("127.0.0.1")).unwrap();
        u.set_port(Some(port)).unwrap();
        u.to_string()
    };
    // Node 1 refuses connections; nodes 2 and 3 are the broker behind relays.
    let dead = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let (r2, r3) = (
        tacker_testkit::relay::Relay::start(broker).await,
        tacker_testkit::relay::Relay::start(broker).await,
    );
    let list = [dead, r2.addr.port(), r3.addr.port()].map(via).join(",");
    let prefix = tacker_testkit::unique_prefix();
    let (tx, mut seen) = mpsc::unbounded_channel();
    let member = Member::start(&list, &prefix, "c1", tx).await;
    let client = Bus::connect(&opts(&list, &prefix), "client").await.unwrap();
    client.cast(&ping("via node 2"), &[]).await.unwrap();
    assert_eq!(drain(&mut seen, Duration::from_secs(2)).await.len(), 1);

    // Node 2 goes away with both connections: they move to node 3, the member
    // resubscribes, casts are confirmed and handled.
    r2.down();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    let mut handled = Vec::new();
    while handled.is_empty() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no failover to node 3"
        );
        client.cast(&ping("via node 3"), &[]).await.unwrap();
        handled = drain(&mut seen, Duration::from_millis(500)).await;
    }
    assert!(handled.iter().all(|s| s.1 == "via node 3"), "{handled:?}");
    member.stop().await;
    client.teardown().await.unwrap();
}
