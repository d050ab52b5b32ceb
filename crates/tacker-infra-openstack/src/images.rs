//! Software images of the package in Glance, for the built-in NFVO: before the stack is
//! made, every VDU whose image the grant does not name and whose `sw_image_data` points
//! at a file inside the package gets that file as a Glance image — one already there
//! with the same SHA-512 (Glance's `os_hash_value`) is reused, else it is uploaded
//! (name, container/disk format, min disk/RAM from the VNFD; private to the VIM's
//! project). The grant handed to the HOT then names the image's id, as an external
//! NFVO's `vimAssets.softwareImages` would (which still wins).
//!
//! Each instance tags the images it uses `tacker-vnf-<instance id>`; when an instance
//! goes (terminate, rollback of its instantiation) it drops its tag and deletes every
//! image that Tacker uploaded (property `tacker_package_image`) and no instance tags any
//! more. Images Tacker did not upload are never deleted.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use reqwest::Method;
use serde_json::{Value, json};
use sha2::Digest;
use tacker_domain::lcm::driver::OpContext;
use tacker_domain::vnfd::{Flavour, SwImage};

use crate::error::{Error, Result};
use crate::session::{Answer, Payload, Session};

/// The property marking the images Tacker uploaded (`<vnfdId>/<image name>`).
pub const MARK: &str = "tacker_package_image";

/// The tag an instance puts on the images it uses.
pub fn tag_of(octx: &OpContext) -> String {
    format!("tacker-vnf-{}", octx.instance.id)
}

fn glance_error(what: &str, a: &Answer) -> Error {
    Error::Vim(format!("Glance {what}: HTTP {} {}", a.status, a.message()))
}

/// `text` in whole units of `unit` bytes, rounded up (Glance's min_disk in GB, min_ram
/// in MB); 0 when empty or unreadable.
fn whole(text: &str, unit: u64) -> u64 {
    tacker_domain::vnfd::size_in_bytes(text).map_or(0, |b| b.div_ceil(unit))
}

/// The SHA-512 of a file, hex (read in a blocking task: images are large).
async fn sha512_of(path: &Path) -> Result<String> {
    let p = path.to_owned();
    tokio::task::spawn_blocking(move || -> std::io::Result<String> {
        let mut f = std::fs::File::open(&p)?;
        let mut h = sha2::Sha512::new();
        let mut buf = vec![0u8; 1024 * 1024];
        loop {
            let n = f.read(&mut buf)?;
            if n == 0 {
                break;
            }
            h.update(&buf[..n]);
        }
        Ok(hex::encode(h.finalize()))
    })
    .await
    .map_err(|e| Error::Vim(format!("hashing {}: {e}", path.display())))?
    .map_err(|e| Error::Vim(format!("reading {}: {e}", path.display())))
}

/// An active image visible to the project with this SHA-512, if any.
async fn find(s: &Session, sha512: &str) -> Result<Option<String>> {
    let a = s
        .glance(
            Method::GET,
            &format!("v2/images?os_hash_value={sha512}&status=active"),
            Payload::Empty,
        )
        .await?;
    if a.status != 200 {
        return Err(glance_error("listing images", &a));
    }
    Ok(a.body
        .get("images")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|i| i.get("os_hash_value").and_then(Value::as_str) == Some(sha512))
        .find_map(|i| i.get("id").and_then(Value::as_str).map(str::to_owned)))
}

