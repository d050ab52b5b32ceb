//! Heat Orchestration Templates: parsing, parameters, intrinsic functions
//! (`get_param` with list paths, `get_resource`, `get_attr`, `str_replace`, `list_join`,
//! `get_file`) and the dependency order of resources.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use crate::error::SimError;

/// A parsed template.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    /// `parameters`: name -> definition (`type`, `default`).
    pub parameters: Map<String, Value>,
    /// `resources`, in the template's order.
    pub resources: Vec<(String, ResourceDef)>,
    /// `outputs`.
    pub outputs: Map<String, Value>,
}

/// One resource definition.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceDef {
    /// `type`: a built-in type (`OS::Nova::Server`) or a nested template's file name.
    pub kind: String,
    /// `properties`, unresolved.
    pub properties: Value,
    /// Resources it needs first (`depends_on` and every reference in its properties).
    pub needs: BTreeSet<String>,
}

/// Reads a template given as a JSON object, or as YAML/JSON text.
pub fn parse(template: &Value) -> Result<Template, SimError> {
    let v = match template {
        Value::String(text) => parse_text(text)?,
        other => other.clone(),
    };
    let Some(obj) = v.as_object() else {
        return Err(SimError::bad("the template is not a mapping"));
    };
    if !obj.contains_key("heat_template_version") {
        return Err(SimError::bad("the template has no heat_template_version"));
    }
    let parameters = obj
        .get("parameters")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut resources = Vec::new();
    let names: BTreeSet<String> = obj
        .get("resources")
        .and_then(Value::as_object)
        .map(|r| r.keys().cloned().collect())
        .unwrap_or_default();
    // serde_json keeps keys sorted; the order only matters among independent resources.
    for (name, def) in obj
        .get("resources")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
    {
        let kind = def
            .get("type")
            .and_then(Value::as_str)
            .ok_or_else(|| SimError::bad(format!("resource {name} has no type")))?
            .to_owned();
        let properties = def.get("properties").cloned().unwrap_or(Value::Null);
        let mut needs = BTreeSet::new();
        references(&properties, &mut needs);
        match def.get("depends_on") {
            Some(Value::String(d)) => {
                needs.insert(d.clone());
            }
            Some(Value::Array(ds)) => {
                needs.extend(ds.iter().filter_map(Value::as_str).map(str::to_owned));
            }
            _ => {}
        }
        if let Some(missing) = needs.iter().find(|n| !names.contains(*n)) {
            return Err(SimError::bad(format!(
                "resource {name} refers to {missing}, which is not a resource of the template"
            )));
        }
        resources.push((
            name,
            ResourceDef {
                kind,
                properties,
                needs,
            },
        ));
    }
    let outputs = obj
        .get("outputs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let t = Template {
        parameters,
        resources,
        outputs,
    };
    t.waves()?;
    Ok(t)
}

/// Parses YAML (or JSON, which is YAML) text.
pub fn parse_text(text: &str) -> Result<Value, SimError> {
    let mut options = serde_saphyr::Options::default();
    options.strict_booleans = true;
    serde_saphyr::from_str_with_options(text, options)
        .map_err(|e| SimError::bad(format!("the template is not valid YAML: {e}")))
}

fn references(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("get_resource")
                && m.len() == 1
            {
                out.insert(r.clone());
                return;
            }
            if let Some(Value::Array(a)) = m.get("get_attr")
                && m.len() == 1
                && let Some(Value::String(r)) = a.first()
            {
                out.insert(r.clone());
            }
            for x in m.values() {
                references(x, out);
            }
        }
        Value::Array(a) => {
            for x in a {
                references(x, out);
            }
        }
        _ => {}
    }
}

impl Template {
    /// The resources in waves: each wave only needs resources of earlier waves.
    pub fn waves(&self) -> Result<Vec<Vec<String>>, SimError> {
        let mut done: BTreeSet<String> = BTreeSet::new();
        let mut left: BTreeMap<&str, &ResourceDef> = self
            .resources
            .iter()
            .map(|(n, d)| (n.as_str(), d))
            .collect();
        let mut waves = Vec::new();
        while !left.is_empty() {
            let wave: Vec<String> = left
                .iter()
                .filter(|(_, d)| d.needs.iter().all(|n| done.contains(n)))
                .map(|(n, _)| (*n).to_owned())
                .collect();
            if wave.is_empty() {
                let cycle: Vec<&str> = left.keys().copied().collect();
                return Err(SimError::bad(format!(
                    "circular dependency between resources {}",
                    cycle.join(", ")
                )));
            }
            for n in &wave {
                left.remove(n.as_str());
                done.insert(n.clone());
            }
            waves.push(wave);
        }
        Ok(waves)
    }

