//! The manifest (`.mf`): metadata and `Source`/`Algorithm`/`Hash` blocks.

use std::collections::BTreeMap;

use crate::digest::Algorithm;
use crate::error::{Findings, Problem};
use crate::meta::key_value;

/// A `Source` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceBlock {
    pub source: String,
    pub algorithm: Algorithm,
    pub hash: String,
}

/// What the manifest says.
#[derive(Debug, Clone, Default)]
pub struct Manifest {
    pub metadata: BTreeMap<String, String>,
    pub sources: Vec<SourceBlock>,
}

/// Metadata keys SOL004 defines for VNF packages.
const VNF_METADATA: [&str; 4] = [
    "vnf_provider_id",
    "vnf_product_name",
    "vnf_release_date_time",
    "vnf_package_version",
];

pub fn parse(path: &str, text: &str, f: &mut Findings) -> Manifest {
    let mut m = Manifest::default();
    let mut lines = text.lines().enumerate().peekable();
    let mut block: Vec<(usize, String, String)> = Vec::new();
    let flush = |block: &mut Vec<(usize, String, String)>, m: &mut Manifest, f: &mut Findings| {
        if !block.is_empty() {
            source_block(path, std::mem::take(block), m, f);
        }
    };
    while let Some((i, line)) = lines.next() {
        let n = i + 1;
        let trimmed = line.trim();
        if trimmed.is_empty() {
            flush(&mut block, &mut m, f);
            continue;
        }
        if trimmed.starts_with("-----BEGIN") {
            // A signature or certificate: skip to its END line.
            flush(&mut block, &mut m, f);
            for (_, l) in lines.by_ref() {
                if l.trim().starts_with("-----END") {
                    break;
                }
            }
            continue;
        }
        if trimmed == "metadata:" {
            flush(&mut block, &mut m, f);
            while let Some((_, l)) = lines.peek() {
                if l.trim().is_empty() {
                    break;
                }
                let (j, l) = lines.next().unwrap_or((0, ""));
                match key_value(l) {
                    Some((k, v)) => {
                        m.metadata.insert(k.to_owned(), v.to_owned());
                    }
                    None => f.error(Problem::at(
                        path,
                        format!("line {}", j + 1),
                        "expected 'key: value' in metadata",
                    )),
                }
            }
            continue;
        }
        if trimmed == "non_mano_artifact_sets:" {
            flush(&mut block, &mut m, f);
            // Indented set definitions follow; they list files the Source blocks also cover.
            while let Some((_, l)) = lines.peek() {
                if !(l.starts_with(' ') || l.starts_with('\t') || l.trim().is_empty()) {
                    break;
                }
                lines.next();
            }
            continue;
        }
        match key_value(line) {
            Some((k, v)) => block.push((n, k.to_owned(), v.to_owned())),
            None => f.error(Problem::at(
                path,
                format!("line {n}"),
                "expected 'Key: value'",
            )),
        }
    }
    flush(&mut block, &mut m, f);
    if m.metadata.is_empty() {
        f.warn(Problem::file(path, "no metadata section"));
    } else {
        for k in VNF_METADATA {
            if !m.metadata.contains_key(k) {
                f.warn(Problem::at(
                    path,
                    format!("metadata: {k}"),
                    "missing (SOL004 expects it for VNF packages)",
                ));
            }
        }
    }
    m
}

fn source_block(
    path: &str,
    block: Vec<(usize, String, String)>,
    m: &mut Manifest,
    f: &mut Findings,
) {
    let line = block.first().map(|b| b.0).unwrap_or(0);
    let mut fields: BTreeMap<String, String> = BTreeMap::new();
    for (_, k, v) in block {
        fields.insert(k.to_ascii_lowercase(), v);
    }
    let source = fields.remove("source");
    let where_ = source
        .clone()
        .unwrap_or_else(|| format!("block at line {line}"));
    let mut get = |k: &str, label: &str| match fields.remove(k) {
        None => {
            f.error(Problem::at(path, format!("{where_}: {label}"), "missing"));
            None
        }
        Some(v) if v.is_empty() => {
            f.error(Problem::at(
                path,
                format!("{where_}: {label}"),
                "empty value",
            ));
            None
        }
        Some(v) => Some(v),
    };
    let (algorithm, hash) = (get("algorithm", "Algorithm"), get("hash", "Hash"));
    let source = match source {
        None => {
            f.error(Problem::at(
                path,
                format!("block at line {line}: Source"),
                "missing",
            ));
            None
        }
        Some(s) if s.is_empty() => {
            f.error(Problem::at(
                path,
                format!("block at line {line}: Source"),
                "empty value",
            ));
            None
        }
        s => s,
    };
    let (Some(source), Some(algorithm), Some(hash)) = (source, algorithm, hash) else {
        return;
    };
    let Some(alg) = Algorithm::parse(&algorithm) else {
        f.error(Problem::at(
            path,
            format!("{source}: Algorithm"),
            format!("unknown algorithm {algorithm:?}"),
        ));
        return;
    };
    m.sources.push(SourceBlock {
        source,
        algorithm: alg,
        hash: hash.to_ascii_lowercase(),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_metadata_sources_and_skips_signatures() {
        let text = "metadata:\nvnf_provider_id: Company\nvnf_product_name: Sample\nvnf_release_date_time: 2020-01-01T10:00+03:00\nvnf_package_version: 1.0\n\nSource: Definitions/a.yaml\nAlgorithm: SHA-256\nHash: AB\n\nSource: https://example.com/img\nAlgorithm: sha-512\nHash: cd\n\n-----BEGIN CMS-----\nxyz\n-----END CMS-----\n";
        let mut f = Findings::default();
        let m = parse("a.mf", text, &mut f);
        assert!(
            f.errors.is_empty() && f.warnings.is_empty(),
            "{:?} {:?}",
            f.errors,
            f.warnings
        );
        assert_eq!(m.metadata["vnf_provider_id"], "Company");
        assert_eq!(m.sources.len(), 2);
        assert_eq!(m.sources[0].hash, "ab");
        assert_eq!(m.sources[1].algorithm, Algorithm::Sha512);
    }

    #[test]
    fn incomplete_blocks_are_errors_naming_what_is_missing() {
        let text = "metadata:\nvnf_provider_id: C\n\nSource: a\nAlgorithm: SHA-256\n\nSource: b\nAlgorithm:\nHash: 00\n\nAlgorithm: SHA-256\nHash: 00\n\nSource: c\nAlgorithm: CRC32\nHash: 00\n";
        let mut f = Findings::default();
        let m = parse("p.mf", text, &mut f);
        assert!(m.sources.is_empty());
        let text: Vec<String> = f.errors.iter().map(ToString::to_string).collect();
        assert!(
            text.contains(&"p.mf: a: Hash: missing".to_owned()),
            "{text:?}"
        );
        assert!(
            text.contains(&"p.mf: b: Algorithm: empty value".to_owned()),
            "{text:?}"
        );
        assert!(
            text.iter().any(|t| t.contains("Source: missing")),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|t| t.contains("unknown algorithm \"CRC32\"")),
            "{text:?}"
        );
        assert!(
            f.warnings
                .iter()
                .any(|w| w.to_string().contains("vnf_package_version"))
        );
    }
}