/// Uploads `file` as image `img` and checks Glance stored exactly its bytes. The image
/// carries the instance's tag from its creation, so one left half-made by a conductor
/// that died is released with the instance (rollback, terminate).
async fn upload(
    s: &Session,
    octx: &OpContext,
    img: &SwImage,
    file: &Path,
    sha512: &str,
) -> Result<String> {
    let body = json!({
        "name": img.name,
        "container_format": img.container_format,
        "disk_format": img.disk_format,
        "min_disk": whole(&img.min_disk, 1 << 30),
        "min_ram": whole(&img.min_ram, 1 << 20),
        "visibility": "private",
        "tags": [tag_of(octx)],
        MARK: format!("{}/{}", octx.vnfd.vnfd_id, img.name),
    });
    let a = s
        .glance(Method::POST, "v2/images", Payload::Json(&body))
        .await?;
    if a.status != 201 {
        return Err(glance_error(&format!("creating image {:?}", img.name), &a));
    }
    let id = a
        .body
        .get("id")
        .and_then(Value::as_str)
        .ok_or_else(|| Error::Vim("Glance created an image without an id".into()))?
        .to_owned();
    tracing::info!(image = %id, name = %img.name, "uploading the package's image to Glance");
    let put = s
        .glance(
            Method::PUT,
            &format!("v2/images/{id}/file"),
            Payload::File(file),
        )
        .await;
    let stored = match put {
        Ok(a) if a.status == 204 => {
            let got = s
                .glance(Method::GET, &format!("v2/images/{id}"), Payload::Empty)
                .await?;
            let status = got.body.get("status").and_then(Value::as_str).unwrap_or("");
            let hash = got.body.get("os_hash_value").and_then(Value::as_str);
            if status == "active" && hash == Some(sha512) {
                Ok(id.clone())
            } else {
                Err(Error::Vim(format!(
                    "Glance image {id} ({:?}) is {status} with a different content hash after \
                     the upload",
                    img.name
                )))
            }
        }
        Ok(a) => Err(glance_error(&format!("uploading image {:?}", img.name), &a)),
        Err(e) => Err(e),
    };
    if stored.is_err() {
        // Nothing half-made is left behind.
        let _ = s
            .glance(Method::DELETE, &format!("v2/images/{id}"), Payload::Empty)
            .await;
    }
    stored
}

/// The grant with `vimAssets.softwareImages` for every VDU and storage whose image comes
/// from the package (uploaded or reused, tagged for this instance); the grant unchanged
/// when none needs one.
pub async fn ensure(s: &Session, octx: &OpContext, flavour: &Flavour) -> Result<Value> {
    let mut grant = octx.grant.clone();
    if !s.has_glance().await? {
        // Nothing to upload to (a simulator): servers boot the image by its name, which
        // Nova refuses visibly when the VIM has none.
        tracing::warn!("the VIM's catalog has no Glance: package images are used by name");
        return Ok(grant);
    }
    let mut done: BTreeMap<String, String> = BTreeMap::new();
    let mut added = Vec::new();
    let nodes = flavour
        .vdus
        .iter()
        .map(|v| (&v.id, &v.sw_image))
        .chain(flavour.storages.iter().map(|s| (&s.id, &s.sw_image)));
    for (node, image) in nodes {
        let (Some(img), true) = (image, crate::nfv::granted_image(&grant, node).is_none()) else {
            continue;
        };
        let Some(artifact) = &img.artifact else {
            continue;
        };
        let id = match done.get(artifact) {
            Some(id) => id.clone(),
            None => {
                let Some(file) = package_file(octx, artifact).await? else {
                    continue;
                };
                let sha512 = sha512_of(&file).await?;
                let id = match find(s, &sha512).await? {
                    Some(id) => {
                        tracing::info!(image = %id, name = %img.name, "reusing the Glance image with the package image's checksum");
                        id
                    }
                    None => upload(s, octx, img, &file, &sha512).await?,
                };
                tag(s, &id, &tag_of(octx)).await?;
                done.insert(artifact.clone(), id.clone());
                id
            }
        };
        added.push(
            json!({"id": format!("{node}-image"), "vnfdSoftwareImageId": node,
            "vimSoftwareImageId": id, "vimConnectionId": octx.vim.as_ref().map(|v| v.id.clone())}),
        );
    }
    if added.is_empty() {
        return Ok(grant);
    }
    if !grant.is_object() {
        grant = json!({});
    }
    let assets = grant
        .as_object_mut()
        .map(|g| g.entry("vimAssets").or_insert_with(|| json!({})))
        .and_then(Value::as_object_mut)
        .ok_or_else(|| Error::Invalid("the grant's vimAssets is not an object".into()))?;
    let images = assets.entry("softwareImages").or_insert_with(|| json!([]));
    match images.as_array_mut() {
        Some(list) => list.extend(added),
        None => *images = Value::Array(added),
    }
    Ok(grant)
}

