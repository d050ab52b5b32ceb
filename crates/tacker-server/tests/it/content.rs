//! Reading an onboarded package: content, VNFD, artifacts, manifest; Range; errors.

use std::io::Read;
use std::time::Duration;

use serde_json::json;
use tacker_testkit::TestDb;
use tacker_testkit::csar::{DEPLOYMENT, valid};

use crate::support::{Options, TestApp, assert_problem};

async fn onboarded() -> (TestApp, String, Vec<u8>) {
    let app = TestApp::with(
        TestDb::sqlite(),
        Options {
            conductors: 1,
            ..Options::default()
        },
    )
    .await;
    let zip = valid().zip();
    let (id, _) = app.upload(zip.clone()).await;
    assert_eq!(
        app.settled(&id, Duration::from_secs(20)).await["onboardingState"],
        "ONBOARDED"
    );
    (app, id, zip)
}

#[tokio::test]
async fn package_content_whole_and_by_range() {
    let (app, id, zip) = onboarded().await;
    let url = app.url(&format!("/vnfpkgm/v1/vnf_packages/{id}/package_content"));
    let r = app.http.get(&url).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "application/zip");
    assert_eq!(r.headers()["accept-ranges"], "bytes");
    assert_eq!(r.bytes().await.unwrap().as_ref(), zip.as_slice());
    let r = app
        .http
        .get(&url)
        .header("range", "bytes=10-19")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 206);
    assert_eq!(
        r.headers()["content-range"],
        format!("bytes 10-19/{}", zip.len()).as_str()
    );
    assert_eq!(r.bytes().await.unwrap().as_ref(), &zip[10..20]);
    let r = app
        .http
        .get(&url)
        .header("range", "bytes=-5")
        .send()
        .await
        .unwrap();
    assert_eq!(r.bytes().await.unwrap().as_ref(), &zip[zip.len() - 5..]);
    let r = app
        .http
        .get(&url)
        .header("range", format!("bytes={}-", zip.len()))
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.headers()["content-range"],
        format!("bytes */{}", zip.len()).as_str()
    );
    assert_problem(r, 416, "outside").await;
    let r = app
        .http
        .get(&url)
        .header("range", "bytes=0-1,5-6")
        .send()
        .await
        .unwrap();
    assert_problem(r, 400, "multiple ranges").await;
}

#[tokio::test]
async fn vnfd_as_zip_or_406() {
    let (app, id, _) = onboarded().await;
    let url = app.url(&format!("/vnfpkgm/v1/vnf_packages/{id}/vnfd"));
    let r = app
        .http
        .get(&url)
        .header("accept", "application/zip")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "application/zip");
    let bytes = r.bytes().await.unwrap();
    let mut z = zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).unwrap();
    let mut names: Vec<String> = z.file_names().map(|n| n.unwrap().into_owned()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "Definitions/test_df_large.yaml",
            "Definitions/test_df_simple.yaml",
            "Definitions/test_top.vnfd.yaml",
            "Definitions/test_types.yaml",
            "TOSCA-Metadata/TOSCA.meta",
        ]
    );
    let mut top = String::new();
    z.by_name("Definitions/test_top.vnfd.yaml")
        .unwrap()
        .read_to_string(&mut top)
        .unwrap();
    assert_eq!(top, valid().get("Definitions/test_top.vnfd.yaml"));
    // Several files cannot be one text/plain document.
    let r = app
        .http
        .get(&url)
        .header("accept", "text/plain")
        .send()
        .await
        .unwrap();
    assert_problem(r, 406, "only as application/zip").await;
    let r = app
        .http
        .get(&url)
        .header("accept", "application/json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 406);
    let r = app
        .http
        .get(&url)
        .header("accept", "text/plain,application/zip")
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["content-type"], "application/zip");
}

#[tokio::test]
async fn artifacts_by_path_with_ranges_and_the_manifest() {
    let (app, id, _) = onboarded().await;
    let art = |p: &str| app.url(&format!("/vnfpkgm/v1/vnf_packages/{id}/artifacts/{p}"));
    let r = app
        .http
        .get(art("Files/kubernetes/deployment.yaml"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.text().await.unwrap(), DEPLOYMENT);
    let r = app
        .http
        .get(art("Files/kubernetes/deployment.yaml"))
        .header("range", "bytes=6-11")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 206);
    assert_eq!(r.text().await.unwrap(), &DEPLOYMENT[6..12]);
    let r = app
        .http
        .get(art("Files/images/test.img"))
        .header("range", "bytes=4000-")
        .send()
        .await
        .unwrap();
    assert_eq!(r.bytes().await.unwrap().as_ref(), &[7u8; 96][..]);
    assert_problem(
        app.http.get(art("Files/nope.yaml")).send().await.unwrap(),
        404,
        "no artifact",
    )
    .await;
    assert_problem(
        app.http
            .get(art("Definitions/test_top.vnfd.yaml"))
            .send()
            .await
            .unwrap(),
        404,
        "no artifact",
    )
    .await;
    let r = app
        .http
        .get(art("Scripts/mgmt.py"))
        .header("range", "bytes=1000-")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 416);
    let r = app
        .http
        .get(app.url(&format!("/vnfpkgm/v1/vnf_packages/{id}/manifest")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.text().await.unwrap(), valid().get("test_top.vnfd.mf"));
}

#[tokio::test]
async fn content_is_409_until_onboarded() {
    let app = TestApp::with(TestDb::sqlite(), Options::default()).await;
    let id = app.create(json!({})).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    for p in [
        "package_content",
        "vnfd",
        "manifest",
        "artifacts/Scripts/mgmt.py",
    ] {
        let r = app
            .http
            .get(app.url(&format!("/vnfpkgm/v1/vnf_packages/{id}/{p}")))
            .send()
            .await
            .unwrap();
        assert_problem(r, 409, "once ONBOARDED").await;
    }
    let r = app
        .http
        .get(app.url(&format!(
            "/vnfpkgm/v1/vnf_packages/{}/vnfd",
            uuid::Uuid::new_v4()
        )))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
}

#[tokio::test]
async fn onboarding_and_reads_work_on_s3_storage() {
    let opts = Options {
        conductors: 2,
        s3: true,
        ..Options::default()
    };
    let app = TestApp::with(TestDb::postgres(), opts).await;
    let zip = valid().zip();
    let (id, status) = app.upload(zip.clone()).await;
    assert_eq!(status, 202);
    assert_eq!(
        app.settled(&id, Duration::from_secs(30)).await["onboardingState"],
        "ONBOARDED"
    );
    assert!(app.cached(1, &id) && app.cached(2, &id));
    let r = app
        .http
        .get(app.url(&format!("/vnfpkgm/v1/vnf_packages/{id}/package_content")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.bytes().await.unwrap().as_ref(), zip.as_slice());
    let r = app
        .http
        .get(app.url(&format!(
            "/vnfpkgm/v1/vnf_packages/{id}/artifacts/Files/kubernetes/deployment.yaml"
        )))
        .header("range", "bytes=0-9")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 206);
    assert_eq!(r.text().await.unwrap(), &DEPLOYMENT[..10]);
    let r = app
        .http
        .get(app.url(&format!("/vnfpkgm/v1/vnf_packages/{id}/vnfd")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    // An invalid package leaves nothing in the bucket either.
    let (bad, _) = app
        .upload(valid().with("Scripts/mgmt.py", "tampered").zip())
        .await;
    assert_eq!(
        app.settled(&bad, Duration::from_secs(30)).await["onboardingState"],
        "CREATED"
    );
    assert!(!app.stored(&bad).await);
}
