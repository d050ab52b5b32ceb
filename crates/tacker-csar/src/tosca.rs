//! TOSCA definitions: loading a VNFD's files with their imports, and the type hierarchy.

use std::collections::{HashMap, VecDeque};
use std::io::{Read, Seek};

use serde_json::{Map, Value};

use crate::archive::Archive;
use crate::error::{Findings, Problem};
use crate::limits::Limits;
use crate::paths::{is_url, resolve};
use crate::yaml;

/// Every definitions file of a VNFD, parsed; the entry first.
#[derive(Debug, Default)]
pub struct Definitions {
    pub files: Vec<(String, Value)>,
}

impl Definitions {
    /// Loads `entry` and, transitively, everything it imports.
    pub fn load<R: Read + Seek>(
        archive: &mut Archive<R>,
        entry: &str,
        limits: &Limits,
        f: &mut Findings,
    ) -> Option<Self> {
        let mut defs = Definitions::default();
        let mut queue = VecDeque::from([(entry.to_owned(), None::<String>)]);
        let mut seen = std::collections::HashSet::new();
        let before = f.errors.len();
        while let Some((path, importer)) = queue.pop_front() {
            if !seen.insert(path.clone()) {
                continue;
            }
            if seen.len() > limits.max_definitions {
                f.error(Problem::file(
                    entry,
                    format!(
                        "imports more than {} definitions files",
                        limits.max_definitions
                    ),
                ));
                break;
            }
            if !archive.contains(&path) {
                match importer {
                    Some(from) => f.error(Problem::at(
                        from,
                        "imports",
                        format!("unresolvable import {path:?}: not in the package"),
                    )),
                    None => f.error(Problem::file(
                        path,
                        "entry definitions file not in the package",
                    )),
                }
                continue;
            }
            let text = match archive.read_text(&path) {
                Ok(t) => t,
                Err(p) => {
                    f.error(p);
                    continue;
                }
            };
            let doc = match yaml::parse(&path, &text, limits) {
                Ok(d) => d,
                Err(p) => {
                    f.error(p);
                    continue;
                }
            };
            if !doc.is_object() {
                f.error(Problem::file(
                    &path,
                    "not a TOSCA definitions document (not a mapping)",
                ));
                continue;
            }
            if doc.get("tosca_definitions_version").is_none() {
                f.error(Problem::at(&path, "tosca_definitions_version", "missing"));
            }
            for import in imports(&doc) {
                if is_url(&import) {
                    f.error(Problem::at(&path, "imports", format!("unresolvable import {import:?}: URLs are not fetched; put the file in the package")));
                    continue;
                }
                match resolve(&path, &import) {
                    Some(p) => queue.push_back((p, Some(path.clone()))),
                    None => f.error(Problem::at(
                        &path,
                        "imports",
                        format!("unresolvable import {import:?}: outside the package"),
                    )),
                }
            }
            defs.files.push((path, doc));
        }
        (f.errors.len() == before).then_some(defs)
    }

    /// `topology_template.node_templates` of a file.
    pub fn node_templates(doc: &Value) -> impl Iterator<Item = (&String, &Value)> {
        doc.pointer("/topology_template/node_templates")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
    }
}

/// Import references: `- file.yaml`, `- file: f.yaml`, `- name: {file: f.yaml}`.
fn imports(doc: &Value) -> Vec<String> {
    let Some(list) = doc.get("imports").and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|i| match i {
            Value::String(s) => Some(s.clone()),
            Value::Object(m) => m
                .get("file")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .or_else(|| {
                    m.values()
                        .find_map(|v| v.get("file").and_then(Value::as_str).map(str::to_owned))
                }),
            _ => None,
        })
        .collect()
}

/// The type hierarchy (node, policy, artifact, ... types) of a VNFD.
#[derive(Debug, Default)]
pub struct Types {
    parents: HashMap<String, String>,
    properties: HashMap<String, Map<String, Value>>,
}

const TYPE_SECTIONS: [&str; 6] = [
    "node_types",
    "policy_types",
    "artifact_types",
    "capability_types",
    "data_types",
    "relationship_types",
];

impl Types {
    pub fn new(defs: &Definitions) -> Self {
        let mut t = Types::default();
        for (_, doc) in &defs.files {
            for section in TYPE_SECTIONS {
                let Some(types) = doc.get(section).and_then(Value::as_object) else {
                    continue;
                };
                for (name, def) in types {
                    if let Some(parent) = def.get("derived_from").and_then(Value::as_str) {
                        t.parents.insert(name.clone(), parent.to_owned());
                    }
                    if let Some(props) = def.get("properties").and_then(Value::as_object) {
                        t.properties.insert(name.clone(), props.clone());
                    }
                }
            }
        }
        t
    }

    /// Whether `ty` is `base` or derives from it.
    pub fn derives(&self, ty: &str, base: &str) -> bool {
        let mut cur = ty;
        for _ in 0..64 {
            if cur == base {
                return true;
            }
            match self.parents.get(cur) {
                Some(p) => cur = p,
                None => return false,
            }
        }
        false
    }

    /// The properties marked `metadata: {secret: true}` (`"true"` too) of every type
    /// derived from `base` (sorted, once each).
    pub fn secret_params(&self, base: &str) -> Vec<String> {
        let mut out: Vec<String> = self
            .properties
            .iter()
            .filter(|(ty, _)| ty.as_str() != base && self.derives(ty, base))
            .flat_map(|(_, props)| props.iter())
            .filter(|(_, def)| {
                matches!(def.pointer("/metadata/secret"), Some(Value::Bool(true)))
                    || def
                        .pointer("/metadata/secret")
                        .and_then(Value::as_str)
                        .is_some_and(|s| s.eq_ignore_ascii_case("true"))
            })
            .map(|(name, _)| name.clone())
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// The default of property `prop` declared on `ty` or its ancestors.
    pub fn default_property(&self, ty: &str, prop: &str) -> Option<&Value> {
        let mut cur = ty;
        for _ in 0..64 {
            if let Some(d) = self
                .properties
                .get(cur)
                .and_then(|p| p.get(prop))
                .and_then(|d| d.get("default"))
            {
                return Some(d);
            }
            cur = self.parents.get(cur)?;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn derivation_follows_the_chain_and_survives_cycles() {
        let defs = Definitions {
            files: vec![(
                "t.yaml".into(),
                json!({"node_types": {
                    "my.VNF": {"derived_from": "tosca.nodes.nfv.VNF", "properties": {"provider": {"default": "Me"}}},
                    "my.SubVNF": {"derived_from": "my.VNF"},
                    "loop.A": {"derived_from": "loop.B"},
                    "loop.B": {"derived_from": "loop.A"}
                }}),
            )],
        };
        let t = Types::new(&defs);
        assert!(t.derives("my.SubVNF", "tosca.nodes.nfv.VNF"));
        assert!(t.derives("tosca.nodes.nfv.VNF", "tosca.nodes.nfv.VNF"));
        assert!(!t.derives("loop.A", "tosca.nodes.nfv.VNF"));
        assert_eq!(
            t.default_property("my.SubVNF", "provider"),
            Some(&json!("Me"))
        );
        assert_eq!(
            imports(&json!({"imports": ["a.yaml", {"file": "b.yaml"}, {"x": {"file": "c.yaml"}}]})),
            ["a.yaml", "b.yaml", "c.yaml"]
        );
    }
}
