use std::collections::HashSet;

use serde_json::{Value, json};
use tacker_domain::package::{OperationalState, UsageState};

use crate::support::{TestApp, assert_problem};

const PKGS: &str = "/vnfpkgm/v1/vnf_packages";

#[tokio::test]
async fn create_answers_201_with_location_and_vnf_pkg_info() {
    for app in TestApp::each().await {
        let r = app
            .http
            .post(app.url(PKGS))
            .json(&json!({"userDefinedData": {"owner": "ops", "tier": 1}}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
        let location = r.headers()["location"].to_str().unwrap().to_owned();
        let body: Value = r.json().await.unwrap();
        let id = body["id"].as_str().unwrap();
        assert_eq!(location, app.url(&format!("{PKGS}/{id}")));
        assert_eq!(body["onboardingState"], "CREATED");
        assert_eq!(body["operationalState"], "DISABLED");
        assert_eq!(body["usageState"], "NOT_IN_USE");
        assert_eq!(body["userDefinedData"], json!({"owner": "ops", "tier": 1}));
        assert_eq!(body["_links"]["self"]["href"], location);
        assert_eq!(
            body["_links"]["packageContent"]["href"],
            format!("{location}/package_content")
        );
        // The same representation comes back from GET.
        let got: Value = app
            .http
            .get(&location)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(got, body);
        // An empty object is a valid request.
        let empty = app.create(json!({})).await;
        assert_eq!(empty["userDefinedData"], json!({}));
    }
}

#[tokio::test]
async fn create_rejects_bad_requests_with_problem_details() {
    for app in TestApp::each().await {
        let post = || app.http.post(app.url(PKGS));
        assert_problem(
            post().body("{}").send().await.unwrap(),
            415,
            "Content-Type is missing",
        )
        .await;
        let r = post()
            .header("content-type", "text/plain")
            .body("{}")
            .send()
            .await
            .unwrap();
        assert_problem(r, 415, "text/plain").await;
        let r = post()
            .header("content-type", "application/json")
            .body("{nope")
            .send()
            .await
            .unwrap();
        assert_problem(r, 400, "invalid request body").await;
        // A type error names the field.
        let r = post()
            .header("content-type", "application/json")
            .body(r#"{"userDefinedData": {"team": "core"}, "nope": 1, "x": [1]}"#)
            .send()
            .await
            .unwrap();
        assert_problem(r, 400, "unknown field `nope`").await;
        let r = post()
            .header("content-type", "application/json")
            .body(r#"{"userDefinedData": ["not", "an", "object"]}"#)
            .send()
            .await
            .unwrap();
        assert_problem(r, 400, "/userDefinedData: invalid type: sequence").await;
        let r = post()
            .header("content-type", "application/json")
            .send()
            .await
            .unwrap();
        assert_problem(r, 400, "empty").await;
        let r = post()
            .json(&json!({"userDefinedData": {}, "extra": 1}))
            .send()
            .await
            .unwrap();
        assert_problem(r, 400, "unknown field `extra`").await;
        let r = post()
            .json(&json!({"userDefinedData": "x"}))
            .send()
            .await
            .unwrap();
        assert_problem(r, 400, "invalid type").await;
        let r = post()
            .header("accept", "text/plain")
            .json(&json!({}))
            .send()
            .await
            .unwrap();
        assert_problem(r, 406, "text/plain").await;
        let big = json!({"userDefinedData": {"k": "x".repeat(70 * 1024)}});
        assert_problem(post().json(&big).send().await.unwrap(), 413, "exceeds").await;
        // Nothing was created by any of them.
        let list: Vec<Value> = app
            .http
            .get(app.url(PKGS))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert!(list.is_empty(), "{list:?}");
    }
}

#[tokio::test]
async fn show_answers_404_for_unknown_or_malformed_ids() {
    for app in TestApp::each().await {
        let r = app
            .http
            .get(app.url(&format!("{PKGS}/{}", uuid::Uuid::new_v4())))
            .send()
            .await
            .unwrap();
        assert_problem(r, 404, "not found").await;
        let r = app
            .http
            .get(app.url(&format!("{PKGS}/not-a-uuid")))
            .send()
            .await
            .unwrap();
        assert_problem(r, 404, "not-a-uuid").await;
        for m in [reqwest::Method::PATCH, reqwest::Method::DELETE] {
            let r = app
                .http
                .request(m, app.url(&format!("{PKGS}/{}", uuid::Uuid::new_v4())))
                .header("content-type", "application/merge-patch+json")
                .body(r#"{"userDefinedData": {}}"#)
                .send()
                .await
                .unwrap();
            assert_problem(r, 404, "not found").await;
        }
    }
}

async fn list(app: &TestApp, query: &str) -> reqwest::Response {
    app.http
        .get(app.url(&format!("{PKGS}?{query}")))
        .send()
        .await
        .unwrap()
}

async fn ids(app: &TestApp, query: &str) -> Vec<String> {
    let r = list(app, query).await;
    assert_eq!(r.status(), 200, "{query}");
    let items: Vec<Value> = r.json().await.unwrap();
    items
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn list_filters_with_every_operator_and_nested_paths() {
    for app in TestApp::each().await {
        let a = app
            .create(json!({"userDefinedData": {"site": "tokyo", "n": 1}}))
            .await;
        let b = app
            .create(json!({"userDefinedData": {"site": "osaka", "n": 5}}))
            .await;
        let c = app
            .insert_onboarded(OperationalState::Enabled, UsageState::NotInUse)
            .await
            .to_string();
        let (a, b) = (
            a["id"].as_str().unwrap().to_owned(),
            b["id"].as_str().unwrap().to_owned(),
        );
        let q = |f: &str| format!("filter={}", urlencode(f));
        assert_eq!(
            ids(&app, &q("(eq,onboardingState,ONBOARDED)")).await,
            vec![c.clone()]
        );
        assert_eq!(
            ids(&app, &q("(neq,onboardingState,ONBOARDED)")).await,
            [a.clone(), b.clone()]
        );
        assert_eq!(
            ids(&app, &q("(eq,userDefinedData/site,osaka)")).await,
            vec![b.clone()]
        );
        assert_eq!(
            ids(&app, &q("(in,userDefinedData/site,osaka,tokyo)")).await,
            [a.clone(), b.clone()]
        );
        assert_eq!(
            ids(&app, &q("(nin,userDefinedData/site,osaka)")).await,
            [a.clone(), c.clone()]
        );
        assert_eq!(
            ids(&app, &q("(gt,userDefinedData/n,2)")).await,
            vec![b.clone()]
        );
        assert_eq!(
            ids(&app, &q("(lte,userDefinedData/n,1)")).await,
            vec![a.clone()]
        );
        assert_eq!(
            ids(&app, &q("(cont,userDefinedData/site,ky)")).await,
            vec![a.clone()]
        );
        assert_eq!(
            ids(&app, &q("(ncont,userDefinedData/site,o)")).await,
            vec![c.clone()]
        );
        assert_eq!(
            ids(
                &app,
                &q("(eq,operationalState,DISABLED);(gte,userDefinedData/n,1)")
            )
            .await,
            [a.clone(), b.clone()]
        );
        for bad in [
            "(eq,onboardingState",
            "(like,id,1)",
            "(eq,nosuch,1)",
            "(eq,id)",
        ] {
            assert_problem(list(&app, &q(bad)).await, 400, "invalid filter").await;
        }
        assert_problem(
            list(&app, "filters=(eq,id,1)").await,
            400,
            "unknown query parameter",
        )
        .await;
        assert_problem(list(&app, "all_fields&all_fields").await, 400, "twice").await;
    }
}

#[tokio::test]
async fn list_applies_attribute_selectors() {
    for app in TestApp::each().await {
        app.create(json!({"userDefinedData": {"k": "v", "j": "w"}}))
            .await;
        let first = |query: &'static str| {
            let app = &app;
            async move {
                let r = list(app, query).await;
                assert_eq!(r.status(), 200, "{query}");
                let items: Vec<Value> = r.json().await.unwrap();
                items[0].clone()
            }
        };
        // By default (and with exclude_default) complex attributes are left out.
        for q in ["", "exclude_default"] {
            let item = first(q).await;
            assert!(item.get("userDefinedData").is_none(), "{q}: {item}");
            assert!(item.get("_links").is_some() && item.get("onboardingState").is_some());
        }
        assert_eq!(
            first("all_fields").await["userDefinedData"],
            json!({"k": "v", "j": "w"})
        );
        assert_eq!(
            first("fields=userDefinedData/k").await["userDefinedData"],
            json!({"k": "v"})
        );
        assert_eq!(
            first("fields=userDefinedData&exclude_default").await["userDefinedData"],
            json!({"k": "v", "j": "w"})
        );
        let item = first("exclude_fields=userDefinedData/j,_links").await;
        assert_eq!(item["userDefinedData"], json!({"k": "v"}));
        assert!(item.get("_links").is_none());
        for bad in [
            "all_fields&fields=a",
            "fields=a&exclude_fields=b",
            "exclude_fields=a&exclude_default",
            // Paths naming no attribute of VnfPkgInfo (SOL013: 400).
            "fields=wrong_field",
            "exclude_fields=userDefinedData,wrong_field/x",
        ] {
            assert_problem(list(&app, bad).await, 400, "selector").await;
        }
        assert_problem(
            list(&app, "fields=wrong_field").await,
            400,
            "unknown attribute \"wrong_field\"",
        )
        .await;
    }
}

#[tokio::test]
async fn list_pages_with_link_headers() {
    for tdb in tacker_testkit::TestDb::each() {
        let app = TestApp::with_page_size(tdb, 3).await;
        let mut created = Vec::new();
        for i in 0..7 {
            created.push(
                app.create(json!({"userDefinedData": {"i": i}})).await["id"]
                    .as_str()
                    .unwrap()
                    .to_owned(),
            );
        }
        let url = app.url(&format!(
            "{PKGS}?filter={}",
            urlencode("(gte,userDefinedData/i,0)")
        ));
        let (seen, pages) = every_page(&app, url, 3).await;
        assert_eq!(pages, 3);
        assert_eq!(seen, created);
        assert_eq!(seen.iter().collect::<HashSet<_>>().len(), 7);
        assert_problem(
            list(&app, "nextpage_opaque_marker=garbage!").await,
            400,
            "marker",
        )
        .await;
    }
}

#[tokio::test]
async fn patch_merges_user_data_and_guards_operational_state() {
    for app in TestApp::each().await {
        let p = app
            .create(json!({"userDefinedData": {"a": "1", "b": "2"}}))
            .await;
        let url = app.url(&format!("{PKGS}/{}", p["id"].as_str().unwrap()));
        let patch = |ct: &'static str, body: Value| {
            app.http
                .patch(&url)
                .header("content-type", ct)
                .body(body.to_string())
                .send()
        };
        let r = patch(
            "application/merge-patch+json",
            json!({"userDefinedData": {"a": null, "c": "3"}}),
        )
        .await
        .unwrap();
        assert_eq!(r.status(), 200);
        let body: Value = r.json().await.unwrap();
        assert_eq!(body, json!({"userDefinedData": {"a": null, "c": "3"}}));
        let got: Value = app
            .http
            .get(&url)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(got["userDefinedData"], json!({"b": "2", "c": "3"}));
        let r = patch("application/json", json!({"userDefinedData": {"d": "4"}}))
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        // operationalState only changes on ONBOARDED packages.
        let r = patch(
            "application/merge-patch+json",
            json!({"operationalState": "ENABLED"}),
        )
        .await
        .unwrap();
        assert_problem(r, 409, "only once ONBOARDED").await;
        let r = patch(
            "application/merge-patch+json",
            json!({"operationalState": "ON"}),
        )
        .await
        .unwrap();
        assert_problem(r, 400, "ENABLED or DISABLED").await;
        assert_problem(
            patch("application/merge-patch+json", json!({}))
                .await
                .unwrap(),
            400,
            "give",
        )
        .await;
        let r = patch("application/merge-patch+json", json!({"vnfdId": "x"}))
            .await
            .unwrap();
        assert_problem(r, 400, "unknown field").await;
        assert_problem(
            patch("text/plain", json!({})).await.unwrap(),
            415,
            "merge-patch",
        )
        .await;
        let got: Value = app
            .http
            .get(&url)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(
            got["userDefinedData"],
            json!({"b": "2", "c": "3", "d": "4"})
        );
        assert_eq!(got["operationalState"], "DISABLED");

        let id = app
            .insert_onboarded(OperationalState::Disabled, UsageState::NotInUse)
            .await;
        let url = app.url(&format!("{PKGS}/{id}"));
        let enable = || {
            app.http
                .patch(&url)
                .header("content-type", "application/merge-patch+json")
                .body(r#"{"operationalState": "ENABLED"}"#)
                .send()
        };
        let r = enable().await.unwrap();
        assert_eq!(r.status(), 200);
        assert_eq!(
            r.json::<Value>().await.unwrap(),
            json!({"operationalState": "ENABLED"})
        );
        assert_problem(enable().await.unwrap(), 409, "already ENABLED").await;
        let got: Value = app
            .http
            .get(&url)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(got["operationalState"], "ENABLED");
    }
}

#[tokio::test]
async fn delete_is_soft_and_refused_when_enabled_or_in_use() {
    for app in TestApp::each().await {
        let p = app.create(json!({})).await;
        let url = app.url(&format!("{PKGS}/{}", p["id"].as_str().unwrap()));
        let r = app.http.delete(&url).send().await.unwrap();
        assert_eq!(r.status(), 204);
        assert_problem(app.http.get(&url).send().await.unwrap(), 404, "not found").await;
        assert_problem(
            app.http.delete(&url).send().await.unwrap(),
            404,
            "not found",
        )
        .await;

        let enabled = app
            .insert_onboarded(OperationalState::Enabled, UsageState::NotInUse)
            .await;
        let r = app
            .http
            .delete(app.url(&format!("{PKGS}/{enabled}")))
            .send()
            .await
            .unwrap();
        assert_problem(r, 409, "ENABLED").await;
        let in_use = app
            .insert_onboarded(OperationalState::Disabled, UsageState::InUse)
            .await;
        let r = app
            .http
            .delete(app.url(&format!("{PKGS}/{in_use}")))
            .send()
            .await
            .unwrap();
        assert_problem(r, 409, "IN_USE").await;
        // Both are still there.
        assert_eq!(ids(&app, "").await.len(), 2);
    }
}

#[tokio::test]
async fn concurrent_patches_lose_no_update() {
    for app in TestApp::each().await {
        let p = app.create(json!({})).await;
        let url = app.url(&format!("{PKGS}/{}", p["id"].as_str().unwrap()));
        let mut tasks = Vec::new();
        for i in 0..6 {
            let (http, url) = (app.http.clone(), url.clone());
            tasks.push(tokio::spawn(async move {
                http.patch(&url)
                    .header("content-type", "application/merge-patch+json")
                    .body(json!({"userDefinedData": {format!("k{i}"): i}}).to_string())
                    .send()
                    .await
                    .unwrap()
                    .status()
                    .as_u16()
            }));
        }
        for t in tasks {
            assert_eq!(t.await.unwrap(), 200);
        }
        let got: Value = app
            .http
            .get(&url)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(
            got["userDefinedData"].as_object().unwrap().len(),
            6,
            "{got}"
        );
    }
}

fn urlencode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// Lists are read from the database a chunk at a time (keyset order): over thousands of
/// rows, with hundreds created in the same microsecond (ties broken by id, across
/// chunks), every page follows the (creation time, id) order, nothing repeats or goes
/// missing, with and without a filter, on both backends.
#[tokio::test]
async fn lists_page_in_key_order_over_thousands_of_rows() {
    use tacker_domain::package::VnfPackage;
    for tdb in tacker_testkit::TestDb::each() {
        let app = TestApp::with_page_size(tdb, 100).await;
        let base = chrono::Utc::now();
        let packages: Vec<VnfPackage> = (0..2500)
            .map(|i: i64| {
                let mut data = serde_json::Map::new();
                data.insert("even".into(), json!(i % 2 == 0));
                // 300 rows share each instant: more than one chunk of the scan.
                let at = base + chrono::Duration::microseconds(i / 300);
                VnfPackage::new(uuid::Uuid::new_v4(), data, at)
            })
            .collect();
        let mut expected: Vec<(i64, String, bool)> = packages
            .iter()
            .map(|p| {
                (
                    p.created_at.timestamp_micros(),
                    p.id.to_string(),
                    p.user_defined_data["even"] == json!(true),
                )
            })
            .collect();
        expected.sort();
        app.db
            .run(move |c| {
                for p in &packages {
                    tacker_db::packages::insert(c, p)?;
                }
                Ok(())
            })
            .await
            .unwrap();
        for (query, only_even) in [
            ("", false),
            (
                &*format!("filter={}", urlencode("(eq,userDefinedData/even,true)")),
                true,
            ),
            // Narrowed in the database (a column), then decided by the filter.
            (
                &*format!(
                    "filter={}",
                    urlencode("(eq,onboardingState,CREATED);(eq,userDefinedData/even,true)")
                ),
                true,
            ),
        ] {
            let want: Vec<&str> = expected
                .iter()
                .filter(|(_, _, even)| !only_even || *even)
                .map(|(_, id, _)| id.as_str())
                .collect();
            let (seen, _) = every_page(&app, app.url(&format!("{PKGS}?{query}")), 100).await;
            assert_eq!(seen.len(), want.len(), "{query}");
            assert!(seen.iter().zip(&want).all(|(a, b)| a == b), "{query}");
        }
    }
}

/// Follows `Link: rel="next"` from `url` to the last page (each at most `size` items, the
/// query kept in every link); the ids in order, and the number of pages.
async fn every_page(app: &TestApp, mut url: String, size: usize) -> (Vec<String>, usize) {
    let (mut seen, mut pages) = (Vec::new(), 0);
    loop {
        let r = app.http.get(&url).send().await.unwrap();
        assert_eq!(r.status(), 200);
        let next = r
            .headers()
            .get("link")
            .map(|l| l.to_str().unwrap().to_owned());
        let items: Vec<Value> = r.json().await.unwrap();
        assert!(items.len() <= size);
        seen.extend(items.iter().map(|i| i["id"].as_str().unwrap().to_owned()));
        pages += 1;
        match next {
            Some(link) => {
                assert!(link.ends_with(r#">; rel="next""#), "{link}");
                let q = url.split_once('?').map(|(_, q)| q).unwrap_or_default();
                if let Some(f) = q.split('&').find(|p| p.starts_with("filter=")) {
                    assert!(link.contains(f), "the filter is kept: {link}");
                }
                url = link[1..link.find('>').unwrap()].to_owned();
            }
            None => return (seen, pages),
        }
    }
}
