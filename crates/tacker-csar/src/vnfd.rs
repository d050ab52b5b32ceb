//! Building the typed VNFD model from TOSCA definitions, checking its references.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use tacker_domain::vnfd::{
    Cp, Digest, Flavour, InstantiationLevel, LcmHook, ScalingAspect, Storage, SwImage, Vdu,
    VirtualLink, Vnfd,
};

use crate::error::{Findings, Problem};
use crate::paths::{is_url, resolve};
use crate::tosca::{Definitions, Types};

const VNF: &str = "tosca.nodes.nfv.VNF";
const VDU: &str = "tosca.nodes.nfv.Vdu.Compute";
const CP: &str = "tosca.nodes.nfv.VduCp";
const VL: &str = "tosca.nodes.nfv.VnfVirtualLink";
const STORAGES: [&str; 3] = [
    "tosca.nodes.nfv.Vdu.VirtualBlockStorage",
    "tosca.nodes.nfv.Vdu.VirtualObjectStorage",
    "tosca.nodes.nfv.Vdu.VirtualFileStorage",
];
const SW_IMAGE: &str = "tosca.artifacts.nfv.SwImage";
/// What a VNFD derives the data types of its operations' `additionalParams` from.
const ADDITIONAL_PARAMETERS: &str = "tosca.datatypes.nfv.VnfOperationAdditionalParameters";
const IMPLEMENTATION: &str = "tosca.artifacts.Implementation";

/// `Vnflcm` operations of SOL001.
const HOOKS: [&str; 18] = [
    "instantiate_start",
    "instantiate_end",
    "terminate_start",
    "terminate_end",
    "scale_start",
    "scale_end",
    "scale_to_level_start",
    "scale_to_level_end",
    "heal_start",
    "heal_end",
    "change_flavour_start",
    "change_flavour_end",
    "change_external_connectivity_start",
    "change_external_connectivity_end",
    "modify_information_start",
    "modify_information_end",
    "change_current_package_start",
    "change_current_package_end",
];

/// An artifact the VNFD names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArtifactRef {
    /// Where it is named.
    pub file: String,
    /// `node.artifacts.name`.
    pub key: String,
    /// Path inside the package, or the URL.
    pub target: String,
    /// Whether `target` is a URL.
    pub external: bool,
    /// Whether it is a software image.
    pub sw_image: bool,
    /// Whether it is an implementation artifact.
    pub implementation: bool,
}

/// The VNFD model and every artifact reference, or nothing when it has errors.
pub fn build(
    defs: &Definitions,
    names: &BTreeSet<String>,
    f: &mut Findings,
) -> Option<(Vnfd, Vec<ArtifactRef>)> {
    let before = f.errors.len();
    let types = Types::new(defs);
    let (entry, _) = defs.files.first()?;
    let artifacts = collect_artifacts(defs, &types, names, f);

    // The VNF node: in the entry file, else anywhere.
    let vnf = defs
        .files
        .iter()
        .take(1)
        .chain(defs.files.iter().skip(1))
        .find_map(|(file, doc)| {
            Definitions::node_templates(doc)
                .find(|(_, n)| node_type(n).is_some_and(|t| types.derives(t, VNF)))
                .map(|(name, n)| (file.clone(), name.clone(), n.clone()))
        });
    let Some((vnf_file, vnf_name, vnf_node)) = vnf else {
        f.error(Problem::file(
            entry,
            format!("no VNF node: no node template derives from {VNF}"),
        ));
        return None;
    };
    let vnf_type = node_type(&vnf_node).unwrap_or_default().to_owned();
    let prop = |name: &str| -> Option<Value> {
        vnf_node
            .pointer(&format!("/properties/{name}"))
            .filter(|v| !is_function(v))
            .cloned()
            .or_else(|| types.default_property(&vnf_type, name).cloned())
    };
    let mut required = |name: &str| -> String {
        match prop(name).as_ref().and_then(scalar) {
            Some(v) if !v.is_empty() => v,
            _ => {
                f.error(Problem::at(
                    &vnf_file,
                    format!("node_templates.{vnf_name}.properties.{name}"),
                    "missing (mandatory VNF property)",
                ));
                String::new()
            }
        }
    };
    let vnfd_id = required("descriptor_id");
    let provider = required("provider");
    let product_name = required("product_name");
    let software_version = required("software_version");
    let descriptor_version = required("descriptor_version");
    let vnfm_info: Vec<String> = prop("vnfm_info")
        .and_then(|v| v.as_array().map(|a| a.iter().filter_map(scalar).collect()))
        .unwrap_or_default();
    if vnfm_info.is_empty() {
        f.warn(Problem::at(
            &vnf_file,
            format!("node_templates.{vnf_name}.properties.vnfm_info"),
            "missing or empty",
        ));
    }

    let mut flavours = Vec::new();
    for (file, doc) in &defs.files {
        let Some(sm) = doc.pointer("/topology_template/substitution_mappings") else {
            continue;
        };
        let Some(nt) = sm.get("node_type").and_then(Value::as_str) else {
            f.error(Problem::at(
                file,
                "substitution_mappings.node_type",
                "missing",
            ));
            continue;
        };
        if !types.derives(nt, VNF) {
            continue;
        }
        if let Some(fl) = flavour(file, doc, sm, nt, &types, &artifacts, f) {
            if flavours.iter().any(|x: &Flavour| x.id == fl.id) {
                f.error(Problem::at(
                    file,
                    "substitution_mappings.properties.flavour_id",
                    format!("flavour {:?} defined twice", fl.id),
                ));
            }
            flavours.push(fl);
        }
    }
    if flavours.is_empty() && f.errors.len() == before {
        f.error(Problem::file(entry, "no deployment flavour: no definitions file has substitution_mappings for the VNF node type"));
    }
    let vnfd = Vnfd {
        vnfd_id,
        provider,
        product_name,
        software_version,
        descriptor_version,
        vnfm_info,
        entry_definitions: entry.clone(),
        definitions: defs.files.iter().map(|(p, _)| p.clone()).collect(),
        flavours,
        secret_params: types.secret_params(ADDITIONAL_PARAMETERS),
    };
    (f.errors.len() == before).then_some((vnfd, artifacts))
}

