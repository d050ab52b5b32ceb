//! Typed LCM requests (SOL003 v3.3.1 bodies, the `/vnflcm/v2` form), parsed once at the
//! API and read by the engine, the grant, `plan` and the drivers. Other API versions map
//! their bodies onto these types. Checks that need no I/O live here and answer the texts
//! the API has always answered (400 for a malformed request, 422 where noted).

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

use super::ApiVersion;

use super::cnf::{CnfParams, DEF_FILES};
use super::instance::VnfInstance;
use super::op::LcmOperation;
use crate::failure::Failure;
use crate::vnfd::{Flavour, PackageModel};

type Object = Map<String, Value>;

use crate::vim::connection::{VimConnectionInfo, VimConnections};

/// A merge patch of `vimConnectionInfo`, by id.
pub type VimConnectionsPatch = BTreeMap<String, Option<VimConnectionInfo>>;

fn bad(m: impl Into<String>) -> Failure {
    Failure::bad_request(m)
}

/// Reads `body` into `T` once the hand-written checks passed (they give the precise
/// texts; this catches what they do not look at, e.g. unknown fields).
fn typed<'a, T: Deserialize<'a>>(body: &'a Value) -> Result<T, Failure> {
    T::deserialize(body).map_err(|e| bad(format!("invalid request body: {e}")))
}

fn object(body: &Value) -> Result<&Object, Failure> {
    body.as_object()
        .ok_or_else(|| bad("the request body must be a JSON object"))
}

fn optional_objects(body: &Object, keys: &[&str]) -> Result<(), Failure> {
    for k in keys {
        if body.get(*k).is_some_and(|v| !v.is_object()) {
            return Err(bad(format!("{k} must be an object")));
        }
    }
    Ok(())
}

/// Checks each `vimConnectionInfo` entry names its `vimType`.
pub fn check_vim_connection_info(v: &Object) -> Result<(), Failure> {
    for (id, vim) in v {
        if vim
            .get("vimType")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            return Err(bad(format!("vimConnectionInfo.{id}.vimType is required")));
        }
    }
    Ok(())
}

/// Checks `vimConnectionInfo` in the form of `api`: v2 wants an object by id; Tacker's
/// v1 a list of entries that carry their `id` (an object as v2's is read too).
fn vim_connection_info(body: &Object, api: ApiVersion) -> Result<(), Failure> {
    match body.get("vimConnectionInfo") {
        None => Ok(()),
        Some(Value::Object(v)) => check_vim_connection_info(v),
        Some(Value::Array(list)) if api == ApiVersion::V1 => {
            for (n, e) in list.iter().enumerate() {
                let e = e
                    .as_object()
                    .ok_or_else(|| bad("vimConnectionInfo must hold objects"))?;
                if e.get("vimType")
                    .and_then(Value::as_str)
                    .is_none_or(str::is_empty)
                {
                    return Err(bad(format!(
                        "vimConnectionInfo.{}.vimType is required",
                        v1_id(e, n)
                    )));
                }
            }
            Ok(())
        }
        Some(_) if api == ApiVersion::V1 => Err(bad("vimConnectionInfo must be a list")),
        Some(_) => Err(bad("vimConnectionInfo must be an object")),
    }
}

/// The id of the `n`th entry of a v1 `vimConnectionInfo` list.
fn v1_id(e: &Object, n: usize) -> String {
    e.get("id")
        .and_then(Value::as_str)
        .map_or_else(|| format!("vim{n}"), str::to_owned)
}

/// `vimConnectionInfo` by id, from v2's object or v1's list (each entry's `id` is its
/// key; the form was checked for the request's API version before).
fn connections<'de, D, T>(d: D) -> Result<Option<BTreeMap<String, T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct Form<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Form<T> {
        type Value = Option<BTreeMap<String, T>>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a map")
        }
        fn visit_none<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<S: Deserializer<'de>>(self, d: S) -> Result<Self::Value, S::Error> {
            d.deserialize_any(self)
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, a: A) -> Result<Self::Value, A::Error> {
            BTreeMap::deserialize(serde::de::value::MapAccessDeserializer::new(a)).map(Some)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut a: A,
        ) -> Result<Self::Value, A::Error> {
            let mut by_id = BTreeMap::new();
            while let Some(mut e) = a.next_element::<Object>()? {
                let id = v1_id(&e, by_id.len());
                e.remove("id");
                let entry = T::deserialize(Value::Object(e)).map_err(serde::de::Error::custom)?;
                by_id.insert(id, entry);
            }
            Ok(Some(by_id))
        }
    }
    d.deserialize_option(Form(std::marker::PhantomData))
}