/// Tags image `id` for an instance: the tag is what keeps another instance's terminate
/// from deleting an image this one boots, so a Glance that fails to store it (5xx, e.g.
/// its database busy) is asked again and then fails the operation. An image the project
/// may not tag (another project's, public) is only logged: Tacker never deletes it.
async fn tag(s: &Session, id: &str, tag: &str) -> Result<()> {
    let mut tries = 0;
    loop {
        let a = s
            .glance(
                Method::PUT,
                &format!("v2/images/{id}/tags/{tag}"),
                Payload::Empty,
            )
            .await?;
        match a.status {
            200..=299 => return Ok(()),
            500.. if tries < 4 => {
                tries += 1;
                tokio::time::sleep(std::time::Duration::from_millis(250 * tries)).await;
            }
            500.. => return Err(glance_error(&format!("tagging image {id}"), &a)),
            status => {
                tracing::warn!(image = %id, status, "cannot tag the image for this instance (not the project's own?)");
                return Ok(());
            }
        }
    }
}

async fn package_file(octx: &OpContext, artifact: &str) -> Result<Option<PathBuf>> {
    let extracted = octx.package_dir.join(artifact);
    if extracted.is_file() {
        return Ok(Some(extracted));
    }
    match &octx.services {
        Some(svc) => svc
            .package_file(artifact)
            .await
            .map_err(|e| Error::Vim(e.detail)),
        None => Ok(None),
    }
}

/// Whether OpenStack Tacker made the instance (imported from it: its record says
/// `made_by: tacker`).
fn made_by_tacker(octx: &OpContext) -> bool {
    octx.instance
        .instantiated_vnf_info
        .as_ref()
        .and_then(|i| i.driver_metadata())
        .and_then(|m| m.get(crate::ops::MADE_BY))
        .and_then(Value::as_str)
        == Some("tacker")
}

/// The ids of the images Glance holds with `tag`.
async fn tagged(s: &Session, tag: &str) -> Result<Vec<String>> {
    let a = s
        .glance(Method::GET, &format!("v2/images?tag={tag}"), Payload::Empty)
        .await?;
    if a.status != 200 {
        return Err(glance_error("listing images", &a));
    }
    Ok(a.body
        .get("images")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|i| i.get("id").and_then(Value::as_str).map(str::to_owned))
        .collect())
}

/// Deletes image `id` (one gone already is fine).
async fn delete(s: &Session, id: &str) -> Result<()> {
    let d = s
        .glance(Method::DELETE, &format!("v2/images/{id}"), Payload::Empty)
        .await?;
    if d.status >= 300 && d.status != 404 {
        return Err(glance_error(&format!("deleting image {id}"), &d));
    }
    Ok(())
}

/// Drops this instance's tag from the images it used and deletes those we uploaded that
/// no instance uses any more. A VM VNF Tacker made has its images uploaded by Tacker for
/// it alone, tagged with the bare instance id: they go with it, as in Tacker. Nothing to
/// do when the VIM has no Glance.
pub async fn release(s: &Session, octx: &OpContext) -> Result<()> {
    if !s.has_glance().await? {
        return Ok(());
    }
    if made_by_tacker(octx) {
        for id in tagged(s, &octx.instance.id.to_string()).await? {
            delete(s, &id).await?;
            tracing::info!(image = %id, "deleted the Glance image Tacker uploaded for the instance");
        }
    }
    let tag = tag_of(octx);
    for id in tagged(s, &tag).await? {
        let untag = s
            .glance(
                Method::DELETE,
                &format!("v2/images/{id}/tags/{tag}"),
                Payload::Empty,
            )
            .await?;
        if untag.status >= 300 && untag.status != 404 {
            return Err(glance_error(&format!("untagging image {id}"), &untag));
        }
        let got = s
            .glance(Method::GET, &format!("v2/images/{id}"), Payload::Empty)
            .await?;
        if got.status == 404 {
            continue;
        }
        let ours = got.body.get(MARK).is_some();
        let used = got
            .body
            .get("tags")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .any(|t| t.starts_with("tacker-vnf-"));
        if ours && !used {
            delete(s, &id).await?;
            tracing::info!(image = %id, "deleted the package's Glance image: no instance uses it");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_in_glance_units() {
        assert_eq!(whole("1 GB", 1 << 30), 1);
        assert_eq!(whole("0 GB", 1 << 30), 0);
        assert_eq!(whole("2 GiB", 1 << 30), 2);
        assert_eq!(whole("512 MiB", 1 << 20), 512);
        assert_eq!(whole("512 MB", 1 << 20), 512);
        assert_eq!(whole("1.5 GB", 1 << 30), 2);
        assert_eq!(whole("", 1 << 20), 0);
        assert_eq!(whole("lots", 1 << 20), 0);
    }
}
