use std::collections::HashSet;
use std::time::Duration;

use tacker_rpc::proto::{Ping, Pong};
use tacker_rpc::{Error, Target};

use crate::support::{cluster, drain};

fn ping(note: &str) -> Ping {
    Ping { note: note.into() }
}

#[tokio::test]
async fn a_cast_reaches_exactly_one_of_three() {
    for url in crate::support::urls() {
        let (_p, client, members, mut seen) = cluster(&url).await;
        for i in 0..30 {
            client.cast(&ping(&format!("m{i}")), &[]).await.unwrap();
        }
        let got = drain(&mut seen, Duration::from_secs(2)).await;
        let notes: Vec<&str> = got.iter().map(|s| s.1.as_str()).collect();
        let unique: HashSet<&str> = notes.iter().copied().collect();
        assert_eq!(
            notes.len(),
            30,
            "{url}: every cast handled exactly once: {notes:?}"
        );
        assert_eq!(unique.len(), 30, "{url}");
        let handlers: HashSet<&str> = got.iter().map(|s| s.0.as_str()).collect();
        assert!(
            handlers.len() > 1,
            "{url}: work is shared, got {handlers:?}"
        );
        client.teardown().await.unwrap();
        for m in members {
            m.stop().await;
        }
    }
}

#[tokio::test]
async fn a_fanout_reaches_all_three() {
    for url in crate::support::urls() {
        let (_p, client, members, mut seen) = cluster(&url).await;
        client.fanout(&ping("hello all"), &[]).await.unwrap();
        let got = drain(&mut seen, Duration::from_secs(1)).await;
        let mut who: Vec<&str> = got.iter().map(|s| s.0.as_str()).collect();
        who.sort();
        assert_eq!(who, ["c1", "c2", "c3"], "{url}");
        client.teardown().await.unwrap();
        for m in members {
            m.stop().await;
        }
    }
}

#[tokio::test]
async fn a_call_gets_its_reply_or_times_out_cleanly() {
    for url in crate::support::urls() {
        let (_p, client, members, _seen) = cluster(&url).await;
        let t = Duration::from_secs(5);
        let pong: Pong = client.call(Target::Any, &ping("q"), &[], t).await.unwrap();
        assert_eq!(pong.note, "q");
        assert!(["c1", "c2", "c3"].contains(&pong.conductor_id.as_str()));
        let pong: Pong = client
            .call(Target::Member("c2".into()), &ping("q2"), &[], t)
            .await
            .unwrap();
        assert_eq!(pong.conductor_id, "c2");
        // A handler error comes back as a remote error naming the member.
        let err = client
            .call::<Ping, Pong>(Target::Member("c3".into()), &ping("fail"), &[], t)
            .await
            .unwrap_err();
        assert!(
            matches!(&err, Error::Remote { responder, .. } if responder == "c3"),
            "{err}"
        );
        // Nobody of that name: refused at once.
        let err = client
            .call::<Ping, Pong>(Target::Member("ghost".into()), &ping("x"), &[], t)
            .await
            .unwrap_err();
        assert!(matches!(err, Error::Rejected(_)), "{url}: {err}");
        client.teardown().await.unwrap();
        for m in members {
            m.stop().await;
        }
        // Nobody serving the shared queue: the call times out.
        let (_p, client, members, _seen) = cluster(&url).await;
        for m in members {
            m.stop().await;
        }
        let started = std::time::Instant::now();
        let err = client
            .call::<Ping, Pong>(Target::Any, &ping("x"), &[], Duration::from_millis(500))
            .await
            .unwrap_err();
        assert!(matches!(err, Error::Timeout { .. }), "{url}: {err}");
        assert!(started.elapsed() < Duration::from_secs(3));
        client.teardown().await.unwrap();
    }
}

