//! Compiles `proto/tacker/mgmt/v1/mgmt.proto` (client and server, for the example
//! driver). Uses `$PROTOC` when set, else the protoc inside protoc-bin-vendored.
fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-env-changed=PROTOC");
    println!("cargo:rerun-if-changed=../../proto/tacker/mgmt");
    let mut cfg = tonic_prost_build::Config::new();
    if std::env::var_os("PROTOC").is_none() {
        cfg.protoc_executable(protoc_bin_vendored::protoc_bin_path()?);
    }
    tonic_prost_build::configure().compile_with_config(
        cfg,
        &["../../proto/tacker/mgmt/v1/mgmt.proto"],
        &["../../proto"],
    )?;
    Ok(())
}