    /// The definition of resource `name`.
    pub fn resource(&self, name: &str) -> Option<&ResourceDef> {
        self.resources
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, d)| d)
    }

    /// The parameter values a stack runs with: `given` checked against the definitions,
    /// with defaults, `json` parameters decoded from text, numbers and strings
    /// converted as Heat does.
    pub fn parameter_values(
        &self,
        given: &Map<String, Value>,
    ) -> Result<Map<String, Value>, SimError> {
        let mut out = Map::new();
        for (name, def) in &self.parameters {
            let kind = def.get("type").and_then(Value::as_str).unwrap_or("string");
            let v = match given.get(name).or_else(|| def.get("default")) {
                Some(v) => v.clone(),
                None => {
                    return Err(SimError::bad(format!(
                        "The Parameter ({name}) was not provided."
                    )));
                }
            };
            let v = match (kind, v) {
                ("json", Value::String(s)) => serde_json::from_str(&s).map_err(|e| {
                    SimError::bad(format!("Parameter '{name}' is not valid JSON: {e}"))
                })?,
                ("json", v) => v,
                ("string", Value::String(s)) => Value::String(s),
                ("string", Value::Null) => Value::String(String::new()),
                ("string", v @ (Value::Number(_) | Value::Bool(_))) => Value::String(v.to_string()),
                ("number", Value::String(s)) => s
                    .parse::<f64>()
                    .ok()
                    .and_then(|f| {
                        if f.fract() == 0.0 {
                            Some(Value::from(f as i64))
                        } else {
                            serde_json::Number::from_f64(f).map(Value::Number)
                        }
                    })
                    .ok_or_else(|| {
                        SimError::bad(format!("Parameter '{name}' is not a number: {s:?}"))
                    })?,
                (_, v) => v,
            };
            out.insert(name.clone(), v);
        }
        Ok(out)
    }
}

/// What functions resolve against.
pub trait Scope {
    /// The value of parameter `name`.
    fn param(&self, name: &str) -> Option<&Value>;
    /// The physical id of resource `name` (once created).
    fn resource_id(&self, name: &str) -> Option<String>;
    /// Attribute `attr` of resource `name`.
    fn attribute(&self, name: &str, attr: &str) -> Option<Value>;
    /// The content of file `name` passed with the stack.
    fn file(&self, name: &str) -> Option<String>;
}

/// Resolves every intrinsic function in `v`.
pub fn resolve(v: &Value, scope: &dyn Scope) -> Result<Value, SimError> {
    match v {
        Value::Object(m) if m.len() == 1 => {
            let Some((f, arg)) = m.iter().next() else {
                return Ok(v.clone());
            };
            match f.as_str() {
                "get_param" => get_param(arg, scope),
                "get_resource" => {
                    let name = arg
                        .as_str()
                        .ok_or_else(|| SimError::bad("get_resource takes a resource name"))?;
                    scope
                        .resource_id(name)
                        .map(Value::String)
                        .ok_or_else(|| SimError::bad(format!("resource {name} is not created")))
                }
                "get_attr" => get_attr(arg, scope),
                "get_file" => {
                    let name = arg
                        .as_str()
                        .ok_or_else(|| SimError::bad("get_file takes a file name"))?;
                    scope
                        .file(name)
                        .map(Value::String)
                        .ok_or_else(|| SimError::bad(format!("no file {name} was given")))
                }
                "str_replace" => str_replace(arg, scope),
                "list_join" => list_join(arg, scope),
                _ => Ok(Value::Object(resolve_map(m, scope)?)),
            }
        }
        Value::Object(m) => Ok(Value::Object(resolve_map(m, scope)?)),
        Value::Array(a) => a
            .iter()
            .map(|x| resolve(x, scope))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array),
        other => Ok(other.clone()),
    }
}

fn resolve_map(m: &Map<String, Value>, scope: &dyn Scope) -> Result<Map<String, Value>, SimError> {
    m.iter()
        .map(|(k, x)| Ok((k.clone(), resolve(x, scope)?)))
        .collect()
}

fn get_param(arg: &Value, scope: &dyn Scope) -> Result<Value, SimError> {
    let path: Vec<Value> = match arg {
        Value::String(s) => vec![Value::String(s.clone())],
        Value::Array(a) => a
            .iter()
            .map(|x| resolve(x, scope))
            .collect::<Result<Vec<_>, _>>()?,
        _ => return Err(SimError::bad("get_param takes a name or a path")),
    };
    let name = path
        .first()
        .and_then(Value::as_str)
        .ok_or_else(|| SimError::bad("get_param needs a parameter name"))?;
    let mut cur = scope
        .param(name)
        .ok_or_else(|| SimError::bad(format!("The Parameter ({name}) was not defined.")))?
        .clone();
    for key in &path[1..] {
        let next = match (key, &cur) {
            (Value::String(k), Value::Object(m)) => m.get(k).cloned(),
            (Value::Number(n), Value::Array(a)) => n
                .as_u64()
                .and_then(|i| usize::try_from(i).ok())
                .and_then(|i| a.get(i).cloned()),
            (Value::String(k), Value::Array(a)) => {
                k.parse::<usize>().ok().and_then(|i| a.get(i).cloned())
            }
            _ => None,
        };
        cur = next.ok_or_else(|| {
            SimError::bad(format!(
                "get_param: the path {} is not in parameter {name}",
                Value::Array(path.clone())
            ))
        })?;
    }
    Ok(cur)
}

