//! `ScaleVnfToLevelRequest` (`…/scale_to_level`): a target level per aspect, given as an
//! instantiation level of the flavour or as `scaleInfo`, run as the scale steps that
//! reach it (scale-ins first, then scale-outs) in one occurrence.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::instance::InstantiatedVnfInfo;
use super::request::{ScaleRequest, ScaleType};
use crate::failure::Failure;
use crate::vnfd::Flavour;

/// The level one aspect is to reach.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AspectLevel {
    /// The aspect.
    pub aspect_id: String,
    /// The level.
    pub scale_level: u32,
    /// The VNFD (SOL003 v3.3.1 names it for multi-VNFD instances; ours have one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vnfd_id: Option<String>,
}

/// `ScaleVnfToLevelRequest`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ScaleToLevelRequest {
    /// An instantiation level of the flavour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instantiation_level_id: Option<String>,
    /// Levels per aspect (aspects not named keep theirs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_info: Option<Vec<AspectLevel>>,
    /// `additionalParams` (passed to every step).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub additional_params: Map<String, Value>,
}

fn bad(m: impl Into<String>) -> Failure {
    Failure::bad_request(m)
}

impl ScaleToLevelRequest {
    /// Reads a request body: exactly one of `instantiationLevelId` and `scaleInfo`.
    pub fn parse(body: &Value) -> Result<Self, Failure> {
        let b = body
            .as_object()
            .ok_or_else(|| bad("the request body must be a JSON object"))?;
        if b.get("additionalParams")
            .is_some_and(|p| !p.is_object() && !p.is_null())
        {
            return Err(bad("additionalParams must be an object"));
        }
        let r: Self = serde_json::from_value(body.clone())
            .map_err(|e| bad(format!("invalid request body: {e}")))?;
        match (&r.instantiation_level_id, &r.scale_info) {
            (Some(_), Some(_)) => Err(bad(
                "instantiationLevelId and scaleInfo are exclusive: give one",
            )),
            (None, None) => Err(bad("instantiationLevelId or scaleInfo is required")),
            (None, Some(list)) if list.is_empty() => {
                Err(bad("scaleInfo must name at least one aspect"))
            }
            _ => Ok(r),
        }
    }

    /// The level each aspect of `flavour` is to reach (422 for an unknown level or
    /// aspect, a level over the aspect's maximum, an aspect named twice).
    pub fn targets(&self, flavour: &Flavour) -> Result<Vec<(String, u32)>, Failure> {
        let asked: Vec<(String, u32)> = match (&self.instantiation_level_id, &self.scale_info) {
            (Some(l), _) => {
                let level = flavour
                    .instantiation_levels
                    .iter()
                    .find(|x| x.id == *l)
                    .ok_or_else(|| {
                        Failure::unprocessable(format!(
                            "instantiationLevelId {l:?} is not an instantiation level of flavour {:?}",
                            flavour.id
                        ))
                    })?;
                // An aspect the level does not name is at level 0 there.
                flavour
                    .scaling_aspects
                    .iter()
                    .map(|a| {
                        (
                            a.id.clone(),
                            level.scale_info.get(&a.id).copied().unwrap_or(0),
                        )
                    })
                    .collect()
            }
            (None, Some(list)) => {
                let mut out: Vec<(String, u32)> = Vec::new();
                for s in list {
                    if out.iter().any(|(a, _)| *a == s.aspect_id) {
                        return Err(Failure::unprocessable(format!(
                            "scaleInfo names aspect {:?} twice",
                            s.aspect_id
                        )));
                    }
                    out.push((s.aspect_id.clone(), s.scale_level));
                }
                out
            }
            (None, None) => Vec::new(),
        };
        for (aspect, level) in &asked {
            let a = flavour
                .scaling_aspects
                .iter()
                .find(|a| a.id == *aspect)
                .ok_or_else(|| {
                    Failure::unprocessable(format!(
                        "aspect {aspect:?} is not a scaling aspect of flavour {:?}",
                        flavour.id
                    ))
                })?;
            if *level > a.max_scale_level {
                return Err(Failure::unprocessable(format!(
                    "aspect {aspect} cannot reach level {level}: its maximum is {}",
                    a.max_scale_level
                )));
            }
        }
        Ok(asked)
    }