#[tokio::test]
async fn scatter_gather_names_who_did_not_answer() {
    for url in crate::support::urls() {
        let (_p, client, members, _seen) = cluster(&url).await;
        let asked: Vec<String> = ["c1", "c2", "c3", "ghost"].map(String::from).to_vec();
        let g = client
            .scatter_gather::<Ping, Pong>(&ping("all"), &asked, &[], Duration::from_secs(1))
            .await
            .unwrap();
        assert_eq!(g.missing, ["ghost"], "{url}");
        assert_eq!(g.replies.len(), 3);
        assert!(
            g.replies
                .values()
                .all(|r| r.as_ref().unwrap().note == "all")
        );
        // A slow member misses the deadline; a failing one answers with its error.
        let g = client
            .scatter_gather::<Ping, Pong>(
                &ping("slow"),
                &asked[..3],
                &[],
                Duration::from_millis(800),
            )
            .await
            .unwrap();
        assert_eq!(g.missing.len(), 3, "{url}: all three are slow");
        let g = client
            .scatter_gather::<Ping, Pong>(&ping("fail"), &asked[..3], &[], Duration::from_secs(2))
            .await
            .unwrap();
        assert!(g.missing.is_empty());
        assert!(
            g.replies
                .values()
                .all(|r| r.as_ref().unwrap_err().contains("always fails"))
        );
        client.teardown().await.unwrap();
        for m in members {
            m.stop().await;
        }
    }
}

#[tokio::test]
async fn a_failed_cast_is_redelivered_then_dead_lettered_never_lost() {
    for url in crate::support::urls() {
        let (_p, client, members, mut seen) = cluster(&url).await;
        client.cast(&ping("fail-once"), &[]).await.unwrap();
        client.cast(&ping("fail"), &[]).await.unwrap();
        client.cast(&ping("panic"), &[]).await.unwrap();
        let got = drain(&mut seen, Duration::from_secs(2)).await;
        let attempts = |note: &str| got.iter().filter(|s| s.1 == note).count();
        assert_eq!(attempts("fail-once"), 2, "{url}: {got:?}");
        assert!(
            got.iter().any(|s| s.1 == "fail-once" && s.2),
            "second attempt is a redelivery"
        );
        assert_eq!(attempts("fail"), 2, "{url}: {got:?}");
        assert_eq!(attempts("panic"), 2, "{url}: {got:?}");
        let dead = client.take_dead_letters(10).await.unwrap();
        let mut notes: Vec<String> = dead
            .iter()
            .map(|e| {
                <Ping as prost::Message>::decode(e.payload.as_slice())
                    .unwrap()
                    .note
            })
            .collect();
        notes.sort();
        assert_eq!(notes, ["fail", "panic"], "{url}");
        assert_eq!(dead[0].method, "tacker.rpc.v1.Ping");
        client.teardown().await.unwrap();
        for m in members {
            m.stop().await;
        }
    }
}

#[tokio::test]
async fn a_stopped_member_hands_back_what_it_did_not_start() {
    for url in crate::support::urls() {
        let (prefix, client, mut members, mut seen) = cluster(&url).await;
        // Stop two members; casts sent now all go to the third.
        members.pop().unwrap().stop().await;
        members.pop().unwrap().stop().await;
        for i in 0..5 {
            client.cast(&ping(&format!("after{i}")), &[]).await.unwrap();
        }
        let got = drain(&mut seen, Duration::from_secs(2)).await;
        assert_eq!(got.len(), 5, "{url}: {got:?}");
        assert!(got.iter().all(|s| s.0 == "c1"));
        let _ = prefix;
        client.teardown().await.unwrap();
        for m in members {
            m.stop().await;
        }
    }
}

/// A message far larger than the bus's frame (16 KiB unless the URL sets `frame_max`)
/// crosses in pieces and arrives whole, both ways.
#[tokio::test]
async fn a_message_larger_than_a_frame_arrives_whole() {
    for url in crate::support::urls() {
        let (_p, client, members, _seen) = cluster(&url).await;
        let note: String = (0..300_000)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        let pong: Pong = client
            .call(Target::Any, &ping(&note), &[], Duration::from_secs(10))
            .await
            .unwrap();
        assert_eq!(pong.note.len(), note.len(), "{url}");
        assert!(pong.note == note, "{url}: the reply differs");
        client.teardown().await.unwrap();
        for m in members {
            m.stop().await;
        }
    }
}
