//! Bounds on what a package may make us do.

/// Limits applied while reading a package. The defaults suit real VNF packages (multi-GiB
/// images, hundreds of files) and stop hostile ones early.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Most entries a zip may have.
    pub max_entries: usize,
    /// Most bytes all entries may expand to, together.
    pub max_total_size: u64,
    /// Largest expansion ratio (uncompressed / compressed) of an entry over 1 MiB.
    pub max_compression_ratio: u64,
    /// Largest expansion ratio of the whole package (all entries' uncompressed sizes over
    /// their compressed sizes), once it expands beyond `expansion_floor`: many small
    /// entries each under the per-entry check cannot add up to a bomb.
    pub max_expansion_ratio: u64,
    /// Below this many expanded bytes the whole package's ratio is not checked.
    pub expansion_floor: u64,
    /// Largest text file (TOSCA.meta, manifest, definitions) read into memory.
    pub max_text_size: u64,
    /// Most definitions files a VNFD may import, transitively.
    pub max_definitions: usize,
    /// Deepest YAML nesting.
    pub max_yaml_depth: usize,
    /// Most YAML nodes in one file.
    pub max_yaml_nodes: usize,
    /// Most YAML aliases in one file.
    pub max_yaml_aliases: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_entries: 10_000,
            max_total_size: 64 * 1024 * 1024 * 1024,
            max_compression_ratio: 1_000,
            max_expansion_ratio: 100,
            expansion_floor: 64 * 1024 * 1024,
            max_text_size: 16 * 1024 * 1024,
            max_definitions: 64,
            max_yaml_depth: 64,
            max_yaml_nodes: 1_000_000,
            max_yaml_aliases: 1_000,
        }
    }
}
