//! Arbitrary bytes as the VNFD of an otherwise well-formed CSAR: exercises the YAML
//! reader and the VNFD model builder.
#![no_main]

use std::io::Write;

use libfuzzer_sys::fuzz_target;
use zip::write::SimpleFileOptions;

const META: &str = "TOSCA-Meta-File-Version: 1.0\nCSAR-Version: 1.1\nCreated-By: fuzz\nEntry-Definitions: Definitions/top.yaml\n";

fuzz_target!(|data: &[u8]| {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = SimpleFileOptions::default();
    let built = (|| -> zip::result::ZipResult<Vec<u8>> {
        w.start_file("TOSCA-Metadata/TOSCA.meta", opts)?;
        w.write_all(META.as_bytes())?;
        w.start_file("Definitions/top.yaml", opts)?;
        w.write_all(data)?;
        Ok(w.finish()?.into_inner())
    })();
    if let Ok(bytes) = built {
        let limits = tacker_csar::Limits { max_text_size: 1024 * 1024, ..tacker_csar::Limits::default() };
        let _ = tacker_csar::validate_reader(std::io::Cursor::new(bytes), &limits);
    }
});
