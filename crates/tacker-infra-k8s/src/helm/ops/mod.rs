//! The LCM operations on a Helm release, one file each. Helm installs, upgrades, rolls
//! back and uninstalls; readiness and VNFCs are observed through the Kubernetes API as
//! for manifests (the release's workloads bound to VDUs by name, their Pods found
//! through owner references).

mod change_flavour;
mod change_vnfpkg;
mod heal;
mod instantiate;
mod operate;
mod rollback;
mod scale;
mod terminate;

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::{Map, Value};
use tacker_domain::lcm::InstantiatedVnfInfo;
use tacker_domain::lcm::driver::Outcome;
use tacker_domain::vnfd::Flavour;

use super::cli::Session;
use super::release::{Helm, Params};
use crate::cluster::{Deletion, Type};
use crate::error::{Error, Result};
use crate::manifest::{self, Plan, VduResource};
use crate::ops::{self, Work};
use crate::record::HelmRecord;
use crate::{observe, vnfc, wait};

/// One operation on one release.
pub struct Op<'w, 'a> {
    /// The operation's view of the cluster.
    pub w: &'w Work<'a>,
    /// Where helm runs.
    pub session: Session,
}

/// Instances per VDU in the stored VNFC list.
fn counts(info: &InstantiatedVnfInfo) -> Vec<(String, i64)> {
    ops::counts_of(info)
        .into_iter()
        .map(|(v, n)| (v, i64::from(n)))
        .collect()
}

