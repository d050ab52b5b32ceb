//! The configuration reference (Markdown), generated from the documented defaults file
//! so the two never disagree (`tacker config reference`, `docs/configuration.md`).

/// Markdown: one table per section, every key with its default, environment variable
/// and the comment written above it in the defaults file.
pub fn markdown(defaults: &str) -> String {
    let mut out = String::from(
        "# Configuration reference\n\nGenerated from `crates/tacker-config/defaults.toml` by `tacker config reference`; do not edit by hand.\n\n",
    );
    let mut intro = Vec::new();
    let mut comment: Vec<String> = Vec::new();
    let mut section: Option<String> = None;
    for line in defaults.lines() {
        let t = line.trim();
        if let Some(c) = t.strip_prefix('#') {
            let c = c.strip_prefix(' ').unwrap_or(c).to_owned();
            if section.is_none() {
                intro.push(c);
            } else {
                comment.push(c);
            }
            continue;
        }
        if t.is_empty() {
            if section.is_none() && !intro.is_empty() {
                out.push_str(&intro.join("\n"));
                out.push_str("\n\n");
                intro.clear();
            }
            continue;
        }
        if let Some(name) = t.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
            if section.is_some() {
                out.push('\n');
            }
            out.push_str(&format!(
                "## `[{name}]`\n\n| key | default | environment | meaning |\n|---|---|---|---|\n"
            ));
            section = Some(name.to_owned());
            comment.clear();
            continue;
        }
        if let (Some(sec), Some((key, value))) = (&section, t.split_once('=')) {
            let key = key.trim();
            out.push_str(&format!(
                "| `{sec}.{key}` | `{}` | `TACKER__{}__{}` | {} |\n",
                value.trim().replace('|', "\\|"),
                sec.to_uppercase(),
                key.to_uppercase(),
                comment.join(" ").replace('|', "\\|"),
            ));
            comment.clear();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_get_their_comments_defaults_and_variables() {
        let md = markdown("# Intro.\n\n[server]\n# Where it listens.\nbind = \"x\"\n");
        assert!(md.contains("Intro."));
        assert!(
            md.contains("| `server.bind` | `\"x\"` | `TACKER__SERVER__BIND` | Where it listens. |")
        );
    }

    #[test]
    fn the_docs_are_current() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/configuration.md");
        let on_disk = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            on_disk == markdown(crate::DEFAULTS_TOML),
            "docs/configuration.md is stale: run `cargo run -q -p tacker -- config reference > docs/configuration.md`"
        );
    }
}