fn node_type(n: &Value) -> Option<&str> {
    n.get("type").and_then(Value::as_str)
}

/// `{ get_input: x }` and friends: values resolved at deployment, not in the package.
fn is_function(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|m| m.len() == 1 && m.keys().all(|k| k.starts_with("get_")))
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn text(v: Option<&Value>) -> String {
    v.and_then(scalar).unwrap_or_default()
}

fn count(v: Option<&Value>) -> Option<u32> {
    match v? {
        Value::Number(n) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn collect_artifacts(
    defs: &Definitions,
    types: &Types,
    names: &BTreeSet<String>,
    f: &mut Findings,
) -> Vec<ArtifactRef> {
    let mut out = Vec::new();
    for (file, doc) in &defs.files {
        for (node, n) in Definitions::node_templates(doc) {
            let Some(arts) = n.get("artifacts").and_then(Value::as_object) else {
                continue;
            };
            for (name, a) in arts {
                let key = format!("node_templates.{node}.artifacts.{name}");
                let (target, ty) = match a {
                    Value::String(s) => (s.clone(), String::new()),
                    Value::Object(m) => (text(m.get("file")), text(m.get("type"))),
                    _ => (String::new(), String::new()),
                };
                if target.is_empty() {
                    f.error(Problem::at(file, key, "artifact without a file"));
                    continue;
                }
                let sw_image = types.derives(&ty, SW_IMAGE);
                if sw_image && n.pointer("/properties/sw_image_data").is_none() {
                    f.error(Problem::at(
                        file,
                        &key,
                        "SwImage artifact on a node without sw_image_data",
                    ));
                }
                let implementation =
                    types.derives(&ty, IMPLEMENTATION) || ty.starts_with(IMPLEMENTATION);
                let external = is_url(&target);
                let target = if external {
                    target
                } else {
                    match resolve(file, &target) {
                        Some(p) if names.contains(&p) => p,
                        relative => {
                            match resolve("", &target).filter(|p| names.contains(p)) {
                                // Tacker also accepts paths from the package root.
                                Some(root) => {
                                    f.warn(Problem::at(file, &key, format!("{target:?} resolved from the package root; TOSCA resolves it relative to {file:?}")));
                                    root
                                }
                                None => {
                                    match relative {
                                        Some(p) => p,
                                        None => {
                                            f.error(Problem::at(file, key, format!("artifact file {target:?} is outside the package")));
                                            continue;
                                        }
                                    }
                                }
                            }
                        }
                    }
                };
                out.push(ArtifactRef {
                    file: file.clone(),
                    key,
                    target,
                    external,
                    sw_image,
                    implementation,
                });
            }
        }
    }
    out
}

fn flavour(
    file: &str,
    doc: &Value,
    sm: &Value,
    vnf_type: &str,
    types: &Types,
    artifacts: &[ArtifactRef],
    f: &mut Findings,
) -> Option<Flavour> {
    let nodes: Vec<(&String, &Value)> = Definitions::node_templates(doc).collect();
    let vnf_node = nodes
        .iter()
        .find(|(_, n)| node_type(n).is_some_and(|t| types.derives(t, VNF)));
    let id = sm
        .pointer("/properties/flavour_id")
        .and_then(scalar)
        .or_else(|| {
            vnf_node
                .and_then(|(_, n)| n.pointer("/properties/flavour_id"))
                .filter(|v| !is_function(v))
                .and_then(scalar)
        })
        .or_else(|| {
            types
                .default_property(vnf_type, "flavour_id")
                .and_then(scalar)
        });
    let Some(id) = id.filter(|i| !i.is_empty()) else {
        f.error(Problem::at(
            file,
            "substitution_mappings.properties.flavour_id",
            "missing: the flavour has no id",
        ));
        return None;
    };
    let description = vnf_node
        .and_then(|(_, n)| n.pointer("/properties/flavour_description"))
        .and_then(scalar)
        .unwrap_or_default();
    let is = |n: &Value, base: &str| node_type(n).is_some_and(|t| types.derives(t, base));
    let sw_image_of = |node: &str| {
        artifacts
            .iter()
            .find(|a| {
                a.file == file
                    && a.sw_image
                    && a.key
                        .starts_with(&format!("node_templates.{node}.artifacts."))
            })
            .map(|a| a.target.clone())
    };

    let mut vdus: Vec<Vdu> = nodes
        .iter()
        .filter(|(_, n)| is(n, VDU))
        .map(|(name, n)| {
            let props = n.get("properties");
            let profile = props.and_then(|p| p.get("vdu_profile"));
            let storages = requirement_targets(n, "virtual_storage");
            Vdu {
                id: (*name).clone(),
                name: text(props.and_then(|p| p.get("name"))),
                description: text(props.and_then(|p| p.get("description"))),
                min_instances: count(profile.and_then(|p| p.get("min_number_of_instances")))
                    .unwrap_or(1),
                max_instances: count(profile.and_then(|p| p.get("max_number_of_instances")))
                    .unwrap_or(1),
                sw_image: props
                    .and_then(|p| p.get("sw_image_data"))
                    .map(|d| sw_image(d, sw_image_of(name))),
                capabilities: n.get("capabilities").cloned().unwrap_or(Value::Null),
                storages,
                initial_delta: None,
                scaling_deltas: BTreeMap::new(),
                instantiation_levels: BTreeMap::new(),
            }
        })
        .collect();
    for v in &vdus {
        if v.name.is_empty() {
            f.warn(Problem::at(
                file,
                format!("node_templates.{}.properties.name", v.id),
                "missing; CNF resources are matched by it",
            ));
        }
        if v.min_instances > v.max_instances {
            f.error(Problem::at(
                file,
                format!("node_templates.{}.properties.vdu_profile", v.id),
                "min_number_of_instances exceeds max_number_of_instances",
            ));
        }
    }
    let cps = nodes
        .iter()
        .filter(|(_, n)| is(n, CP))
        .map(|(name, n)| Cp {
            id: (*name).clone(),
            vdu: requirement_targets(n, "virtual_binding").into_iter().next(),
            virtual_link: requirement_targets(n, "virtual_link").into_iter().next(),
            layer_protocols: string_list(n.pointer("/properties/layer_protocols")),
            order: count(n.pointer("/properties/order")),
        })
        .collect();
    let virtual_links = nodes
        .iter()
        .filter(|(_, n)| is(n, VL))
        .map(|(name, n)| VirtualLink {
            id: (*name).clone(),
            description: text(n.pointer("/properties/description")),
            layer_protocols: string_list(
                n.pointer("/properties/connectivity_type/layer_protocols"),
            ),
            cidr: n
                .pointer("/properties/vl_profile/virtual_link_protocol_data")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .find_map(|d| d.pointer("/l3_protocol_data/cidr").and_then(scalar)),
        })
        .collect();
    let storages = nodes
        .iter()
        .filter(|(_, n)| STORAGES.iter().any(|s| is(n, s)))
        .map(|(name, n)| Storage {
            id: (*name).clone(),
            type_name: node_type(n).unwrap_or_default().to_owned(),
            size: [
                text(n.pointer("/properties/virtual_block_storage_data/size_of_storage")),
                text(n.pointer("/properties/size_of_storage")),
            ]
            .into_iter()
            .find(|s| !s.is_empty())
            .unwrap_or_default(),
            sw_image: n
                .pointer("/properties/sw_image_data")
                .map(|d| sw_image(d, sw_image_of(name))),
        })
        .collect();

    let policies = policies(doc);
    let mut scaling_aspects = Vec::new();
    let mut instantiation_levels = Vec::new();
    let mut default_instantiation_level = None;
    let vdu_ids: BTreeSet<String> = vdus.iter().map(|v| v.id.clone()).collect();
    for (_, p) in &policies {
        let ty = text(p.get("type"));
        let props = p.get("properties").cloned().unwrap_or(Value::Null);
        if types.derives(&ty, "tosca.policies.nfv.ScalingAspects") {
            for (aid, a) in props
                .get("aspects")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                scaling_aspects.push(ScalingAspect {
                    id: aid.clone(),
                    name: text(a.get("name")),
                    description: text(a.get("description")),
                    max_scale_level: count(a.get("max_scale_level")).unwrap_or(0),
                    step_deltas: string_list(a.get("step_deltas")),
                });
            }
        } else if types.derives(&ty, "tosca.policies.nfv.InstantiationLevels") {
            for (lid, l) in props
                .get("levels")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                let scale_info = l
                    .get("scale_info")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                    .map(|(a, s)| (a.clone(), count(s.get("scale_level")).unwrap_or(0)))
                    .collect();
                instantiation_levels.push(InstantiationLevel {
                    id: lid.clone(),
                    description: text(l.get("description")),
                    scale_info,
                });
            }
            default_instantiation_level = props.get("default_level").and_then(scalar);
        }
    }
    let aspect_ids: BTreeSet<&str> = scaling_aspects.iter().map(|a| a.id.as_str()).collect();
    let level_ids: BTreeSet<&str> = instantiation_levels.iter().map(|l| l.id.as_str()).collect();
    for l in &instantiation_levels {
        for a in l.scale_info.keys() {
            if !aspect_ids.contains(a.as_str()) {
                f.error(Problem::at(
                    file,
                    format!("policies.{}.scale_info.{a}", l.id),
                    format!(
                        "instantiation level {:?} references unknown scaling aspect {a:?}",
                        l.id
                    ),
                ));
            }
        }
    }
    if let Some(d) = &default_instantiation_level
        && !level_ids.contains(d.as_str())
    {
        f.error(Problem::at(
            file,
            "InstantiationLevels.default_level",
            format!("unknown instantiation level {d:?}"),
        ));
    }
    for (pname, p) in &policies {
        let ty = text(p.get("type"));
        let props = p.get("properties").cloned().unwrap_or(Value::Null);
        let targets = string_list(p.get("targets"));
        let key = format!("policies.{pname}");
        let per_vdu = [
            "tosca.policies.nfv.VduInitialDelta",
            "tosca.policies.nfv.VduScalingAspectDeltas",
            "tosca.policies.nfv.VduInstantiationLevels",
        ];
        if !per_vdu.iter().any(|b| types.derives(&ty, b)) {
            continue;
        }
        for t in &targets {
            if !vdu_ids.contains(t) && !nodes.iter().any(|(n, _)| *n == t) {
                f.error(Problem::at(
                    file,
                    format!("{key}.targets"),
                    format!("unknown VDU {t:?}"),
                ));
            }
        }
        for v in vdus.iter_mut().filter(|v| targets.contains(&v.id)) {
            if types.derives(&ty, "tosca.policies.nfv.VduInitialDelta") {
                v.initial_delta = count(props.pointer("/initial_delta/number_of_instances"));
            } else if types.derives(&ty, "tosca.policies.nfv.VduScalingAspectDeltas") {
                let aspect = text(props.get("aspect"));
                let deltas: BTreeMap<String, u32> = props
                    .get("deltas")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                    .map(|(d, x)| (d.clone(), count(x.get("number_of_instances")).unwrap_or(0)))
                    .collect();
                v.scaling_deltas.insert(aspect, deltas);
            } else {
                v.instantiation_levels = props
                    .get("levels")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                    .map(|(l, x)| (l.clone(), count(x.get("number_of_instances")).unwrap_or(0)))
                    .collect();
            }
        }
        if types.derives(&ty, "tosca.policies.nfv.VduScalingAspectDeltas") {
            let aspect = text(props.get("aspect"));
            match scaling_aspects.iter().find(|a| a.id == aspect) {
                None => f.error(Problem::at(
                    file,
                    format!("{key}.properties.aspect"),
                    format!("unknown scaling aspect {aspect:?}"),
                )),
                Some(a) => {
                    for d in props
                        .get("deltas")
                        .and_then(Value::as_object)
                        .into_iter()
                        .flatten()
                        .map(|(d, _)| d)
                    {
                        if !a.step_deltas.contains(d) {
                            f.error(Problem::at(
                                file,
                                format!("{key}.properties.deltas.{d}"),
                                format!("not a step delta of aspect {aspect:?}"),
                            ));
                        }
                    }
                }
            }
        }
        if types.derives(&ty, "tosca.policies.nfv.VduInstantiationLevels") {
            for l in props
                .get("levels")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .map(|(l, _)| l)
            {
                if !level_ids.contains(l.as_str()) {
                    f.error(Problem::at(
                        file,
                        format!("{key}.properties.levels.{l}"),
                        format!("unknown instantiation level {l:?}"),
                    ));
                }
            }
        }
    }
    let hooks = vnf_node
        .map(|(name, n)| hooks(file, name, n, artifacts, f))
        .unwrap_or_default();
    Some(Flavour {
        id,
        description,
        file: file.to_owned(),
        vdus,
        cps,
        virtual_links,
        storages,
        scaling_aspects,
        instantiation_levels,
        default_instantiation_level,
        hooks,
    })
}

