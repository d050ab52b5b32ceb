//! The private registry VNF (spec: instantiate_end and heal_end install and run the
//! registry over SSH).

use std::process::Command;

use serde_json::{Value, json};
use tacker_testkit::mgmt::{REGISTRY_VNFD_ID, image_archive, push, registry_vnf};
use tacker_testkit::peers::{Expect, Subscriber};

use super::{MgmtEnv, T, catalog, mgmt_env, mgmt_env_with};

const IMAGE_PATH: &str = "Files/images/private_registry.tar";

/// The spec's instantiate request for the registry VNF, as written (v1).
fn spec_body(e: &MgmtEnv, image_path: Option<&str>, port: Option<u16>) -> Value {
    let mut p =
        json!({"ssh_cp_name": "CP1", "ssh_username": "ubuntu", "ssh_password": e.vm_password});
    if let Some(i) = image_path {
        p["image_path"] = json!(i);
    }
    if let Some(n) = port {
        p["port_no"] = json!(n);
    }
    json!({
        "flavourId": "simple",
        "extVirtualLinks": [{"id": "net0", "resourceId": "f0c82461-36b5-4d86-8322-b0bc19cda65f",
            "extCps": [{"cpdId": "CP1", "cpConfig": [{"cpProtocolData": [{"layerProtocol": "IP_OVER_ETHERNET"}]}]}]}],
        "additionalParams": {"private_registry_installation_param": p},
        "vimConnectionInfo": e.vim_v1(),
    })
}

/// The VM's (only) VNFC and its address.
async fn vnfc(e: &MgmtEnv, i: &str) -> (String, String) {
    let v = e.vm.vnfcs(i).await;
    assert_eq!(v.len(), 1, "{v:?}");
    (v[0].1.clone(), v[0].3.clone())
}