impl Op<'_, '_> {
    fn helm<'s>(&'s self, release: &'s str, namespace: &'s str) -> Helm<'s> {
        Helm {
            session: &self.session,
            release,
            namespace,
        }
    }

    /// The release an instantiate of this instance installs in `ns`: `vnf<id>`, or the
    /// `vnf-<id>` one begun before releases were named as Tacker names them left there
    /// (its retry upgrades that one, its rollback uninstalls that one).
    async fn instance_release(&self, ns: &str) -> Result<String> {
        let name = super::release::release_name(&self.w.instance);
        let legacy = super::release::legacy_release_name(&self.w.instance);
        if self.helm(&name, ns).revision().await?.is_none()
            && self.helm(&legacy, ns).revision().await?.is_some()
        {
            return Ok(legacy);
        }
        Ok(name)
    }

    /// What `source` rendered, bound to `flavour`'s VDUs in `h`'s namespace.
    async fn bound(
        &self,
        h: &Helm<'_>,
        source: &str,
        text: &str,
        flavour: &Flavour,
    ) -> Result<Plan> {
        manifest::rendered(
            &self.w.cluster,
            source,
            text,
            h.namespace,
            flavour,
            &self.w.settings,
        )
        .await
    }

    /// The release's objects now, bound to `flavour`'s VDUs.
    async fn live_plan(&self, h: &Helm<'_>, flavour: &Flavour) -> Result<Plan> {
        let text = h.manifest().await?;
        self.bound(h, &format!("Helm release {}", h.release), &text, flavour)
            .await
    }

    /// Renders `chart` with `values` and checks it (policy, VDUs) before anything is
    /// created, then installs or upgrades and waits until everything is ready; the
    /// release's objects and its new revision.
    async fn apply(
        &self,
        h: &Helm<'_>,
        chart: &Path,
        values: &Value,
        flavour: &Flavour,
    ) -> Result<(Plan, u64)> {
        let text = h.template(chart, values).await?;
        let source = format!(
            "the chart {}",
            chart.file_name().unwrap_or_default().to_string_lossy()
        );
        self.bound(h, &source, &text, flavour).await?;
        tracing::info!(instance = %self.w.instance, release = %h.release, namespace = %h.namespace, "helm upgrade --install");
        let applied = h.apply(chart, values).await?;
        let live = self
            .bound(
                h,
                &format!("Helm release {}", h.release),
                &applied.manifest,
                flavour,
            )
            .await?;
        ops::wait_ready(self.w, &live).await?;
        Ok((live, applied.revision))
    }

    async fn revision(&self, h: &Helm<'_>) -> Result<u64> {
        h.revision()
            .await?
            .ok_or_else(|| Error::Helm(format!("release {} disappeared", h.release)))
    }

    /// A change's Helm parameters (`additional`) over the release `rec` records: the
    /// chart defaults to the one in use, the namespace must stay, the value names are
    /// the request's or else the recorded ones.
    fn params_over(
        &self,
        additional: &Map<String, Value>,
        rec: &HelmRecord,
    ) -> Result<(Params, tacker_domain::lcm::cnf::ValueNamesByVdu)> {
        let p = Params::parse(additional, Some(&rec.chart))?;
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
        Ok((p, names))
    }

    /// The record and resources, refused while the VNF is stopped (scale, heal: start
    /// it first).
    fn recorded_running(&self) -> Result<(HelmRecord, InstantiatedVnfInfo)> {
        let (rec, info) = self.recorded()?;
        if crate::ops::operate::is_stopped(&info) {
            return Err(Error::Invalid(
                "the VNF is STOPPED: operate it to STARTED first".into(),
            ));
        }
        Ok((rec, info))
    }

    fn recorded(&self) -> Result<(HelmRecord, InstantiatedVnfInfo)> {
        let info = self
            .w
            .octx
            .instance
            .instantiated_vnf_info
            .clone()
            .ok_or_else(|| Error::Invalid("the VNF instance is not instantiated".into()))?;
        Ok((HelmRecord::of(&info)?, info))
    }

    async fn pod_uids(&self, rec: &HelmRecord) -> Result<HashMap<String, String>> {
        Ok(
            observe::vnfc_pods(&self.w.cluster, &rec.namespace, &self.w.selector, &rec.vdus)
                .await?
                .into_iter()
                .map(|p| (p.name, p.uid))
                .collect(),
        )
    }

    /// The instance as the cluster shows it now: `info`'s VNFCs of the VDUs in `scope`
    /// (all when `None`) reconciled with the Pods that run (`recreated`: Pods under a
    /// stored name that are new, reported MODIFIED), `rec` recorded.
    async fn outcome(
        &self,
        mut info: InstantiatedVnfInfo,
        rec: &HelmRecord,
        scope: Option<&HashSet<String>>,
        recreated: &HashSet<String>,
    ) -> Result<Outcome> {
        let pods = observe::vnfc_pods(&self.w.cluster, &rec.namespace, &self.w.selector, &rec.vdus)
            .await?;
        let r = vnfc::reconcile(
            &info.vnfc_resource_info,
            &pods,
            scope,
            recreated,
            &rec.namespace,
            self.w.vim_id(),
        );
        info.vnfc_resource_info = r.resources;
        info.vnfc_info = r.infos;
        rec.write_to(&mut info);
        Ok(Outcome {
            instantiated_vnf_info: Some(info),
            resource_changes: Map::from_iter([(
                "affectedVnfcs".to_owned(),
                Value::Array(r.affected),
            )]),
        })
    }

    /// Uninstalls the release (when there is one) and waits until its objects and the
    /// VDUs' workloads are gone; with `claims` the claims its StatefulSets made (Helm
    /// never owned them) go too.
    async fn remove(
        &self,
        name: &str,
        ns: &str,
        vdus: &[VduResource],
        flavour: &Flavour,
        claims: ops::Claims,
    ) -> Result<()> {
        let h = self.helm(name, ns);
        let live = match h.revision().await? {
            Some(_) => self.live_plan(&h, flavour).await.ok(),
            None => None,
        };
        let mut watched: Vec<(Type, String, String)> = live
            .iter()
            .flat_map(|p| &p.docs)
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
        let sts_claims = match (&live, claims) {
            (Some(p), ops::Claims::Remove) => ops::statefulset_claims(self.w, p).await?,
            _ => Vec::new(),
        };
        tracing::info!(instance = %self.w.instance, release = %name, "helm uninstall");
        h.uninstall().await?;
        if !sts_claims.is_empty() {
            let pvc = self
                .w
                .cluster
                .resolve("v1", "PersistentVolumeClaim")
                .await?;
            let how = Deletion {
                grace: None,
                foreground: true,
            };
            for (claim, _) in &sts_claims {
                self.w.cluster.delete(&pvc, ns, claim, how).await?;
                watched.push((pvc.clone(), "PersistentVolumeClaim".into(), claim.clone()));
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

    pub async fn sync(&self) -> Result<Option<InstantiatedVnfInfo>> {
        let (rec, info) = self.recorded()?;
        // Stopped on purpose: its VNFCs have no Pods until it is started.
        if crate::ops::operate::is_stopped(&info) {
            return Ok(None);
        }
        let o = self.outcome(info, &rec, None, &HashSet::new()).await?;
        Ok(o.instantiated_vnf_info)
    }
}
