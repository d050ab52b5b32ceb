//! Hostile input: every case ends in a clear error, never a panic or a write outside.

use std::io::{Cursor, Write};

use tacker_csar::{Limits, validate_reader};
use zip::write::SimpleFileOptions;

use crate::fixtures::{Check, Csar, assert_problem, sealed, valid};

fn problems_of(bytes: Vec<u8>, limits: &Limits) -> Vec<String> {
    match validate_reader(Cursor::new(bytes), limits) {
        Ok(_) => panic!("hostile package accepted"),
        Err(e) => e.problems().iter().map(ToString::to_string).collect(),
    }
}

fn raw_zip(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, data) in entries {
        w.start_file(*name, SimpleFileOptions::default()).unwrap();
        w.write_all(data).unwrap();
    }
    w.finish().unwrap().into_inner()
}

#[test]
fn zip_slip_names_are_refused() {
    for name in [
        "../evil.yaml",
        "a/../../evil.yaml",
        "/etc/cron.d/evil",
        "C:/evil.yaml",
        "a\\..\\evil",
    ] {
        let p = problems_of(raw_zip(&[(name, b"x")]), &Limits::default());
        assert_problem(&p, &["unsafe entry name"]);
    }
}

#[test]
fn symlink_entries_are_refused() {
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    w.add_symlink(
        "Definitions/link.yaml",
        "/etc/passwd",
        SimpleFileOptions::default(),
    )
    .unwrap();
    let p = problems_of(w.finish().unwrap().into_inner(), &Limits::default());
    assert_problem(&p, &["Definitions/link.yaml", "symbolic link"]);
}

#[test]
fn duplicate_names_are_refused() {
    let mut bytes = raw_zip(&[("dup-A.txt", b"one"), ("dup-B.txt", b"two")]);
    // Rename the second entry (local header and central directory) to the first's name.
    let (from, to) = (b"dup-B.txt", b"dup-A.txt");
    let mut i = 0;
    while i + from.len() <= bytes.len() {
        if &bytes[i..i + from.len()] == from {
            bytes[i..i + from.len()].copy_from_slice(to);
        }
        i += 1;
    }
    let p = problems_of(bytes, &Limits::default());
    assert_problem(&p, &["duplicate"]);
}

#[test]
fn zip_bombs_hit_the_limits() {
    let zeros = vec![0u8; 8 * 1024 * 1024];
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let deflate = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    w.start_file("Files/zeros.bin", deflate).unwrap();
    w.write_all(&zeros).unwrap();
    let bomb = w.finish().unwrap().into_inner();
    let strict = Limits {
        max_compression_ratio: 100,
        ..Limits::default()
    };
    assert_problem(
        &problems_of(bomb.clone(), &strict),
        &["Files/zeros.bin", "compression ratio", "zip bomb"],
    );
    let small = Limits {
        max_total_size: 1024 * 1024,
        ..Limits::default()
    };
    assert_problem(&problems_of(bomb, &small), &["over the limit"]);
    let many: Vec<(String, Vec<u8>)> = (0..40).map(|i| (format!("f{i}"), vec![])).collect();
    let refs: Vec<(&str, &[u8])> = many
        .iter()
        .map(|(n, d)| (n.as_str(), d.as_slice()))
        .collect();
    let few = Limits {
        max_entries: 30,
        ..Limits::default()
    };
    assert_problem(
        &problems_of(raw_zip(&refs), &few),
        &["40 entries exceed the limit of 30"],
    );
}

/// Entries of 1 MiB each pass the per-entry ratio check; together they are a bomb.
#[test]
fn many_small_entries_add_up_to_a_bomb() {
    let zeros = vec![0u8; 1024 * 1024];
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let deflate = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for i in 0..100 {
        w.start_file(format!("Files/zeros-{i}.bin"), deflate)
            .unwrap();
        w.write_all(&zeros).unwrap();
    }
    let bomb = w.finish().unwrap().into_inner();
    let limits = Limits {
        expansion_floor: 32 * 1024 * 1024,
        ..Limits::default()
    };
    assert_problem(
        &problems_of(bomb.clone(), &limits),
        &[
            "expands to 104857600 bytes",
            "over the limit of 100",
            "zip bomb",
        ],
    );
    // Under the floor the whole package's ratio is not checked.
    let lenient = Limits {
        expansion_floor: 200 * 1024 * 1024,
        ..Limits::default()
    };
    let p = problems_of(bomb, &lenient);
    assert!(
        !p.iter().any(|x| x.to_string().contains("expands to")),
        "{p:?}"
    );
}