/// `null` and absent both read as "not given" (a merge patch's `null` is handled by
/// the fields that need it).
fn nullable_map<'de, D: Deserializer<'de>>(d: D) -> Result<Object, D::Error> {
    Ok(Option::<Object>::deserialize(d)?.unwrap_or_default())
}

/// A merge-patch field: absent (`None`), `null` (`Some(None)`) or a value.
fn patch_field<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Ok(Some(Option::<T>::deserialize(d)?))
}

/// `InstantiateVnfRequest`.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct InstantiateRequest {
    /// The deployment flavour.
    pub flavour_id: String,
    /// The instantiation level (else the flavour's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instantiation_level_id: Option<String>,
    /// Target scale levels instead of a level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_scale_level_info: Option<Vec<Value>>,
    /// External virtual links.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ext_virtual_links: Vec<Value>,
    /// Externally managed internal virtual links.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ext_managed_virtual_links: Vec<Value>,
    /// VIM connections by id (credentials included).
    #[serde(
        default,
        deserialize_with = "connections",
        skip_serializing_if = "Option::is_none"
    )]
    pub vim_connection_info: Option<VimConnections>,
    /// Localization language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub localization_language: Option<String>,
    /// `additionalParams` (driver parameters such as `lcm-kubernetes-def-files`).
    #[serde(
        default,
        deserialize_with = "nullable_map",
        skip_serializing_if = "Map::is_empty"
    )]
    pub additional_params: Object,
    /// `extensions`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Object>,
    /// `vnfConfigurableProperties`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vnf_configurable_properties: Option<Object>,
}

impl InstantiateRequest {
    /// Reads and checks a request body.
    pub fn parse(body: &Value, api: ApiVersion) -> Result<Self, Failure> {
        let b = object(body)?;
        match b.get("flavourId") {
            Some(Value::String(_)) => {}
            Some(_) => return Err(bad("flavourId must be a string")),
            None => return Err(bad("flavourId is required")),
        }
        if b.get("instantiationLevelId")
            .is_some_and(|l| !l.is_string())
        {
            return Err(bad("instantiationLevelId must be a string"));
        }
        vim_connection_info(b, api)?;
        optional_objects(
            b,
            &[
                "additionalParams",
                "extensions",
                "vnfConfigurableProperties",
            ],
        )?;
        let r: Self = typed(body)?;
        r.cnf()?;
        Ok(r)
    }

    /// Checks the request against the package: the flavour, the level, and that
    /// `lcm-kubernetes-def-files` are artifacts of the package.
    pub fn check(&self, model: &PackageModel) -> Result<(), Failure> {
        let f = flavour(model, &self.flavour_id)?;
        if let Some(level) = &self.instantiation_level_id
            && !f.instantiation_levels.iter().any(|l| l.id == *level)
        {
            return Err(bad(format!(
                "instantiationLevelId {level:?} is not in flavour {:?}",
                self.flavour_id
            )));
        }
        self.check_user_data(model)?;
        let cnf = self.cnf()?;
        for file in cnf.def_files.iter().flatten() {
            if !model.has_artifact(file) {
                return Err(bad(format!(
                    "{DEF_FILES}: {file:?} is not an artifact of the VNF package"
                )));
            }
        }
        self.check_helm(model, f, &cnf)
    }

    /// Helm VIMs: `helm_chart_path` names a chart archive or directory of the package,
    /// `helm_value_names` names VDUs of the flavour.
    fn check_helm(
        &self,
        model: &PackageModel,
        f: &Flavour,
        cnf: &CnfParams,
    ) -> Result<(), Failure> {
        let helm = self
            .vim_connection_info
            .iter()
            .flatten()
            .any(|(_, v)| v.vim_type.as_deref() == Some(super::vim_type::HELM));
        let Some(chart) = &cnf.helm_chart_path else {
            if helm {
                return Err(bad(
                    "additionalParams.helm_chart_path (the package's Helm chart) is required for ETSINFV.HELM.V_3",
                ));
            }
            return Ok(());
        };
        if !model.has_chart(chart) {
            return Err(bad(format!(
                "additionalParams.helm_chart_path: {chart:?} is not a chart archive or directory of the VNF package"
            )));
        }
        if let Some(vdu) = cnf
            .helm_value_names
            .keys()
            .find(|k| !f.vdus.iter().any(|v| v.id == **k))
        {
            return Err(bad(format!(
                "additionalParams.helm_value_names: {vdu} is not a VDU of flavour {:?}",
                self.flavour_id
            )));
        }
        Ok(())
    }

