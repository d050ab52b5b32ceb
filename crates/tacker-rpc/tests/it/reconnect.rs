use std::time::Duration;

use tacker_rpc::Bus;
use tacker_rpc::proto::{Ping, Pong};
use tokio::sync::mpsc;

use crate::support::{Member, Proxy, drain, opts};

/// The broker connection of a conductor and of a publisher drops; both reconnect,
/// the conductor resubscribes, and casts flow again.
#[tokio::test]
async fn amqp_survives_a_broker_connection_drop() {
    let direct = tacker_testkit::amqp_url();
    let url = url::Url::parse(&direct).unwrap();
    let upstream = format!("{}:{}", url.host_str().unwrap(), url.port().unwrap_or(5672));
    let proxy = Proxy::start(upstream).await;
    let mut via = url.clone();
    via.set_host(Some("127.0.0.1")).unwrap();
    via.set_port(Some(proxy.port)).unwrap();
    let via = via.to_string();

    let prefix = tacker_testkit::unique_prefix();
    let (tx, mut seen) = mpsc::unbounded_channel();
    let member = Member::start(&via, &prefix, "c1", tx).await;
    let publisher = Bus::connect(&opts(&via, &prefix), "pub").await.unwrap();
    let observer = Bus::connect(&opts(&direct, &prefix), "observer")
        .await
        .unwrap();

    let ids = vec!["c1".to_owned()];
    let wait_member = || async {
        for _ in 0..60 {
            let g = observer
                .scatter_gather::<Ping, Pong>(
                    &Ping {
                        note: "settle".into(),
                    },
                    &ids,
                    &[],
                    Duration::from_millis(500),
                )
                .await
                .unwrap();
            if g.missing.is_empty() {
                return;
            }
        }
        panic!("member never (re)subscribed");
    };
    wait_member().await;
    publisher
        .cast(
            &Ping {
                note: "before".into(),
            },
            &[],
        )
        .await
        .unwrap();
    assert_eq!(drain(&mut seen, Duration::from_secs(1)).await.len(), 1);

    assert!(
        proxy.cut() >= 2,
        "both clients were connected through the proxy"
    );
    // The publisher's next cast reconnects and is confirmed; the member resubscribes.
    publisher
        .cast(
            &Ping {
                note: "after".into(),
            },
            &[],
        )
        .await
        .unwrap();
    wait_member().await;
    let got = drain(&mut seen, Duration::from_secs(2)).await;
    assert!(
        got.iter().any(|s| s.1 == "after"),
        "cast after the drop handled: {got:?}"
    );

    observer.teardown().await.unwrap();
    member.stop().await;
}
