use crate::support::tacker;

#[test]
fn config_show_prints_effective_configuration_with_secrets_redacted() {
    let out = tacker()
        .args(["config", "show"])
        .env(
            "TACKER__DATABASE__URL",
            "postgres://tacker:topsecret@db/tacker",
        )
        .env("TACKER__ALL_IN_ONE__CONDUCTORS", "4")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("topsecret"), "{text}");
    assert!(text.contains("postgres://tacker:***@db/tacker"));
    assert!(text.contains("conductors = 4"));
    assert!(text.contains("bind = \"127.0.0.1:9890\""));
}

#[test]
fn invalid_configuration_fails_with_a_clear_message() {
    let out = tacker()
        .args(["config", "show"])
        .env("TACKER__SERVER__BINDD", "0.0.0.0:1")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("bindd"), "{err}");
    let out = tacker()
        .args(["--config", "/nonexistent.toml", "server"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8(out.stderr).unwrap().contains("not found"));
}
