use std::io::Write;

use super::*;

fn env(pairs: &[(&str, &str)]) -> Sources {
    Sources {
        env: pairs
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect(),
        ..Sources::default()
    }
}

#[test]
fn defaults_file_loads_and_validates() {
    let c = Config::defaults().unwrap();
    assert_eq!(c.server.bind.to_string(), "127.0.0.1:9890");
    assert_eq!(c.lcm.sync_interval, std::time::Duration::from_secs(300));
    assert_eq!(c.public_base_url(), "http://127.0.0.1:9890");
}

#[test]
fn the_pool_is_sized_from_the_cores_unless_set() {
    let mut c = Config::defaults().unwrap();
    assert_eq!(c.database.pool_size, 0);
    let cores = std::thread::available_parallelism().unwrap().get() as u32;
    assert_eq!(c.database.pool_size(), (2 * cores).max(4));
    c.database.pool_size = 7;
    assert_eq!(c.database.pool_size(), 7);
}

#[test]
fn layers_apply_in_order_file_then_env() {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    writeln!(
        f,
        "[bus]\nprefix = \"from-file\"\n[all_in_one]\nconductors = 5"
    )
    .unwrap();
    let mut s = env(&[
        ("TACKER__BUS__PREFIX", "from-env"),
        ("TACKER__SERVER__PAGE_SIZE", "7"),
    ]);
    s.files.push(f.path().to_path_buf());
    s.optional_files.push("/nonexistent/tacker.toml".into());
    let c = Config::load(&s).unwrap();
    assert_eq!(c.bus.prefix, "from-env");
    assert_eq!(c.all_in_one.conductors, 5);
    assert_eq!(c.server.page_size, 7);
    assert_eq!(c.database.url, "sqlite://./data/tacker.db");
}

#[test]
fn env_sets_keys_with_underscores_and_durations() {
    let c = Config::load(&env(&[
        ("TACKER__ALL_IN_ONE__CONDUCTORS", "3"),
        ("TACKER__CONDUCTOR__DEAD_AFTER", "45s"),
        ("TACKER__CONDUCTOR__HEARTBEAT_INTERVAL", "500ms"),
    ]))
    .unwrap();
    assert_eq!(c.all_in_one.conductors, 3);
    assert_eq!(c.conductor.dead_after, Duration::from_secs(45));
    assert_eq!(c.conductor.heartbeat_interval, Duration::from_millis(500));
}

#[test]
fn unknown_keys_are_rejected() {
    let err = Config::load(&env(&[("TACKER__SERVER__BINDD", "x")])).unwrap_err();
    assert!(err.to_string().contains("bindd"), "{err}");
    let mut f = tempfile::NamedTempFile::new().unwrap();
    writeln!(f, "[nosuchsection]\nx = 1").unwrap();
    let mut s = Sources::default();
    s.files.push(f.path().to_path_buf());
    assert!(
        Config::load(&s)
            .unwrap_err()
            .to_string()
            .contains("nosuchsection")
    );
}

#[test]
fn missing_explicit_file_is_an_error() {
    let mut s = Sources::default();
    s.files.push("/nonexistent/tacker.toml".into());
    assert!(
        Config::load(&s)
            .unwrap_err()
            .to_string()
            .contains("not found")
    );
}