    /// The scale steps that take the instance from its levels to the targets: one per
    /// aspect whose level changes, scale-ins first (they free what scale-outs take).
    pub fn steps(
        &self,
        flavour: &Flavour,
        info: &InstantiatedVnfInfo,
    ) -> Result<Vec<ScaleRequest>, Failure> {
        let mut ins = Vec::new();
        let mut outs = Vec::new();
        for (aspect, to) in self.targets(flavour)? {
            let from = info
                .scale_status
                .iter()
                .find(|s| s.aspect_id == aspect)
                .map_or(0, |s| s.scale_level);
            let step = |kind, n| ScaleRequest {
                kind,
                aspect_id: aspect.clone(),
                number_of_steps: n,
                additional_params: self.additional_params.clone(),
            };
            match to.cmp(&from) {
                std::cmp::Ordering::Greater => outs.push(step(ScaleType::ScaleOut, to - from)),
                std::cmp::Ordering::Less => ins.push(step(ScaleType::ScaleIn, from - to)),
                std::cmp::Ordering::Equal => {}
            }
        }
        ins.extend(outs);
        Ok(ins)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::lcm::ScaleInfo;
    use crate::vnfd::{InstantiationLevel, ScalingAspect};

    fn flavour() -> Flavour {
        let aspect = |id: &str, max| ScalingAspect {
            id: id.into(),
            name: id.into(),
            description: String::new(),
            max_scale_level: max,
            step_deltas: vec!["delta_1".into()],
        };
        Flavour {
            id: "simple".into(),
            description: String::new(),
            file: String::new(),
            vdus: Vec::new(),
            cps: Vec::new(),
            virtual_links: Vec::new(),
            storages: Vec::new(),
            scaling_aspects: vec![aspect("a1", 2), aspect("a2", 3)],
            instantiation_levels: vec![InstantiationLevel {
                id: "big".into(),
                description: String::new(),
                scale_info: [("a1".to_owned(), 2)].into(),
            }],
            default_instantiation_level: None,
            hooks: Vec::new(),
        }
    }

    fn at(levels: &[(&str, u32)]) -> InstantiatedVnfInfo {
        let mut i: InstantiatedVnfInfo =
            serde_json::from_value(json!({"flavourId": "simple", "vnfState": "STARTED"})).unwrap();
        i.scale_status = levels
            .iter()
            .map(|(a, l)| ScaleInfo {
                aspect_id: (*a).into(),
                vnfd_id: None,
                scale_level: *l,
            })
            .collect();
        i
    }

    fn err(r: Result<impl std::fmt::Debug, Failure>) -> (u16, String) {
        let f = r.unwrap_err();
        (f.problem().status, f.problem().detail)
    }

    #[test]
    fn a_level_becomes_steps_ins_first() {
        let r = ScaleToLevelRequest::parse(&json!({"instantiationLevelId": "big"})).unwrap();
        let steps = r.steps(&flavour(), &at(&[("a1", 0), ("a2", 1)])).unwrap();
        let got: Vec<_> = steps
            .iter()
            .map(|s| (s.kind, s.aspect_id.as_str(), s.number_of_steps))
            .collect();
        assert_eq!(
            got,
            [
                (ScaleType::ScaleIn, "a2", 1),
                (ScaleType::ScaleOut, "a1", 2)
            ]
        );
        let r = ScaleToLevelRequest::parse(
            &json!({"scaleInfo": [{"aspectId": "a2", "scaleLevel": 3}]}),
        )
        .unwrap();
        let steps = r.steps(&flavour(), &at(&[("a1", 1), ("a2", 1)])).unwrap();
        assert_eq!(steps.len(), 1, "a1 is not named: it stays");
        assert!(r.steps(&flavour(), &at(&[("a2", 3)])).unwrap().is_empty());
    }

    #[test]
    fn bad_requests_are_refused_with_what_is_wrong() {
        for (body, text) in [
            (json!({}), "is required"),
            (
                json!({"instantiationLevelId": "big", "scaleInfo": []}),
                "exclusive",
            ),
            (json!({"scaleInfo": []}), "at least one"),
            (json!({"scaleInfo": [{"aspectId": "a1"}]}), "scaleLevel"),
        ] {
            let (status, detail) = err(ScaleToLevelRequest::parse(&body));
            assert_eq!(status, 400, "{body}");
            assert!(detail.contains(text), "{body}: {detail}");
        }
        for (body, text) in [
            (
                json!({"instantiationLevelId": "huge"}),
                "not an instantiation level",
            ),
            (
                json!({"scaleInfo": [{"aspectId": "a9", "scaleLevel": 1}]}),
                "not a scaling aspect",
            ),
            (
                json!({"scaleInfo": [{"aspectId": "a1", "scaleLevel": 3}]}),
                "maximum is 2",
            ),
            (
                json!({"scaleInfo": [{"aspectId": "a1", "scaleLevel": 1}, {"aspectId": "a1", "scaleLevel": 2}]}),
                "twice",
            ),
        ] {
            let r = ScaleToLevelRequest::parse(&body).unwrap();
            let (status, detail) = err(r.targets(&flavour()));
            assert_eq!(status, 422, "{body}");
            assert!(detail.contains(text), "{body}: {detail}");
        }
    }
}
