//! A real Keystone and Glance (PyPI, `tests/infra/openstack.sh`) in front of heat-sim:
//! the VIM authenticates with Keystone, the package's software image goes to Glance
//! before the stack is made (reused by a second instance, deleted once no instance uses
//! it), and heat-sim boots servers only from images Glance holds.

use super::*;
use tacker_testkit::keystone::OpenStack;
use tacker_testkit::vm::vm_with_id;

/// The example package whose VDUs boot from an image shipped in it (`raw`: Glance checks
/// an upload against its disk format).
fn with_image(image: &[u8]) -> tacker_testkit::csar::Csar {
    carrying_image(vm(), image)
}

/// `csar` (the example VNFD's `simple` flavour) with its VDUs' image shipped in it.
pub(crate) fn carrying_image(
    csar: tacker_testkit::csar::Csar,
    image: &[u8],
) -> tacker_testkit::csar::Csar {
    let artifact = "\n      artifacts:\n        sw_image:\n          type: tosca.artifacts.nfv.SwImage\n          file: ../Files/images/ubuntu.img\n";
    csar.with("Files/images/ubuntu.img", image)
        .edit("Definitions/vm_df_simple.yaml", |t| {
            t.replace("disk_format: qcow2", "disk_format: raw").replace(
                "          size: 1 GB\n      capabilities:",
                &format!("          size: 1 GB{artifact}      capabilities:"),
            )
        })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn package_images_go_to_a_real_glance_through_a_real_keystone() {
    let os = OpenStack::up();
    let sim = sim_with(heat_sim::Settings {
        keystone_url: Some(os.keystone.clone()),
        glance_url: Some(os.glance.clone()),
        ..Default::default()
    });
    let t = os.tenant(&sim.url).await;
    let v = Vm::start(sim, &[]).await;
    let image: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    let pkg = v.c.upload(with_image(&image).zip()).await;
    let p = v.c.wait_state(&pkg, &["ONBOARDED", "CREATED"], T).await;
    assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");

    // Registration authenticates with Keystone: a wrong password stores nothing.
    let vim = |password: &str| {
        json!({"vim": {"name": "keystone", "type": "openstack", "auth_url": os.keystone,
            "auth_cred": {"username": t.name, "password": password, "user_domain_name": "Default"},
            "vim_project": {"name": t.name, "project_domain_name": "Default"},
            "extra": {"region": t.name}}})
    };
    let url = format!("{}/v1.0/vims", v.c.api);
    let r =
        v.c.http
            .post(&url)
            .json(&vim("wrong"))
            .send()
            .await
            .unwrap();
    assert_eq!(r.status(), 400, "{}", r.text().await.unwrap());
    let r =
        v.c.http
            .post(&url)
            .json(&vim(&t.password))
            .send()
            .await
            .unwrap();
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    let vim_id = r.json::<Value>().await.unwrap()["vim"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(os.images(&t).await.is_empty());

    // Instantiate: the image is uploaded once (both VDUs use it) and the servers boot it.
    let vim_ref = json!({"vim1": {"vimId": vim_id, "vimType": "openstack"}});
    let a = v.create("v2").await;
    let op = v
        .run(
            "v2",
            &a,
            "instantiate",
            instantiate_body(vim_ref.clone()),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let images = os.images(&t).await;
    assert_eq!(images.len(), 1, "{images:?}");
    let img = &images[0];
    assert_eq!(img["name"], "ubuntu-22.04");
    assert_eq!(img["status"], "active");
    assert_eq!(img["disk_format"], "raw");
    assert_eq!(img["container_format"], "bare");
    assert_eq!(img["min_disk"], 1);
    assert_eq!(img["min_ram"], 512);
    assert_eq!(img["size"], image.len());
    let id = img["id"].as_str().unwrap().to_owned();
    let servers: Vec<Value> =
        v.c.http
            .get(format!("{}/sim/servers", v.sim.url))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    assert_eq!(servers.len(), 2, "{servers:?}");
    assert!(
        servers.iter().all(|s| s["image"] == id.as_str()),
        "{servers:?}"
    );
    for (vdu, _, _, ip) in v.vnfcs(&a).await {
        assert_eq!(ssh_hostname(&ip).unwrap(), vdu);
    }

    // A second instance reuses the image (same checksum); terminating the first keeps
    // it, terminating the last deletes it.
    let b = v.create("v2").await;
    let op = v
        .run(
            "v2",
            &b,
            "instantiate",
            instantiate_body(vim_ref),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    assert_eq!(os.images(&t).await.len(), 1);
    let end = &["COMPLETED", "FAILED_TEMP"];
    let op = v
        .run(
            "v2",
            &a,
            "terminate",
            json!({"terminationType": "FORCEFUL"}),
            end,
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let left = os.images(&t).await;
    assert_eq!(left.len(), 1, "{left:?}");
    assert_eq!(left[0]["id"], id.as_str());
    let op = v
        .run(
            "v2",
            &b,
            "terminate",
            json!({"terminationType": "FORCEFUL"}),
            end,
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    assert!(
        os.images(&t).await.is_empty(),
        "the image outlived its last instance"
    );

    // heat-sim boots only what Glance holds: the example package names an image by a
    // name Glance does not have, and the instantiation fails saying so.
    let plain =
        v.c.upload(vm_with_id("c0ffee00-0000-4000-8000-0000000076d1").zip())
            .await;
    let p = v.c.wait_state(&plain, &["ONBOARDED", "CREATED"], T).await;
    assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
    let r =
        v.c.lcm(0, reqwest::Method::POST, "/vnf_instances")
            .json(&json!({"vnfdId": "c0ffee00-0000-4000-8000-0000000076d1"}))
            .send()
            .await
            .unwrap();
    let c = r.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let op = v
        .run(
            "v2",
            &c,
            "instantiate",
            instantiate_body(json!({"vim1": {"vimId": vim_id, "vimType": "openstack"}})),
            end,
        )
        .await;
    assert_eq!(op["operationState"], "FAILED_TEMP", "{op}");
    let detail = op["error"]["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("No images matching") && detail.contains("ubuntu-22.04"),
        "{detail}"
    );
    os.remove(&t).await;
}
