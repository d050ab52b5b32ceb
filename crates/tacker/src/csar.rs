//! `tacker csar validate`: check a package before uploading it; `tacker csar pack`: zip
//! a package directory.

use std::path::Path;

use serde_json::json;
use tacker_csar::{Error, Limits};
use tacker_domain::mgmt::{Mapping, unmapped};
use tacker_domain::vnfd::PackageModel;

/// Hooks no management driver is configured for (operations running them are refused).
fn unmapped_hooks(m: &PackageModel, mapping: &Mapping) -> Vec<String> {
    m.vnfd
        .flavours
        .iter()
        .flat_map(|f| f.hooks.iter().map(move |h| (f, h)))
        .filter(|(_, h)| mapping.driver_of(h).is_none())
        .map(|(f, h)| format!("flavour {}: {}", f.id, unmapped(h).detail))
        .collect()
}

/// Validates `file`, prints the result, returns the exit status (0 valid, 1 invalid,
/// 2 unreadable). Hooks `mapping` has no driver for are warned about.
pub fn validate(file: &Path, as_json: bool, mapping: &Mapping) -> i32 {
    match tacker_csar::validate_file(file, &Limits::default()) {
        Ok(v) => {
            let hooks = unmapped_hooks(&v.model, mapping);
            if as_json {
                let mut warnings: Vec<_> = v.warnings.iter().map(|w| json!(w)).collect();
                warnings.extend(hooks.iter().map(|h| json!(h)));
                println!(
                    "{}",
                    json!({"valid": true, "package": v.model, "warnings": warnings})
                );
            } else {
                print!("{}", summary(file, &v.model));
                if !v.warnings.is_empty() || !hooks.is_empty() {
                    println!("warnings:");
                    for w in &v.warnings {
                        println!("  - {w}");
                    }
                    for h in &hooks {
                        println!("  - {h}");
                    }
                }
                println!("valid");
            }
            0
        }
        Err(Error::Invalid(problems)) => {
            if as_json {
                println!("{}", json!({"valid": false, "errors": problems}));
            } else {
                println!("{}: invalid, {} error(s):", file.display(), problems.len());
                for p in &problems {
                    println!("  - {p}");
                }
            }
            1
        }
        Err(e) => {
            if as_json {
                println!(
                    "{}",
                    json!({"valid": false, "errors": [{"file": "", "key": null, "reason": e.to_string()}]})
                );
            } else {
                eprintln!("{}: {e}", file.display());
            }
            2
        }
    }
}

/// Packs `dir` into `output` and validates the result (exit status as `validate`).
pub fn pack(dir: &Path, output: &Path, mapping: &Mapping) -> i32 {
    if !dir.join("TOSCA-Metadata/TOSCA.meta").is_file() {
        eprintln!(
            "{}: no TOSCA-Metadata/TOSCA.meta: not a package directory",
            dir.display()
        );
        return 2;
    }
    match tacker_csar::pack(dir, output) {
        Ok(n) => println!("packed {n} files into {}", output.display()),
        Err(e) => {
            eprintln!("{}: {e}", output.display());
            return 2;
        }
    }
    validate(output, false, mapping)
}

fn summary(file: &Path, m: &PackageModel) -> String {
    let d = &m.vnfd;
    let mut s = format!(
        "{}\n  vnfdId:           {}\n  provider:         {}\n  product:          {}\n  software version: {}\n  vnfd version:     {}\n  flavours:\n",
        file.display(),
        d.vnfd_id,
        d.provider,
        d.product_name,
        d.software_version,
        d.descriptor_version
    );
    for f in &d.flavours {
        s.push_str(&format!("    {} ({})\n", f.id, f.description));
        for v in &f.vdus {
            s.push_str(&format!(
                "      VDU {} name={} instances={}..{}{}\n",
                v.id,
                v.name,
                v.min_instances,
                v.max_instances,
                v.sw_image
                    .as_ref()
                    .map(|i| format!(" image={}", i.name))
                    .unwrap_or_default()
            ));
        }
        for h in &f.hooks {
            s.push_str(&format!(
                "      hook {} -> {}\n",
                h.name,
                h.artifact_path
                    .as_deref()
                    .or(h.artifact.as_deref())
                    .unwrap_or("-")
            ));
        }
    }
    s.push_str("  artifacts:\n");
    for a in &m.artifacts {
        s.push_str(&format!(
            "    {} {} bytes {:?} {} {}{}\n",
            a.path,
            a.size,
            a.kind,
            a.checksum.algorithm,
            a.checksum.hash,
            if a.verified { " (verified)" } else { "" }
        ));
    }
    for u in &m.external_sources {
        s.push_str(&format!("  external (not fetched): {u}\n"));
    }
    s
}
