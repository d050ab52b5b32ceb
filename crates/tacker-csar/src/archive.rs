//! Safe, bounded access to a CSAR zip.

use std::collections::BTreeMap;
use std::io::{Read, Seek};
use std::path::Path;

use zip::ZipArchive;

use tacker_domain::vnfd::EntryLocation;

use crate::digest::{Algorithm, MultiHasher};
use crate::error::Problem;
use crate::limits::Limits;
use crate::paths::safe_entry_name;

/// A file entry of the archive.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    index: usize,
    /// Declared uncompressed size.
    pub size: u64,
    /// Where its data lies, known once it was read.
    location: Option<EntryLocation>,
}

/// A zip whose every entry name was checked, with size and ratio limits enforced on read.
pub struct Archive<R: Read + Seek> {
    zip: ZipArchive<R>,
    files: BTreeMap<String, Entry>,
    dirs: Vec<String>,
    limits: Limits,
    /// Bytes actually inflated so far, across every read.
    inflated: u64,
}

impl<R: Read + Seek> std::fmt::Debug for Archive<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Archive")
            .field("files", &self.files.len())
            .finish()
    }
}

const MIB: u64 = 1024 * 1024;

impl<R: Read + Seek> Archive<R> {
    /// Opens a zip and checks its central directory: entry count, names (zip-slip),
    /// symlinks, duplicates, declared sizes and compression ratios. Every problem is
    /// returned, not just the first.
    pub fn open(reader: R, limits: &Limits) -> Result<Self, Vec<Problem>> {
        let mut zip = ZipArchive::new(reader).map_err(|e| {
            vec![Problem::file(
                "",
                format!("not a readable zip archive (truncated or corrupt?): {e}"),
            )]
        })?;
        if zip.len() > limits.max_entries {
            return Err(vec![Problem::file(
                "",
                format!(
                    "{} entries exceed the limit of {}",
                    zip.len(),
                    limits.max_entries
                ),
            )]);
        }
        let mut problems = Vec::new();
        if zip.has_duplicate_names() {
            problems.push(Problem::file(
                "",
                "duplicate entry names in the zip directory",
            ));
        }
        let mut files = BTreeMap::new();
        let mut dirs = Vec::new();
        let (mut total, mut stored): (u64, u64) = (0, 0);
        for index in 0..zip.len() {
            let listed = zip
                .name_for_index(index)
                .and_then(Result::ok)
                .map(|n| n.into_owned());
            let f = match zip.by_index_raw(index) {
                Ok(f) => f,
                Err(e) => {
                    let name = listed.unwrap_or_default();
                    problems.push(Problem::file(
                        name,
                        format!("entry {index} unreadable: {e}"),
                    ));
                    continue;
                }
            };
            let raw = String::from_utf8_lossy(f.name_raw()).into_owned();
            let name = match safe_entry_name(&raw) {
                Ok(n) => n,
                Err(why) => {
                    problems.push(Problem::file(raw, format!("unsafe entry name: {why}")));
                    continue;
                }
            };
            if f.is_symlink() {
                problems.push(Problem::file(name, "symbolic link entries are not allowed"));
                continue;
            }
            if f.is_dir() {
                dirs.push(name);
                continue;
            }
            let size = f.size();
            let compressed = f.compressed_size().max(1);
            if size > MIB && size / compressed > limits.max_compression_ratio {
                problems.push(Problem::file(
                    &name,
                    format!(
                        "compression ratio {} exceeds the limit of {} (zip bomb?)",
                        size / compressed,
                        limits.max_compression_ratio
                    ),
                ));
            }
            total = total.saturating_add(size);
            stored = stored.saturating_add(f.compressed_size());
            if f.encrypted() {
                problems.push(Problem::file(&name, "encrypted entries are not supported"));
            }
            if files
                .insert(
                    name.clone(),
                    Entry {
                        index,
                        size,
                        location: None,
                    },
                )
                .is_some()
            {
                problems.push(Problem::file(name, "duplicate entry name"));
            }
        }
        if total > limits.max_total_size {
            problems.push(Problem::file(
                "",
                format!(
                    "entries expand to {total} bytes, over the limit of {}",
                    limits.max_total_size
                ),
            ));
        }
        let ratio = total / stored.max(1);
        if total > limits.expansion_floor && ratio > limits.max_expansion_ratio {
            problems.push(Problem::file(
                "",
                format!(
                    "the package expands to {total} bytes, {ratio} times its {stored} compressed \
                     bytes, over the limit of {} (zip bomb?)",
                    limits.max_expansion_ratio
                ),
            ));
        }
        if problems.is_empty() {
            Ok(Self {
                zip,
                files,
                dirs,
                limits: limits.clone(),
                inflated: 0,
            })
        } else {
            Err(problems)
        }
    }

    /// Every file name, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    /// Whether `name` is a file of the archive.
    pub fn contains(&self, name: &str) -> bool {
        self.files.contains_key(name)
    }

    /// Whether `name` is a directory of the archive (explicit, or implied by files).
    pub fn is_dir(&self, name: &str) -> bool {
        let prefix = format!("{name}/");
        self.dirs.iter().any(|d| d == name) || self.files.keys().any(|f| f.starts_with(&prefix))
    }

