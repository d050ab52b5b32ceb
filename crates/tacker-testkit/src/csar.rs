//! Small generated CSARs: a valid package, and a builder to change or break it.

use std::io::{Cursor, Write};

use sha2::{Digest, Sha256};
use zip::write::SimpleFileOptions;

pub fn sha256(data: &[u8]) -> String {
    hex::encode(Sha256::digest(data))
}

/// A package under construction: (name, content) in order.
#[derive(Clone, Default)]
pub struct Csar {
    pub files: Vec<(String, Vec<u8>)>,
}

impl Csar {
    pub fn with(mut self, name: &str, content: impl AsRef<[u8]>) -> Self {
        self.files.retain(|(n, _)| n != name);
        self.files.push((name.into(), content.as_ref().to_vec()));
        self
    }

    pub fn without(mut self, name: &str) -> Self {
        self.files.retain(|(n, _)| n != name);
        self
    }

    pub fn get(&self, name: &str) -> String {
        let (_, c) = self.files.iter().find(|(n, _)| n == name).unwrap();
        String::from_utf8(c.clone()).unwrap()
    }

    /// Edits a text file.
    pub fn edit(self, name: &str, f: impl FnOnce(String) -> String) -> Self {
        let text = f(self.get(name));
        self.with(name, text)
    }

    pub fn zip(&self) -> Vec<u8> {
        self.zip_with_zeros(0, 0)
    }

