//! The bus on a three-node RabbitMQ cluster (`tests/infra/rabbitmq-cluster.sh`): casts
//! published while the node leading the conductors' quorum queue is SIGKILLed are all
//! confirmed and handled (none lost), the members move to another node and resubscribe,
//! and the node comes back into the cluster.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use tacker_testkit::rabbit::RabbitCluster;

use tacker_rpc::Bus;
use tacker_rpc::proto::Ping;
use tokio::sync::mpsc;

use crate::support::{Member, opts};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn casts_survive_the_loss_of_the_node_leading_the_shared_queue() {
    let rabbit = RabbitCluster::up();
    let prefix = tacker_testkit::unique_prefix();
    let (tx, mut seen) = mpsc::unbounded_channel();
    let members = [
        Member::start(&rabbit.urls, &prefix, "c1", tx.clone()).await,
        Member::start(&rabbit.urls, &prefix, "c2", tx).await,
    ];
    let mut o = opts(&rabbit.urls, &prefix);
    o.publish_timeout = Duration::from_secs(20);
    let client = Bus::connect(&o, "client").await.unwrap();
    let leader = rabbit.leader(&format!("{prefix}.conductor-quorum"));

    // 150 casts, one every 20 ms; the leader is killed after the 50th.
    let (sent_tx, mut sent_rx) = mpsc::unbounded_channel();
    let publisher = {
        let client = client.clone();
        tokio::spawn(async move {
            for i in 0..150 {
                let r = client
                    .cast(
                        &Ping {
                            note: format!("n{i}"),
                        },
                        &[],
                    )
                    .await;
                let _ = sent_tx.send((i, r.is_ok(), Instant::now()));
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
    };
    let mut killed_at = None;
    let mut confirmed = BTreeSet::new();
    while let Some((i, ok, _)) = sent_rx.recv().await {
        assert!(ok, "cast n{i} was not confirmed");
        confirmed.insert(format!("n{i}"));
        if i == 50 {
            rabbit.kill(&leader);
            killed_at = Some(Instant::now());
        }
    }
    publisher.await.unwrap();
    let killed_at = killed_at.unwrap();

    // Every confirmed cast is handled (at least once), the first after the kill soon.
    let mut handled = BTreeSet::new();
    let mut first_after = None;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while handled.len() < confirmed.len() {
        let Ok(Some((_, note, _))) = tokio::time::timeout_at(deadline, seen.recv()).await else {
            break;
        };
        let n: usize = note.trim_start_matches('n').parse().unwrap_or(0);
        if n > 50 && first_after.is_none() {
            first_after = Some(killed_at.elapsed());
        }
        handled.insert(note);
    }
    let lost: Vec<&String> = confirmed.difference(&handled).collect();
    assert!(lost.is_empty(), "confirmed casts never handled: {lost:?}");
    eprintln!(
        "node {leader} killed; all {} casts handled; the first cast after the kill handled \
         after at most {:?}",
        confirmed.len(),
        first_after
    );

    // The node comes back into the cluster; casts flow.
    rabbit.start(&leader);
    client
        .cast(
            &Ping {
                note: "back".into(),
            },
            &[],
        )
        .await
        .unwrap();
    let back = tokio::time::timeout(Duration::from_secs(20), async {
        while let Some((_, note, _)) = seen.recv().await {
            if note == "back" {
                return;
            }
        }
    })
    .await;
    assert!(
        back.is_ok(),
        "a cast after the node came back was not handled"
    );
    for m in members {
        m.stop().await;
    }
}
