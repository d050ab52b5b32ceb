//! `op ...`: operation occurrences; following one to its end.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::cli::{OpCmd, Wait};
use crate::client::Client;
use crate::error::{Error, Result};
use crate::output::Out;

const COLUMNS: [(&str, &str); 5] = [
    ("ID", "/id"),
    ("OPERATION", "/operation"),
    ("STATE", "/operationState"),
    ("VNF INSTANCE", "/vnfInstanceId"),
    ("STARTED", "/startTime"),
];

/// States an occurrence ends in (until someone acts on FAILED_TEMP).
const ENDS: [&str; 4] = ["COMPLETED", "FAILED_TEMP", "FAILED", "ROLLED_BACK"];

fn path(id: &str) -> String {
    format!("/vnflcm/v2/vnf_lcm_op_occs/{id}")
}

/// Follows occurrence `id`, printing each state it enters, until it ends.
pub async fn follow(c: &Client, id: &str, timeout: Duration, out: &mut Out<'_>) -> Result<Value> {
    let deadline = tokio::time::Instant::now() + timeout;
    let mut last = String::new();
    loop {
        let op = c.json(Method::GET, &path(id), None).await?;
        let state = op["operationState"].as_str().unwrap_or_default().to_owned();
        if state != last {
            if out.format == crate::output::Format::Table {
                out.say(&format!(
                    "{}  {} {state}",
                    op["stateEnteredTime"].as_str().unwrap_or_default(),
                    op["operation"].as_str().unwrap_or_default()
                ))?;
            }
            last = state.clone();
        }
        if ENDS.contains(&state.as_str()) {
            return Ok(op);
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(Error::Timeout(format!(
                "operation {id} still {state} after {}s",
                timeout.as_secs()
            )));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The exit of a followed occurrence: success only when it ended in `success`
/// (COMPLETED, or ROLLED_BACK for a rollback).
pub fn ended(op: &Value, success: &str, out: &mut Out<'_>) -> Result<()> {
    if out.format != crate::output::Format::Table {
        out.show(op)?;
    }
    let state = op["operationState"].as_str().unwrap_or_default();
    if state == success {
        return Ok(());
    }
    let detail = op["error"]["detail"].as_str().unwrap_or("no details");
    Err(Error::Ended(format!(
        "operation {} ended {state}: {detail}",
        op["id"].as_str().unwrap_or_default()
    )))
}

/// Prints a started occurrence, and follows it when asked.
pub async fn started(c: &Client, op: &str, wait: &Wait, out: &mut Out<'_>) -> Result<()> {
    started_until(c, op, wait, "COMPLETED", out).await
}

async fn started_until(
    c: &Client,
    op: &str,
    wait: &Wait,
    success: &str,
    out: &mut Out<'_>,
) -> Result<()> {
    if !wait.wait {
        return out.result(
            &json!({"vnfLcmOpOccId": op}),
            &format!("operation {op} started"),
        );
    }
    let end = follow(c, op, Duration::from_secs(wait.timeout), out).await?;
    ended(&end, success, out)
}

pub async fn run(c: &Client, cmd: OpCmd, out: &mut Out<'_>) -> Result<()> {
    match cmd {
        OpCmd::List { filter } => {
            let mut p = "/vnflcm/v2/vnf_lcm_op_occs".to_owned();
            if let Some(f) = filter {
                p.push_str(&format!("?filter={}", urlencode(&f)));
            }
            out.list(&c.list(&p).await?, &COLUMNS)
        }
        OpCmd::Show { id } => out.show(&c.json(Method::GET, &path(&id), None).await?),
        OpCmd::Wait { id, timeout } => {
            let end = follow(c, &id, Duration::from_secs(timeout), out).await?;
            ended(&end, "COMPLETED", out)
        }
        OpCmd::Retry { id, wait } => {
            c.send(c.request(Method::POST, &format!("{}/retry", path(&id))))
                .await?;
            started(c, &id, &wait, out).await
        }
        OpCmd::Rollback { id, wait } => {
            c.send(c.request(Method::POST, &format!("{}/rollback", path(&id))))
                .await?;
            started_until(c, &id, &wait, "ROLLED_BACK", out).await
        }
        OpCmd::Cancel { id, mode } => {
            let mode = match mode {
                crate::cli::CancelMode::Graceful => "GRACEFUL",
                crate::cli::CancelMode::Forceful => "FORCEFUL",
            };
            c.send(
                c.request(Method::POST, &format!("{}/cancel", path(&id)))
                    .json(&json!({"cancelMode": mode})),
            )
            .await?;
            out.result(
                &json!({"vnfLcmOpOccId": id, "cancelMode": mode}),
                &format!("cancellation ({mode}) of operation {id} asked for"),
            )
        }
        OpCmd::Fail { id } => {
            let op = c
                .json(Method::POST, &format!("{}/fail", path(&id)), None)
                .await?;
            out.result(&op, &format!("operation {id} FAILED"))
        }
    }
}

/// Percent-encodes a query value.
pub fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