    /// The declared size of `name`.
    pub fn size(&self, name: &str) -> Option<u64> {
        self.files.get(name).map(|e| e.size)
    }

    /// Streams `name` through `sink`, enforcing the declared size and the total limit.
    fn stream(&mut self, name: &str, mut sink: impl FnMut(&[u8])) -> Result<u64, Problem> {
        let entry = self
            .files
            .get(name)
            .cloned()
            .ok_or_else(|| Problem::file(name, "not in the package"))?;
        let mut f = self
            .zip
            .by_index(entry.index)
            .map_err(|e| Problem::file(name, format!("cannot read the entry: {e}")))?;
        let deflated = match f.compression() {
            zip::CompressionMethod::Stored => false,
            zip::CompressionMethod::Deflated => true,
            other => {
                return Err(Problem::file(
                    name,
                    format!("unsupported compression method {other:?} (use deflate or store)"),
                ));
            }
        };
        let location = f.data_start().map(|offset| EntryLocation {
            offset,
            stored_size: f.compressed_size(),
            size: entry.size,
            deflated,
        });
        let mut buf = vec![0u8; 256 * 1024];
        let mut read: u64 = 0;
        loop {
            let n = f
                .read(&mut buf)
                .map_err(|e| Problem::file(name, format!("corrupt or truncated entry: {e}")))?;
            if n == 0 {
                break;
            }
            read += n as u64;
            self.inflated = self.inflated.saturating_add(n as u64);
            if read > entry.size {
                return Err(Problem::file(
                    name,
                    "entry inflates beyond its declared size (zip bomb?)",
                ));
            }
            if self.inflated > self.limits.max_total_size {
                return Err(Problem::file(
                    name,
                    "package inflates beyond the total size limit",
                ));
            }
            sink(&buf[..n]);
        }
        if read != entry.size {
            return Err(Problem::file(
                name,
                "entry is shorter than its declared size (truncated?)",
            ));
        }
        drop(f);
        if let Some(e) = self.files.get_mut(name) {
            e.location = location;
        }
        Ok(read)
    }

    /// Where `name`'s data lies, once it has been read.
    pub fn location(&self, name: &str) -> Option<EntryLocation> {
        self.files.get(name).and_then(|e| e.location)
    }

    /// Reads a text file (at most `max_text_size` bytes, UTF-8).
    pub fn read_text(&mut self, name: &str) -> Result<String, Problem> {
        let size = self
            .size(name)
            .ok_or_else(|| Problem::file(name, "not in the package"))?;
        if size > self.limits.max_text_size {
            return Err(Problem::file(
                name,
                format!(
                    "{size} bytes is over the text limit of {}",
                    self.limits.max_text_size
                ),
            ));
        }
        let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
        self.stream(name, |chunk| bytes.extend_from_slice(chunk))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            Problem::file(
                name,
                format!("not valid UTF-8 (at byte {})", e.utf8_error().valid_up_to()),
            )
        })?;
        Ok(text
            .strip_prefix('\u{feff}')
            .map(str::to_owned)
            .unwrap_or(text))
    }

    /// Computes the given digests of `name` in one streaming pass; returns its size too.
    pub fn digests(
        &mut self,
        name: &str,
        algorithms: &[Algorithm],
    ) -> Result<(u64, Vec<(Algorithm, String)>), Problem> {
        let mut h = MultiHasher::new(algorithms);
        let size = self.stream(name, |chunk| h.update(chunk))?;
        Ok((size, h.finish()))
    }

    /// Extracts every file under `dir` (which must exist), streaming each one.
    pub fn extract_to(&mut self, dir: &Path) -> Result<(), Problem> {
        self.extract_up_to(dir, u64::MAX).map(|_| ())
    }

    /// Writes file `name` of the package to `target` (its directory made), streaming it.
    pub fn extract_file(&mut self, name: &str, target: &Path) -> Result<(), Problem> {
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| {
                Problem::file(name, format!("cannot create {}: {e}", parent.display()))
            })?;
        }
        let mut out = std::fs::File::create(target)
            .map_err(|e| Problem::file(name, format!("cannot write {}: {e}", target.display())))?;
        let mut failed = None;
        self.stream(name, |chunk| {
            if failed.is_none()
                && let Err(e) = std::io::Write::write_all(&mut out, chunk)
            {
                failed = Some(e);
            }
        })?;
        match failed {
            Some(e) => Err(Problem::file(
                name,
                format!("cannot write {}: {e}", target.display()),
            )),
            None => Ok(()),
        }
    }

    /// Extracts every file of at most `max_size` bytes under `dir`; larger files (images)
    /// stay inside the zip, where they are read in place. Returns the files left inside.
    pub fn extract_up_to(&mut self, dir: &Path, max_size: u64) -> Result<Vec<String>, Problem> {
        let mut left = Vec::new();
        let names: Vec<String> = self.files.keys().cloned().collect();
        for name in names {
            if self.size(&name).unwrap_or(0) > max_size {
                left.push(name);
                continue;
            }
            // Names were checked at open: no absolute paths, no '..', no symlinks.
            let target = dir.join(&name);
            self.extract_file(&name, &target)?;
        }
        Ok(left)
    }
}
