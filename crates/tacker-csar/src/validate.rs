//! Validating a whole package: structure, metadata, digests, VNFD.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufReader, Read, Seek};
use std::path::Path;

use tacker_domain::vnfd::{ArtifactInfo, ArtifactKind, Digest, PackageModel};

use crate::archive::Archive;
use crate::digest::Algorithm;
use crate::error::{Error, Findings, Problem, Result};
use crate::limits::Limits;
use crate::manifest::{self, Manifest};
use crate::meta;
use crate::paths::{is_url, safe_entry_name};
use crate::tosca::Definitions;
use crate::vnfd::{self, ArtifactRef};

/// A valid package: its model and the warnings found.
#[derive(Debug, Clone)]
pub struct Validated {
    /// What the package holds.
    pub model: PackageModel,
    /// Things that still onboard but are likely mistakes.
    pub warnings: Vec<Problem>,
}

/// Validates the CSAR file at `path`.
pub fn validate_file(path: &Path, limits: &Limits) -> Result<Validated> {
    let file = std::fs::File::open(path)?;
    validate_reader(BufReader::with_capacity(256 * 1024, file), limits)
}

/// Validates a CSAR from any seekable reader.
pub fn validate_reader<R: Read + Seek>(reader: R, limits: &Limits) -> Result<Validated> {
    let mut archive = Archive::open(reader, limits).map_err(Error::Invalid)?;
    let mut f = Findings::default();
    let model = check(&mut archive, limits, &mut f);
    match model {
        Some(mut model) if f.errors.is_empty() => {
            model.warnings = f.warnings.iter().map(ToString::to_string).collect();
            Ok(Validated {
                model,
                warnings: f.warnings,
            })
        }
        _ => Err(Error::Invalid(f.errors)),
    }
}

/// Where the package's entry points are.
struct Layout {
    entry: String,
    manifest: Option<String>,
    /// Metadata files that are not artifacts (TOSCA.meta, change log, certificate, ...).
    meta_files: BTreeSet<String>,
    declared: Vec<meta::FileBlock>,
}

fn normalised(file: &str, key: &str, raw: &str, f: &mut Findings) -> Option<String> {
    match safe_entry_name(raw) {
        Ok(p) => Some(p),
        Err(why) => {
            f.error(Problem::at(
                file,
                key,
                format!("invalid path {raw:?}: {why}"),
            ));
            None
        }
    }
}

