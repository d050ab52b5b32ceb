use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tacker_domain::lcm::driver::{DriverError, Services};
use tacker_domain::vim::Vim;
use tacker_mgmt::Error;
use tacker_mgmt::SshSettings;
use tacker_mgmt::ssh::{Login, Session, Target};

/// Host keys kept in memory (the conductor keeps them in the database).
#[derive(Debug, Default)]
struct Keys(Mutex<HashMap<String, String>>);

#[async_trait::async_trait]
impl Services for Keys {
    async fn register_vim(&self, _: Vim) -> Result<String, DriverError> {
        Err(DriverError::new(501, "not here"))
    }
    async fn remove_vim(&self, _: &str) -> Result<bool, DriverError> {
        Ok(false)
    }
    async fn host_key(&self, vnfc: &str) -> Result<Option<String>, DriverError> {
        Ok(self.0.lock().unwrap().get(vnfc).cloned())
    }
    async fn pin_host_key(&self, vnfc: &str, _: &str, key: &str) -> Result<(), DriverError> {
        self.0.lock().unwrap().insert(vnfc.into(), key.into());
        Ok(())
    }
}

struct Host {
    _hosts: heat_sim::Handle,
    ip: String,
    pid: u32,
}

const PASSWORD: &str = "ssh-test-Pa55";

fn host() -> Host {
    let uid = std::process::Command::new("id").arg("-u").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&uid.stdout).trim(),
        "0",
        "run as root (network namespaces)"
    );
    let sim = heat_sim::spawn(heat_sim::Settings {
        hosts: heat_sim::HostSettings {
            mode: heat_sim::HostsMode::Netns,
            user: "ubuntu".into(),
            password: PASSWORD.into(),
            shims: None,
        },
        ..Default::default()
    })
    .unwrap();
    let hosts = &sim.sim.engine.hosts;
    let ip = hosts.allocate(None).unwrap();
    let name = hosts.up("vm", &[ip]).unwrap();
    let pid = hosts.init_pid(&name).unwrap();
    Host {
        _hosts: sim,
        ip: ip.to_string(),
        pid,
    }
}

fn settings() -> SshSettings {
    SshSettings {
        connect_timeout: Duration::from_secs(2),
        boot_timeout: Duration::from_secs(2),
        command_timeout: Duration::from_secs(20),
        ..SshSettings::from_config(&tacker_config::Config::defaults().unwrap().ssh)
    }
}