    /// Tacker's `lcm-operation-user-data` (a Python file in the package) and
    /// `-class`: we run no package code, so the file must be in the package and the class
    /// one whose mapping is built in (422 otherwise).
    fn check_user_data(&self, model: &PackageModel) -> Result<(), Failure> {
        const FILE: &str = "lcm-operation-user-data";
        const CLASS: &str = "lcm-operation-user-data-class";
        let p = &self.additional_params;
        let (file, class) = match (p.get(FILE), p.get(CLASS)) {
            (None, None) => return Ok(()),
            (Some(Value::String(f)), Some(Value::String(c))) => (f, c),
            (Some(_), Some(_)) => {
                return Err(bad(format!(
                    "additionalParams.{FILE} and {CLASS} must be strings"
                )));
            }
            _ => {
                return Err(bad(format!(
                    "additionalParams.{FILE} and {CLASS} go together"
                )));
            }
        };
        let path = file.trim_start_matches("./");
        if !model.entries.contains_key(path) {
            return Err(Failure::unprocessable(format!(
                "additionalParams.{FILE}: {file:?} is not a file of the VNF package"
            )));
        }
        if !USER_DATA_CLASSES.contains(&class.as_str()) {
            return Err(Failure::unprocessable(format!(
                "additionalParams.{CLASS}: {class:?} is not a user-data class with a built-in mapping \
                 (package code is never run); known: {}",
                USER_DATA_CLASSES.join(", ")
            )));
        }
        Ok(())
    }

    /// Its CNF parameters (checked when it was parsed).
    pub fn cnf(&self) -> Result<CnfParams, Failure> {
        CnfParams::of(&self.additional_params)
    }
}

/// Tacker's sample user-data classes whose `nfv` mapping is built in (the OpenStack
/// driver emits both their keys and the v2 ones).
pub const USER_DATA_CLASSES: [&str; 4] = [
    "DefaultUserData",
    "StandardUserData",
    "SampleUserData",
    "KubernetesClusterUserData",
];

/// 422 for `extManagedVirtualLinks` in a request of `operation` after instantiation: the
/// VNF keeps the networks its internal virtual links were instantiated on (refused rather
/// than ignored).
pub fn keeps_managed_links(links: &[Value], operation: &str) -> Result<(), Failure> {
    if links.is_empty() {
        return Ok(());
    }
    Err(Failure::unprocessable(format!(
        "extManagedVirtualLinks in a {operation} request are not supported: the VNF keeps \
         the networks its internal virtual links were instantiated on"
    )))
}

/// 400 unless every id of `vnfcInstanceId` is a VNFC (`vnfcInfo` id) of `instance`.
pub fn check_vnfcs(ids: &[String], instance: &VnfInstance) -> Result<(), Failure> {
    match ids.iter().find(|id| instance.vnfc(id).is_none()) {
        Some(id) => Err(bad(format!(
            "vnfcInstanceId {id:?} is not a VNFC of instance {}",
            instance.id
        ))),
        None => Ok(()),
    }
}

/// The flavour `id` of the package's VNFD.
pub fn flavour<'a>(m: &'a PackageModel, id: &str) -> Result<&'a Flavour, Failure> {
    m.vnfd.flavour(id).ok_or_else(|| {
        let known: Vec<&str> = m.vnfd.flavours.iter().map(|f| f.id.as_str()).collect();
        bad(format!(
            "flavourId {id:?} is not in the VNFD (it has {known:?})"
        ))
    })
}

/// `terminationType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TerminationType {
    /// Delete at once.
    #[serde(rename = "FORCEFUL")]
    Forceful,
    /// Give the VNF `gracefulTerminationTimeout` to stop.
    #[serde(rename = "GRACEFUL")]
    Graceful,
}

/// `TerminateVnfRequest`.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TerminateRequest {
    /// FORCEFUL or GRACEFUL.
    pub termination_type: TerminationType,
    /// Seconds a GRACEFUL termination waits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graceful_termination_timeout: Option<u64>,
    /// `additionalParams`.
    #[serde(
        default,
        deserialize_with = "nullable_map",
        skip_serializing_if = "Map::is_empty"
    )]
    pub additional_params: Object,
}

impl TerminateRequest {
    /// Reads and checks a request body.
    pub fn parse(body: &Value) -> Result<Self, Failure> {
        let b = object(body)?;
        match b.get("terminationType").and_then(Value::as_str) {
            Some("FORCEFUL" | "GRACEFUL") => {}
            Some(other) => {
                return Err(bad(format!(
                    "terminationType {other:?} must be FORCEFUL or GRACEFUL"
                )));
            }
            None => return Err(bad("terminationType is required")),
        }
        if b.get("gracefulTerminationTimeout")
            .is_some_and(|v| !v.is_u64())
        {
            return Err(bad(
                "gracefulTerminationTimeout must be a number of seconds",
            ));
        }
        optional_objects(b, &["additionalParams"])?;
        typed(body)
    }