fn layout<R: Read + Seek>(archive: &mut Archive<R>, f: &mut Findings) -> Option<Layout> {
    if archive.contains(meta::PATH) {
        let text = archive.read_text(meta::PATH).map_err(|p| f.error(p)).ok()?;
        let m = meta::parse(&text, f)?;
        let entry = normalised(
            meta::PATH,
            "Entry-Definitions",
            m.get("Entry-Definitions")?,
            f,
        )?;
        if !archive.contains(&entry) {
            f.error(Problem::at(
                meta::PATH,
                "Entry-Definitions",
                format!("{entry:?} is not in the package"),
            ));
        }
        let mut meta_files = BTreeSet::from([meta::PATH.to_owned()]);
        let manifest = match m.get("ETSI-Entry-Manifest") {
            Some(raw) => {
                let p = normalised(meta::PATH, "ETSI-Entry-Manifest", raw, f)?;
                if !archive.contains(&p) {
                    f.error(Problem::at(
                        meta::PATH,
                        "ETSI-Entry-Manifest",
                        format!("{p:?} is not in the package"),
                    ));
                }
                Some(p)
            }
            None => {
                f.warn(Problem::at(
                    meta::PATH,
                    "ETSI-Entry-Manifest",
                    "absent: the package has no manifest",
                ));
                None
            }
        };
        for key in [
            "ETSI-Entry-Change-Log",
            "ETSI-Entry-Licenses",
            "ETSI-Entry-Certificate",
        ] {
            if let Some(raw) = m.get(key) {
                let p = normalised(meta::PATH, key, raw, f)?;
                if !archive.contains(&p) && !archive.is_dir(&p) {
                    f.error(Problem::at(
                        meta::PATH,
                        key,
                        format!("{p:?} is not in the package"),
                    ));
                }
                meta_files.insert(p);
            }
        }
        meta_files.extend(manifest.clone());
        return Some(Layout {
            entry,
            manifest,
            meta_files,
            declared: m.files,
        });
    }
    // No TOSCA-Metadata: one YAML at the root, and a manifest of the same name.
    let roots: Vec<String> = archive
        .names()
        .filter(|n| !n.contains('/') && (n.ends_with(".yaml") || n.ends_with(".yml")))
        .map(str::to_owned)
        .collect();
    let [entry] = roots.as_slice() else {
        f.error(Problem::file(
            "",
            format!("no TOSCA-Metadata/TOSCA.meta, and {} YAML files at the root (expected exactly one)", roots.len()),
        ));
        return None;
    };
    let stem = entry.rsplit_once('.').map_or(entry.as_str(), |(s, _)| s);
    let expected = format!("{stem}.mf");
    let mfs: Vec<String> = archive
        .names()
        .filter(|n| !n.contains('/') && n.ends_with(".mf"))
        .map(str::to_owned)
        .collect();
    let manifest = if archive.contains(&expected) {
        Some(expected)
    } else {
        match mfs.first() {
            Some(other) => f.error(Problem::file(
                other,
                format!(
                    "manifest name does not match the entry definitions: expected {expected:?}"
                ),
            )),
            None => f.error(Problem::file(
                "",
                format!("no manifest: expected {expected:?} beside {entry:?}"),
            )),
        }
        None
    };
    Some(Layout {
        entry: entry.clone(),
        meta_files: manifest.iter().cloned().collect(),
        manifest,
        declared: Vec::new(),
    })
}

/// A declared digest and where it was declared.
struct Declared {
    algorithm: Algorithm,
    hash: String,
    by: String,
}

