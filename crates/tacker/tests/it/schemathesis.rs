//! The API under property-based fuzzing: schemathesis (`tests/infra/pytools.sh`) sends
//! generated requests, with an administrator's token, from our `/openapi.json` and, when
//! `shared/reference/etsi-openapi` is beside a parent directory, from the ETSI SOL003
//! (lifecycle, v3.3.1) and SOL005 (packages, v2.4.1) definitions, whose bodies go deeper.
//! No answer may be a server error, and the server is ready afterwards. Seeds are fixed
//! so a failure replays; `st run` by hand with other seeds explores further.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

use crate::auth::hash_secret;
use crate::support::{ClusterEnv, all_in_one};

const SECRET: &str = "fuzz-secret-0123456789";

fn st_bin() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.tools/schemathesis/bin/st");
    assert!(
        p.exists(),
        "{} missing: run tests/infra/pytools.sh (make test does)",
        p.display()
    );
    p
}

/// `shared/reference/etsi-openapi` beside a parent directory, if there.
fn etsi_dir() -> Option<PathBuf> {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|a| a.join("shared/reference/etsi-openapi"))
        .find(|p| p.is_dir())
}

/// Runs `st run` on `schema` against `base`; panics with its report on any failure.
fn fuzz(schema: &str, base: Option<&str>, token: &str, extra: &[&str], examples: u32) {
    // schemathesis keeps a cache in its working directory: a throwaway one.
    let scratch = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(st_bin());
    cmd.current_dir(scratch.path())
        .args([
            "run",
            schema,
            "--checks",
            "not_a_server_error",
            "--no-color",
        ])
        .args(["--seed", "20261201"])
        .args(["--max-examples", &examples.to_string()])
        .args(["-H", &format!("Authorization: Bearer {token}")])
        .args(extra);
    if let Some(b) = base {
        cmd.args(["--url", b]);
    }
    let out = cmd.output().unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "schemathesis found failures in {schema}:\n{report}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(report.contains("passed"), "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_requests_never_get_a_server_error() {
    let env = ClusterEnv::new(
        "sqlite://./tacker.db",
        "memory://",
        &tacker_testkit::unique_prefix(),
    );
    let (_aio, url) = all_in_one(
        &env,
        &format!(
            "[lcm]\nsimulated_vim = true\n\n[auth]\nmode = \"oauth2\"\n\n[[auth.clients]]\n\
             id = \"fuzz\"\nsecret_hash = \"{}\"\nroles = [\"admin\"]\n",
            hash_secret(SECRET)
        ),
        &[],
    )
    .await;
    let http = reqwest::Client::new();
    let r = http
        .post(format!("{url}/oauth2/token"))
        .basic_auth("fuzz", Some(SECRET))
        .form(&[("grant_type", "client_credentials")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let token = r.json::<Value>().await.unwrap()["access_token"]
        .as_str()
        .unwrap()
        .to_owned();

    let (u, t) = (url.clone(), token.clone());
    tokio::task::spawn_blocking(move || {
        fuzz(&format!("{u}/openapi.json"), None, &t, &[], 25);
        match etsi_dir() {
            Some(d) => {
                fuzz(
                    &d.join("SOL003-v3.3.1-bundled/sol003_lifecycle_openapi.json")
                        .to_string_lossy(),
                    Some(&format!("{u}/vnflcm/v2")),
                    &t,
                    &["-H", "Version: 2.0.0"],
                    8,
                );
                fuzz(
                    &d.join("SOL005-v2.4.1-bundled/SOL005-VNFPackageManagement-API.json")
                        .to_string_lossy(),
                    Some(&format!("{u}/vnfpkgm/v1")),
                    &t,
                    &[],
                    20,
                );
            }
            None => eprintln!("no shared/reference/etsi-openapi: fuzzed our own schema only"),
        }
    })
    .await
    .unwrap();
    let r = http.get(format!("{url}/readyz")).send().await.unwrap();
    assert_eq!(r.status(), 200, "ready after the fuzzing");
}
