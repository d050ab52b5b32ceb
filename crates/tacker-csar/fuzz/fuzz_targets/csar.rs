//! Arbitrary bytes as a CSAR zip: must end in Ok or Err, never panic or run away.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = tacker_csar::Limits {
        max_total_size: 64 * 1024 * 1024,
        max_text_size: 1024 * 1024,
        ..tacker_csar::Limits::default()
    };
    let _ = tacker_csar::validate_reader(std::io::Cursor::new(data), &limits);
});