fn get_attr(arg: &Value, scope: &dyn Scope) -> Result<Value, SimError> {
    let parts: Vec<Value> = arg
        .as_array()
        .ok_or_else(|| SimError::bad("get_attr takes [resource, attribute, ...]"))?
        .iter()
        .map(|x| resolve(x, scope))
        .collect::<Result<_, _>>()?;
    let (Some(res), Some(attr)) = (
        parts.first().and_then(Value::as_str),
        parts.get(1).and_then(Value::as_str),
    ) else {
        return Err(SimError::bad("get_attr takes [resource, attribute, ...]"));
    };
    let mut cur = scope.attribute(res, attr).unwrap_or(Value::Null);
    for key in &parts[2..] {
        cur = match (key, &cur) {
            (Value::String(k), Value::Object(m)) => m.get(k).cloned().unwrap_or(Value::Null),
            (Value::Number(n), Value::Array(a)) => n
                .as_u64()
                .and_then(|i| a.get(i as usize).cloned())
                .unwrap_or(Value::Null),
            _ => Value::Null,
        };
    }
    Ok(cur)
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn str_replace(arg: &Value, scope: &dyn Scope) -> Result<Value, SimError> {
    let a = resolve(arg, scope)?;
    let template = a
        .get("template")
        .map(text)
        .ok_or_else(|| SimError::bad("str_replace needs a template"))?;
    let mut out = template;
    if let Some(params) = a.get("params").and_then(Value::as_object) {
        for (k, v) in params {
            out = out.replace(k.as_str(), &text(v));
        }
    }
    Ok(Value::String(out))
}

fn list_join(arg: &Value, scope: &dyn Scope) -> Result<Value, SimError> {
    let a = resolve(arg, scope)?;
    let parts = a
        .as_array()
        .ok_or_else(|| SimError::bad("list_join takes [delimiter, list, ...]"))?;
    let delim = parts.first().map(text).unwrap_or_default();
    let items: Vec<String> = parts[1..]
        .iter()
        .flat_map(|l| l.as_array().cloned().unwrap_or_default())
        .map(|x| text(&x))
        .collect();
    Ok(Value::String(items.join(&delim)))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    struct S(Map<String, Value>);

    impl Scope for S {
        fn param(&self, name: &str) -> Option<&Value> {
            self.0.get(name)
        }
        fn resource_id(&self, name: &str) -> Option<String> {
            Some(format!("id-{name}"))
        }
        fn attribute(&self, name: &str, attr: &str) -> Option<Value> {
            Some(json!({"k": format!("{name}.{attr}")}))
        }
        fn file(&self, _: &str) -> Option<String> {
            None
        }
    }

    const TOP: &str = "heat_template_version: 2013-05-23
parameters:
  nfv:
    type: json
resources:
  VDU2:
    type: OS::Nova::Server
    properties:
      flavor: { get_param: [ nfv, VDU, VDU2, computeFlavourId ] }
      networks:
      - port:
          get_resource: VDU2_CP1
  VDU2_CP1:
    type: OS::Neutron::Port
    properties:
      network: { get_resource: internalVL3 }
  internalVL3:
    type: OS::Neutron::Net
";

    #[test]
    fn templates_order_resources_by_their_references() {
        let t = parse(&Value::String(TOP.into())).unwrap();
        assert_eq!(
            t.waves().unwrap(),
            vec![
                vec!["internalVL3".to_owned()],
                vec!["VDU2_CP1".to_owned()],
                vec!["VDU2".to_owned()]
            ]
        );
        let bad = TOP.replace("get_resource: internalVL3", "get_resource: nope");
        assert!(parse(&Value::String(bad)).is_err());
    }

    #[test]
    fn functions_resolve_paths_resources_and_attributes() {
        let t = parse(&Value::String(TOP.into())).unwrap();
        let params = t
            .parameter_values(&Map::from_iter([(
                "nfv".to_owned(),
                json!(r#"{"VDU": {"VDU2": {"computeFlavourId": "m1.tiny"}}}"#),
            )]))
            .unwrap();
        let s = S(params);
        let props = resolve(&t.resource("VDU2").unwrap().properties, &s).unwrap();
        assert_eq!(props["flavor"], "m1.tiny");
        assert_eq!(props["networks"][0]["port"], "id-VDU2_CP1");
        let a = resolve(&json!({"get_attr": ["X", "fixed_ips", "k"]}), &s).unwrap();
        assert_eq!(a, "X.fixed_ips");
        let missing = resolve(&json!({"get_param": ["nfv", "VDU", "VDU9", "x"]}), &s);
        assert!(missing.is_err());
        let joined = resolve(&json!({"list_join": ["-", ["a", "b"]]}), &s).unwrap();
        assert_eq!(joined, "a-b");
        assert!(t.parameter_values(&Map::new()).is_err());
    }
}