#[test]
fn yaml_bombs_and_deep_nesting_are_refused() {
    let mut bomb = String::from(
        "tosca_definitions_version: tosca_simple_yaml_1_2\na: &a [x, x, x, x, x, x, x, x, x, x]\n",
    );
    let mut prev = 'a';
    for c in 'b'..='j' {
        bomb.push_str(&format!("{c}: &{c} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"));
        prev = c;
    }
    let csar = sealed(valid().with("Definitions/test_types.yaml", bomb));
    assert_problem(
        &csar.problems(),
        &["Definitions/test_types.yaml", "invalid YAML"],
    );
    let deep = format!(
        "tosca_definitions_version: x\nk: {}{}\n",
        "[".repeat(5000),
        "]".repeat(5000)
    );
    let csar = sealed(valid().with("Definitions/test_types.yaml", deep));
    assert_problem(
        &csar.problems(),
        &["Definitions/test_types.yaml", "invalid YAML"],
    );
}

#[test]
fn huge_single_lines_and_invalid_utf8_are_refused() {
    // Incompressible text, so the size limit (not the ratio limit) is what stops it.
    let mut seed: u32 = 7;
    let noise: String = (0..3 * 1024 * 1024)
        .map(|_| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            char::from(b'a' + ((seed >> 16) % 26) as u8)
        })
        .collect();
    let line = format!("tosca_definitions_version: x\ndescription: {noise}\n");
    let csar = valid().with("Definitions/test_types.yaml", line);
    let limits = Limits {
        max_text_size: 1024 * 1024,
        ..Limits::default()
    };
    let p = problems_of(csar.zip(), &limits);
    assert_problem(&p, &["Definitions/test_types.yaml", "over the text limit"]);
    let csar = valid().with(
        "TOSCA-Metadata/TOSCA.meta",
        b"TOSCA-Meta-File-Version: \xff\xfe\n",
    );
    assert_problem(
        &csar.problems(),
        &["TOSCA-Metadata/TOSCA.meta", "not valid UTF-8"],
    );
}

#[test]
fn truncated_and_corrupt_archives_are_refused() {
    let bytes = valid().zip();
    for cut in [0, 10, bytes.len() / 2, bytes.len() - 10] {
        let p = problems_of(bytes[..cut].to_vec(), &Limits::default());
        assert_problem(&p, &["not a readable zip archive"]);
    }
    // Corrupt compressed data inside an entry, directory intact.
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let deflate = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    let csar = valid();
    for (name, data) in &csar.files {
        w.start_file(name.as_str(), deflate).unwrap();
        w.write_all(data).unwrap();
    }
    let mut bytes = w.finish().unwrap().into_inner();
    let pos = bytes
        .windows(b"Files/images/test.img".len())
        .position(|x| x == b"Files/images/test.img")
        .unwrap();
    // Just past the name: inside the (short) deflated data of the image.
    for b in &mut bytes[pos + 23..pos + 28] {
        *b ^= 0x5a;
    }
    let p = problems_of(bytes, &Limits::default());
    assert_problem(&p, &["Files/images/test.img"]);
    assert_problem(
        &problems_of(b"PK\x03\x04garbage".to_vec(), &Limits::default()),
        &["not a readable zip"],
    );
}

#[test]
fn arbitrary_bytes_never_panic() {
    // A deterministic spray of mutations over a valid package.
    let base = valid().zip();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..300 {
        let mut bytes = base.clone();
        for _ in 0..8 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let i = (seed as usize) % bytes.len();
            bytes[i] = (seed >> 32) as u8;
        }
        let _ = validate_reader(Cursor::new(bytes), &Limits::default());
    }
    let _ = Csar::default();
}

/// Writes seed inputs for `make fuzz` (run by tests/infra/fuzz.sh, not by `make test`).
#[test]
#[ignore = "writes the fuzz seed corpus; run by tests/infra/fuzz.sh"]
fn write_fuzz_seeds() {
    let dir = std::path::PathBuf::from(std::env::var("TACKER_FUZZ_SEEDS").unwrap());
    let csar = valid();
    let variants = [
        ("valid", csar.clone()),
        (
            "tampered",
            csar.clone().with("Files/kubernetes/deployment.yaml", "x"),
        ),
        ("no-meta", csar.clone().without("TOSCA-Metadata/TOSCA.meta")),
    ];
    for (name, c) in variants {
        std::fs::write(dir.join("csar").join(name), c.zip()).unwrap();
    }
    for name in [
        "Definitions/test_top.vnfd.yaml",
        "Definitions/test_df_simple.yaml",
        "Definitions/test_types.yaml",
    ] {
        let file = name.rsplit('/').next().unwrap();
        std::fs::write(dir.join("vnfd").join(file), csar.get(name)).unwrap();
    }
}
