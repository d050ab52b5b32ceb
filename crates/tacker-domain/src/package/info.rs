//! `VnfPkgInfo`, the representation of a package (SOL005 9.5.2.5), written once: as a
//! JSON value for one package, and straight into a list page's bytes.

use std::fmt::Display;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::Value;
use uuid::Uuid;

use super::{OnboardingState, VnfPackage};
use crate::href::{Href, Joined};

/// A package's `VnfPkgInfo` with links under `base` (e.g. `http://host:9890/vnfpkgm/v1`),
/// without the complex attributes `left_out` names (checksum, software images,
/// additional artifacts, user-defined data).
///
/// Its keys come in the order of a JSON value's (sorted), so the bytes written straight
/// from it are the bytes of the value built from it.
pub struct PkgInfo<'a, F: Fn(&str) -> bool> {
    /// The package.
    pub package: &'a VnfPackage,
    /// The API's base URL.
    pub base: &'a str,
    /// Whether a complex attribute is left out.
    pub left_out: F,
}

/// `_links`: `packageContent`, `self` and, once onboarded, `vnfd`.
struct Links<'a> {
    base: &'a str,
    id: &'a Uuid,
    onboarded: bool,
}

impl Serialize for Links<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let url = |tail: &'static &'static str| {
            [&self.base as &dyn Display, &"/vnf_packages/", self.id, tail]
        };
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("packageContent", &Href(&Joined(&url(&"/package_content"))))?;
        m.serialize_entry("self", &Href(&Joined(&url(&""))))?;
        if self.onboarded {
            m.serialize_entry("vnfd", &Href(&Joined(&url(&"/vnfd"))))?;
        }
        m.end()
    }
}

impl<F: Fn(&str) -> bool> Serialize for PkgInfo<'_, F> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let p = self.package;
        let kept = |name: &str| !(self.left_out)(name);
        let onboarded = p.onboarding_state == OnboardingState::Onboarded;
        let d = p.descriptor.as_ref();
        let mut m = s.serialize_map(None)?;
        m.serialize_entry(
            "_links",
            &Links {
                base: self.base,
                id: &p.id,
                onboarded,
            },
        )?;
        if onboarded && kept("additionalArtifacts") {
            m.serialize_entry("additionalArtifacts", &p.additional_artifacts)?;
        }
        if let Some(c) = p.checksum.as_ref().filter(|_| kept("checksum")) {
            m.serialize_entry("checksum", c)?;
        }
        m.serialize_entry("id", &p.id)?;
        if let Some(f) = &p.onboarding_failure_details {
            // As a value: its keys sorted, as everywhere else in the representation.
            let f = serde_json::to_value(f).map_err(serde::ser::Error::custom)?;
            m.serialize_entry("onboardingFailureDetails", &f)?;
        }
        m.serialize_entry("onboardingState", &p.onboarding_state)?;
        m.serialize_entry("operationalState", &p.operational_state)?;
        if onboarded && kept("softwareImages") {
            m.serialize_entry("softwareImages", &p.software_images)?;
        }
        m.serialize_entry("usageState", &p.usage_state)?;
        if kept("userDefinedData") {
            m.serialize_entry("userDefinedData", &p.user_defined_data)?;
        }
        if let Some(d) = d {
            m.serialize_entry("vnfProductName", &d.product_name)?;
            m.serialize_entry("vnfProvider", &d.provider)?;
            m.serialize_entry("vnfSoftwareVersion", &d.software_version)?;
            m.serialize_entry("vnfdId", &d.vnfd_id)?;
            m.serialize_entry("vnfdVersion", &d.vnfd_version)?;
        }
        m.end()
    }
}

impl<F: Fn(&str) -> bool> PkgInfo<'_, F> {
    /// As a JSON value.
    pub fn to_value(&self) -> Value {
        // Our own maps, strings and numbers: serialising them cannot fail.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use serde_json::{Map, json};
    use uuid::Uuid;

    use crate::ProblemDetails;
    use crate::package::{Checksum, DescriptorFacts, OnboardingState, VnfPackage};

    fn packages() -> Vec<VnfPackage> {
        let mut created = VnfPackage::new(Uuid::new_v4(), Map::new(), Utc::now());
        created.user_defined_data = json!({"z": 1, "a": {"y": [1, {"b": 2, "a": 1}]}})
            .as_object()
            .cloned()
            .unwrap_or_default();
        let mut failed = created.clone();
        failed.onboarding_failure_details = Some(ProblemDetails::new(422, "no TOSCA-Metadata"));
        let mut onboarded = created.clone();
        onboarded.onboarding_state = OnboardingState::Onboarded;
        onboarded.descriptor = Some(DescriptorFacts {
            vnfd_id: "vnfd-1".into(),
            provider: "Company".into(),
            product_name: "Sample \"VNF\"".into(),
            software_version: "1.0".into(),
            vnfd_version: "1.0".into(),
        });
        onboarded.checksum = Some(Checksum {
            algorithm: "SHA-256".into(),
            hash: "ab".into(),
        });
        onboarded.software_images =
            vec![json!({"id": "VDU1", "checksum": {"hash": "x", "algorithm": "y"}})];
        onboarded.additional_artifacts = vec![json!({"artifactPath": "Files/a.sh"})];
        vec![created, failed, onboarded]
    }

    #[test]
    fn the_bytes_written_at_once_are_the_bytes_of_the_value() {
        let lean = |a: &str| a == "userDefinedData" || a == "softwareImages";
        for p in packages() {
            for left_out in [&(|_: &str| false) as &dyn Fn(&str) -> bool, &lean] {
                let info = p.info("http://h/vnfpkgm/v1", left_out);
                let written = serde_json::to_string(&info).unwrap();
                let value = serde_json::to_string(&info.to_value()).unwrap();
                assert_eq!(written, value);
            }
        }
    }

    #[test]
    fn what_is_left_out_is_not_rendered_and_the_rest_is() {
        let p = packages().pop().unwrap();
        let all = p.info("http://h", |_| false).to_value();
        let lean = p.info("http://h", |a| a != "checksum").to_value();
        for a in ["softwareImages", "additionalArtifacts", "userDefinedData"] {
            assert!(all.get(a).is_some() && lean.get(a).is_none(), "{a}");
        }
        assert_eq!(lean["checksum"], all["checksum"]);
        assert_eq!(
            all["_links"]["vnfd"]["href"],
            format!("http://h/vnf_packages/{}/vnfd", p.id)
        );
    }
}