    /// The grace period in seconds: none for FORCEFUL, the timeout (if any) for GRACEFUL.
    pub fn grace_seconds(&self) -> Option<u64> {
        match self.termination_type {
            TerminationType::Forceful => Some(0),
            TerminationType::Graceful => self.graceful_termination_timeout,
        }
    }
}

/// `type` of a scale request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ScaleType {
    /// Add instances.
    #[serde(rename = "SCALE_OUT")]
    ScaleOut,
    /// Remove instances.
    #[serde(rename = "SCALE_IN")]
    ScaleIn,
}

fn one() -> u32 {
    1
}

/// `ScaleVnfRequest`.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ScaleRequest {
    /// SCALE_OUT or SCALE_IN.
    #[serde(rename = "type")]
    pub kind: ScaleType,
    /// The aspect.
    pub aspect_id: String,
    /// Steps (1 when not given).
    #[serde(default = "one")]
    pub number_of_steps: u32,
    /// `additionalParams`.
    #[serde(
        default,
        deserialize_with = "nullable_map",
        skip_serializing_if = "Map::is_empty"
    )]
    pub additional_params: Object,
}

impl ScaleRequest {
    /// Reads and checks a request body.
    pub fn parse(body: &Value) -> Result<Self, Failure> {
        let b = object(body)?;
        match b.get("type").and_then(Value::as_str) {
            Some("SCALE_OUT" | "SCALE_IN") => {}
            Some(other) => {
                return Err(bad(format!("type {other:?} must be SCALE_OUT or SCALE_IN")));
            }
            None => return Err(bad("type is required")),
        }
        if !b.get("aspectId").is_some_and(Value::is_string) {
            return Err(bad("aspectId is required"));
        }
        if let Some(n) = b.get("numberOfSteps")
            && n.as_u64().is_none_or(|n| n == 0 || n > u64::from(u32::MAX))
        {
            return Err(bad("numberOfSteps must be a positive integer"));
        }
        optional_objects(b, &["additionalParams"])?;
        typed(body)
    }

    /// Whether it adds instances.
    pub fn is_out(&self) -> bool {
        self.kind == ScaleType::ScaleOut
    }

    /// Checks the aspect exists in the flavour.
    pub fn check(&self, flavour: &Flavour) -> Result<(), Failure> {
        if !flavour
            .scaling_aspects
            .iter()
            .any(|a| a.id == self.aspect_id)
        {
            return Err(bad(format!(
                "aspectId {:?} is not a scaling aspect of flavour {:?}",
                self.aspect_id, flavour.id
            )));
        }
        Ok(())
    }
}

/// `HealVnfRequest` (SOL002 with `vnfcInstanceId`, SOL003 without).
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct HealRequest {
    /// The VNFCs to heal (`vnfcInfo` ids); empty: the whole VNF.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vnfc_instance_id: Vec<String>,
    /// Why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
    /// `additionalParams` (`all`: also heal storage).
    #[serde(
        default,
        deserialize_with = "nullable_map",
        skip_serializing_if = "Map::is_empty"
    )]
    pub additional_params: Object,
    /// `healScript`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heal_script: Option<String>,
}

impl HealRequest {
    /// Reads and checks a request body.
    pub fn parse(body: &Value) -> Result<Self, Failure> {
        let b = object(body)?;
        if let Some(ids) = b.get("vnfcInstanceId") {
            let ids = ids
                .as_array()
                .ok_or_else(|| bad("vnfcInstanceId must be an array"))?;
            if ids.iter().any(|i| !i.is_string()) {
                return Err(bad("vnfcInstanceId must hold strings"));
            }
        }
        optional_objects(b, &["additionalParams"])?;
        if let Some(all) = body.pointer("/additionalParams/all")
            && !all.is_boolean()
        {
            return Err(bad("additionalParams.all must be a boolean"));
        }
        if b.get("cause").is_some_and(|c| !c.is_string()) {
            return Err(bad("cause must be a string"));
        }
        typed(body)
    }

    /// Checks every named VNFC is one of the instance's.
    pub fn check(&self, instance: &VnfInstance) -> Result<(), Failure> {
        check_vnfcs(&self.vnfc_instance_id, instance)
    }

    /// Whether the whole VNF is healed (SOL003) rather than named VNFCs (SOL002).
    pub fn is_whole_vnf(&self) -> bool {
        self.vnfc_instance_id.is_empty()
    }

