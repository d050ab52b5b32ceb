//! The package's base HOT for a flavour: `BaseHOT/<flavour>/<top>.yaml`, with every
//! other file below that directory (`nested/*.yaml`) passed to Heat as `files`, under
//! its path and its file name (templates name nested ones by file name). A package with
//! no `BaseHOT/<flavour>/` gets one built from its VNFD ([`tacker_domain::hot`]).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use tacker_domain::vnfd::{Flavour, Vdu};

use crate::error::{Error, Result};

/// A flavour's templates.
#[derive(Debug, Clone)]
pub struct BaseHot {
    /// The top template as text.
    pub top: String,
    /// The top template parsed (to find the `nfv` paths it uses).
    pub parsed: Value,
    /// Nested templates and other files.
    pub files: Map<String, Value>,
}

fn is_template(p: &Path) -> bool {
    matches!(
        p.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml" | "template")
    )
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for e in std::fs::read_dir(dir)? {
        let p = e?.path();
        if p.is_dir() {
            walk(&p, out)?;
        } else {
            out.push(p);
        }
    }
    Ok(())
}

/// The base HOT of `flavour`: the unpacked package's, else one built from the VNFD
/// (`flavour_given`: whether a VDU's flavour comes from the `nfv` parameter).
pub fn load(
    package_dir: &Path,
    flavour: &Flavour,
    flavour_given: &dyn Fn(&Vdu) -> bool,
) -> Result<BaseHot> {
    let dir = package_dir.join("BaseHOT").join(&flavour.id);
    if !dir.is_dir() {
        return built(flavour, flavour_given);
    }
    read(&dir, &flavour.id)
}

/// The template built from the VNFD, as the text Heat gets.
fn built(flavour: &Flavour, flavour_given: &dyn Fn(&Vdu) -> bool) -> Result<BaseHot> {
    let hot = tacker_domain::hot::translate(flavour, flavour_given)
        .map_err(|f| Error::Package(f.detail))?;
    let text = |v: &Value| serde_json::to_string_pretty(v).unwrap_or_default();
    Ok(BaseHot {
        top: text(&hot.top),
        files: hot
            .files
            .iter()
            .map(|(name, t)| (name.clone(), Value::String(text(t))))
            .collect(),
        parsed: hot.top,
    })
}

/// Reads `BaseHOT/<flavour>/` at `dir`.
fn read(dir: &Path, flavour: &str) -> Result<BaseHot> {
    let mut tops: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| Error::Package(format!("reading BaseHOT/{flavour}: {e}")))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && is_template(p))
        .collect();
    tops.sort();
    let top_path = match tops.as_slice() {
        [one] => one.clone(),
        [] => {
            return Err(Error::Package(format!(
                "BaseHOT/{flavour}/ holds no top template (*.yaml)"
            )));
        }
        many => {
            let names: Vec<String> = many
                .iter()
                .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .collect();
            return Err(Error::Package(format!(
                "BaseHOT/{flavour}/ holds several top templates ({}); nested ones belong in nested/",
                names.join(", ")
            )));
        }
    };
    let read = |p: &Path| {
        std::fs::read_to_string(p)
            .map_err(|e| Error::Package(format!("reading {}: {e}", p.display())))
    };
    let top = read(&top_path)?;
    let parsed: Value = serde_saphyr::from_str(&top).map_err(|e| {
        Error::Package(format!(
            "BaseHOT/{flavour}/{} is not valid YAML: {e}",
            top_path
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default()
        ))
    })?;
    let mut all = Vec::new();
    walk(dir, &mut all).map_err(|e| Error::Package(format!("reading BaseHOT/{flavour}: {e}")))?;
    let mut files = Map::new();
    for p in all.iter().filter(|p| **p != top_path) {
        let content = Value::String(read(p)?);
        if let Ok(rel) = p.strip_prefix(dir) {
            files.insert(rel.to_string_lossy().into_owned(), content.clone());
        }
        if let Some(name) = p.file_name() {
            files
                .entry(name.to_string_lossy().into_owned())
                .or_insert(content);
        }
    }
    Ok(BaseHot { top, parsed, files })
}