fn skopeo(args: &[&str]) -> Result<String, String> {
    let out = Command::new("skopeo").args(args).output().unwrap();
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_registry_vnf_installs_heals_and_refuses_bad_parameters() {
    let e = mgmt_env(&[]).await;
    let sub = Subscriber::start(Expect::Nothing);
    e.vm.c.subscribe(&sub).await;
    let image = std::fs::read(&e.registry_image).unwrap();
    e.onboard(registry_vnf().with(IMAGE_PATH, &image).zip())
        .await;

    // Bad parameters: a 422 naming the parameter; no occurrence, nothing made.
    let i = e.create(REGISTRY_VNFD_ID, "registry").await;
    let mut missing = spec_body(&e, Some(IMAGE_PATH), None);
    missing["additionalParams"]["private_registry_installation_param"]
        .as_object_mut()
        .unwrap()
        .remove("ssh_password");
    let r = e.post_v1(&i, "instantiate", &missing).await;
    assert_eq!(r.status(), 422);
    let p: Value = r.json().await.unwrap();
    assert_eq!(
        p["detail"],
        "additionalParams.private_registry_installation_param.ssh_password is required"
    );
    let r = e
        .post_v1(
            &i,
            "instantiate",
            &spec_body(&e, Some("Files/images/absent.tar"), None),
        )
        .await;
    assert_eq!(r.status(), 422);
    let p: Value = r.json().await.unwrap();
    assert!(p["detail"].as_str().unwrap().contains("image_path"), "{p}");
    let mut bad_port = spec_body(&e, None, None);
    bad_port["additionalParams"]["private_registry_installation_param"]["port_no"] = json!(70000);
    let r = e.post_v1(&i, "instantiate", &bad_port).await;
    assert_eq!(r.status(), 422);
    // A parameter the driver would not act on is refused, not ignored.
    for (key, value, named) in [
        (
            "proxyy",
            json!({}),
            "private_registry_installation_param.proxyy is not a parameter",
        ),
        (
            "proxy",
            json!({"ftp_proxy": "ftp://p:21"}),
            "proxy.ftp_proxy is not a parameter",
        ),
        (
            "proxy",
            json!({"http_proxy": "socks5://p:1080"}),
            "proxy.http_proxy must be an http(s)",
        ),
        (
            "proxy",
            json!({"no_proxy": "a"}),
            "proxy needs http_proxy and/or https_proxy",
        ),
    ] {
        let mut b = spec_body(&e, None, None);
        b["additionalParams"]["private_registry_installation_param"][key] = value;
        let r = e.post_v1(&i, "instantiate", &b).await;
        assert_eq!(r.status(), 422);
        let p: Value = r.json().await.unwrap();
        assert!(p["detail"].as_str().unwrap().contains(named), "{p}");
    }
    assert!(e.ops_of(&i).await.is_empty());
    assert!(e.vm.hosts().len() == 1, "only the hub: {:?}", e.vm.hosts());

    // The spec's request as written: the image from the package, port 5000.
    let op =
        e.vm.run(
            "v1",
            &i,
            "instantiate",
            spec_body(&e, Some(IMAGE_PATH), None),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let (server, ip) = vnfc(&e, &i).await;
    assert_eq!(
        catalog(&ip, 5000).await.unwrap(),
        json!({"repositories": []})
    );
    // A real client pushes an image and pulls it back.
    let app = image_archive(e.work.path(), "app:1.0");
    push(
        &app,
        &format!("{ip}:5000/app:1.0"),
        &["--dest-tls-verify=false"],
    );
    assert_eq!(
        catalog(&ip, 5000).await.unwrap(),
        json!({"repositories": ["app"]})
    );
    let back = e.work.path().join("back");
    skopeo(&[
        "copy",
        "--quiet",
        "--src-tls-verify=false",
        &format!("docker://{ip}:5000/app:1.0"),
        &format!("dir:{}", back.display()),
    ])
    .unwrap();
    assert!(back.join("manifest.json").is_file());
    let pid = e.pid_of(&server).await;
    let loaded = tacker_testkit::mgmt::host_ok(pid, "ls /var/lib/tacker/images/");
    assert!(
        loaded.contains("private_registry.tar"),
        "the image was transferred: {loaded}"
    );

    // Without image_path, on another port and behind upstream's `proxy`: pulled (from
    // the hub), with apt's and Docker's proxy written on the VM and Docker restarted.
    let i2 = e.create(REGISTRY_VNFD_ID, "registry-2").await;
    let proxy = "http://proxyuser:proxy-pw@127.0.0.1:3128";
    let mut behind_proxy = spec_body(&e, None, Some(5050));
    behind_proxy["additionalParams"]["private_registry_installation_param"]["proxy"] = json!({"http_proxy": proxy, "https_proxy": proxy, "no_proxy": "registry.example.com,127.0.0.1"});
    let op2 =
        e.vm.run(
            "v1",
            &i2,
            "instantiate",
            behind_proxy,
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op2["operationState"], "COMPLETED", "{op2}");
    let (server2, ip2) = vnfc(&e, &i2).await;
    let pid2 = e.pid_of(&server2).await;
    let docker_env = tacker_testkit::mgmt::host_file(
        pid2,
        "/etc/systemd/system/docker.service.d/http-proxy.conf",
    )
    .expect("Docker's proxy drop-in");
    assert!(
        docker_env.contains(&format!("Environment=\"HTTPS_PROXY={proxy}\""))
            && docker_env.contains("Environment=\"NO_PROXY=registry.example.com,127.0.0.1\""),
        "{docker_env}"
    );
    let apt = tacker_testkit::mgmt::host_file(pid2, "/etc/apt/apt.conf.d/95tacker-proxy.conf")
        .expect("apt's proxy settings");
    assert!(
        apt.contains(&format!("Acquire::http::Proxy \"{proxy}\";")),
        "{apt}"
    );
    let restarts =
        tacker_testkit::mgmt::host_file(pid2, "/var/log/systemctl-shim.log").unwrap_or_default();
    assert!(restarts.contains("restart docker"), "{restarts}");
    assert_eq!(
        catalog(&ip2, 5050).await.unwrap(),
        json!({"repositories": []})
    );
    assert!(
        catalog(&ip2, 5000).await.is_err(),
        "only the configured port answers"
    );

    // Heal (v1, the VNFC by its resource id): a new VM at a new address runs the
    // registry; the old one is gone.
    let heal = json!({"vnfcInstanceId": [server.clone()], "cause": "registry VM broken"});
    let op3 =
        e.vm.run("v1", &i, "heal", heal, &["COMPLETED", "FAILED_TEMP"])
            .await;
    assert_eq!(op3["operationState"], "COMPLETED", "{op3}");
    let (server_after, ip_after) = vnfc(&e, &i).await;
    assert_ne!(server_after, server);
    assert_ne!(ip_after, ip);
    assert_eq!(
        catalog(&ip_after, 5000).await.unwrap(),
        json!({"repositories": []})
    );
    assert!(catalog(&ip, 5000).await.is_err(), "the old VM is gone");

    // The VMs' password is in no answer, notification or log.
    let shown = e.everything_shown().await;
    assert!(!shown.contains(&e.vm_password), "the SSH password leaked");
    assert!(!shown.contains("proxy-pw"), "the proxy's password leaked");
    let got = sub.wait("notifications", |g| g.len() >= 6).await;
    assert!(!Value::Array(got).to_string().contains(&e.vm_password));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_vm_fails_after_bounded_retries_and_a_retry_completes_once_it_answers() {
    // These VMs have no Docker: the driver installs it with the configured command.
    let install = "install -m 0755 /usr/local/bin/docker.shim /usr/local/bin/docker";
    let commands = format!("debian={install},ubuntu={install}");
    let e = mgmt_env_with(
        &[
            ("TACKER__SSH__BOOT_TIMEOUT", "4s"),
            ("TACKER__MGMT__DOCKER_INSTALL", &commands),
        ],
        false,
    )
    .await;
    e.onboard(registry_vnf().zip()).await;
    let faults = reqwest::Client::new();
    let r = faults
        .put(format!("{}/sim/faults", e.vm.sim.url))
        .json(&json!({"unreachable": "PrivateRegistryVDU"}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    let i = e.create(REGISTRY_VNFD_ID, "registry").await;
    let op =
        e.vm.run(
            "v1",
            &i,
            "instantiate",
            spec_body(&e, None, None),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "FAILED_TEMP", "{op}");
    assert_eq!(op["error"]["title"], "Mgmt driver execution failed");
    assert_eq!(op["error"]["status"], 504);
    let detail = op["error"]["detail"].as_str().unwrap();
    assert!(detail.contains("unreachable after"), "{detail}");
    // The cause fixed (the VM answers), a retry completes on the same VM.
    let servers: Value = reqwest::get(format!("{}/sim/servers", e.vm.sim.url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let server = servers[0]["id"].as_str().unwrap().to_owned();
    faults
        .delete(format!("{}/sim/faults", e.vm.sim.url))
        .send()
        .await
        .unwrap();
    let r = faults
        .post(format!("{}/sim/servers/{server}/link/up", e.vm.sim.url))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    let done = e.vm.retry(&op, T).await;
    assert_eq!(done["operationState"], "COMPLETED", "{done}");
    let (vnfc_after, ip) = vnfc(&e, &i).await;
    assert_eq!(vnfc_after, server, "no new VM");
    assert_eq!(
        catalog(&ip, 5000).await.unwrap(),
        json!({"repositories": []})
    );
}

/// Upstream's own private-registry package has no Base HOT: the HOT is built from its
/// VNFD (a flavour made from `virtual_compute`, the port on the request's external
/// network) and the registry runs on the VM as with a package of our layout. A request
/// that leaves its external CP without a network is refused before anything is made.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstreams_vnfd_only_registry_package_runs_from_its_vnfd() {
    let Some(root) = tacker_testkit::samples::samples_dir() else {
        eprintln!("SKIPPED: reference samples not found; set TACKER_SAMPLES_DIR");
        return;
    };
    let e = mgmt_env(&[]).await;
    let csar = tacker_testkit::samples::package(
        &root.join("mgmt_driver/kubernetes/private_registry_vnf_package"),
        None,
        &[
            "Scripts/private_registry_mgmt.py",
            "Files/images/ubuntu-20.04-server-cloudimg-amd64.img",
        ],
    );
    e.onboard(csar.zip()).await;
    let i = e
        .create("b1bb0ce7-ebca-4fa7-95ed-4840d70a1189", "upstream-registry")
        .await;
    let mut no_network = spec_body(&e, None, None);
    no_network["extVirtualLinks"] = json!([]);
    let r = e.post_v1(&i, "instantiate", &no_network).await;
    assert_eq!(r.status(), 422);
    let p: Value = r.json().await.unwrap();
    let detail = p["detail"].as_str().unwrap();
    assert!(
        detail.contains("connection point CP1") && detail.contains("cpdId CP1"),
        "{p}"
    );
    // StandardUserData copies the VDUs of a Base HOT, which this package does not have.
    let mut standard = spec_body(&e, None, None);
    standard["additionalParams"]["lcm-operation-user-data-class"] = json!("StandardUserData");
    // (a file of the package: the check of the class comes after.)
    standard["additionalParams"]["lcm-operation-user-data"] =
        json!("./Scripts/private_registry_mgmt.py");
    let r = e.post_v1(&i, "instantiate", &standard).await;
    assert_eq!(r.status(), 422);
    let p: Value = r.json().await.unwrap();
    assert!(
        p["detail"].as_str().unwrap().contains("StandardUserData"),
        "{p}"
    );
    assert!(e.ops_of(&i).await.is_empty(), "no occurrence was started");

    let op =
        e.vm.run(
            "v1",
            &i,
            "instantiate",
            spec_body(&e, None, None),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let (_, ip) = vnfc(&e, &i).await;
    assert_eq!(
        catalog(&ip, 5000).await.unwrap(),
        json!({"repositories": []})
    );
    // The flavour Heat made for the VDU, from its virtual_compute (4 GB, 2 CPUs, 45 GB).
    let flavour = {
        let st = e.vm.sim.sim.engine.lock();
        st.stacks
            .values()
            .filter(|s| !s.deleted)
            .flat_map(|s| s.resources.iter())
            .find(|r| r.name == "PrivateRegistryVDU_flavor")
            .map(|r| (r.kind.clone(), r.properties.clone()))
    };
    assert_eq!(
        flavour,
        Some((
            "OS::Nova::Flavor".to_owned(),
            json!({"ram": 4096, "vcpus": 2, "disk": 45})
        ))
    );
    let done =
        e.vm.run(
            "v1",
            &i,
            "terminate",
            json!({"terminationType": "FORCEFUL"}),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(done["operationState"], "COMPLETED", "{done}");
    assert_eq!(e.vm.hosts().len(), 1, "only the hub: {:?}", e.vm.hosts());
}
