//! Fixtures of the management-driver tests: the example private registry and
//! Kubernetes cluster packages (`docs/examples/`), the test hosts' shims, an offline
//! registry image, a test CA, and running things inside test hosts.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::csar::Csar;

/// `descriptor_id` of the example private registry VNF.
pub const REGISTRY_VNFD_ID: &str = "c0ffee00-0000-4000-8000-00000000e9a1";
/// `descriptor_id` of the example Kubernetes cluster VNF.
pub const K8S_VNFD_ID: &str = "c0ffee00-0000-4000-8000-000000c1a57e";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every file under `docs/examples/<name>` as a package.
fn example(name: &str) -> Csar {
    fn walk(dir: &Path, root: &Path, c: Csar) -> Csar {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
        entries.sort_by_key(|e| e.path());
        entries.into_iter().fold(c, |c, e| {
            let p = e.path();
            if p.is_dir() {
                walk(&p, root, c)
            } else {
                let rel = p.strip_prefix(root).unwrap().display().to_string();
                c.with(&rel, std::fs::read(&p).unwrap())
            }
        })
    }
    let root = repo().join("docs/examples").join(name);
    walk(&root, &root, Csar::default())
}

/// The example private registry VNF.
pub fn registry_vnf() -> Csar {
    example("private-registry")
}

/// The example Kubernetes cluster VNF.
pub fn k8s_cluster() -> Csar {
    example("k8s-cluster")
}

/// A binary of this workspace (`target/<profile>/<name>`), built by `cargo build` or
/// by the test run of its crate.
pub fn workspace_bin(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.ancestors().nth(2).unwrap().to_path_buf();
    let p = profile_dir.join(name);
    assert!(
        p.is_file(),
        "{} is missing: build it (`cargo build -p {name}`; make test does)",
        p.display()
    );
    p
}

