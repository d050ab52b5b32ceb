//! The `tackerctl` binary as a shell runs it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking"
)]

use std::process::{Command, Stdio};

/// Runs the binary with `args` writing into a pipe whose reader is already gone (as
/// `tackerctl ... | head` once head has exited): (exit status, stderr).
fn into_closed_pipe(args: &[&str]) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_tackerctl"))
        .args(args)
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_closed_stdout_ends_quietly_with_status_0() {
    let (code, stderr) = into_closed_pipe(&["completions", "bash"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    // Any command's output: the offline validation of a package.
    let dir = tempfile::tempdir().unwrap();
    let zip = dir.path().join("pkg.zip");
    tacker_testkit::csar::valid().write_to(&zip);
    let (code, stderr) = into_closed_pipe(&["package", "validate", zip.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
}