    /// `additionalParams.all`: heal storage too.
    pub fn all(&self) -> bool {
        self.additional_params
            .get("all")
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }
}

/// `ChangeExtVnfConnectivityRequest`.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ChangeExtConnRequest {
    /// The external virtual links after the change.
    pub ext_virtual_links: Vec<Value>,
    /// VIM connections to add or change.
    #[serde(
        default,
        deserialize_with = "connections",
        skip_serializing_if = "Option::is_none"
    )]
    pub vim_connection_info: Option<VimConnections>,
    /// `additionalParams`.
    #[serde(
        default,
        deserialize_with = "nullable_map",
        skip_serializing_if = "Map::is_empty"
    )]
    pub additional_params: Object,
}

impl ChangeExtConnRequest {
    /// Reads and checks a request body.
    pub fn parse(body: &Value, api: ApiVersion) -> Result<Self, Failure> {
        let b = object(body)?;
        if !b.get("extVirtualLinks").is_some_and(Value::is_array) {
            return Err(bad("extVirtualLinks (an array) is required"));
        }
        vim_connection_info(b, api)?;
        optional_objects(b, &["additionalParams"])?;
        typed(body)
    }
}

/// `ChangeCurrentVnfPkgRequest` (SOL003 v3.3.1; Tacker's RollingUpdate for CNFs).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ChangeVnfpkgRequest {
    /// The VNFD of the package to move to.
    pub vnfd_id: String,
    /// External virtual links.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ext_virtual_links: Vec<Value>,
    /// Externally managed internal virtual links.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ext_managed_virtual_links: Vec<Value>,
    /// VIM connections to add or change.
    #[serde(
        default,
        deserialize_with = "connections",
        skip_serializing_if = "Option::is_none"
    )]
    pub vim_connection_info: Option<VimConnections>,
    /// `additionalParams`: `upgrade_type` (`RollingUpdate`), `lcm-kubernetes-def-files`
    /// of the new package, `namespace` (unchanged), `vdu_params`.
    #[serde(
        default,
        deserialize_with = "nullable_map",
        skip_serializing_if = "Map::is_empty"
    )]
    pub additional_params: Object,
    /// `extensions`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Object>,
    /// `vnfConfigurableProperties`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vnf_configurable_properties: Option<Object>,
}

impl ChangeVnfpkgRequest {
    /// Reads and checks a request body.
    pub fn parse(body: &Value, api: ApiVersion) -> Result<Self, Failure> {
        let b = object(body)?;
        match b.get("vnfdId") {
            Some(Value::String(s)) if !s.is_empty() => {}
            Some(_) => return Err(bad("vnfdId must be a non-empty string")),
            None => return Err(bad("vnfdId is required")),
        }
        vim_connection_info(b, api)?;
        optional_objects(
            b,
            &[
                "additionalParams",
                "extensions",
                "vnfConfigurableProperties",
            ],
        )?;
        let r: Self = typed(body)?;
        let p = &r.additional_params;
        match p.get("upgrade_type") {
            Some(Value::String(t)) if t == "RollingUpdate" => {}
            Some(other) => {
                return Err(bad(format!(
                    "additionalParams.upgrade_type {other} is not supported; RollingUpdate is"
                )));
            }
            None => {
                return Err(bad(
                    "additionalParams.upgrade_type (RollingUpdate) is required",
                ));
            }
        }
        for script in [
            "lcm-operation-coordinate-old-vnf",
            "lcm-operation-coordinate-new-vnf",
        ] {
            if p.contains_key(script) {
                return Err(Failure::unprocessable(format!(
                    "additionalParams.{script} names a script in the package; package code is \
                     never run (leave it out: the rollout itself waits for the new Pods)"
                )));
            }
        }
        keeps_managed_links(&r.ext_managed_virtual_links, "change_vnfpkg")?;
        if p.get("vdu_params").is_some_and(|v| !v.is_array()) {
            return Err(bad("additionalParams.vdu_params must be an array"));
        }
        // The manifests, namespace and chart as for instantiation.
        r.cnf()?;
        Ok(r)
    }

    /// Its CNF parameters (checked when it was parsed).
    pub fn cnf(&self) -> Result<CnfParams, Failure> {
        CnfParams::of(&self.additional_params)
    }
}

