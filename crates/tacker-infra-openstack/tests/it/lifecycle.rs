use serde_json::json;
use tacker_domain::lcm::LcmOperation;
use tacker_domain::lcm::driver::InfraDriver;
use tacker_infra_openstack::{OpenStackDriver, OpenStackSettings};

use crate::fixture::{Fixture, changes, instantiate_params, ssh_hostname};

pub fn driver() -> OpenStackDriver {
    OpenStackDriver::new(OpenStackSettings {
        request_timeout: std::time::Duration::from_secs(10),
        stack_timeout: std::time::Duration::from_secs(60),
        poll_interval: std::time::Duration::from_millis(200),
    })
    // heat-sim and its Keystone listen on loopback.
    .with_allowed_networks(vec!["127.0.0.0/8".parse().unwrap()])
}

/// A Keystone on an address outside `outbound.allowed_networks` (loopback here) gets no
/// request from the conductor, whatever the API let through: the operation fails with
/// the reason.
#[tokio::test]
async fn a_keystone_on_a_refused_address_gets_no_credentials() {
    let f = Fixture::new();
    let unguarded = OpenStackDriver::new(OpenStackSettings {
        request_timeout: std::time::Duration::from_secs(10),
        stack_timeout: std::time::Duration::from_secs(60),
        poll_interval: std::time::Duration::from_millis(200),
    });
    let e = unguarded
        .instantiate(&f.ctx(LcmOperation::Instantiate, instantiate_params()))
        .await
        .unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("refused") && text.contains("outbound.allowed_networks"),
        "{text}"
    );
    assert_eq!(
        f.sim.sim.tokens.issued(),
        0,
        "Keystone was asked for a token"
    );
    assert!(f.servers().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vm_lifecycle_on_heat_with_ssh_hosts() {
    // On the real Keystone: the driver logs in there and finds Heat in the catalog.
    let (mut f, os, t) = Fixture::on_keystone().await;
    let d = driver();

    // Instantiate: VDU1 (autoscaling group) and VDU2, each a host answering SSH.
    let o = d
        .instantiate(&f.ctx(LcmOperation::Instantiate, instantiate_params()))
        .await
        .unwrap();
    f.apply(&o);
    let vnfcs = f.vnfcs();
    assert_eq!(vnfcs.len(), 2, "{vnfcs:?}");
    for (vdu, _, ip) in &vnfcs {
        assert!(ip.starts_with("10.250."), "{vdu} has no address: {vnfcs:?}");
        assert_eq!(ssh_hostname(ip).unwrap(), *vdu);
    }
    assert_eq!(changes(&o).len(), 2);
    let info = f.instance.instantiated_vnf_info.clone().unwrap();
    assert_eq!(info.vnfc_info.len(), 2);
    assert!(
        info.vnfc_info[0]
            .id
            .starts_with(&format!("{}-", info.vnfc_info[0].vdu_id))
    );

    // Keystone revokes the user's tokens mid-lifecycle (the user disabled a moment): Heat
    // refuses the driver's token, the driver logs in again.
    os.revoke_tokens_of(&t).await;
    tokio::time::sleep(crate::fixture::TOKEN_CACHE + std::time::Duration::from_millis(100)).await;
    let refused = f.sim.sim.tokens.refused();

    // Scale out: a new VDU1 host appears.
    let o = d
        .scale(&f.ctx(
            LcmOperation::Scale,
            json!({"type": "SCALE_OUT", "aspectId": "VDU1_scale"}),
        ))
        .await
        .unwrap();
    f.apply(&o);
    assert!(
        f.sim.sim.tokens.refused() > refused,
        "the revoked token reached Heat and was refused"
    );
    let after = f.vnfcs();
    assert_eq!(after.len(), 3);
    let added: Vec<_> = after
        .iter()
        .filter(|v| !vnfcs.contains(v))
        .cloned()
        .collect();
    assert_eq!(added.len(), 1);
    assert_eq!(added[0].0, "VDU1");
    assert_eq!(ssh_hostname(&added[0].2).unwrap(), "VDU1");
    assert_eq!(changes(&o), vec![("ADDED".into(), added[0].1.clone())]);

    // Scale in removes exactly the newest VDU1: its host is gone.
    let o = d
        .scale(&f.ctx(
            LcmOperation::Scale,
            json!({"type": "SCALE_IN", "aspectId": "VDU1_scale"}),
        ))
        .await
        .unwrap();
    f.apply(&o);
    assert_eq!(f.vnfcs(), vnfcs, "the original VNFCs stay");
    assert_eq!(changes(&o), vec![("REMOVED".into(), added[0].1.clone())]);
    assert!(
        ssh_hostname(&added[0].2).is_err(),
        "the removed host still answers"
    );
    assert_eq!(f.servers().len(), 2);

    // SOL002 heal of VDU2: a new host with a new address, VDU1 untouched.
    let vdu2 = f.vnfc_info_id("VDU2");
    let o = d
        .heal(&f.ctx(LcmOperation::Heal, json!({"vnfcInstanceId": [vdu2]})))
        .await
        .unwrap();
    f.apply(&o);
    let healed = f.vnfcs();
    let by =
        |l: &[(String, String, String)], vdu: &str| l.iter().find(|v| v.0 == vdu).cloned().unwrap();
    assert_eq!(by(&healed, "VDU1"), by(&vnfcs, "VDU1"), "VDU1 untouched");
    let (old, new) = (by(&vnfcs, "VDU2"), by(&healed, "VDU2"));
    assert_eq!(
        healed.iter().position(|v| v.0 == "VDU2"),
        vnfcs.iter().position(|v| v.0 == "VDU2"),
        "the replacement takes the place of the VNFC it replaced"
    );
    assert_ne!(new.1, old.1, "a new server");
    assert_ne!(new.2, old.2, "a new address");
    assert_eq!(ssh_hostname(&new.2).unwrap(), "VDU2");
    assert!(ssh_hostname(&old.2).is_err(), "the old host is gone");

    // A VM that died behind Heat's back (its host gone, the stack unchanged) is healed
    // back by SOL002 heal of its VNFC.
    let (dead, dead_ip) = {
        let v = f.vnfcs();
        let d = v.iter().find(|x| x.0 == "VDU1").unwrap().clone();
        (d.1, d.2)
    };
    f.sim.sim.engine.kill_server(&dead).unwrap();
    assert!(
        ssh_hostname(&dead_ip).is_err(),
        "the killed VM still answers"
    );
    let vdu1 = f
        .instance
        .instantiated_vnf_info
        .as_ref()
        .unwrap()
        .vnfc_info
        .iter()
        .find(|c| c.vdu_id == "VDU1")
        .unwrap()
        .id
        .clone();
    let o = d
        .heal(&f.ctx(LcmOperation::Heal, json!({"vnfcInstanceId": [vdu1]})))
        .await
        .unwrap();
    f.apply(&o);
    let back = f.vnfcs();
    let revived = back.iter().find(|x| x.0 == "VDU1").unwrap();
    assert_ne!(revived.1, dead);
    assert_eq!(ssh_hostname(&revived.2).unwrap(), "VDU1");
    let healed = back;

    // SOL003 heal: every server replaced.
    let o = d.heal(&f.ctx(LcmOperation::Heal, json!({}))).await.unwrap();
    f.apply(&o);
    let all = f.vnfcs();
    assert_eq!(all.len(), 2);
    for (i, v) in all.iter().enumerate() {
        assert_ne!(v.1, healed[i].1);
        assert_eq!(ssh_hostname(&v.2).unwrap(), v.0);
    }

    // Sync reads the same.
    let now = d
        .sync(&f.ctx(LcmOperation::ModifyInfo, json!({})))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(&now, f.instance.instantiated_vnf_info.as_ref().unwrap());

    // Terminate: the stack and every host go.
    let o = d
        .terminate(&f.ctx(
            LcmOperation::Terminate,
            json!({"terminationType": "FORCEFUL"}),
        ))
        .await
        .unwrap();
    f.apply(&o);
    assert!(f.servers().is_empty());
    assert!(f.sim.sim.engine.hosts.running().is_empty(), "hosts left");
    for v in &all {
        assert!(ssh_hostname(&v.2).is_err());
    }
    os.remove(&t).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_build_failure_is_heats_reason_and_a_retry_reuses_the_stack() {
    let mut f = Fixture::new();
    let d = driver();
    *f.sim.sim.engine.faults() = heat_sim::faults::Faults {
        fail_build: Some("VDU2".into()),
        fail_reason: Some("No valid host was found".into()),
        ..Default::default()
    };
    let ctx = f.ctx(LcmOperation::Instantiate, instantiate_params());
    let e = d.instantiate(&ctx).await.unwrap_err();
    assert_eq!(e.status, 422, "{e:?}");
    assert_eq!(e.title.as_deref(), Some("Stack create failed"));
    assert!(e.detail.contains("No valid host was found"), "{e:?}");
    assert!(e.detail.contains("VDU2"), "{e:?}");
    // The cause goes; the same operation again completes on the same stack.
    *f.sim.sim.engine.faults() = Default::default();
    let o = d.instantiate(&ctx).await.unwrap();
    f.apply(&o);
    assert_eq!(f.vnfcs().len(), 2);
    let stacks: Vec<String> = {
        let st = f.sim.sim.engine.lock();
        st.stacks
            .values()
            .filter(|s| s.parent.is_none() && !s.deleted)
            .map(|s| s.name.clone())
            .collect()
    };
    assert_eq!(stacks, vec![format!("vnf-{}", f.instance.id)], "one stack");
    // Rollback of the instantiation removes everything.
    let o = d.rollback(&ctx).await.unwrap();
    f.apply(&o);
    assert!(f.servers().is_empty());
    assert!(f.sim.sim.engine.hosts.running().is_empty());
}

/// A flavour whose VDU boots from a block storage carrying the package's image (no
/// Base HOT: the HOT is built from it).
const BOOT_VOLUME_DF: &str = "tosca_definitions_version: tosca_simple_yaml_1_2
imports:
  - vm_types.yaml
topology_template:
  substitution_mappings:
    node_type: example.vm.VNF
    properties:
      flavour_id: simple
  node_templates:
    VNF:
      type: example.vm.VNF
      properties:
        flavour_description: a VDU booting from a volume
    VDU1:
      type: tosca.nodes.nfv.Vdu.Compute
      properties:
        name: VDU1
        description: boots from its volume
        vdu_profile: { min_number_of_instances: 1, max_number_of_instances: 1 }
      capabilities:
        virtual_compute:
          properties:
            virtual_memory:
              virtual_mem_size: 512 MB
            virtual_cpu:
              num_virtual_cpu: 1
      requirements:
        - virtual_storage: VDU1-storage
    VDU1-storage:
      type: tosca.nodes.nfv.Vdu.VirtualBlockStorage
      properties:
        virtual_block_storage_data:
          size_of_storage: 2 GB
        sw_image_data:
          name: boot-image
          version: '1'
          container_format: bare
          disk_format: raw
          min_disk: 1 GB
          size: 1 GB
      artifacts:
        sw_image:
          type: tosca.artifacts.nfv.SwImage
          file: ../Files/images/boot.img
    VDU1_CP1:
      type: tosca.nodes.nfv.VduCp
      properties:
        layer_protocols: [ ipv4 ]
      requirements:
        - virtual_binding: VDU1
";

/// The storage's image goes to the real Glance, the HOT built from the VNFD makes a
/// volume of it and boots the VM from it (heat-sim boots only images Glance holds); the
/// image is deleted with the instance.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vdu_boots_from_a_volume_of_the_package_image_in_glance() {
    let image: Vec<u8> = (0..150_000u32).map(|i| (i % 233) as u8).collect();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples");
    let csar = tacker_testkit::samples::package(&dir.join("vm-vnfd-only"), None, &[])
        .edit("Definitions/vm_df_simple.yaml", |_| {
            BOOT_VOLUME_DF.to_owned()
        })
        .with("Files/images/boot.img", &image);
    let (mut f, os, t) = Fixture::on_openstack(csar, true).await;
    let d = driver();
    let params = json!({"flavourId": "simple", "extVirtualLinks": [
        tacker_testkit::vm::ext_virtual_link("net0", "sim-net", &["VDU1_CP1"])]});
    let o = d
        .instantiate(&f.ctx(LcmOperation::Instantiate, params))
        .await
        .unwrap();
    f.apply(&o);
    let images = os.images(&t).await;
    assert_eq!(images.len(), 1, "{images:?}");
    assert_eq!(images[0]["name"], "boot-image");
    let vnfcs = f.vnfcs();
    assert_eq!(vnfcs.len(), 1);
    assert_eq!(ssh_hostname(&vnfcs[0].2).unwrap(), "VDU1");
    let o = d
        .terminate(&f.ctx(
            LcmOperation::Terminate,
            json!({"terminationType": "FORCEFUL"}),
        ))
        .await
        .unwrap();
    f.apply(&o);
    assert!(os.images(&t).await.is_empty(), "the unused image deleted");
    os.remove(&t).await;
}
