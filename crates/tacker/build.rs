//! How the `tacker` binary is linked.

fn main() {
    // Relative relocations packed (DT_RELR, glibc 2.36 and later): the dynamic loader
    // reads a few KiB instead of the ~1 MiB of RELA entries it would otherwise read, and
    // keep resident, at every start of every process.
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
