//! The LCM operations on a Helm release. Helm installs, upgrades, rolls back and
//! uninstalls; readiness and VNFCs are observed through the Kubernetes API as for
//! manifests (the release's workloads bound to VDUs by name, their Pods found through
//! owner references).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::{Map, Value};
use tacker_domain::lcm::driver::Outcome;
use tacker_domain::lcm::{InstantiatedVnfInfo, LcmOperation, OperationParams, plan};
use tacker_domain::vnfd::Flavour;

use super::cli::Session;
use super::release::{self, Helm, Params, Recorded};
use crate::error::{Error, Result};
use crate::manifest::{self, Plan};
use crate::ops::{self, Stored, Work};
use crate::{observe, vnfc, wait};

/// One operation on one release.
pub struct Op<'w, 'a> {
    /// The operation's view of the cluster.
    pub w: &'w Work<'a>,
    /// Where helm runs.
    pub session: Session,
}

impl Op<'_, '_> {
    fn helm<'s>(&'s self, release: &'s str, namespace: &'s str) -> Helm<'s> {
        Helm {
            session: &self.session,
            release,
            namespace,
        }
    }

    fn flavour_of<'f>(&self, vnfd: &'f tacker_domain::vnfd::Vnfd) -> Result<&'f Flavour> {
        vnfd.flavour(&self.w.octx.flavour_id).ok_or_else(|| {
            Error::Manifest(format!(
                "flavour {} is not in the VNFD",
                self.w.octx.flavour_id
            ))
        })
    }

    /// The release's objects now, bound to `flavour`'s VDUs.
    async fn live_plan(&self, h: &Helm<'_>, flavour: &Flavour) -> Result<Plan> {
        let text = h.manifest().await?;
        manifest::rendered(
            &self.w.cluster,
            &format!("Helm release {}", h.release),
            &text,
            h.namespace,
            flavour,
            &self.w.settings,
        )
        .await
    }

    /// Renders `chart` with `values` and checks it (policy, VDUs) before anything is
    /// created, then installs or upgrades and waits until everything is ready.
    async fn apply(
        &self,
        h: &Helm<'_>,
        chart: &Path,
        values: &Value,
        flavour: &Flavour,
    ) -> Result<Plan> {
        let text = h.template(chart, values).await?;
        manifest::rendered(
            &self.w.cluster,
            &format!(
                "the chart {}",
                chart.file_name().unwrap_or_default().to_string_lossy()
            ),
            &text,
            h.namespace,
            flavour,
            &self.w.settings,
        )
        .await?;
        tracing::info!(instance = %self.w.instance, release = %h.release, namespace = %h.namespace, "helm upgrade --install");
        h.apply(chart, values).await?;
        let live = self.live_plan(h, flavour).await?;
        ops::wait_ready(self.w, &live).await?;
        Ok(live)
    }

    async fn revision(&self, h: &Helm<'_>) -> Result<u64> {
        h.revision()
            .await?
            .ok_or_else(|| Error::Helm(format!("release {} disappeared", h.release)))
    }

    fn recorded(&self) -> Result<(Recorded, InstantiatedVnfInfo)> {
        let info = self
            .w
            .octx
            .instance
            .instantiated_vnf_info
            .clone()
            .ok_or_else(|| Error::Invalid("the VNF instance is not instantiated".into()))?;
        let meta = info.other.get("metadata").cloned().unwrap_or(Value::Null);
        Ok((Recorded::of(&meta)?, info))
    }

    fn stored(rec: &Recorded, info: &InstantiatedVnfInfo) -> Stored {
        Stored {
            info: info.clone(),
            namespace: rec.namespace.clone(),
            files: Vec::new(),
            vdus: rec.vdus.clone(),
        }
    }

    async fn pods(
        &self,
        ns: &str,
        plan_vdus: &[manifest::VduResource],
    ) -> Result<Vec<observe::VnfcPod>> {
        observe::vnfc_pods(&self.w.cluster, ns, &self.w.selector, plan_vdus).await
    }

    fn finish(info: InstantiatedVnfInfo, rec: &Recorded, r: vnfc::Reconciled) -> Outcome {
        let mut info = info;
        info.vnfc_resource_info = r.resources;
        info.vnfc_info = r.infos;
        info.other.insert("metadata".to_owned(), rec.to_json());
        Outcome {
            instantiated_vnf_info: Some(info),
            resource_changes: Map::from_iter([(
                "affectedVnfcs".to_owned(),
                Value::Array(r.affected),
            )]),
        }
    }

    fn instantiate_params(
        &self,
    ) -> Result<(Params, &tacker_domain::lcm::request::InstantiateRequest)> {
        let req = ops::instantiate::request(self.w)?;
        Ok((Params::parse(&req.additional_params, None)?, req))
    }

    pub async fn instantiate(&self) -> Result<Outcome> {
        let (p, req) = self.instantiate_params()?;
        let flavour = self.w.flavour()?;
        let level = plan::level(flavour, req);
        let counts: Vec<(String, i64)> = plan::initial_counts(flavour, level.as_deref())
            .into_iter()
            .map(|(v, n)| (v, i64::from(n)))
            .collect();
        let ns = p.namespace.clone().unwrap_or_else(|| "default".into());
        let name = release::release_name(&self.w.instance);
        let h = self.helm(&name, &ns);
        let chart = release::chart_in(&self.w.octx.package_dir, &p.chart)?;
        let values = release::with_replicas(p.values.clone(), &p.names, &counts)?;
        let live = self.apply(&h, &chart, &values, flavour).await?;
        let rec = Recorded {
            release: name.clone(),
            namespace: ns.clone(),
            chart: p.chart.clone(),
            names: p.names.clone(),
            revision: self.revision(&h).await?,
            vdus: live.vdus.clone(),
        };
        let pods = self.pods(&ns, &live.vdus).await?;
        let r = vnfc::reconcile(&[], &pods, None, &HashSet::new(), &ns, self.w.vim_id());
        let (scale_status, max_scale_levels) =
            plan::initial_scale(&self.w.octx.vnfd.vnfd_id, flavour, level.as_deref());
        let info = InstantiatedVnfInfo {
            flavour_id: self.w.octx.flavour_id.clone(),
            vnf_state: "STARTED".into(),
            scale_status,
            max_scale_levels,
            vnfc_resource_info: Vec::new(),
            vnfc_info: Vec::new(),
            other: Map::new(),
        };
        Ok(Self::finish(info, &rec, r))
    }

    /// Uninstalls the release (when there is one) and waits until its objects and the
    /// VDUs' workloads are gone.
    async fn remove(
        &self,
        name: &str,
        ns: &str,
        vdus: &[manifest::VduResource],
        flavour: &Flavour,
    ) -> Result<()> {
        let h = self.helm(name, ns);
        let objects = match h.revision().await? {
            Some(_) => self
                .live_plan(&h, flavour)
                .await
                .map(|p| p.docs)
                .unwrap_or_default(),
            None => Vec::new(),
        };
        tracing::info!(instance = %self.w.instance, release = %name, "helm uninstall");
        h.uninstall().await?;
        let mut watched: Vec<(crate::cluster::Type, String, String)> = objects
            .iter()
            .filter(|d| d.ty.persisted)
            .map(|d| (d.ty.clone(), d.kind.clone(), d.name.clone()))
            .collect();
        for v in vdus {
            if !watched.iter().any(|(_, k, n)| *k == v.kind && *n == v.name) {
                let api = if v.kind == "Pod" { "v1" } else { "apps/v1" };
                let t = self.w.cluster.resolve(api, &v.kind).await?;
                watched.push((t, v.kind.clone(), v.name.clone()));
            }
        }
        let gone = std::sync::Mutex::new(HashSet::new());
        wait::until(
            "the Helm release's resources to be deleted",
            self.w.settings.delete_timeout,
            self.w.settings.poll_interval,
            || async {
                for (i, (t, kind, n)) in watched.iter().enumerate() {
                    if gone
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .contains(&i)
                    {
                        continue;
                    }
                    if self.w.cluster.get(t, ns, n).await?.is_some() {
                        return Ok(Err(format!("{kind} {n} still exists")));
                    }
                    gone.lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .insert(i);
                }
                Ok(Ok(()))
            },
        )
        .await
    }

    /// Terminate: the release uninstalled, then the claims its StatefulSets made
    /// (Helm never owned them): nothing of the VNF stays.
    pub async fn terminate(&self) -> Result<Outcome> {
        let (rec, info) = self.recorded()?;
        let flavour = self.w.flavour()?;
        let h = self.helm(&rec.release, &rec.namespace);
        let claims = match h.revision().await? {
            Some(_) => ops::statefulset_claims(self.w, &self.live_plan(&h, flavour).await?).await?,
            None => Vec::new(),
        };
        self.remove(&rec.release, &rec.namespace, &rec.vdus, flavour)
            .await?;
        let pvc = self
            .w
            .cluster
            .resolve("v1", "PersistentVolumeClaim")
            .await?;
        let how = crate::cluster::Deletion {
            grace: None,
            foreground: true,
        };
        for (name, _) in &claims {
            self.w
                .cluster
                .delete(&pvc, &rec.namespace, name, how)
                .await?;
        }
        wait::until(
            "the StatefulSets' claims to be deleted",
            self.w.settings.delete_timeout,
            self.w.settings.poll_interval,
            || async {
                for (name, _) in &claims {
                    if self
                        .w
                        .cluster
                        .get(&pvc, &rec.namespace, name)
                        .await?
                        .is_some()
                    {
                        return Ok(Err(format!("PersistentVolumeClaim {name} still exists")));
                    }
                }
                Ok(Ok(()))
            },
        )
        .await?;
        let removed: Vec<Value> = info
            .vnfc_resource_info
            .iter()
            .map(|r| vnfc::affected(r, "REMOVED"))
            .collect();
        Ok(Outcome {
            instantiated_vnf_info: None,
            resource_changes: Map::from_iter([("affectedVnfcs".to_owned(), Value::Array(removed))]),
        })
    }

    pub async fn scale(&self) -> Result<Outcome> {
        let (mut rec, info) = self.recorded()?;
        let flavour = self.w.flavour()?;
        let OperationParams::Scale(req) = &self.w.octx.op.request else {
            return Err(Error::Invalid("not a scale request".into()));
        };
        let step = plan::scale_step(flavour, &info, req).map_err(Error::Invalid)?;
        let h = self.helm(&rec.release, &rec.namespace);
        let mut targets = Vec::new();
        for (vdu, delta) in &step.deltas {
            if release::names_of(&rec.names, vdu).replica.is_none() {
                return Err(Error::Invalid(format!(
                    "VDU {vdu} has no replica value (helm_value_names.{vdu}.replica at instantiation): it cannot scale"
                )));
            }
            let v = rec.vdus.iter().find(|v| v.vdu_id == *vdu).ok_or_else(|| {
                Error::Manifest(format!("VDU {vdu} has no workload in the release"))
            })?;
            let t = self.w.cluster.resolve("apps/v1", &v.kind).await?;
            let target = self.w.cluster.replicas(&t, &rec.namespace, &v.name).await? + delta;
            plan::check_count(flavour, vdu, target).map_err(Error::Invalid)?;
            targets.push((vdu.clone(), target));
        }
        let values = release::with_replicas(h.values().await?, &rec.names, &targets)?;
        let chart = release::chart_in(&self.w.octx.package_dir, &rec.chart)?;
        tracing::info!(instance = %self.w.instance, release = %rec.release, "helm upgrade: scaling");
        self.apply(&h, &chart, &values, flavour).await?;
        rec.revision = self.revision(&h).await?;
        let scope: HashSet<String> = targets.iter().map(|(v, _)| v.clone()).collect();
        let pods = self.pods(&rec.namespace, &rec.vdus).await?;
        let r = vnfc::reconcile(
            &info.vnfc_resource_info,
            &pods,
            Some(&scope),
            &HashSet::new(),
            &rec.namespace,
            self.w.vim_id(),
        );
        let mut info = info;
        for st in &mut info.scale_status {
            if st.aspect_id == step.aspect {
                st.scale_level = step.to_level;
            }
        }
        Ok(Self::finish(info, &rec, r))
    }

    pub async fn heal(&self) -> Result<Outcome> {
        let (mut rec, info) = self.recorded()?;
        let ids = match &self.w.octx.op.request {
            OperationParams::Heal(h) => h.vnfc_instance_id.clone(),
            _ => Vec::new(),
        };
        if !ids.is_empty() {
            // SOL002: the named VNFCs' Pods are deleted and their controllers replace
            // them, as for manifests.
            for id in &ids {
                let vdu = info
                    .vnfc_info
                    .iter()
                    .find(|c| c.id == *id)
                    .map(|c| c.vdu_id.clone());
                if let Some(v) = vdu.and_then(|vdu| rec.vdus.iter().find(|v| v.vdu_id == vdu))
                    && v.kind == "Pod"
                {
                    return Err(Error::Invalid(format!(
                        "VNFC {id} is a bare Pod of the Helm release: heal the whole VNF (no vnfcInstanceId) to re-create it"
                    )));
                }
            }
            let mut o = ops::heal::sol002(self.w, &Self::stored(&rec, &info), &ids).await?;
            if let Some(i) = o.instantiated_vnf_info.as_mut() {
                i.other.insert("metadata".to_owned(), rec.to_json());
            }
            return Ok(o);
        }
        // SOL003: uninstall and install again with the same values; the StatefulSets'
        // volumes stay (Helm never owned them).
        let flavour = self.w.flavour()?;
        let h = self.helm(&rec.release, &rec.namespace);
        let values = match h.revision().await? {
            Some(_) => h.values().await?,
            None => {
                let counts: Vec<(String, i64)> = ops::counts_of(&info)
                    .into_iter()
                    .map(|(v, n)| (v, i64::from(n)))
                    .collect();
                let p = Params::parse(&self.w.octx.instantiate_params, Some(&rec.chart))?;
                release::with_replicas(p.values, &rec.names, &counts)?
            }
        };
        tracing::info!(instance = %self.w.instance, release = %rec.release, "healing the whole VNF: reinstalling the release");
        self.remove(&rec.release, &rec.namespace, &rec.vdus, flavour)
            .await?;
        let chart = release::chart_in(&self.w.octx.package_dir, &rec.chart)?;
        let live = self.apply(&h, &chart, &values, flavour).await?;
        rec.revision = self.revision(&h).await?;
        let pods = self.pods(&rec.namespace, &live.vdus).await?;
        let recreated: HashSet<String> = info
            .vnfc_resource_info
            .iter()
            .map(|r| r.compute_resource.resource_id.clone())
            .collect();
        let r = vnfc::reconcile(
            &info.vnfc_resource_info,
            &pods,
            None,
            &recreated,
            &rec.namespace,
            self.w.vim_id(),
        );
        Ok(Self::finish(info, &rec, r))
    }

    pub async fn change_vnfpkg(&self) -> Result<Outcome> {
        let (rec, info) = self.recorded()?;
        let OperationParams::ChangeVnfpkg(req) = &self.w.octx.op.request else {
            return Err(Error::Invalid("not a package change".into()));
        };
        let target =
            self.w.octx.target.as_ref().ok_or_else(|| {
                Error::Invalid("the operation names no package to change to".into())
            })?;
        let p = Params::parse(&req.additional_params, Some(&rec.chart))?;
        if let Some(ns) = &p.namespace
            && *ns != rec.namespace
        {
            return Err(Error::Invalid(format!(
                "additionalParams.namespace must stay {} (asked: {ns})",
                rec.namespace
            )));
        }
        let names = if p.names.is_empty() {
            rec.names.clone()
        } else {
            p.names.clone()
        };
        let flavour = self.flavour_of(&target.vnfd)?;
        let h = self.helm(&rec.release, &rec.namespace);
        let counts: Vec<(String, i64)> = ops::counts_of(&info)
            .into_iter()
            .map(|(v, n)| (v, i64::from(n)))
            .collect();
        let mut values = h.values().await?;
        super::values::merge(&mut values, &p.values);
        let values = release::with_images(values, &names, flavour)?;
        let values = release::with_replicas(values, &names, &counts)?;
        let chart = release::chart_in(&target.package_dir, &p.chart)?;
        let before = self.pod_uids(&rec.namespace, &rec.vdus).await?;
        tracing::info!(instance = %self.w.instance, release = %rec.release, chart = %p.chart, "helm upgrade: changing the package");
        let live = self.apply(&h, &chart, &values, flavour).await?;
        let rec = Recorded {
            chart: p.chart.clone(),
            names,
            revision: self.revision(&h).await?,
            vdus: live.vdus.clone(),
            ..rec
        };
        self.moved(info, &rec, &before).await
    }

    async fn pod_uids(
        &self,
        ns: &str,
        vdus: &[manifest::VduResource],
    ) -> Result<HashMap<String, String>> {
        Ok(self
            .pods(ns, vdus)
            .await?
            .into_iter()
            .map(|p| (p.name, p.uid))
            .collect())
    }

    /// The instance after its workloads rolled: Pods replaced are REMOVED and ADDED,
    /// re-created under the same name MODIFIED.
    async fn moved(
        &self,
        info: InstantiatedVnfInfo,
        rec: &Recorded,
        before: &HashMap<String, String>,
    ) -> Result<Outcome> {
        let pods = self.pods(&rec.namespace, &rec.vdus).await?;
        let recreated: HashSet<String> = pods
            .iter()
            .filter(|p| before.get(&p.name).is_some_and(|uid| *uid != p.uid))
            .map(|p| p.name.clone())
            .collect();
        let r = vnfc::reconcile(
            &info.vnfc_resource_info,
            &pods,
            None,
            &recreated,
            &rec.namespace,
            self.w.vim_id(),
        );
        Ok(Self::finish(info, rec, r))
    }

    /// Rollback: a failed instantiate is uninstalled; a scale or package change goes
    /// back to the revision recorded when the last operation completed (Helm's own
    /// history), and is waited for.
    pub async fn rollback(&self) -> Result<Outcome> {
        match self.w.octx.op.operation {
            LcmOperation::Instantiate => {
                let (p, _) = self.instantiate_params()?;
                let ns = p.namespace.unwrap_or_else(|| "default".into());
                let name = release::release_name(&self.w.instance);
                self.remove(&name, &ns, &[], self.w.flavour()?).await?;
                Ok(Outcome {
                    instantiated_vnf_info: None,
                    resource_changes: Map::new(),
                })
            }
            LcmOperation::Scale | LcmOperation::ChangeVnfpkg => {
                let (rec, info) = self.recorded()?;
                let h = self.helm(&rec.release, &rec.namespace);
                let before = self.pod_uids(&rec.namespace, &rec.vdus).await?;
                h.settle().await?;
                let now = h.revision().await?;
                if now != Some(rec.revision) {
                    tracing::info!(instance = %self.w.instance, release = %rec.release, revision = rec.revision, "helm rollback");
                    h.rollback(rec.revision).await?;
                }
                let live = self.live_plan(&h, self.w.flavour()?).await?;
                ops::wait_ready(self.w, &live).await?;
                let rec = Recorded {
                    revision: self.revision(&h).await?,
                    ..rec
                };
                self.moved(info, &rec, &before).await
            }
            other => Err(Error::Invalid(format!(
                "{other} cannot be rolled back on a Helm VIM"
            ))),
        }
    }

    pub async fn sync(&self) -> Result<Option<InstantiatedVnfInfo>> {
        let (rec, info) = self.recorded()?;
        let pods = self.pods(&rec.namespace, &rec.vdus).await?;
        let r = vnfc::reconcile(
            &info.vnfc_resource_info,
            &pods,
            None,
            &HashSet::new(),
            &rec.namespace,
            self.w.vim_id(),
        );
        Ok(Self::finish(info, &rec, r).instantiated_vnf_info)
    }
}