/// The template with each internal virtual link of `links` (`vnfVirtualLinkDescId`,
/// network id: the request's `extManagedVirtualLinks`) on that existing network: the
/// link's `OS::Neutron::Net` and the subnets on it leave the template and every
/// `get_resource` of it becomes the network's id. A link the template does not make as
/// a network is an error naming it, never ignored.
pub fn with_managed_links(hot: BaseHot, links: &[(String, String)]) -> Result<BaseHot> {
    if links.is_empty() {
        return Ok(hot);
    }
    let mut top = hot.parsed;
    {
        let resources = top
            .get_mut("resources")
            .and_then(Value::as_object_mut)
            .ok_or_else(|| Error::Package("the base HOT has no resources".into()))?;
        for (vl, _) in links {
            let kind = resources
                .get(vl)
                .and_then(|r| r.get("type"))
                .and_then(Value::as_str);
            if kind != Some("OS::Neutron::Net") {
                return Err(Error::Package(format!(
                    "extManagedVirtualLinks: the base HOT makes no network {vl} \
                     (OS::Neutron::Net) for the internal virtual link to be replaced"
                )));
            }
            resources.remove(vl);
            let on_it = json!({ "get_resource": vl });
            resources.retain(|_, r| {
                !(r.get("type").and_then(Value::as_str) == Some("OS::Neutron::Subnet")
                    && r.pointer("/properties/network") == Some(&on_it))
            });
        }
    }
    fn swap(v: &mut Value, links: &[(String, String)]) {
        match v {
            Value::Object(m) => {
                if let Some(Value::String(r)) = m.get("get_resource")
                    && m.len() == 1
                    && let Some((_, net)) = links.iter().find(|(vl, _)| vl == r)
                {
                    *v = Value::String(net.clone());
                    return;
                }
                m.values_mut().for_each(|x| swap(x, links));
            }
            Value::Array(a) => a.iter_mut().for_each(|x| swap(x, links)),
            _ => {}
        }
    }
    swap(&mut top, links);
    let text = serde_json::to_string_pretty(&top)
        .map_err(|e| Error::Package(format!("the base HOT: {e}")))?;
    Ok(BaseHot {
        top: text,
        parsed: top,
        files: hot.files,
    })
}

/// The scaling policy `name` of the top template (upstream's v1 layout names them
/// `<aspect>_scale_out` and `<aspect>_scale_in`) and the group it scales, when that
/// group's `desired_capacity` is fixed: a group sized from a parameter (`nfv`, our
/// layout) is scaled through it, the stack's parameters staying what the group has.
pub fn scaling_policy(parsed: &Value, name: &str) -> Option<String> {
    let resources = parsed.get("resources")?;
    let r = resources.get(name)?;
    if r.get("type").and_then(Value::as_str) != Some("OS::Heat::ScalingPolicy") {
        return None;
    }
    let group = r
        .pointer("/properties/auto_scaling_group_id/get_resource")
        .and_then(Value::as_str)?;
    let fixed = !resources
        .get(group)?
        .pointer("/properties/desired_capacity")
        .is_some_and(Value::is_object);
    fixed.then(|| group.to_owned())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn scaling_policies_are_found_with_their_group() {
        let t = |capacity: serde_json::Value| {
            json!({"resources": {
            "worker_scale_out": {"type": "OS::Heat::ScalingPolicy", "properties": {
                "auto_scaling_group_id": {"get_resource": "worker"}, "scaling_adjustment": 1}},
            "worker": {"type": "OS::Heat::AutoScalingGroup",
                "properties": {"desired_capacity": capacity}}}})
        };
        let fixed = t(json!(2));
        assert_eq!(
            super::scaling_policy(&fixed, "worker_scale_out").as_deref(),
            Some("worker")
        );
        assert_eq!(super::scaling_policy(&fixed, "worker"), None);
        assert_eq!(super::scaling_policy(&fixed, "worker_scale_in"), None);
        // Sized from nfv: scaled through it, not through the policy.
        let ours = t(json!({"get_param": ["nfv", "VDU", "worker", "desired_capacity"]}));
        assert_eq!(super::scaling_policy(&ours, "worker_scale_out"), None);
    }
}