#[test]
fn invalid_values_are_reported_together() {
    let err = Config::load(&env(&[
        ("TACKER__STORAGE__URL", "ftp://x"),
        ("TACKER__BUS__URL", "kafka://x"),
        ("TACKER__CONDUCTOR__DEAD_AFTER", "1s"),
    ]))
    .unwrap_err()
    .to_string();
    for needle in ["storage.url", "bus.url", "dead_after"] {
        assert!(err.contains(needle), "{needle} missing from {err}");
    }
    // A value that is not of its setting's type is refused as it is read, naming the key
    // and the value.
    for (var, key, value) in [
        ("TACKER__SERVER__BIND", "server.bind", "nowhere"),
        (
            "TACKER__CONDUCTOR__HEALTH_BIND",
            "conductor.health_bind",
            "9891",
        ),
        (
            "TACKER__FM__ALERTMANAGER_URL",
            "fm.alertmanager_url",
            "ftp://am",
        ),
        (
            "TACKER__AUTH__JWKS_URL",
            "auth.jwks_url",
            "http://u:pw@idp/jwks",
        ),
        ("TACKER__MGMT__DRIVERS", "mgmt.drivers", "ansible"),
        ("TACKER__MGMT__DRIVERS", "mgmt.drivers", "grpc:/x"),
        (
            "TACKER__MGMT__DOCKER_INSTALL",
            "mgmt.docker_install",
            "ubuntu",
        ),
        (
            "TACKER__PM__PROMETHEUS_RULE_LABELS",
            "pm.prometheus_rule_labels",
            "=x",
        ),
        (
            "TACKER__OUTBOUND__ALLOWED_NETWORKS",
            "outbound.allowed_networks",
            "lan",
        ),
        ("TACKER__LOG__FORMAT", "log.format", "xml"),
        ("TACKER__AUTH__MODE", "auth.mode", "keystone-ish"),
        (
            "TACKER__SERVER__DUPLICATE_SUBSCRIPTIONS",
            "server.duplicate_subscriptions",
            "merge",
        ),
        (
            "TACKER__KUBERNETES__CLUSTER_SCOPED",
            "kubernetes.cluster_scoped",
            "maybe",
        ),
    ] {
        let err = Config::load(&env(&[(var, value)])).unwrap_err().to_string();
        assert!(err.contains(key) && err.contains(value), "{err}");
    }
    // The default VIM's JSON is refused without echoing it (it holds credentials).
    let err = Config::load(&env(&[(
        "TACKER__LCM__DEFAULT_VIM",
        "{\"password\": \"pw1\"",
    )]))
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("lcm.default_vim") && !err.contains("pw1"),
        "{err}"
    );
    let err = Config::load(&env(&[("TACKER__CONDUCTOR__DEAD_AFTER", "soon")])).unwrap_err();
    assert!(err.to_string().contains("invalid duration"), "{err}");
}

#[test]
fn show_redacts_passwords() {
    let c = Config::load(&env(&[
        (
            "TACKER__DATABASE__URL",
            "postgres://tacker:s3cret@db:5432/tacker",
        ),
        ("TACKER__BUS__URL", "amqp://guest:hunter2@mq:5672/%2f"),
        ("TACKER__STORAGE__S3_SECRET_ACCESS_KEY", "s3-secret-value"),
        (
            "TACKER__STORAGE__S3_ENDPOINT",
            "http://ak:s3-userinfo@minio:9000",
        ),
        (
            "TACKER__MGMT__DRIVERS",
            "Scripts/x.py=grpc://op:grpc-pw@driver:50051",
        ),
    ]))
    .unwrap();
    let shown = c.to_redacted_toml().unwrap();
    assert!(
        !shown.contains("s3cret") && !shown.contains("hunter2"),
        "{shown}"
    );
    assert!(
        !shown.contains("s3-userinfo") && !shown.contains("grpc-pw"),
        "{shown}"
    );
    let libpq = Config::load(&env(&[(
        "TACKER__DATABASE__URL",
        "postgres://db:5432/tacker?user=t&password=q-pw&sslpassword=q-sslpw",
    )]))
    .unwrap()
    .to_redacted_toml()
    .unwrap();
    assert!(
        !libpq.contains("q-pw") && !libpq.contains("q-sslpw") && libpq.contains("user=t"),
        "{libpq}"
    );
    assert!(
        shown.contains("postgres://tacker:***@db:5432/tacker"),
        "{shown}"
    );
    // `{:?}` (a log line) is the same redacted text.
    let debug = format!("{c:?}");
    assert!(
        !debug.contains("s3cret")
            && !debug.contains("hunter2")
            && !debug.contains("s3-secret-value"),
        "{debug}"
    );
}

#[test]
fn the_bus_takes_several_broker_urls_and_a_queue_type() {
    let c = Config::load(&env(&[
        (
            "TACKER__BUS__URL",
            "amqp://u:pw-one@h1:5672/%2f,amqp://u:pw-two@h2:5672/%2f",
        ),
        ("TACKER__BUS__QUEUE_TYPE", "classic"),
    ]))
    .unwrap();
    assert_eq!(c.bus.queue_type, crate::QueueType::Classic);
    let shown = c.to_redacted_toml().unwrap();
    assert!(
        !shown.contains("pw-one") && !shown.contains("pw-two") && shown.contains("h2:5672"),
        "{shown}"
    );
    assert_eq!(
        Config::defaults().unwrap().bus.queue_type,
        crate::QueueType::Quorum
    );
    let err = Config::load(&env(&[("TACKER__BUS__URL", "amqp://h1/%2f,http://h2/")]))
        .unwrap_err()
        .to_string();
    assert!(err.contains("bus.url"), "{err}");
    let err = Config::load(&env(&[("TACKER__BUS__QUEUE_TYPE", "stream")]))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("bus.queue_type") && err.contains("stream"),
        "{err}"
    );
}

