//! The outbound client against real HTTP peers: an OAuth 2.0 token endpoint and a
//! subscriber.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking"
)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use serde_json::json;
use tacker_domain::lcm::SubscriptionAuth;
use tacker_outbound::Client;

/// Token endpoint: client `c1` with password `right` gets `tok-1`, valid "forever".
fn token_server(issued: Arc<Mutex<usize>>) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/token", listener.local_addr().unwrap());
    let issued = web::Data::new(issued);
    let server = HttpServer::new(move || {
        App::new().app_data(issued.clone()).route(
            "/token",
            web::post().to(
                |req: HttpRequest, n: web::Data<Arc<Mutex<usize>>>| async move {
                    let ok = req
                        .headers()
                        .get("authorization")
                        .is_some_and(|v| v == "Basic YzE6cmlnaHQ=");
                    if !ok {
                        return HttpResponse::Unauthorized().finish();
                    }
                    *n.lock().unwrap() += 1;
                    HttpResponse::Ok().json(json!({"access_token": "tok-1", "token_type": "Bearer",
                    "expires_in": u64::MAX}))
                },
            ),
        )
    })
    .workers(1)
    .listen(listener)
    .unwrap()
    .run();
    tokio::spawn(server);
    url
}

/// A subscriber recording the Authorization headers it gets.
fn subscriber(seen: Arc<Mutex<Vec<String>>>) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/notify", listener.local_addr().unwrap());
    let seen = web::Data::new(seen);
    let server = HttpServer::new(move || {
        App::new().app_data(seen.clone()).route(
            "/notify",
            web::post().to(
                |req: HttpRequest, s: web::Data<Arc<Mutex<Vec<String>>>>| async move {
                    let a = req
                        .headers()
                        .get("authorization")
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or_default()
                        .to_owned();
                    s.lock().unwrap().push(a);
                    HttpResponse::NoContent().finish()
                },
            ),
        )
    })
    .workers(1)
    .listen(listener)
    .unwrap()
    .run();
    tokio::spawn(server);
    url
}

#[actix_web::test]
async fn a_cached_token_goes_only_with_its_own_secret_and_huge_lifetimes_are_capped() {
    let issued = Arc::new(Mutex::new(0));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let endpoint = token_server(issued.clone());
    let callback = subscriber(seen.clone());
    let client = Client::new(
        Duration::from_secs(5),
        tacker_outbound::Guard::new(vec!["127.0.0.1/32".parse().unwrap()]),
    )
    .unwrap();
    let auth = |password: &str| SubscriptionAuth::OAuth2 {
        client_id: "c1".into(),
        client_password: password.into(),
        token_endpoint: endpoint.clone(),
    };
    // expires_in = u64::MAX neither panics nor stops delivery.
    client
        .deliver(&callback, Some(&auth("right")), &json!({}))
        .await
        .unwrap();
    client
        .deliver(&callback, Some(&auth("right")), &json!({}))
        .await
        .unwrap();
    assert_eq!(*issued.lock().unwrap(), 1, "the token is cached");
    // Same endpoint and client id, another password: the cached token is not used.
    let e = client
        .deliver(&callback, Some(&auth("wrong")), &json!({}))
        .await
        .unwrap_err();
    assert!(e.to_string().contains("OAuth 2.0 token"), "{e}");
    assert_eq!(
        *seen.lock().unwrap(),
        ["Bearer tok-1", "Bearer tok-1"],
        "nothing sent with the wrong secret"
    );
}

/// A listener on `ip` counting the connections it accepts (raw TCP: a refused target
/// must not even be connected to).
fn counting_listener(ip: &str) -> (String, Arc<Mutex<usize>>) {
    let listener = std::net::TcpListener::bind((ip, 0)).unwrap();
    let addr = listener.local_addr().unwrap();
    let n = Arc::new(Mutex::new(0));
    let counted = n.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            *counted.lock().unwrap() += 1;
            drop(stream);
        }
    });
    (format!("http://{addr}"), n)
}

/// A server on 127.0.0.1 answering every request with a redirect to `to`.
fn redirector(to: String) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let to = web::Data::new(to);
    let server = HttpServer::new(move || {
        App::new().app_data(to.clone()).default_service(web::to(
            |to: web::Data<String>| async move {
                HttpResponse::TemporaryRedirect()
                    .insert_header(("Location", to.get_ref().clone()))
                    .finish()
            },
        ))
    })
    .workers(1)
    .listen(listener)
    .unwrap()
    .run();
    tokio::spawn(server);
    url
}

#[actix_web::test]
async fn internal_targets_outside_the_allowed_networks_get_no_request() {
    let (internal, connections) = counting_listener("127.0.0.2");
    let client = Client::new(
        Duration::from_secs(5),
        tacker_outbound::Guard::new(vec!["127.0.0.1/32".parse().unwrap()]),
    )
    .unwrap();
    let refused = |e: tacker_outbound::Error| {
        assert!(
            matches!(e, tacker_outbound::Error::Refused { .. })
                || e.to_string().contains("allowed_networks"),
            "{e}"
        );
    };
    // A callback, a token endpoint, an NFVO: straight at the internal address.
    refused(
        client
            .test_callback(&format!("{internal}/notify"), None)
            .await
            .unwrap_err(),
    );
    refused(
        client
            .deliver(&format!("{internal}/notify"), None, &json!({}))
            .await
            .unwrap_err(),
    );
    let e = client
        .deliver(
            &redirector(format!("{internal}/x")),
            Some(&SubscriptionAuth::OAuth2 {
                client_id: "c".into(),
                client_password: "p".into(),
                token_endpoint: format!("{internal}/token"),
            }),
            &json!({}),
        )
        .await
        .unwrap_err();
    assert!(e.to_string().contains("allowed_networks"), "{e}");
    refused(
        client
            .get_json(&format!("{internal}/grants/1"), Some(("nfvo", "pw")))
            .await
            .unwrap_err(),
    );
    // Through a redirect from an allowed address.
    let e = client
        .deliver(&redirector(format!("{internal}/notify")), None, &json!({}))
        .await
        .unwrap_err();
    assert!(e.to_string().contains("redirect refused"), "{e}");
    // Cloud metadata, and an IPv6 form of a refused IPv4 address.
    for url in [
        "http://169.254.169.254/latest/meta-data",
        "http://[64:ff9b::7f00:2]/",
    ] {
        refused(client.deliver(url, None, &json!({})).await.unwrap_err());
    }
    assert_eq!(
        *connections.lock().unwrap(),
        0,
        "the internal listener was reached"
    );
}
