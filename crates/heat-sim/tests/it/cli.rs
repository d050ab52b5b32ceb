use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn openstack_bin() -> PathBuf {
    if let Ok(p) = std::env::var("TACKER_TEST_OPENSTACK") {
        return p.into();
    }
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/openstack");
    assert!(
        p.exists(),
        "{} missing: run tests/infra/pytools.sh (make test does)",
        p.display()
    );
    p
}

fn need_root() {
    let uid = Command::new("id").arg("-u").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&uid.stdout).trim(),
        "0",
        "heat-sim's hosts are network namespaces: run as root"
    );
}

struct Osc {
    auth: Vec<String>,
    dir: PathBuf,
}

impl Osc {
    fn run(&self, args: &[&str]) -> (bool, String, String) {
        let out = Command::new(openstack_bin())
            .args(&self.auth)
            .args(args)
            .current_dir(&self.dir)
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    fn json(&self, args: &[&str]) -> Value {
        let mut all = args.to_vec();
        all.extend(["-f", "json"]);
        let (ok, out, err) = self.run(&all);
        assert!(ok, "openstack {args:?}: {err}");
        // `--wait` prints the events before the document.
        let start = out
            .lines()
            .position(|l| l.starts_with('{') || l.starts_with('['))
            .unwrap_or(0);
        let doc: String = out.lines().skip(start).collect::<Vec<_>>().join("\n");
        serde_json::from_str(&doc).unwrap_or_else(|e| panic!("{e}: {out}"))
    }
}

const TOP: &str = "heat_template_version: 2013-05-23
parameters:
  nfv:
    type: json
resources:
  group:
    type: OS::Heat::AutoScalingGroup
    properties:
      min_size: 1
      max_size: 3
      desired_capacity: { get_param: [ nfv, VDU, VDU1, desired_capacity ] }
      resource:
        type: nested/VDU1.yaml
        properties:
          image: { get_param: [ nfv, VDU, VDU1, vcImageId ] }
  VDU2:
    type: OS::Nova::Server
    properties:
      name: VDU2
      image: img
      flavor: m1.tiny
      networks:
        - port: { get_resource: VDU2_CP1 }
  VDU2_CP1:
    type: OS::Neutron::Port
    properties:
      network: any-net
  VDU2_FIP:
    type: OS::Neutron::FloatingIP
    properties:
      floating_network: public
      port_id: { get_resource: VDU2_CP1 }
";

const NESTED: &str = "heat_template_version: 2013-05-23
parameters:
  image:
    type: string
resources:
  VDU1:
    type: OS::Nova::Server
    properties:
      name: VDU1
      image: { get_param: image }
      flavor: m1.tiny
      networks:
        - port: { get_resource: VDU1_CP1 }
  VDU1_CP1:
    type: OS::Neutron::Port
    properties:
      network: any-net
";

fn ssh_hostname(ip: &str) -> String {
    let out = Command::new("sshpass")
        .args([
            "-p",
            "ubuntu",
            "ssh",
            "-o",
            "StrictHostKeyChecking=no",
            "-o",
        ])
        .args([
            "UserKnownHostsFile=/dev/null",
            "-o",
            "LogLevel=ERROR",
            "-o",
            "ConnectTimeout=5",
        ])
        .arg(format!("ubuntu@{ip}"))
        .arg("hostname")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

#[test]
fn the_openstack_cli_creates_lists_heals_and_deletes_stacks() {
    need_root();
    let sim = heat_sim::spawn(heat_sim::Settings::default()).unwrap();
    let s = heat_sim::Settings::default();
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("nested")).unwrap();
    std::fs::write(dir.path().join("top.yaml"), TOP).unwrap();
    std::fs::write(dir.path().join("nested/VDU1.yaml"), NESTED).unwrap();
    let osc = Osc {
        auth: [
            "--os-auth-url",
            &format!("{}/v3", sim.url),
            "--os-username",
            &s.user,
            "--os-password",
            &s.password,
            "--os-project-name",
            &s.project,
            "--os-user-domain-name",
            "Default",
            "--os-project-domain-name",
            "Default",
        ]
        .iter()
        .map(|x| x.to_string())
        .collect(),
        dir: dir.path().to_owned(),
    };
    let nfv = r#"nfv={"VDU": {"VDU1": {"desired_capacity": 2, "vcImageId": "img1"}}}"#;
    let created = osc.json(&[
        "stack",
        "create",
        "-t",
        "top.yaml",
        "--parameter",
        nfv,
        "--wait",
        "s1",
    ]);
    assert_eq!(created["stack_status"], "CREATE_COMPLETE", "{created}");
    let list = osc.json(&["stack", "resource", "list", "--nested-depth", "2", "s1"]);
    let servers: Vec<&Value> = list
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["resource_type"] == "OS::Nova::Server")
        .collect();
    assert_eq!(servers.len(), 3, "{list}");
    let nested: Vec<&Value> = list
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["resource_name"] == "VDU1")
        .collect();
    assert_eq!(nested.len(), 2);
    assert!(
        nested
            .iter()
            .all(|r| r["stack_name"].as_str().unwrap().starts_with("s1-group-"))
    );
    // Every server is a host answering SSH at its port's address; the floating IP is a
    // second address of VDU2's host.
    let port = osc.json(&["stack", "resource", "show", "s1", "VDU2_CP1"]);
    let ip = port["attributes"]["fixed_ips"][0]["ip_address"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(ssh_hostname(&ip), "VDU2");
    let fip = osc.json(&["stack", "resource", "show", "s1", "VDU2_FIP"]);
    let fip = fip["attributes"]["floating_ip_address"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(ssh_hostname(&fip), "VDU2");
    // Mark unhealthy + update: VDU2 is a new host.
    let before = osc.json(&["stack", "resource", "show", "s1", "VDU2"]);
    let (ok, _, err) = osc.run(&[
        "stack",
        "resource",
        "mark",
        "unhealthy",
        "s1",
        "VDU2",
        "test",
    ]);
    assert!(ok, "{err}");
    let (ok, _, err) = osc.run(&["stack", "update", "--existing", "--wait", "s1"]);
    assert!(ok, "{err}");
    let after = osc.json(&["stack", "resource", "show", "s1", "VDU2"]);
    assert_ne!(
        before["physical_resource_id"],
        after["physical_resource_id"]
    );
    assert_eq!(
        ssh_hostname(&ip),
        "VDU2",
        "the port (and its address) stays"
    );
    // Delete: every host goes.
    let (ok, _, err) = osc.run(&["stack", "delete", "--yes", "--wait", "s1"]);
    assert!(ok, "{err}");
    let (ok, out, _) = osc.run(&["stack", "list", "-f", "json"]);
    assert!(ok);
    assert_eq!(out.trim(), "[]");
    assert!(sim.sim.engine.hosts.running().is_empty());
    // Wrong credentials: refused.
    let mut bad = osc.auth.clone();
    let pos = bad.iter().position(|a| a == "--os-password").unwrap();
    bad[pos + 1] = "wrong".into();
    let (ok, _, _) = Osc {
        auth: bad,
        dir: dir.path().to_owned(),
    }
    .run(&["stack", "list"]);
    assert!(!ok);
}