/// `VnfInfoModificationRequest` (a JSON merge patch; Tacker's v2 form with `vnfdId`, and
/// SOL003's `vnfPkgId`).
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ModifyRequest {
    /// New name (`null` removes it).
    #[serde(
        default,
        deserialize_with = "patch_field",
        skip_serializing_if = "Option::is_none"
    )]
    pub vnf_instance_name: Option<Option<String>>,
    /// New description (`null` removes it).
    #[serde(
        default,
        deserialize_with = "patch_field",
        skip_serializing_if = "Option::is_none"
    )]
    pub vnf_instance_description: Option<Option<String>>,
    /// Another VNFD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vnfd_id: Option<String>,
    /// Another package.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vnf_pkg_id: Option<String>,
    /// Merged into `vnfConfigurableProperties`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vnf_configurable_properties: Option<Object>,
    /// Merged into `metadata`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Object>,
    /// Merged into `extensions`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Object>,
    /// Merged into `vimConnectionInfo` (a merge patch per entry).
    #[serde(
        default,
        deserialize_with = "connections",
        skip_serializing_if = "Option::is_none"
    )]
    pub vim_connection_info: Option<VimConnectionsPatch>,
    /// Changes to `vnfcInfo[].vnfcConfigurableProperties`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vnfc_info_modifications: Option<Vec<Value>>,
}

impl ModifyRequest {
    /// Reads and checks a request body in the form of `api`.
    pub fn parse(body: &Value, api: ApiVersion) -> Result<Self, Failure> {
        match body.get("vimConnectionInfo") {
            Some(Value::Object(v)) => check_vim_connection_info(v)?,
            Some(Value::Array(_)) if api == ApiVersion::V1 => {
                vim_connection_info(object(body)?, api)?;
            }
            _ => {}
        }
        typed(body)
    }

    /// The vnfdId the instance moves to, if the request changes it.
    pub fn new_vnfd<'a>(&'a self, instance: &VnfInstance) -> Option<&'a str> {
        self.vnfd_id.as_deref().filter(|v| *v != instance.vnfd_id)
    }

    /// Checks `vnfcInfoModifications` against the instance: each names one of its
    /// `vnfcInfo` ids and carries `vnfcConfigurableProperties` (an object).
    pub fn check(&self, instance: &VnfInstance) -> Result<(), Failure> {
        let ids: Vec<&str> = instance
            .instantiated_vnf_info
            .iter()
            .flat_map(|i| i.vnfc_info.iter().map(|c| c.id.as_str()))
            .collect();
        for m in self.vnfc_info_modifications.iter().flatten() {
            let id = m.get("id").and_then(Value::as_str).ok_or_else(|| {
                bad("vnfcInfoModifications: each entry needs an id (a vnfcInfo id)")
            })?;
            if !ids.contains(&id) {
                return Err(Failure::unprocessable(format!(
                    "vnfcInfoModifications: {id} is not a vnfcInfo id of this instance"
                )));
            }
            if !m
                .get("vnfcConfigurableProperties")
                .is_some_and(Value::is_object)
            {
                return Err(bad(
                    "vnfcInfoModifications: each entry needs vnfcConfigurableProperties (an object)",
                ));
            }
        }
        Ok(())
    }
}

/// Reads `vnfcInstanceId` as `vnfcResourceInfo` ids (Tacker's v1) and names the same
/// VNFCs by their `vnfcInfo` ids.
fn vnfc_info_ids(ids: &mut [String], instance: &VnfInstance) -> Result<(), Failure> {
    let info = instance.instantiated_vnf_info.as_ref();
    for id in ids {
        let c = info
            .and_then(|i| i.vnfc_info.iter().find(|c| c.vnfc_resource_info_id == *id))
            .ok_or_else(|| {
                bad(format!(
                    "vnfcInstanceId {id:?} is not a VNFC resource of instance {}",
                    instance.id
                ))
            })?;
        id.clone_from(&c.id);
    }
    Ok(())
}

/// A typed request, one variant per operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "operation",
    content = "request",
    rename_all = "SCREAMING_SNAKE_CASE"
)]
pub enum OperationParams {
    /// INSTANTIATE.
    Instantiate(InstantiateRequest),
    /// TERMINATE.
    Terminate(TerminateRequest),
    /// SCALE.
    Scale(ScaleRequest),
    /// HEAL.
    Heal(HealRequest),
    /// CHANGE_EXT_CONN.
    ChangeExtConn(ChangeExtConnRequest),
    /// MODIFY_INFO.
    ModifyInfo(ModifyRequest),
    /// CHANGE_VNFPKG.
    ChangeVnfpkg(ChangeVnfpkgRequest),
    /// SCALE_TO_LEVEL.
    ScaleToLevel(super::scale_to_level::ScaleToLevelRequest),
    /// OPERATE.
    Operate(super::operate::OperateRequest),
    /// CHANGE_FLAVOUR.
    ChangeFlavour(super::change_flavour::ChangeFlavourRequest),
}