fn check<R: Read + Seek>(
    archive: &mut Archive<R>,
    limits: &Limits,
    f: &mut Findings,
) -> Option<PackageModel> {
    let layout = layout(archive, f)?;
    let manifest: Manifest = match &layout.manifest {
        Some(p) if archive.contains(p) => match archive.read_text(p) {
            Ok(t) => manifest::parse(p, &t, f),
            Err(e) => {
                f.error(e);
                Manifest::default()
            }
        },
        _ => Manifest::default(),
    };

    // Declared digests, by path.
    let mut declared: BTreeMap<String, Vec<Declared>> = BTreeMap::new();
    let mut external_sources = Vec::new();
    for b in &layout.declared {
        if is_url(&b.name) {
            external_sources.push(b.name.clone());
            continue;
        }
        let Some(path) = normalised(meta::PATH, &format!("{}: Name", b.name), &b.name, f) else {
            continue;
        };
        if !archive.contains(&path) && !archive.is_dir(&path) {
            f.error(Problem::at(
                meta::PATH,
                format!("{}: Name", b.name),
                "not in the package",
            ));
            continue;
        }
        if let Some((algorithm, hash)) = &b.digest {
            declared.entry(path).or_default().push(Declared {
                algorithm: *algorithm,
                hash: hash.clone(),
                by: meta::PATH.into(),
            });
        }
    }
    let mf_path = layout.manifest.clone().unwrap_or_default();
    for s in &manifest.sources {
        if is_url(&s.source) {
            external_sources.push(s.source.clone());
            continue;
        }
        let Some(path) = normalised(&mf_path, &format!("{}: Source", s.source), &s.source, f)
        else {
            continue;
        };
        if !archive.contains(&path) {
            f.error(Problem::at(
                &mf_path,
                format!("{}: Source", s.source),
                "not in the package",
            ));
            continue;
        }
        declared.entry(path).or_default().push(Declared {
            algorithm: s.algorithm,
            hash: s.hash.clone(),
            by: mf_path.clone(),
        });
    }

    let defs = Definitions::load(archive, &layout.entry, limits, f);
    let all_names: BTreeSet<String> = archive.names().map(str::to_owned).collect();
    let built = defs.as_ref().and_then(|d| vnfd::build(d, &all_names, f));
    let definitions: BTreeSet<String> = defs
        .iter()
        .flat_map(|d| d.files.iter().map(|(p, _)| p.clone()))
        .collect();
    let refs: Vec<ArtifactRef> = built.as_ref().map(|(_, r)| r.clone()).unwrap_or_default();
    for r in &refs {
        if r.external {
            external_sources.push(r.target.clone());
        } else if !archive.contains(&r.target) {
            if r.sw_image {
                f.error(Problem::at(
                    &r.file,
                    &r.key,
                    format!("SwImage file {:?} is not in the package", r.target),
                ));
            } else {
                f.warn(Problem::at(
                    &r.file,
                    &r.key,
                    format!("artifact file {:?} is not in the package", r.target),
                ));
            }
        }
    }

    // One streaming pass per file: verify what is declared, checksum every artifact.
    let names: Vec<String> = archive.names().map(str::to_owned).collect();
    let mut artifacts = Vec::new();
    for name in names {
        if name == meta::PATH || Some(&name) == layout.manifest.as_ref() {
            continue;
        }
        let decl = declared.get(&name).map(Vec::as_slice).unwrap_or_default();
        let mut algs: Vec<Algorithm> = decl.iter().map(|d| d.algorithm).collect();
        algs.push(Algorithm::Sha256);
        let (size, computed) = match archive.digests(&name, &algs) {
            Ok(x) => x,
            Err(p) => {
                f.error(p);
                continue;
            }
        };
        let get = |a: Algorithm| {
            computed
                .iter()
                .find(|(x, _)| *x == a)
                .map(|(_, h)| h.clone())
                .unwrap_or_default()
        };
        for d in decl {
            let actual = get(d.algorithm);
            if actual != d.hash {
                f.error(Problem::at(
                    &d.by,
                    format!("{name}: Hash"),
                    format!(
                        "{} digest mismatch: declared {}, computed {actual}",
                        d.algorithm.name(),
                        d.hash
                    ),
                ));
            }
        }
        if definitions.contains(&name) || layout.meta_files.contains(&name) {
            continue;
        }
        if layout.manifest.is_some() && decl.is_empty() {
            f.warn(Problem::file(
                &name,
                "no digest declared for it in the manifest or TOSCA.meta (not integrity-checked)",
            ));
        }
        let checksum = match decl.first() {
            Some(d) => Digest {
                algorithm: d.algorithm.name().into(),
                hash: d.hash.clone(),
            },
            None => Digest {
                algorithm: Algorithm::Sha256.name().into(),
                hash: get(Algorithm::Sha256),
            },
        };
        let kind = if refs.iter().any(|r| r.sw_image && r.target == name) {
            ArtifactKind::SwImage
        } else if refs.iter().any(|r| r.implementation && r.target == name) {
            ArtifactKind::Implementation
        } else {
            ArtifactKind::Other
        };
        artifacts.push(ArtifactInfo {
            path: name,
            size,
            checksum,
            kind,
            verified: !decl.is_empty(),
        });
    }
    external_sources.sort();
    external_sources.dedup();
    let (vnfd, _) = built?;
    let entries = archive.names().map(str::to_owned).collect::<Vec<_>>();
    let entries = entries
        .into_iter()
        .filter_map(|n| archive.location(&n).map(|l| (n, l)))
        .collect();
    Some(PackageModel {
        vnfd,
        artifacts,
        manifest_metadata: manifest.metadata,
        external_sources,
        entries,
        manifest: layout.manifest,
        warnings: Vec::new(),
    })
}