/// A shims directory for test hosts: `tests/infra/shims/*`, the Docker hub's address
/// (`docker-hub`) and a `kube-sim` that runs this workspace's. Without `docker`, the
/// Docker shim is there as `docker.shim` (VMs without Docker, which a driver installs).
pub fn shims(hub: Option<&str>, docker: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(repo().join("tests/infra/shims"))
        .unwrap()
        .flatten()
    {
        let name = match e.file_name().to_str() {
            Some("docker") if !docker => "docker.shim".to_owned(),
            _ => e.file_name().to_string_lossy().into_owned(),
        };
        std::fs::copy(e.path(), dir.path().join(name)).unwrap();
    }
    if let Some(h) = hub {
        std::fs::write(dir.path().join("docker-hub"), h).unwrap();
    }
    let ks = workspace_bin("kube-sim");
    let wrapper = dir.path().join("kube-sim");
    std::fs::write(
        &wrapper,
        format!("#!/bin/sh\nexec {} \"$@\"\n", ks.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    for e in std::fs::read_dir(dir.path()).unwrap().flatten() {
        std::fs::set_permissions(e.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir
}

fn checked(what: &str, out: Output) -> String {
    assert!(
        out.status.success(),
        "{what} failed ({}): {}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A docker-save archive of image `reference` (one small layer, built offline).
pub fn image_archive(dir: &Path, reference: &str) -> PathBuf {
    let out = dir.join(format!("{}.tar", reference.replace([':', '/'], "_")));
    checked(
        "registry-image.sh",
        Command::new(repo().join("tests/infra/registry-image.sh"))
            .arg(&out)
            .arg(reference)
            .output()
            .unwrap(),
    );
    out
}

/// Pushes a docker-save archive to `docker://<target>` with skopeo (`opts`: TLS and
/// credential options).
pub fn push(archive: &Path, target: &str, opts: &[&str]) {
    checked(
        &format!("skopeo copy to {target}"),
        Command::new("skopeo")
            .args(["copy", "--quiet"])
            .args(opts)
            .arg(format!("docker-archive:{}", archive.display()))
            .arg(format!("docker://{target}"))
            .output()
            .unwrap(),
    );
}

/// A test CA and a server certificate it signed for `dns` and `ip`.
#[derive(Debug)]
pub struct TestCa {
    /// Where the files are (`ca.crt`, `server.crt`, `server.key`).
    pub dir: tempfile::TempDir,
}

impl TestCa {
    /// Makes the CA and the server certificate with openssl.
    pub fn new(dns: &str, ip: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        let script = format!(
            "set -e; cd {d}
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=tacker-test-ca -keyout ca.key -out ca.crt 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj /CN={dns} -keyout server.key -out server.csr 2>/dev/null
printf 'subjectAltName=DNS:{dns},IP:{ip}\\nbasicConstraints=CA:FALSE\\n' > ext.cnf
openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile ext.cnf -out server.crt 2>/dev/null
mkdir trust && cp ca.crt trust/"
        );
        checked(
            "openssl",
            Command::new("bash").args(["-c", &script]).output().unwrap(),
        );
        Self { dir }
    }

    /// The CA certificate (PEM).
    pub fn ca_pem(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("ca.crt")).unwrap()
    }

    /// A directory holding only `ca.crt` (a certs.d directory for clients).
    pub fn trust_dir(&self) -> PathBuf {
        self.dir.path().join("trust")
    }

    /// A path of the directory.
    pub fn path(&self, file: &str) -> PathBuf {
        self.dir.path().join(file)
    }
}

/// Runs `script` (bash) inside the test host whose PID 1 is `pid`, as root.
pub fn host_sh(pid: u32, script: &str) -> Output {
    Command::new("nsenter")
        .args([
            "-t",
            &pid.to_string(),
            "-a",
            "-r",
            "-w",
            "--",
            "bash",
            "-c",
            script,
        ])
        .output()
        .unwrap()
}

/// Like [`host_sh`], panicking on failure; its stdout.
pub fn host_ok(pid: u32, script: &str) -> String {
    checked(&format!("in host {pid}: {script}"), host_sh(pid, script))
}

/// A file of the test host whose PID 1 is `pid` (`None`: absent).
pub fn host_file(pid: u32, path: &str) -> Option<String> {
    std::fs::read_to_string(format!("/proc/{pid}/root{path}")).ok()
}

/// Writes a file into a test host.
pub fn put_host_file(pid: u32, path: &str, content: &[u8]) {
    let p = PathBuf::from(format!("/proc/{pid}/root{path}"));
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, content).unwrap();
}

/// Starts Debian's docker-registry inside a test host on `port` (HTTPS with the CA's
/// server certificate when `tls`; basic authentication with `htpasswd` when given).
pub fn start_registry(pid: u32, port: u16, tls: Option<&TestCa>, htpasswd: Option<&str>) {
    let dir = format!("/var/lib/test-registry-{port}");
    let mut cfg = format!(
        "version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: {dir}/data\nhttp:\n  addr: :{port}\n"
    );
    if let Some(ca) = tls {
        put_host_file(
            pid,
            &format!("{dir}/server.crt"),
            &std::fs::read(ca.path("server.crt")).unwrap(),
        );
        put_host_file(
            pid,
            &format!("{dir}/server.key"),
            &std::fs::read(ca.path("server.key")).unwrap(),
        );
        cfg += &format!("  tls:\n    certificate: {dir}/server.crt\n    key: {dir}/server.key\n");
    }
    if let Some(h) = htpasswd {
        put_host_file(pid, &format!("{dir}/htpasswd"), h.as_bytes());
        cfg += &format!("auth:\n  htpasswd:\n    realm: test\n    path: {dir}/htpasswd\n");
    }
    put_host_file(pid, &format!("{dir}/config.yml"), cfg.as_bytes());
    host_ok(
        pid,
        &format!(
            "mkdir -p {dir}/data; setsid nohup docker-registry serve {dir}/config.yml > {dir}/log 2>&1 < /dev/null &
for _ in $(seq 1 100); do (exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && exit 0; sleep 0.05; done
echo 'registry did not start' >&2; cat {dir}/log >&2; exit 1"
        ),
    );
}

/// `htpasswd -Bbn user password`.
pub fn htpasswd(user: &str, password: &str) -> String {
    checked(
        "htpasswd",
        Command::new("htpasswd")
            .args(["-Bbn", user, password])
            .output()
            .unwrap(),
    )
}
