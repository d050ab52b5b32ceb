//! `tackerctl`: the operator CLI.

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let mut stdout = std::io::stdout();
    let code = tackerctl::run(std::env::args_os(), &mut stdout).await;
    std::process::exit(code);
}
