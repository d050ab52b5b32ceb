//! The example VM VNF package (`docs/examples/vm`): VDU1 in an autoscaling group (1..3,
//! aspect `VDU1_scale`), VDU2 alone; CPs `VDU1_CP1`, `VDU2_CP1`; a base HOT for flavour
//! `simple`; and flavour `pair`, two VDU1 (image `ubuntu-22.04-pair`) from a base HOT of
//! its own.

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
pub const VM_FILES: [(&str, &str); 9] = [
    example!("TOSCA-Metadata/TOSCA.meta"),
    example!("Definitions/vm_top.vnfd.yaml"),
    example!("Definitions/vm_types.yaml"),
    example!("Definitions/vm_df_simple.yaml"),
    example!("Definitions/vm_df_pair.yaml"),
    example!("BaseHOT/simple/vm_top.yaml"),
    example!("BaseHOT/simple/nested/VDU1.yaml"),
    example!("BaseHOT/pair/vm_top.yaml"),
    example!("BaseHOT/pair/nested/VDU1.yaml"),
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