impl OperationParams {
    /// Reads the (v2) body of an `operation` request.
    pub fn parse(operation: LcmOperation, body: &Value) -> Result<Self, Failure> {
        Self::parse_in(operation, ApiVersion::V2, body)
    }

    /// Reads the body of an `operation` request on `instance` as API version `api` sends
    /// it: Tacker's v1 gives `vimConnectionInfo` as a list and heals `vnfcResourceInfo`
    /// ids, which name the same VNFCs as the `vnfcInfo` ids v2 uses.
    pub fn parse_for(
        operation: LcmOperation,
        api: ApiVersion,
        body: &Value,
        instance: &VnfInstance,
    ) -> Result<Self, Failure> {
        let mut r = Self::parse_in(operation, api, body)?;
        match (api, &mut r) {
            (ApiVersion::V1, Self::Heal(h)) => vnfc_info_ids(&mut h.vnfc_instance_id, instance)?,
            (ApiVersion::V1, Self::Operate(o)) => {
                vnfc_info_ids(&mut o.vnfc_instance_id, instance)?;
            }
            _ => {}
        }
        Ok(r)
    }

    /// Reads the body of an `operation` request as API version `api` sends it, without
    /// what needs the instance as it is now (v1's VNFC ids): a request of the past.
    pub fn parse_in(
        operation: LcmOperation,
        api: ApiVersion,
        body: &Value,
    ) -> Result<Self, Failure> {
        use super::scale_to_level::ScaleToLevelRequest;
        Ok(match operation {
            LcmOperation::Instantiate => Self::Instantiate(InstantiateRequest::parse(body, api)?),
            LcmOperation::Terminate => Self::Terminate(TerminateRequest::parse(body)?),
            LcmOperation::Scale => Self::Scale(ScaleRequest::parse(body)?),
            LcmOperation::Heal => Self::Heal(HealRequest::parse(body)?),
            LcmOperation::ChangeExtConn => {
                Self::ChangeExtConn(ChangeExtConnRequest::parse(body, api)?)
            }
            LcmOperation::ModifyInfo => Self::ModifyInfo(ModifyRequest::parse(body, api)?),
            LcmOperation::ChangeVnfpkg => {
                Self::ChangeVnfpkg(ChangeVnfpkgRequest::parse(body, api)?)
            }
            LcmOperation::ScaleToLevel => Self::ScaleToLevel(ScaleToLevelRequest::parse(body)?),
            LcmOperation::Operate => Self::Operate(super::operate::OperateRequest::parse(body)?),
            LcmOperation::ChangeFlavour => {
                Self::ChangeFlavour(super::change_flavour::ChangeFlavourRequest::parse(body)?)
            }
            other => {
                return Err(Failure::unprocessable(format!("{other} is not supported")));
            }
        })
    }

    /// The operation it requests.
    pub fn operation(&self) -> LcmOperation {
        match self {
            Self::Instantiate(_) => LcmOperation::Instantiate,
            Self::Terminate(_) => LcmOperation::Terminate,
            Self::Scale(_) => LcmOperation::Scale,
            Self::Heal(_) => LcmOperation::Heal,
            Self::ChangeExtConn(_) => LcmOperation::ChangeExtConn,
            Self::ModifyInfo(_) => LcmOperation::ModifyInfo,
            Self::ChangeVnfpkg(_) => LcmOperation::ChangeVnfpkg,
            Self::ScaleToLevel(_) => LcmOperation::ScaleToLevel,
            Self::Operate(_) => LcmOperation::Operate,
            Self::ChangeFlavour(_) => LcmOperation::ChangeFlavour,
        }
    }

    /// The VIM connections the request itself brings (instantiate, change_ext_conn,
    /// change_vnfpkg; a modification's are a patch).
    pub fn vim_connections(&self) -> Option<&VimConnections> {
        match self {
            Self::Instantiate(r) => r.vim_connection_info.as_ref(),
            Self::ChangeExtConn(r) => r.vim_connection_info.as_ref(),
            Self::ChangeVnfpkg(r) => r.vim_connection_info.as_ref(),
            _ => None,
        }
    }

    /// `additionalParams` (empty for MODIFY_INFO).
    pub fn additional_params(&self) -> &Object {
        static EMPTY: std::sync::OnceLock<Object> = std::sync::OnceLock::new();
        match self {
            Self::Instantiate(r) => &r.additional_params,
            Self::Terminate(r) => &r.additional_params,
            Self::Scale(r) => &r.additional_params,
            Self::Heal(r) => &r.additional_params,
            Self::ChangeExtConn(r) => &r.additional_params,
            Self::ChangeVnfpkg(r) => &r.additional_params,
            Self::ScaleToLevel(r) => &r.additional_params,
            Self::Operate(r) => &r.additional_params,
            Self::ChangeFlavour(r) => &r.additional_params,
            Self::ModifyInfo(_) => EMPTY.get_or_init(Object::new),
        }
    }

