//! Paths inside a package: safe entry names and relative references.

/// Checks a zip entry name and returns it normalised (no `./`, no trailing `/`), or why
/// it is unsafe: empty, absolute, a drive letter, backslashes, NUL or a `..` component.
pub fn safe_entry_name(name: &str) -> Result<String, &'static str> {
    if name.is_empty() {
        return Err("empty name");
    }
    if name.contains('\0') {
        return Err("NUL in name");
    }
    if name.contains('\\') {
        return Err("backslash in name");
    }
    if name.starts_with('/') {
        return Err("absolute path");
    }
    let b = name.as_bytes();
    if b.len() >= 2 && b[1] == b':' && b[0].is_ascii_alphabetic() {
        return Err("drive letter");
    }
    let mut parts = Vec::new();
    for part in name.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err("'..' component"),
            p => parts.push(p),
        }
    }
    if parts.is_empty() {
        return Err("empty name");
    }
    Ok(parts.join("/"))
}

/// Whether a reference is a URL rather than a path inside the package.
pub fn is_url(reference: &str) -> bool {
    reference.contains("://")
}

/// Resolves `reference` relative to the directory of `from` (a file inside the package);
/// a leading `/` means the package root. `None` when it climbs out of the package.
pub fn resolve(from: &str, reference: &str) -> Option<String> {
    let mut parts: Vec<&str> = if reference.starts_with('/') {
        Vec::new()
    } else {
        let mut p: Vec<&str> = from.split('/').collect();
        p.pop();
        p
    };
    for part in reference.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    if parts.is_empty() {
        None
    } else {
        Some(parts.join("/"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_names_are_refused() {
        assert_eq!(
            safe_entry_name("Definitions/a.yaml").unwrap(),
            "Definitions/a.yaml"
        );
        assert_eq!(safe_entry_name("./Files/x/").unwrap(), "Files/x");
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../../x",
            "C:/win",
            "c:x",
            "a\\b",
            "a\0b",
            "./",
        ] {
            assert!(safe_entry_name(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn references_resolve_relative_to_their_file() {
        assert_eq!(
            resolve("Definitions/top.yaml", "types.yaml").unwrap(),
            "Definitions/types.yaml"
        );
        assert_eq!(
            resolve("Definitions/df.yaml", "../Files/images/a.img").unwrap(),
            "Files/images/a.img"
        );
        assert_eq!(resolve("top.yaml", "./x/y.yaml").unwrap(), "x/y.yaml");
        assert_eq!(
            resolve("Definitions/df.yaml", "/Scripts/s.py").unwrap(),
            "Scripts/s.py"
        );
        assert!(resolve("Definitions/df.yaml", "../../etc/passwd").is_none());
        assert!(is_url("https://forge.etsi.org/x.yaml") && !is_url("x.yaml"));
    }
}
