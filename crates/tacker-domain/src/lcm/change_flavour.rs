//! `ChangeVnfFlavourRequest` (`…/change_flavour`): the instance moves to another
//! deployment flavour of its VNFD, at an instantiation level of it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::failure::Failure;
use crate::vnfd::{Flavour, PackageModel};

/// `ChangeVnfFlavourRequest`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ChangeFlavourRequest {
    /// The flavour to move to.
    pub new_flavour_id: String,
    /// Its instantiation level (else the flavour's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instantiation_level_id: Option<String>,
    /// `extVirtualLinks`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ext_virtual_links: Vec<Value>,
    /// `extManagedVirtualLinks`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ext_managed_virtual_links: Vec<Value>,
    /// `additionalParams`.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub additional_params: Map<String, Value>,
    /// `extensions`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
    /// `vnfConfigurableProperties`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vnf_configurable_properties: Option<Map<String, Value>>,
}

impl ChangeFlavourRequest {
    /// Reads a request body.
    pub fn parse(body: &Value) -> Result<Self, Failure> {
        if !body.is_object() {
            return Err(Failure::bad_request(
                "the request body must be a JSON object",
            ));
        }
        let r: Self = serde_json::from_value(body.clone())
            .map_err(|e| Failure::bad_request(format!("invalid request body: {e}")))?;
        super::request::keeps_managed_links(&r.ext_managed_virtual_links, "change_flavour")?;
        Ok(r)
    }

    /// The new flavour of `model`, another than `current`, and the level in it (422).
    pub fn check<'a>(
        &self,
        model: &'a PackageModel,
        current: &str,
    ) -> Result<&'a Flavour, Failure> {
        if self.new_flavour_id == current {
            return Err(Failure::unprocessable(format!(
                "the VNF instance runs flavour {current:?} already"
            )));
        }
        let f = model.vnfd.flavour(&self.new_flavour_id).ok_or_else(|| {
            Failure::unprocessable(format!(
                "newFlavourId {:?} is not a flavour of the VNFD",
                self.new_flavour_id
            ))
        })?;
        if let Some(l) = &self.instantiation_level_id
            && !f.instantiation_levels.iter().any(|x| x.id == *l)
        {
            return Err(Failure::unprocessable(format!(
                "instantiationLevelId {l:?} is not in flavour {:?}",
                f.id
            )));
        }
        // A CNF's manifests for the new flavour: artifacts of the package.
        let cnf = self.cnf()?;
        if let Some(file) = cnf
            .def_files
            .iter()
            .flatten()
            .find(|file| !model.has_artifact(file))
        {
            return Err(Failure::unprocessable(format!(
                "additionalParams.lcm-kubernetes-def-files: {file:?} is not an artifact of \
                 the VNF package"
            )));
        }
        Ok(f)
    }

    /// Its CNF parameters (manifests, chart, Helm values).
    pub fn cnf(&self) -> Result<super::cnf::CnfParams, Failure> {
        super::cnf::CnfParams::of(&self.additional_params)
    }

    /// The level to reach in the new flavour (the asked one, else its default).
    pub fn level(&self, f: &Flavour) -> Option<String> {
        self.instantiation_level_id
            .clone()
            .or_else(|| f.default_instantiation_level.clone())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn requests_parse_and_unknown_fields_are_refused() {
        let r = ChangeFlavourRequest::parse(&json!({"newFlavourId": "large",
            "instantiationLevelId": "l2", "additionalParams": {"a": 1}}))
        .unwrap();
        assert_eq!(r.new_flavour_id, "large");
        for body in [
            json!({}),
            json!({"newFlavourId": "x", "bogus": 1}),
            json!([]),
        ] {
            let f = ChangeFlavourRequest::parse(&body).unwrap_err();
            assert_eq!(f.problem().status, 400, "{body}");
        }
        // Internal links on other networks after instantiation: refused, not ignored.
        let f = ChangeFlavourRequest::parse(&json!({"newFlavourId": "large",
            "extManagedVirtualLinks": [{"id": "m", "vnfVirtualLinkDescId": "vl", "resourceId": "n"}]}))
        .unwrap_err();
        assert_eq!(f.problem().status, 422);
        assert!(f.detail.contains("extManagedVirtualLinks"), "{}", f.detail);
        let f = super::super::request::ChangeVnfpkgRequest::parse(&json!({"vnfdId": "v",
            "additionalParams": {"upgrade_type": "RollingUpdate"},
            "extManagedVirtualLinks": [{"id": "m", "vnfVirtualLinkDescId": "vl", "resourceId": "n"}]}), super::super::ApiVersion::V2)
        .unwrap_err();
        assert_eq!(f.problem().status, 422);
    }
}