    /// Whether it is a SCALE_OUT.
    pub fn is_scale_out(&self) -> bool {
        matches!(self, Self::Scale(s) if s.is_out())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn err(r: Result<OperationParams, Failure>) -> String {
        r.expect_err("refused").detail
    }

    #[test]
    fn requests_parse_into_their_types() {
        let p = OperationParams::parse(
            LcmOperation::Scale,
            &json!({"type": "SCALE_IN", "aspectId": "a"}),
        )
        .unwrap();
        let OperationParams::Scale(s) = &p else {
            panic!("{p:?}")
        };
        assert_eq!((s.kind, s.number_of_steps), (ScaleType::ScaleIn, 1));
        assert!(!p.is_scale_out());
        let t = TerminateRequest::parse(
            &json!({"terminationType": "GRACEFUL", "gracefulTerminationTimeout": 7}),
        )
        .unwrap();
        assert_eq!(t.grace_seconds(), Some(7));
        let i = InstantiateRequest::parse(
            &json!({"flavourId": "simple",
            "additionalParams": {"lcm-kubernetes-def-files": ["a.yaml"], "namespace": "ns-1"}}),
            ApiVersion::V2,
        )
        .unwrap();
        assert_eq!(i.cnf().unwrap().def_files, Some(vec!["a.yaml".to_owned()]));
        let m = ModifyRequest::parse(&json!({"vnfInstanceName": null}), ApiVersion::V2).unwrap();
        assert_eq!(m.vnf_instance_name, Some(None));
        assert_eq!(
            ModifyRequest::parse(&json!({}), ApiVersion::V2)
                .unwrap()
                .vnf_instance_name,
            None
        );
        // The typed form round-trips (it is what the engine reads back).
        let text = serde_json::to_string(&p).unwrap();
        assert_eq!(serde_json::from_str::<OperationParams>(&text).unwrap(), p);
    }

    #[test]
    fn bad_requests_get_the_texts_the_api_answers() {
        use LcmOperation::*;
        assert_eq!(
            err(OperationParams::parse(Instantiate, &json!({}))),
            "flavourId is required"
        );
        assert!(
            err(OperationParams::parse(
                Instantiate,
                &json!({"flavourId": "f", "vimConnectionInfo": {"v": {}}})
            ))
            .contains("vimConnectionInfo.v.vimType is required")
        );
        assert!(
            err(OperationParams::parse(
                Instantiate,
                &json!({"flavourId": "f", "additionalParams": {"namespace": "Bad_NS"}})
            ))
            .contains("RFC 1123")
        );
        assert_eq!(
            err(OperationParams::parse(Terminate, &json!({}))),
            "terminationType is required"
        );
        assert!(
            err(OperationParams::parse(
                Scale,
                &json!({"type": "SCALE_UP", "aspectId": "a"})
            ))
            .contains("SCALE_OUT or SCALE_IN")
        );
        assert!(
            err(OperationParams::parse(
                Scale,
                &json!({"type": "SCALE_OUT", "aspectId": "a", "numberOfSteps": 0})
            ))
            .contains("positive integer")
        );
        assert_eq!(
            err(OperationParams::parse(
                Heal,
                &json!({"additionalParams": {"all": "yes"}})
            )),
            "additionalParams.all must be a boolean"
        );
        assert!(err(OperationParams::parse(ChangeExtConn, &json!({}))).contains("extVirtualLinks"));
        assert!(err(OperationParams::parse(Heal, &json!({"bogus": 1}))).contains("unknown field"));
        assert_eq!(
            err(OperationParams::parse(CreateSnapshot, &json!({}))),
            "CREATE_SNAPSHOT is not supported"
        );
    }
}

/// `{:?}` of a request shows it as answered: VIM credentials and secrets in
/// `additionalParams` never reach a log line.
macro_rules! debug_as_shown {
    ($($t:ty),*) => {$(
        impl std::fmt::Debug for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let shown = serde_json::to_value(self)
                    .map(|v| super::secrets::shown_params(&v))
                    .unwrap_or(Value::Null);
                write!(f, "{}{}", stringify!($t), shown)
            }
        }
    )*};
}

debug_as_shown!(
    InstantiateRequest,
    TerminateRequest,
    ScaleRequest,
    HealRequest,
    ChangeExtConnRequest,
    ChangeVnfpkgRequest,
    ModifyRequest
);