#[test]
fn keystone_and_introspection_settings_go_together_and_are_redacted() {
    let err = Config::load(&env(&[("TACKER__AUTH__MODE", "keystone")]))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("auth.keystone_url") && err.contains("keystone_password"),
        "{err}"
    );
    let keystone = [
        ("TACKER__AUTH__MODE", "keystone"),
        ("TACKER__AUTH__KEYSTONE_URL", "http://keystone:5000/v3"),
        ("TACKER__AUTH__KEYSTONE_USERNAME", "tacker"),
        ("TACKER__AUTH__KEYSTONE_PASSWORD", "ks-secret"),
        ("TACKER__AUTH__KEYSTONE_PROJECT", "service"),
        ("TACKER__AUTH__KEYSTONE_CACHE", "30s"),
    ];
    let c = Config::load(&env(&keystone)).unwrap();
    assert_eq!(c.auth.keystone_cache, std::time::Duration::from_secs(30));
    assert_eq!(c.auth.keystone_user_domain, "Default");
    let shown = c.to_redacted_toml().unwrap();
    assert!(!shown.contains("ks-secret") && !format!("{c:?}").contains("ks-secret"));
    // Introspection is for mode oauth2 (under keystone opaque tokens are Keystone's),
    // and needs the client id Tacker authenticates with.
    let mut both = keystone.to_vec();
    both.push(("TACKER__AUTH__INTROSPECTION_URL", "https://idp/introspect"));
    let err = Config::load(&env(&both)).unwrap_err().to_string();
    assert!(err.contains("auth.introspection_url"), "{err}");
    let oauth2 = [
        ("TACKER__AUTH__MODE", "oauth2"),
        ("TACKER__AUTH__INTROSPECTION_URL", "https://idp/introspect"),
        ("TACKER__AUTH__INTROSPECTION_CLIENT_ID", "tacker"),
        ("TACKER__AUTH__INTROSPECTION_CLIENT_SECRET", "intro-secret"),
    ];
    let c = Config::load(&env(&oauth2)).unwrap();
    assert!(!c.to_redacted_toml().unwrap().contains("intro-secret"));
    let err = Config::load(&env(&oauth2[..2])).unwrap_err().to_string();
    assert!(err.contains("introspection_client_id"), "{err}");
}

#[test]
fn conductor_id_and_cache_dir() {
    let c = Config::defaults().unwrap();
    let a = c.conductor_id();
    assert!(a.starts_with(&hostname()));
    assert_ne!(a, c.conductor_id());
    assert_eq!(c.cache_dir("c1"), PathBuf::from("./data/cache/c1"));
    let c = Config::load(&env(&[("TACKER__CONDUCTOR__ID", "conductor-0")])).unwrap();
    assert_eq!(c.conductor_id(), "conductor-0");
}

#[test]
fn onboarding_networks_must_be_cidrs() {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    writeln!(
        f,
        "[onboarding]\nallowed_uri_networks = [\"127.0.0.1/32\", \"10.0.0.0/8\", \"::1\"]"
    )
    .unwrap();
    let mut s = Sources::default();
    s.files.push(f.path().to_path_buf());
    assert_eq!(
        Config::load(&s)
            .unwrap()
            .onboarding
            .allowed_uri_networks
            .len(),
        3
    );
    let mut f = tempfile::NamedTempFile::new().unwrap();
    writeln!(f, "[onboarding]\nallowed_uri_networks = [\"not-a-net\"]").unwrap();
    let mut s = Sources::default();
    s.files.push(f.path().to_path_buf());
    assert!(
        Config::load(&s)
            .unwrap_err()
            .to_string()
            .contains("not-a-net")
    );
}

#[test]
fn lists_come_from_the_environment_comma_separated() {
    let c = Config::load(&env(&[(
        "TACKER__ONBOARDING__ALLOWED_URI_NETWORKS",
        "127.0.0.1/32,10.0.0.0/8",
    )]))
    .unwrap();
    let nets: Vec<String> = c
        .onboarding
        .allowed_uri_networks
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(nets, ["127.0.0.1/32", "10.0.0.0/8"]);
    let c = Config::load(&env(&[(
        "TACKER__MGMT__DRIVERS",
        "Scripts/a.py=private-registry,Scripts/b.py=grpc://plugin:50051/?x=1",
    )]))
    .unwrap();
    assert_eq!(
        c.mgmt.drivers.entries(),
        [
            "Scripts/a.py=private-registry",
            "Scripts/b.py=grpc://plugin:50051/?x=1"
        ]
    );
}