fn target(ip: &str, password: &str, fresh: bool) -> Target {
    Target {
        vnfc: "vnfc-1".into(),
        name: "VDU1 vnfc-1".into(),
        address: ip.into(),
        port: 22,
        login: Login::Password("ubuntu".into(), password.into()),
        fresh,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_sudo_uploads_and_masking_over_a_real_sshd() {
    let h = host();
    let keys = Keys::default();
    let s = Session::open(
        target(&h.ip, PASSWORD, false),
        Some(&keys),
        &settings(),
        vec!["top-secret".into()],
    )
    .await
    .unwrap();
    // Exit status, stdout and stderr; stderr alone is no failure.
    let out = s.run("echo", "echo out; echo err >&2").await.unwrap();
    assert_eq!(
        (out.status, out.stdout.as_str(), out.stderr.as_str()),
        (0, "out\n", "err\n")
    );
    // A failure names its step and status, with secrets masked.
    let e = s
        .run(
            "failing step",
            &format!("echo 'login top-secret {PASSWORD} refused' >&2; exit 7"),
        )
        .await
        .unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, Error::Command { status: 7, .. }), "{text}");
    assert!(
        text.contains("failing step") && text.contains("login *** *** refused"),
        "{text}"
    );
    // sudo as root, input on stdin.
    let out = s
        .sudo("whoami", "id -u; cat", Some(b"from stdin"))
        .await
        .unwrap();
    assert_eq!(out.stdout, "0\nfrom stdin");
    // A root file is written only when it changes.
    assert!(
        s.write_root_file("/etc/tacker-test/a.conf", b"x=1\n", 0o640)
            .await
            .unwrap()
    );
    assert!(
        !s.write_root_file("/etc/tacker-test/a.conf", b"x=1\n", 0o640)
            .await
            .unwrap()
    );
    assert_eq!(
        s.read_root_file("/etc/tacker-test/a.conf")
            .await
            .unwrap()
            .as_deref(),
        Some("x=1\n")
    );
    assert_eq!(
        s.read_root_file("/etc/tacker-test/none").await.unwrap(),
        None
    );
    // SFTP upload of a larger file, streamed, then moved into place as root.
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("blob");
    let blob: Vec<u8> = (0..3 * 1024 * 1024u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(&local, &blob).unwrap();
    s.upload(
        "transferring the blob",
        &local,
        "/var/lib/tacker-test/blob",
        0o600,
    )
    .await
    .unwrap();
    let remote = std::fs::read(format!("/proc/{}/root/var/lib/tacker-test/blob", h.pid)).unwrap();
    assert!(remote == blob, "the uploaded file differs");
    let mode = s
        .sudo("stat", "stat -c '%a %U' /var/lib/tacker-test/blob", None)
        .await
        .unwrap();
    assert_eq!(mode.stdout.trim(), "600 root");
    // A command that takes too long is cut.
    let quick = SshSettings {
        command_timeout: Duration::from_millis(500),
        ..settings()
    };
    let s2 = Session::open(target(&h.ip, PASSWORD, false), Some(&keys), &quick, vec![])
        .await
        .unwrap();
    assert!(matches!(
        s2.run("sleeping", "sleep 5").await.unwrap_err(),
        Error::Timeout { .. }
    ));
    s.close().await;
    s2.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn host_keys_are_pinned_checked_and_repinned_for_new_vms() {
    let h = host();
    let keys = Keys::default();
    let s = Session::open(
        target(&h.ip, PASSWORD, false),
        Some(&keys),
        &settings(),
        vec![],
    )
    .await
    .unwrap();
    s.close().await;
    let pinned = keys.0.lock().unwrap().get("vnfc-1").cloned().unwrap();
    let on_vm = std::fs::read_to_string(format!(
        "/proc/{}/root/etc/ssh/ssh_host_ed25519_key.pub",
        h.pid
    ))
    .unwrap();
    assert!(
        on_vm.starts_with(&pinned),
        "pinned {pinned}, the VM has {on_vm}"
    );
    // Another key pinned: refused.
    let other = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMOtherKeyOtherKeyOtherKeyOtherKeyOtherKeyOth"
        .to_owned();
    keys.0
        .lock()
        .unwrap()
        .insert("vnfc-1".into(), other.clone());
    let e = Session::open(
        target(&h.ip, PASSWORD, false),
        Some(&keys),
        &settings(),
        vec![],
    )
    .await
    .unwrap_err();
    assert!(matches!(e, Error::HostKey { .. }), "{e}");
    assert_eq!(keys.0.lock().unwrap()["vnfc-1"], other, "nothing re-pinned");
    // A VM this operation made (healed): its key is pinned anew.
    let s = Session::open(
        target(&h.ip, PASSWORD, true),
        Some(&keys),
        &settings(),
        vec![],
    )
    .await
    .unwrap();
    s.close().await;
    assert_eq!(keys.0.lock().unwrap()["vnfc-1"], pinned);
    // Or when changes are accepted by configuration.
    keys.0.lock().unwrap().insert("vnfc-1".into(), other);
    let accepting = SshSettings {
        accept_changed_host_keys: true,
        ..settings()
    };
    Session::open(
        target(&h.ip, PASSWORD, false),
        Some(&keys),
        &accepting,
        vec![],
    )
    .await
    .unwrap()
    .close()
    .await;
    assert_eq!(keys.0.lock().unwrap()["vnfc-1"], pinned);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_password_fails_at_once_and_an_unreachable_vm_after_the_boot_timeout() {
    let h = host();
    let started = Instant::now();
    let e = Session::open(target(&h.ip, "wrong", false), None, &settings(), vec![])
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Auth { .. }), "{e}");
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "no retries: {:?}",
        started.elapsed()
    );
    // An address on the test network nobody has.
    let parts: Vec<&str> = h.ip.rsplitn(2, '.').collect();
    let nobody = format!("{}.250", parts[1]);
    let started = Instant::now();
    let e = Session::open(target(&nobody, PASSWORD, false), None, &settings(), vec![])
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Unreachable { .. }), "{e}");
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(1500) && took < Duration::from_secs(8),
        "{took:?}"
    );
}
