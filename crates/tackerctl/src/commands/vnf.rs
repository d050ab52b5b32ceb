//! `vnf ...` and `sync`: VNF instances and their lifecycle tasks.

use reqwest::Method;
use serde_json::{Map, Value, json};

use super::body_file;
use super::op::started;
use crate::cli::VnfCmd;
use crate::client::Client;
use crate::error::Result;
use crate::output::Out;

const COLUMNS: [(&str, &str); 5] = [
    ("ID", "/id"),
    ("NAME", "/vnfInstanceName"),
    ("STATE", "/instantiationState"),
    ("VNFD", "/vnfdId"),
    ("PRODUCT", "/vnfProductName"),
];

fn path(id: &str) -> String {
    format!("/vnflcm/v2/vnf_instances/{id}")
}

pub async fn run(c: &Client, cmd: VnfCmd, out: &mut Out<'_>) -> Result<()> {
    match cmd {
        VnfCmd::Create {
            vnfd_id,
            name,
            description,
        } => {
            let mut b = Map::new();
            b.insert("vnfdId".into(), json!(vnfd_id));
            if let Some(n) = name {
                b.insert("vnfInstanceName".into(), json!(n));
            }
            if let Some(d) = description {
                b.insert("vnfInstanceDescription".into(), json!(d));
            }
            let v = c
                .json(
                    Method::POST,
                    "/vnflcm/v2/vnf_instances",
                    Some(&Value::Object(b)),
                )
                .await?;
            out.result(&v, v["id"].as_str().unwrap_or_default())
        }
        VnfCmd::Instantiate { id, file, wait } => {
            let body = body_file(&file)?;
            let op = c.task(&format!("{}/instantiate", path(&id)), &body).await?;
            started(c, &op, &wait, out).await
        }
        VnfCmd::ChangeVnfpkg { id, file, wait } => {
            let body = body_file(&file)?;
            let op = c
                .task(&format!("{}/change_vnfpkg", path(&id)), &body)
                .await?;
            started(c, &op, &wait, out).await
        }
        VnfCmd::Scale {
            id,
            kind,
            aspect,
            steps,
            wait,
        } => {
            let t = if kind == "out" {
                "SCALE_OUT"
            } else {
                "SCALE_IN"
            };
            let body = json!({"type": t, "aspectId": aspect, "numberOfSteps": steps});
            let op = c.task(&format!("{}/scale", path(&id)), &body).await?;
            started(c, &op, &wait, out).await
        }
        VnfCmd::ScaleToLevel {
            id,
            level,
            aspect,
            wait,
        } => {
            let body = match level {
                Some(l) => json!({"instantiationLevelId": l}),
                None => {
                    let mut info = Vec::new();
                    for a in &aspect {
                        let (name, n) = a
                            .split_once('=')
                            .and_then(|(name, n)| Some((name, n.parse::<u32>().ok()?)))
                            .ok_or_else(|| {
                                crate::error::Error::Local(format!(
                                    "--aspect {a:?}: expected <aspectId>=<level>"
                                ))
                            })?;
                        info.push(json!({"aspectId": name, "scaleLevel": n}));
                    }
                    json!({"scaleInfo": info})
                }
            };
            let op = c
                .task(&format!("{}/scale_to_level", path(&id)), &body)
                .await?;
            started(c, &op, &wait, out).await
        }
        VnfCmd::ChangeFlavour {
            id,
            flavour,
            level,
            manifest,
            wait,
        } => {
            let mut b = Map::new();
            b.insert("newFlavourId".into(), json!(flavour));
            if let Some(l) = level {
                b.insert("instantiationLevelId".into(), json!(l));
            }
            if !manifest.is_empty() {
                b.insert(
                    "additionalParams".into(),
                    json!({"lcm-kubernetes-def-files": manifest}),
                );
            }
            let op = c
                .task(&format!("{}/change_flavour", path(&id)), &Value::Object(b))
                .await?;
            started(c, &op, &wait, out).await
        }
        VnfCmd::Operate {
            id,
            state,
            forceful,
            graceful_timeout,
            vnfc,
            wait,
        } => {
            let mut b = Map::new();
            b.insert("changeStateTo".into(), json!(state.to_uppercase()));
            if forceful {
                b.insert("stopType".into(), json!("FORCEFUL"));
            } else if let Some(t) = graceful_timeout {
                b.insert("stopType".into(), json!("GRACEFUL"));
                b.insert("gracefulStopTimeout".into(), json!(t));
            }
            if !vnfc.is_empty() {
                b.insert("vnfcInstanceId".into(), json!(vnfc));
            }
            let op = c
                .task(&format!("{}/operate", path(&id)), &Value::Object(b))
                .await?;
            started(c, &op, &wait, out).await
        }
        VnfCmd::Heal {
            id,
            vnfc,
            cause,
            wait,
        } => {
            let mut b = Map::new();
            if !vnfc.is_empty() {
                b.insert("vnfcInstanceId".into(), json!(vnfc));
            }
            if let Some(c) = cause {
                b.insert("cause".into(), json!(c));
            }
            let op = c
                .task(&format!("{}/heal", path(&id)), &Value::Object(b))
                .await?;
            started(c, &op, &wait, out).await
        }
        VnfCmd::Terminate {
            id,
            forceful,
            graceful_timeout,
            wait,
        } => {
            let mut b = json!({"terminationType": if forceful { "FORCEFUL" } else { "GRACEFUL" }});
            if let Some(t) = graceful_timeout {
                b["gracefulTerminationTimeout"] = json!(t);
            }
            let op = c.task(&format!("{}/terminate", path(&id)), &b).await?;
            started(c, &op, &wait, out).await
        }
        VnfCmd::Delete { id } => {
            c.send(c.request(Method::DELETE, &path(&id))).await?;
            out.result(
                &json!({"deleted": id}),
                &format!("VNF instance {id} deleted"),
            )
        }
        VnfCmd::List => out.list(&c.list("/vnflcm/v2/vnf_instances").await?, &COLUMNS),
        VnfCmd::Show { id } => out.show(&c.json(Method::GET, &path(&id), None).await?),
    }
}

/// `sync ID`.
pub async fn sync(c: &Client, id: &str, out: &mut Out<'_>) -> Result<()> {
    let v = c
        .json(Method::POST, &format!("{}/sync", path(id)), None)
        .await?;
    let changed = v["changed"].as_bool().unwrap_or(false);
    let line = if changed {
        format!("VNF instance {id}: stored VNFCs updated from the VIM")
    } else {
        format!("VNF instance {id}: already in sync")
    };
    out.result(&v, &line)
}
