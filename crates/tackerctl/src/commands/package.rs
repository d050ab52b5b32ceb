//! `package ...`: VNF packages, uploads with a progress bar, onboarding followed.

use std::path::Path;
use std::time::{Duration, Instant};

use futures::StreamExt;
use indicatif::{ProgressBar, ProgressStyle};
use reqwest::Method;
use serde_json::{Map, Value, json};
use tokio::io::AsyncWriteExt;

use crate::cli::PackageCmd;
use crate::client::Client;
use crate::error::{Error, Result};
use crate::output::Out;

const COLUMNS: [(&str, &str); 6] = [
    ("ID", "/id"),
    ("ONBOARDING", "/onboardingState"),
    ("OPERATIONAL", "/operationalState"),
    ("USAGE", "/usageState"),
    ("VNFD", "/vnfdId"),
    ("PRODUCT", "/vnfProductName"),
];

fn path(id: &str) -> String {
    format!("/vnfpkgm/v1/vnf_packages/{id}")
}

/// Streams `file` as the package content, showing bytes, rate and ETA on stderr.
async fn upload(c: &Client, id: &str, file: &Path) -> Result<()> {
    let f = tokio::fs::File::open(file)
        .await
        .map_err(|e| Error::Local(format!("{}: {e}", file.display())))?;
    let len = f.metadata().await?.len();
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template(
            "{msg} {wide_bar} {bytes}/{total_bytes} {binary_bytes_per_sec} ETA {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message("uploading");
    let counted = bar.clone();
    let stream = tokio_util::io::ReaderStream::with_capacity(f, 256 * 1024).inspect(move |chunk| {
        if let Ok(b) = chunk {
            counted.inc(b.len() as u64);
        }
    });
    let started = Instant::now();
    let r = c
        .request(Method::PUT, &format!("{}/package_content", path(id)))
        .header("content-type", "application/zip")
        .header("content-length", len)
        .body(reqwest::Body::wrap_stream(stream));
    let sent = c.send(r).await;
    bar.finish_and_clear();
    sent?;
    let secs = started.elapsed().as_secs_f64().max(0.001);
    eprintln!(
        "uploaded {} ({len} bytes) in {secs:.2} s ({}/s)",
        indicatif::HumanBytes(len),
        indicatif::HumanBytes((len as f64 / secs) as u64)
    );
    Ok(())
}

/// Follows onboarding until ONBOARDED (or the failure, or the timeout).
async fn wait_onboarded(c: &Client, id: &str, timeout: Duration) -> Result<Value> {
    let spinner = ProgressBar::new_spinner();
    spinner.enable_steady_tick(Duration::from_millis(120));
    let deadline = tokio::time::Instant::now() + timeout;
    let result = loop {
        let p = c.json(Method::GET, &path(id), None).await?;
        let state = p["onboardingState"].as_str().unwrap_or_default().to_owned();
        spinner.set_message(format!("onboarding: {state}"));
        match state.as_str() {
            "ONBOARDED" => break Ok(p),
            "CREATED" if !p["onboardingFailureDetails"].is_null() => {
                break Err(Error::Ended(format!(
                    "onboarding of {id} failed: {}",
                    p["onboardingFailureDetails"]["detail"]
                        .as_str()
                        .unwrap_or("no details")
                )));
            }
            _ => {}
        }
        if tokio::time::Instant::now() >= deadline {
            break Err(Error::Timeout(format!(
                "package {id} still {state} after {}s",
                timeout.as_secs()
            )));
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    spinner.finish_and_clear();
    result
}

async fn onboarded(c: &Client, id: &str, timeout: u64, out: &mut Out<'_>) -> Result<()> {
    let p = wait_onboarded(c, id, Duration::from_secs(timeout)).await?;
    out.result(
        &p,
        &format!(
            "package {id} ONBOARDED (vnfdId {}, {} {})",
            p["vnfdId"].as_str().unwrap_or_default(),
            p["vnfProductName"].as_str().unwrap_or_default(),
            p["vnfSoftwareVersion"].as_str().unwrap_or_default()
        ),
    )
}

async fn set_state(c: &Client, id: &str, state: &str, out: &mut Out<'_>) -> Result<()> {
    let r = c
        .request(Method::PATCH, &path(id))
        .header("content-type", "application/merge-patch+json")
        .body(json!({"operationalState": state}).to_string());
    c.send(r).await?;
    out.result(
        &json!({"id": id, "operationalState": state}),
        &format!("package {id} {state}"),
    )
}

async fn save(resp: reqwest::Response, file: &Path) -> Result<u64> {
    let mut f = tokio::fs::File::create(file)
        .await
        .map_err(|e| Error::Local(format!("{}: {e}", file.display())))?;
    let mut n = 0;
    let mut body = resp.bytes_stream();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| Error::Local(format!("download: {e}")))?;
        n += chunk.len() as u64;
        f.write_all(&chunk).await?;
    }
    f.flush().await?;
    Ok(n)
}

fn validate(file: &Path, out: &mut Out<'_>) -> Result<()> {
    match tacker_csar::validate_file(file, &tacker_csar::Limits::default()) {
        Ok(v) => {
            let d = &v.model.vnfd;
            let flavours: Vec<&str> = d.flavours.iter().map(|f| f.id.as_str()).collect();
            let warnings: Vec<String> = v.warnings.iter().map(ToString::to_string).collect();
            let summary = json!({
                "valid": true,
                "vnfdId": d.vnfd_id,
                "provider": d.provider,
                "productName": d.product_name,
                "softwareVersion": d.software_version,
                "flavours": flavours,
                "warnings": warnings,
            });
            out.show(&summary)
        }
        Err(tacker_csar::Error::Invalid(problems)) => {
            let list: Vec<String> = problems.iter().map(ToString::to_string).collect();
            out.show(&json!({"valid": false, "errors": list}))?;
            Err(Error::Ended(format!("{}: invalid package", file.display())))
        }
        Err(e) => Err(Error::Local(format!("{}: {e}", file.display()))),
    }
}

pub async fn run(c: &Client, cmd: PackageCmd, out: &mut Out<'_>) -> Result<()> {
    match cmd {
        PackageCmd::Create { user_data } => {
            let mut data = Map::new();
            for kv in user_data {
                let (k, v) = kv
                    .split_once('=')
                    .ok_or_else(|| Error::Local(format!("--user-data {kv:?} is not KEY=VALUE")))?;
                data.insert(k.to_owned(), json!(v));
            }
            let body = json!({"userDefinedData": data});
            let v = c
                .json(Method::POST, "/vnfpkgm/v1/vnf_packages", Some(&body))
                .await?;
            out.result(&v, v["id"].as_str().unwrap_or_default())
        }
        PackageCmd::Upload {
            id,
            file,
            no_wait,
            timeout,
        } => {
            upload(c, &id, &file).await?;
            if no_wait {
                return out.result(&json!({"id": id}), &format!("package {id} uploaded"));
            }
            onboarded(c, &id, timeout, out).await
        }
        PackageCmd::UploadUri {
            id,
            uri,
            username,
            password,
            no_wait,
            timeout,
        } => {
            let mut body = json!({"addressInformation": uri});
            if let Some(u) = username {
                body["userName"] = json!(u);
            }
            if let Some(p) = password {
                body["password"] = json!(p);
            }
            let r = c
                .request(
                    Method::POST,
                    &format!("{}/package_content/upload_from_uri", path(&id)),
                )
                .json(&body);
            c.send(r).await?;
            if no_wait {
                return out.result(&json!({"id": id}), &format!("package {id}: fetching {uri}"));
            }
            onboarded(c, &id, timeout, out).await
        }
        PackageCmd::List => out.list(&c.list("/vnfpkgm/v1/vnf_packages").await?, &COLUMNS),
        PackageCmd::Show { id } => out.show(&c.json(Method::GET, &path(&id), None).await?),
        PackageCmd::Enable { id } => set_state(c, &id, "ENABLED", out).await,
        PackageCmd::Disable { id } => set_state(c, &id, "DISABLED", out).await,
        PackageCmd::Delete { id } => {
            c.send(c.request(Method::DELETE, &path(&id))).await?;
            out.result(&json!({"deleted": id}), &format!("package {id} deleted"))
        }
        PackageCmd::Download { id, file } => {
            let resp = c
                .send(c.request(Method::GET, &format!("{}/package_content", path(&id))))
                .await?;
            let n = save(resp, &file).await?;
            out.result(
                &json!({"id": id, "file": file, "bytes": n}),
                &format!("{n} bytes written to {}", file.display()),
            )
        }
        PackageCmd::Vnfd { id, file } => {
            let r = c
                .request(Method::GET, &format!("{}/vnfd", path(&id)))
                .header("accept", "text/plain,application/zip");
            let resp = c.send(r).await?;
            let zip = resp
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|t| t.starts_with("application/zip"));
            match file {
                Some(f) => {
                    let n = save(resp, &f).await?;
                    out.result(
                        &json!({"id": id, "file": f, "bytes": n}),
                        &format!("VNFD ({n} bytes) written to {}", f.display()),
                    )
                }
                None if zip => Err(Error::Local(
                    "the VNFD is several files (a zip): give -f FILE".into(),
                )),
                None => {
                    let text = resp
                        .text()
                        .await
                        .map_err(|e| Error::Local(format!("VNFD: {e}")))?;
                    out.say(text.trim_end())
                }
            }
        }
        PackageCmd::Validate { file } => validate(&file, out),
    }
}