    /// The zip with `entries` more files of `size` zero bytes each (`Files/zeros/<n>`),
    /// written one at a time: a package small to send that expands `size * entries`.
    pub fn zip_with_zeros(&self, entries: usize, size: usize) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let opts =
            SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        for (name, content) in &self.files {
            w.start_file(name.as_str(), opts).unwrap();
            w.write_all(content).unwrap();
        }
        let zeros = vec![0u8; size];
        for n in 0..entries {
            w.start_file(format!("Files/zeros/{n}"), opts).unwrap();
            w.write_all(&zeros).unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    /// Writes the zip to `path`.
    pub fn write_to(&self, path: &std::path::Path) {
        std::fs::write(path, self.zip()).unwrap();
    }
}

pub const TYPES: &str = r#"tosca_definitions_version: tosca_simple_yaml_1_2
description: types of the test VNF
node_types:
  test.provider.VNF:
    derived_from: tosca.nodes.nfv.VNF
    properties:
      descriptor_id:
        type: string
        default: 11111111-2222-3333-4444-555555555555
      descriptor_version:
        type: string
        default: '2.1'
      provider:
        type: string
        default: Test Provider
      product_name:
        type: string
        default: Test CNF
      software_version:
        type: string
        default: '1.5'
      vnfm_info:
        type: list
        default: [ Tacker ]
      flavour_id:
        type: string
        default: simple
"#;

pub const TOP: &str = r#"tosca_definitions_version: tosca_simple_yaml_1_2
description: test VNF
imports:
  - test_types.yaml
  - test_df_simple.yaml
  - test_df_large.yaml
topology_template:
  inputs:
    selected_flavour:
      type: string
  node_templates:
    VNF:
      type: test.provider.VNF
      properties:
        flavour_id: { get_input: selected_flavour }
"#;

pub const DF_SIMPLE: &str = r#"tosca_definitions_version: tosca_simple_yaml_1_2
description: simple flavour
imports:
  - test_types.yaml
topology_template:
  substitution_mappings:
    node_type: test.provider.VNF
    properties:
      flavour_id: simple
  node_templates:
    VNF:
      type: test.provider.VNF
      properties:
        flavour_description: Simple flavour
      interfaces:
        Vnflcm:
          instantiate_end:
            implementation: mgmt-driver
          heal_end:
            implementation: mgmt-driver
            inputs:
              retries: 3
      artifacts:
        mgmt-driver:
          type: tosca.artifacts.Implementation.Python
          file: ../Scripts/mgmt.py
    VDU1:
      type: tosca.nodes.nfv.Vdu.Compute
      properties:
        name: vdu1-deployment
        description: a Deployment
        vdu_profile:
          min_number_of_instances: 1
          max_number_of_instances: 3
        sw_image_data:
          name: test-image
          version: '1.0'
          checksum:
            algorithm: sha-256
            hash: 0000
          container_format: bare
          disk_format: qcow2
          min_disk: 1 GB
          size: 1 GB
      artifacts:
        sw_image:
          type: tosca.artifacts.nfv.SwImage
          file: ../Files/images/test.img
    VDU2:
      type: tosca.nodes.nfv.Vdu.Compute
      properties:
        name: vdu2-statefulset
        vdu_profile:
          min_number_of_instances: 1
          max_number_of_instances: 2
      requirements:
        - virtual_storage: VirtualStorage
    VirtualStorage:
      type: tosca.nodes.nfv.Vdu.VirtualBlockStorage
      properties:
        virtual_block_storage_data:
          size_of_storage: 1 GB
    CP1:
      type: tosca.nodes.nfv.VduCp
      properties:
        layer_protocols: [ ipv4 ]
        order: 0
      requirements:
        - virtual_binding: VDU1
        - virtual_link: internalVL1
    internalVL1:
      type: tosca.nodes.nfv.VnfVirtualLink
      properties:
        connectivity_type:
          layer_protocols: [ ipv4 ]
        description: internal network
  policies:
    - scaling_aspects:
        type: tosca.policies.nfv.ScalingAspects
        properties:
          aspects:
            vdu1_aspect:
              name: vdu1_aspect
              description: VDU1 scaling
              max_scale_level: 2
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
          aspect: vdu1_aspect
          deltas:
            delta_1:
              number_of_instances: 1
        targets: [ VDU1 ]
    - instantiation_levels:
        type: tosca.policies.nfv.InstantiationLevels
        properties:
          levels:
            instantiation_level_1:
              description: Smallest size
              scale_info:
                vdu1_aspect:
                  scale_level: 0
            instantiation_level_2:
              description: Largest size
              scale_info:
                vdu1_aspect:
                  scale_level: 2
          default_level: instantiation_level_1
    - VDU1_instantiation_levels:
        type: tosca.policies.nfv.VduInstantiationLevels
        properties:
          levels:
            instantiation_level_1:
              number_of_instances: 1
            instantiation_level_2:
              number_of_instances: 3
        targets: [ VDU1 ]
"#;

pub const DF_LARGE: &str = r#"tosca_definitions_version: tosca_simple_yaml_1_2
imports:
  - test_types.yaml
topology_template:
  substitution_mappings:
    node_type: test.provider.VNF
    properties:
      flavour_id: large
  node_templates:
    VNF:
      type: test.provider.VNF
      properties:
        flavour_description: Large flavour
    VDU1:
      type: tosca.nodes.nfv.Vdu.Compute
      properties:
        name: vdu1-deployment
        vdu_profile:
          min_number_of_instances: 2
          max_number_of_instances: 5
"#;

pub const DEPLOYMENT: &str =
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: vdu1-deployment\n";

/// Recomputes the manifest and TOSCA.meta digests of `csar` (after edits).
pub fn sealed(mut csar: Csar) -> Csar {
    let listed = [
        "Definitions/test_top.vnfd.yaml",
        "Files/kubernetes/deployment.yaml",
        "Scripts/mgmt.py",
        "Files/images/test.img",
    ];
    let mut mf = String::from(
        "metadata:\nvnf_provider_id: Test Provider\nvnf_product_name: Test CNF\nvnf_release_date_time: 2026-11-30T10:00:00+00:00\nvnf_package_version: '1.5'\n",
    );
    for name in listed {
        if let Some((_, c)) = csar.files.iter().find(|(n, _)| n == name) {
            mf.push_str(&format!(
                "\nSource: {name}\nAlgorithm: SHA-256\nHash: {}\n",
                sha256(c)
            ));
        }
    }
    csar = csar.with("test_top.vnfd.mf", mf);
    let dep = csar
        .files
        .iter()
        .find(|(n, _)| n == "Files/kubernetes/deployment.yaml")
        .map(|(_, c)| sha256(c));
    let mut meta = String::from(
        "TOSCA-Meta-File-Version: 1.0\nCSAR-Version: 1.1\nCreated-By: tacker tests\nEntry-Definitions: Definitions/test_top.vnfd.yaml\nETSI-Entry-Manifest: test_top.vnfd.mf\n",
    );
    if let Some(h) = dep {
        meta.push_str(&format!("\nName: Files/kubernetes/deployment.yaml\nContent-Type: application/yaml\nAlgorithm: SHA-256\nHash: {h}\n"));
    }
    csar.with("TOSCA-Metadata/TOSCA.meta", meta)
}

/// `csar` (whose types file is the test package's) declaring `name` a secret parameter:
/// a property with `metadata: {secret: true}` of a data type derived from
/// `tosca.datatypes.nfv.VnfOperationAdditionalParameters`.
pub fn declaring_secret(csar: Csar, name: &str) -> Csar {
    csar.edit("Definitions/test_types.yaml", |t| {
        format!(
            "{t}data_types:\n  test.datatypes.InstantiateParams:\n    derived_from: \
             tosca.datatypes.nfv.VnfOperationAdditionalParameters\n    properties:\n      \
             {name}:\n        type: string\n        required: false\n        metadata:\n          \
             secret: true\n      plain_one:\n        type: string\n        required: false\n"
        )
    })
}

/// A valid package with two flavours, hooks, policies, a SwImage and a Kubernetes manifest.
pub fn valid() -> Csar {
    sealed(
        Csar::default()
            .with("Definitions/test_top.vnfd.yaml", TOP)
            .with("Definitions/test_types.yaml", TYPES)
            .with("Definitions/test_df_simple.yaml", DF_SIMPLE)
            .with("Definitions/test_df_large.yaml", DF_LARGE)
            .with("Files/kubernetes/deployment.yaml", DEPLOYMENT)
            .with("Files/images/test.img", vec![7u8; 4096])
            .with(
                "Scripts/mgmt.py",
                "# management driver (not executed by this VNFM)\n",
            ),
    )
}

/// A valid package whose VNFD has this `descriptor_id`.
pub fn valid_with_vnfd_id(vnfd_id: &str) -> Csar {
    sealed(valid().edit("Definitions/test_types.yaml", |t| {
        t.replace("11111111-2222-3333-4444-555555555555", vnfd_id)
    }))
}

/// Makes `dir` unwritable, even for root (chattr +i where it works, else mode 0555).
pub fn make_read_only(dir: &std::path::Path) {
    let immutable = std::process::Command::new("chattr")
        .arg("+i")
        .arg(dir)
        .status()
        .is_ok_and(|s| s.success());
    if !immutable {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    }
}

/// Undoes [`make_read_only`].
pub fn make_writable(dir: &std::path::Path) {
    let _ = std::process::Command::new("chattr")
        .arg("-i")
        .arg(dir)
        .status();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
}
