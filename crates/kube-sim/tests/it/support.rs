//! A small HTTP client for the simulator's API.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub struct K {
    pub http: reqwest::Client,
    pub base: String,
    pub _sim: Option<kube_sim::Handle>,
}

pub fn sim(ready_ms: u64, terminate_ms: u64) -> K {
    let mut s = kube_sim::Settings::default();
    s.timing.ready_delay_ms = ready_ms;
    s.timing.terminate_delay_ms = terminate_ms;
    s.timing.nodes = 3;
    let h = kube_sim::spawn(s).unwrap();
    K {
        http: reqwest::Client::new(),
        base: h.url.clone(),
        _sim: Some(h),
    }
}

impl K {
    pub async fn req(
        &self,
        method: &str,
        path: &str,
        body: Option<Value>,
        ct: &str,
    ) -> (u16, Value) {
        let m = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut r = self.http.request(m, format!("{}{path}", self.base));
        if let Some(b) = body {
            r = r.header("content-type", ct).body(b.to_string());
        }
        let resp = r.send().await.unwrap();
        let code = resp.status().as_u16();
        let text = resp.text().await.unwrap();
        (
            code,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        self.req("GET", path, None, "").await
    }

    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        self.req("POST", path, Some(body), "application/json").await
    }

    pub async fn delete(&self, path: &str, body: Value) -> (u16, Value) {
        self.req("DELETE", path, Some(body), "application/json")
            .await
    }

    pub async fn pods(&self, selector: &str) -> Vec<Value> {
        let (c, v) = self
            .get(&format!(
                "/api/v1/namespaces/default/pods?labelSelector={selector}"
            ))
            .await;
        assert_eq!(c, 200, "{v}");
        v["items"].as_array().unwrap().clone()
    }

    /// Waits until `f` holds for the Pods selected by `selector`.
    pub async fn wait_pods(
        &self,
        selector: &str,
        what: &str,
        f: impl Fn(&[Value]) -> bool,
    ) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let p = self.pods(selector).await;
            if f(&p) {
                return p;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}: {p:#?}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

pub fn names(pods: &[Value]) -> Vec<String> {
    let mut n: Vec<String> = pods
        .iter()
        .map(|p| p["metadata"]["name"].as_str().unwrap().to_owned())
        .collect();
    n.sort();
    n
}

pub fn ready(p: &Value) -> bool {
    kube_sim::controllers::pod_ready(p) && p["metadata"]["deletionTimestamp"].is_null()
}

pub fn all_ready(n: usize) -> impl Fn(&[Value]) -> bool {
    move |p: &[Value]| p.len() == n && p.iter().all(ready)
}

pub fn deployment(name: &str, replicas: u32) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
        }
    })
}
