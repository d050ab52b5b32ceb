//! Package storage on S3 (moto) and the local filesystem, through the same API.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking"
)]

use bytes::Bytes;
use futures::TryStreamExt;
use tacker_storage::{Error, PackageStore, S3Options};
use tacker_testkit::moto::Moto;

fn s3(moto: &Moto, bucket: &str, prefix: &str) -> PackageStore {
    moto.create_bucket(bucket);
    let opts = S3Options {
        endpoint: moto.endpoint.clone(),
        region: "us-east-1".into(),
        access_key_id: "testing".into(),
        secret_access_key: "testing".into(),
        allow_http: true,
    };
    PackageStore::open(&format!("s3://{bucket}/{prefix}"), &opts).unwrap()
}

async fn read(s: &PackageStore, key: &str, r: Option<std::ops::Range<u64>>) -> Vec<u8> {
    s.get_stream(key, r)
        .await
        .unwrap()
        .try_fold(Vec::new(), |mut v, b| async move {
            v.extend_from_slice(&b);
            Ok(v)
        })
        .await
        .unwrap()
}

#[tokio::test]
async fn s3_multipart_upload_ranged_download_and_delete() {
    let moto = Moto::start();
    let store = s3(&moto, "tacker-packages", "cluster-a");
    // 20 MiB in 1 MiB chunks: several multipart parts.
    let chunk: Vec<u8> = (0..1024 * 1024).map(|i| (i % 251) as u8).collect();
    let body = futures::stream::iter((0..20).map(|_| Ok::<_, String>(Bytes::from(chunk.clone()))));
    let key = PackageStore::package_key("p1");
    let stored = store
        .put_stream(&key, body, 64 * 1024 * 1024)
        .await
        .unwrap();
    assert_eq!(stored.size, 20 * 1024 * 1024);
    assert_eq!(store.size(&key).await.unwrap(), 20 * 1024 * 1024);
    let part = read(
        &store,
        &key,
        Some(5 * 1024 * 1024 + 3..5 * 1024 * 1024 + 10),
    )
    .await;
    assert_eq!(part, &chunk[3..10]);
    let all = read(&store, &key, None).await;
    assert_eq!(all.len(), 20 * 1024 * 1024);
    use sha2::Digest;
    assert_eq!(hex::encode(sha2::Sha512::digest(&all)), stored.sha512);
    store.delete(&key).await.unwrap();
    store.delete(&key).await.unwrap();
    assert!(matches!(store.size(&key).await, Err(Error::NotFound(_))));
}

#[tokio::test]
async fn s3_uploads_over_the_cap_leave_nothing() {
    let moto = Moto::start();
    let store = s3(&moto, "capped", "");
    let body = futures::stream::iter(
        (0..3).map(|_| Ok::<_, String>(Bytes::from(vec![0u8; 6 * 1024 * 1024]))),
    );
    let key = PackageStore::package_key("p2");
    let err = store
        .put_stream(&key, body, 10 * 1024 * 1024)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::TooLarge { .. }));
    assert!(matches!(store.size(&key).await, Err(Error::NotFound(_))));
}
