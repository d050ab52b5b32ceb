//! The real kubectl against the kube-sim binary, over TLS with a bearer token.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// kubectl: `$KUBECTL`, else the one `tests/infra/k8s-tools.sh` installs, else `PATH`.
fn kubectl_bin() -> PathBuf {
    if let Ok(k) = std::env::var("KUBECTL") {
        return k.into();
    }
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.tools/bin/kubectl");
    if tools.exists() {
        return tools;
    }
    "kubectl".into()
}

struct SimProcess(Child);

impl Drop for SimProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

struct Kubectl {
    home: tempfile::TempDir,
}

impl Kubectl {
    fn run(&self, args: &[&str]) -> (bool, String) {
        let out = Command::new(kubectl_bin())
            .args(args)
            .env("KUBECONFIG", self.home.path().join("config"))
            .env("HOME", self.home.path())
            .output()
            .unwrap_or_else(|e| panic!("kubectl not found ({e}); run tests/infra/k8s-tools.sh"));
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.success(), text)
    }

    fn ok(&self, args: &[&str]) -> String {
        let (ok, text) = self.run(args);
        assert!(ok, "kubectl {args:?} failed: {text}");
        text
    }

    fn json(&self, args: &[&str]) -> Value {
        let mut a = args.to_vec();
        a.extend(["-o", "json"]);
        serde_json::from_str(&self.ok(&a)).unwrap()
    }

    fn wait(&self, what: &str, args: &[&str], f: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let v = self.json(args);
            if f(&v) {
                return v;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}: {v}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

fn running(v: &Value, n: usize) -> bool {
    let items = v["items"].as_array().unwrap();
    items.len() == n && items.iter().all(|p| p["status"]["phase"] == "Running")
}

const MANIFESTS: &str = r#"
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - {name: nginx, image: nginx}
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - {port: 80, targetPort: 8080}
"#;

#[test]
fn kubectl_gets_applies_scales_and_deletes() {
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem");
    let port = free_port();
    let child = Command::new(env!("CARGO_BIN_EXE_kube-sim"))
        .args([
            "--bind",
            &format!("127.0.0.1:{port}"),
            "--token",
            "s3cret",
            "--ready-delay",
            "50",
        ])
        .arg("--tls-ca-out")
        .arg(&ca)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let _sim = SimProcess(child);
    let deadline = Instant::now() + Duration::from_secs(10);
    while !ca.exists() || std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "kube-sim did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    let k = Kubectl {
        home: tempfile::tempdir().unwrap(),
    };
    let config = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: sim\n  cluster:\n    server: https://127.0.0.1:{port}\n    certificate-authority: {}\nusers:\n- name: u\n  user:\n    token: s3cret\ncontexts:\n- name: sim\n  context: {{cluster: sim, user: u, namespace: default}}\ncurrent-context: sim\n",
        ca.display()
    );
    std::fs::write(k.home.path().join("config"), config).unwrap();
    let file = dir.path().join("web.yaml");
    std::fs::write(&file, MANIFESTS).unwrap();
    let f = file.to_str().unwrap();

    let out = k.ok(&["apply", "--validate=false", "-f", f]);
    assert!(
        out.contains("deployment.apps/web created") && out.contains("service/web created"),
        "{out}"
    );
    k.wait("2 Pods", &["get", "pods", "-l", "app=web"], |v| {
        running(v, 2)
    });
    let table = k.ok(&["get", "deployment", "web"]);
    assert!(table.contains("READY") && table.contains("2/2"), "{table}");

    let out = k.ok(&["scale", "deployment/web", "--replicas=3"]);
    assert!(out.contains("scaled"), "{out}");
    k.wait("3 Pods", &["get", "pods", "-l", "app=web"], |v| {
        running(v, 3)
    });

    // Applying the file again brings the replicas back to what it says.
    let out = k.ok(&["apply", "--validate=false", "-f", f]);
    assert!(out.contains("configured"), "{out}");
    k.wait("2 Pods again", &["get", "pods", "-l", "app=web"], |v| {
        running(v, 2)
    });
    let svc = k.json(&["get", "service", "web"]);
    assert_eq!(svc["spec"]["ports"][0]["port"], 80);

    let out = k.ok(&["delete", "-f", f]);
    assert!(out.contains("deleted"), "{out}");
    k.wait("no Pods", &["get", "pods", "-l", "app=web"], |v| {
        running(v, 0)
    });
    let (ok, out) = k.run(&["get", "deployment", "web"]);
    assert!(!ok && out.contains("NotFound"), "{out}");

    // A wrong token is refused.
    let bad = std::fs::read_to_string(k.home.path().join("config"))
        .unwrap()
        .replace("s3cret", "wrong");
    std::fs::write(k.home.path().join("config"), bad).unwrap();
    let (ok, out) = k.run(&["get", "pods"]);
    assert!(!ok, "{out}");
}