/// Policies as (name, definition), from the list form or the map form.
fn policies(doc: &Value) -> Vec<(String, Value)> {
    match doc.pointer("/topology_template/policies") {
        Some(Value::Array(list)) => list
            .iter()
            .filter_map(Value::as_object)
            .flat_map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())))
            .collect(),
        Some(Value::Object(m)) => m.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        _ => Vec::new(),
    }
}

fn string_list(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(a)) => a.iter().filter_map(scalar).collect(),
        Some(other) => scalar(other).into_iter().collect(),
        None => Vec::new(),
    }
}

/// Targets of a requirement: `- name: Target` or `- name: {node: Target}`.
fn requirement_targets(n: &Value, requirement: &str) -> Vec<String> {
    n.get("requirements")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|r| r.get(requirement))
        .filter_map(|t| match t {
            Value::String(s) => Some(s.clone()),
            Value::Object(m) => m.get("node").and_then(scalar),
            _ => None,
        })
        .collect()
}

fn sw_image(d: &Value, artifact: Option<String>) -> SwImage {
    SwImage {
        name: text(d.get("name")),
        version: text(d.get("version")),
        checksum: d.get("checksum").and_then(|c| {
            Some(Digest {
                algorithm: scalar(c.get("algorithm")?)?,
                hash: scalar(c.get("hash")?)?,
            })
        }),
        container_format: text(d.get("container_format")),
        disk_format: text(d.get("disk_format")),
        min_disk: text(d.get("min_disk")),
        min_ram: text(d.get("min_ram")),
        size: text(d.get("size")),
        artifact,
    }
}

