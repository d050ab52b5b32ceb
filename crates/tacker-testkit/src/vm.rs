//! The example VM VNF package (`docs/examples/vm`): VDU1 in an autoscaling group (1..3,
//! aspect `VDU1_scale`), VDU2 alone; CPs `VDU1_CP1`, `VDU2_CP1`; a base HOT for flavour
//! `simple`.

use crate::csar::Csar;

/// Its `descriptor_id`.
pub const VM_VNFD_ID: &str = "c0ffee00-0000-4000-8000-0000000076d0";

macro_rules! example {
    ($path:literal) => {
        (
            $path,
            include_str!(concat!("../../../docs/examples/vm/", $path)),
        )
    };
}

/// Every file of the example, by path.
pub const VM_FILES: [(&str, &str); 6] = [
    example!("TOSCA-Metadata/TOSCA.meta"),
    example!("Definitions/vm_top.vnfd.yaml"),
    example!("Definitions/vm_types.yaml"),
    example!("Definitions/vm_df_simple.yaml"),
    example!("BaseHOT/simple/vm_top.yaml"),
    example!("BaseHOT/simple/nested/VDU1.yaml"),
];

/// The example VM package.
pub fn vm() -> Csar {
    VM_FILES
        .iter()
        .fold(Csar::default(), |c, (n, t)| c.with(n, *t))
}

/// The package with another `descriptor_id` (several onboarded at once).
pub fn vm_with_id(vnfd_id: &str) -> Csar {
    VM_FILES.iter().fold(Csar::default(), |c, (n, t)| {
        c.with(n, t.replace(VM_VNFD_ID, vnfd_id))
    })
}

/// The example with a second flavour, `pair`: VDU1 alone (image `ubuntu-22.04-pair`),
/// two of them at its default level, from a base HOT of its own (`BaseHOT/pair/`).
pub fn vm_two_flavours() -> Csar {
    let top = include_str!("../../../docs/examples/vm/BaseHOT/simple/vm_top.yaml");
    let pair_top = format!(
        "{}outputs: {{}}\n",
        top.split("  VDU2:\n").next().unwrap_or(top)
    );
    VM_FILES
        .iter()
        .fold(Csar::default(), |c, (n, t)| {
            let t = if *n == "Definitions/vm_top.vnfd.yaml" {
                t.replace(
                    "  - vm_df_simple.yaml\n",
                    "  - vm_df_simple.yaml\n  - vm_df_pair.yaml\n",
                )
            } else {
                (*t).to_owned()
            };
            c.with(n, t)
        })
        .with("Definitions/vm_df_pair.yaml", PAIR_FLAVOUR)
        .with("BaseHOT/pair/vm_top.yaml", pair_top)
        .with(
            "BaseHOT/pair/nested/VDU1.yaml",
            include_str!("../../../docs/examples/vm/BaseHOT/simple/nested/VDU1.yaml"),
        )
}

const PAIR_FLAVOUR: &str = r#"tosca_definitions_version: tosca_simple_yaml_1_2
description: pair flavour of the example VM VNF
imports:
  - vm_types.yaml
topology_template:
  substitution_mappings:
    node_type: example.vm.VNF
    properties:
      flavour_id: pair
    requirements:
      virtual_link_external1_1: [ VDU1_CP1, virtual_link ]
  node_templates:
    VNF:
      type: example.vm.VNF
      properties:
        flavour_description: two of the scalable VDU
    VDU1:
      type: tosca.nodes.nfv.Vdu.Compute
      properties:
        name: VDU1
        description: scalable VDU
        vdu_profile: { min_number_of_instances: 1, max_number_of_instances: 3 }
        sw_image_data:
          name: ubuntu-22.04-pair
          version: '22.04'
          container_format: bare
          disk_format: qcow2
          min_disk: 1 GB
          min_ram: 512 MB
          size: 1 GB
      capabilities:
        virtual_compute:
          properties:
            requested_additional_capabilities:
              properties:
                requested_additional_capability_name: m1.small
                support_mandatory: true
                target_performance_parameters:
                  entry_schema: test
            virtual_memory:
              virtual_mem_size: 512 MB
            virtual_cpu:
              num_virtual_cpu: 1
            virtual_local_storage:
              - size_of_storage: 1 GB
    VDU1_CP1:
      type: tosca.nodes.nfv.VduCp
      properties:
        layer_protocols: [ ipv4 ]
        order: 0
      requirements:
        - virtual_binding: VDU1
  policies:
    - scaling_aspects:
        type: tosca.policies.nfv.ScalingAspects
        properties:
          aspects:
            VDU1_scale:
              name: VDU1_scale
              description: VDU1 instances
              max_scale_level: 1
              step_deltas: [ delta_1 ]
    - VDU1_initial_delta:
        type: tosca.policies.nfv.VduInitialDelta
        properties:
          initial_delta:
            number_of_instances: 1
        targets: [ VDU1 ]
    - VDU1_scaling_aspect_deltas:
        type: tosca.policies.nfv.VduScalingAspectDeltas
        properties:
          aspect: VDU1_scale
          deltas:
            delta_1:
              number_of_instances: 1
        targets: [ VDU1 ]
    - instantiation_levels:
        type: tosca.policies.nfv.InstantiationLevels
        properties:
          levels:
            pair_level:
              description: two
              scale_info:
                VDU1_scale: { scale_level: 0 }
          default_level: pair_level
    - VDU1_instantiation_levels:
        type: tosca.policies.nfv.VduInstantiationLevels
        properties:
          levels:
            pair_level: { number_of_instances: 2 }
        targets: [ VDU1 ]
"#;

/// An `extVirtualLinks` entry putting `cps` on network `net`.
pub fn ext_virtual_link(id: &str, net: &str, cps: &[&str]) -> serde_json::Value {
    let ext_cps: Vec<serde_json::Value> = cps
        .iter()
        .map(|cp| {
            serde_json::json!({"cpdId": cp, "cpConfig": {format!("{cp}_1"): {"cpProtocolData": [
                {"layerProtocol": "IP_OVER_ETHERNET", "ipOverEthernet": {"ipAddresses": [{"type": "IPV4", "numDynamicAddresses": 1}]}}]}}})
        })
        .collect();
    serde_json::json!({"id": id, "resourceId": net, "extCps": ext_cps})
}
