//! `TOSCA-Metadata/TOSCA.meta`.

use std::collections::BTreeMap;

use crate::digest::Algorithm;
use crate::error::{Findings, Problem};

/// The path of TOSCA.meta.
pub const PATH: &str = "TOSCA-Metadata/TOSCA.meta";

/// Block 0 keys that must be present.
const REQUIRED: [&str; 4] = [
    "TOSCA-Meta-File-Version",
    "CSAR-Version",
    "Created-By",
    "Entry-Definitions",
];
/// Block 0 keys we know.
const KNOWN: [&str; 8] = [
    "TOSCA-Meta-File-Version",
    "CSAR-Version",
    "Created-By",
    "Entry-Definitions",
    "ETSI-Entry-Manifest",
    "ETSI-Entry-Change-Log",
    "ETSI-Entry-Licenses",
    "ETSI-Entry-Certificate",
];

/// A per-file block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileBlock {
    pub name: String,
    pub content_type: Option<String>,
    pub digest: Option<(Algorithm, String)>,
}

/// What TOSCA.meta says.
#[derive(Debug, Clone, Default)]
pub struct ToscaMeta {
    /// Block 0, by canonical key name.
    pub keys: BTreeMap<&'static str, String>,
    /// Per-file blocks.
    pub files: Vec<FileBlock>,
}

impl ToscaMeta {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.keys.get(key).map(String::as_str)
    }
}

/// `Key: value` lines grouped in blank-line separated blocks, with line numbers.
pub(crate) fn blocks(text: &str) -> Vec<Vec<(usize, &str)>> {
    let mut out: Vec<Vec<(usize, &str)>> = vec![Vec::new()];
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            if out.last().is_some_and(|b| !b.is_empty()) {
                out.push(Vec::new());
            }
        } else if let Some(b) = out.last_mut() {
            b.push((i + 1, line));
        }
    }
    out.retain(|b| !b.is_empty());
    out
}

pub(crate) fn key_value(line: &str) -> Option<(&str, &str)> {
    let (k, v) = line.split_once(':')?;
    let k = k.trim();
    (!k.is_empty() && !k.contains(char::is_whitespace)).then_some((k, v.trim()))
}

pub fn parse(text: &str, f: &mut Findings) -> Option<ToscaMeta> {
    let mut meta = ToscaMeta::default();
    let blocks = blocks(text);
    let Some((first, rest)) = blocks.split_first() else {
        f.error(Problem::file(PATH, "empty file"));
        return None;
    };
    let before = f.errors.len();
    for (n, line) in first {
        let Some((k, v)) = key_value(line) else {
            f.error(Problem::at(
                PATH,
                format!("line {n}"),
                "expected 'Key: value'",
            ));
            continue;
        };
        match KNOWN.iter().find(|known| known.eq_ignore_ascii_case(k)) {
            Some(known) => {
                if v.is_empty() {
                    f.error(Problem::at(PATH, *known, "empty value"));
                }
                meta.keys.insert(known, v.to_owned());
            }
            None => f.warn(Problem::at(PATH, k, "unknown key in block 0, ignored")),
        }
    }
    for key in REQUIRED {
        if !meta.keys.contains_key(key) {
            f.error(Problem::at(PATH, key, "missing"));
        }
    }
    for block in rest {
        if let Some(fb) = file_block(block, f) {
            meta.files.push(fb);
        }
    }
    (f.errors.len() == before).then_some(meta)
}

