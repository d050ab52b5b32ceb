//! Compiles `proto/tacker/rpc/v1/*.proto` with prost. Uses `$PROTOC` when set, else the
//! protoc shipped inside protoc-bin-vendored (works offline).
fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-env-changed=PROTOC");
    println!("cargo:rerun-if-changed=../../proto/tacker/rpc");
    let mut cfg = prost_build::Config::new();
    if std::env::var_os("PROTOC").is_none() {
        cfg.protoc_executable(protoc_bin_vendored::protoc_bin_path()?);
    }
    // Messages carrying credentials get a Debug that masks them (src/redacted.rs).
    cfg.skip_debug(["tacker.rpc.v1.UploadFromUri"]);
    cfg.compile_protos(
        &[
            "../../proto/tacker/rpc/v1/envelope.proto",
            "../../proto/tacker/rpc/v1/conductor.proto",
            "../../proto/tacker/rpc/v1/onboarding.proto",
            "../../proto/tacker/rpc/v1/lcm.proto",
        ],
        &["../../proto"],
    )?;
    Ok(())
}