fn hooks(
    file: &str,
    node: &str,
    n: &Value,
    artifacts: &[ArtifactRef],
    f: &mut Findings,
) -> Vec<LcmHook> {
    let Some(ops) = n.pointer("/interfaces/Vnflcm").and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (op, def) in ops {
        if op == "type" || op == "inputs" || op == "operations" {
            continue;
        }
        let key = format!("node_templates.{node}.interfaces.Vnflcm.{op}");
        if !HOOKS.contains(&op.as_str()) {
            f.warn(Problem::at(
                file,
                &key,
                "not a Vnflcm operation of SOL001; it will never run",
            ));
        }
        let (implementation, inputs) = match def {
            Value::String(s) => (Some(s.clone()), Value::Null),
            Value::Object(m) => {
                let imp = match m.get("implementation") {
                    Some(Value::Object(i)) => i.get("primary").and_then(scalar),
                    Some(v) => scalar(v),
                    None => None,
                };
                (imp, m.get("inputs").cloned().unwrap_or(Value::Null))
            }
            _ => (None, Value::Null),
        };
        let mut hook = LcmHook {
            name: op.clone(),
            artifact: implementation.clone(),
            artifact_path: None,
            artifact_type: None,
            inputs,
        };
        if let Some(imp) = &implementation {
            let prefix = format!("node_templates.{node}.artifacts.{imp}");
            let found = artifacts
                .iter()
                .find(|a| a.file == file && a.key == prefix)
                .or_else(|| {
                    // Also a file named directly as the implementation.
                    let path = resolve(file, imp)?;
                    artifacts.iter().find(|a| a.target == path)
                });
            match found {
                Some(a) => {
                    hook.artifact_path = Some(a.target.clone());
                    hook.artifact_type = Some(
                        if a.implementation {
                            "implementation"
                        } else {
                            "other"
                        }
                        .into(),
                    );
                }
                None => f.error(Problem::at(
                    file,
                    &key,
                    format!("names artifact {imp:?}, which the VNF node does not define"),
                )),
            }
        }
        out.push(hook);
    }
    out
}