fn file_block(block: &[(usize, &str)], f: &mut Findings) -> Option<FileBlock> {
    let mut fields: BTreeMap<String, (usize, String)> = BTreeMap::new();
    for (n, line) in block {
        match key_value(line) {
            Some((k, v)) => {
                fields.insert(k.to_ascii_lowercase(), (*n, v.to_owned()));
            }
            None => f.error(Problem::at(
                PATH,
                format!("line {n}"),
                "expected 'Key: value'",
            )),
        }
    }
    let line = block.first().map(|(n, _)| *n).unwrap_or(0);
    let Some((_, name)) = fields.remove("name").filter(|(_, v)| !v.is_empty()) else {
        f.error(Problem::at(
            PATH,
            format!("block at line {line}"),
            "missing Name",
        ));
        return None;
    };
    let content_type = fields.remove("content-type").map(|(_, v)| v);
    let digest = match (fields.remove("algorithm"), fields.remove("hash")) {
        (None, None) => None,
        (Some((_, a)), Some((_, h))) if !a.is_empty() && !h.is_empty() => {
            match Algorithm::parse(&a) {
                Some(alg) => Some((alg, h.to_ascii_lowercase())),
                None => {
                    f.error(Problem::at(
                        PATH,
                        format!("{name}: Algorithm"),
                        format!("unknown algorithm {a:?}"),
                    ));
                    return None;
                }
            }
        }
        (Some((_, a)), Some(_)) if a.is_empty() => {
            f.error(Problem::at(
                PATH,
                format!("{name}: Algorithm"),
                "empty value",
            ));
            return None;
        }
        (Some(_), Some(_)) => {
            f.error(Problem::at(PATH, format!("{name}: Hash"), "empty value"));
            return None;
        }
        (Some(_), None) => {
            f.error(Problem::at(
                PATH,
                format!("{name}: Hash"),
                "missing (Algorithm given)",
            ));
            return None;
        }
        (None, Some(_)) => {
            f.error(Problem::at(
                PATH,
                format!("{name}: Algorithm"),
                "missing (Hash given)",
            ));
            return None;
        }
    };
    for k in fields.keys() {
        f.warn(Problem::at(
            PATH,
            format!("{name}: {k}"),
            "unknown key, ignored",
        ));
    }
    Some(FileBlock {
        name,
        content_type,
        digest,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_block_zero_and_file_blocks_case_insensitively() {
        let text = "TOSCA-Meta-File-Version: 1.0\nCreated-by: me\nCSAR-Version: 1.1\nEntry-Definitions: Definitions/top.yaml\nETSI-Entry-Manifest: top.mf\n\nName: Files/a.yaml\nContent-type: text\nAlgorithm: sha-256\nHash: ABCD\n\nName: Files/b.img\n";
        let mut f = Findings::default();
        let m = parse(text, &mut f).unwrap();
        assert!(f.errors.is_empty(), "{:?}", f.errors);
        assert_eq!(m.get("Created-By"), Some("me"));
        assert_eq!(m.get("ETSI-Entry-Manifest"), Some("top.mf"));
        assert_eq!(m.files.len(), 2);
        assert_eq!(m.files[0].digest, Some((Algorithm::Sha256, "abcd".into())));
        assert_eq!(m.files[1].digest, None);
    }

    #[test]
    fn missing_keys_and_half_digests_are_errors() {
        let mut f = Findings::default();
        assert!(parse("TOSCA-Meta-File-Version: 1.0\nCSAR-Version: 1.1\n", &mut f).is_none());
        let text: Vec<String> = f.errors.iter().map(ToString::to_string).collect();
        assert!(
            text.iter().any(|t| t.contains("Created-By: missing")),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|t| t.contains("Entry-Definitions: missing"))
        );
        let mut f = Findings::default();
        let base = "TOSCA-Meta-File-Version: 1.0\nCSAR-Version: 1.1\nCreated-By: x\nEntry-Definitions: d.yaml\n\n";
        parse(
            &format!(
                "{base}Name: a\nAlgorithm: SHA-256\n\nName: b\nAlgorithm: MD5\nHash: 00\n\nContent-Type: x\n"
            ),
            &mut f,
        );
        let text: Vec<String> = f.errors.iter().map(ToString::to_string).collect();
        assert!(
            text.iter().any(|t| t.contains("a: Hash: missing")),
            "{text:?}"
        );
        assert!(
            text.iter().any(|t| t.contains("unknown algorithm \"MD5\"")),
            "{text:?}"
        );
        assert!(text.iter().any(|t| t.contains("missing Name")), "{text:?}");
    }
}
