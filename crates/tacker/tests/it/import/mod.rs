//! `tacker import tacker` against a real upstream Tacker 16.0.0 (`tests/infra/
//! tacker-upstream.sh`: PyPI tacker on its own MariaDB, Keystone auth on the tests'
//! Keystone), driven by the real `openstack` client: a VIM, packages, instances of both
//! APIs, an operation's history and an NFVO's subscription made through Tacker's own
//! API come over by the operator guide's walkthrough, are served by ours to the same
//! project only (the NFVO hears of an operation here), and a second import changes
//! nothing.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use tacker_testkit::keystone::{OpenStack, Project};

use crate::procs::Cluster;
use crate::readme::{run_script, walkthrough_in};
use made::Made;
use session::InTacker;

mod cnf;
mod made;
mod pg;
mod session;
mod vm;

/// What each import test starts from: upstream's samples, the tests' Keystone and Glance,
/// Tacker up, a project of the test's own with a member, a work directory; `None` (the
/// test is skipped, said so) when the reference samples are not found.
async fn start() -> Option<(PathBuf, OpenStack, Upstream, Project, tempfile::TempDir)> {
    let Some(samples) = tacker_testkit::samples::samples_dir() else {
        eprintln!("SKIPPED: reference samples not found; set TACKER_SAMPLES_DIR");
        return None;
    };
    let os = OpenStack::up();
    let up = Upstream::up();
    let p = os.project(&[("member", &["member"])]).await;
    Some((samples, os, up, p, tempfile::tempdir().unwrap()))
}

/// What `tacker-upstream.sh up` printed.
struct Upstream {
    api: String,
    /// Tacker's database, `mysql://tacker:<password>@127.0.0.1:<port>/tacker`.
    db: String,
    conf: String,
    /// `[vim_keys] openstack`.
    vim_keys: String,
    /// glance_store's file directory.
    csar_dir: String,
    /// Tacker's own `userdata_standard.py`.
    userdata_standard: String,
}

/// `tests/infra/tacker-upstream.sh <args>`, which must succeed: its standard output.
fn upstream_script(args: &[&str]) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/infra/tacker-upstream.sh");
    let out = std::process::Command::new(script)
        .args(args)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "tacker-upstream.sh {args:?}: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// The value of the line `<key> <value>` of what the script printed.
fn printed(text: &str, key: &str) -> String {
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{key} ")))
        .unwrap_or_else(|| panic!("tacker-upstream.sh printed no {key}: {text}"))
        .to_owned()
}

impl Upstream {
    fn up() -> Self {
        let text = upstream_script(&["up"]);
        let field = |k: &str| printed(&text, k);
        Self {
            api: field("tacker"),
            db: field("db"),
            conf: field("conf"),
            vim_keys: field("vim-keys"),
            csar_dir: field("csar-dir"),
            userdata_standard: field("userdata-standard"),
        }
    }
}

/// The cut-over's first step: Tacker's conductor stopped (the next `Upstream::up` starts
/// it again).
fn stop_tackers_conductor() {
    upstream_script(&["stop-conductor"]);
}

/// Upstream's CNF sample with a VNFD id of its own (Tacker refuses a vnfdId it holds
/// already, and its database outlives test runs).
fn cnf_sample(root: &Path, vnfd_id: &str, work: &Path) -> Vec<u8> {
    sample(
        &root.join("tests/functional/sol_kubernetes_v2"),
        "test_instantiate_cnf_resources",
        vnfd_id,
        work,
    )
}

/// Upstream's sample `name` under `base` (its `common/Definitions` beside it), the VNFD
/// id of the samples replaced by `vnfd_id`, its LCM script one that does nothing.
fn sample(base: &Path, name: &str, vnfd_id: &str, work: &Path) -> Vec<u8> {
    sample_csar(base, name, vnfd_id, work).zip()
}

/// One of the user guide's example packages, `docs/examples/<name>`: its definitions
/// `<prefix>_top.vnfd.yaml`, `<prefix>_types.yaml` (declaring VNFD id `id`) and
/// `<prefix>_df_<flavour>.yaml`.
struct Example<'a> {
    name: &'a str,
    id: &'a str,
    prefix: &'a str,
    flavours: &'a [&'a str],
}

/// `example` as Tacker's TOSCA parser takes it, of VNFD id `vnfd_id`: ours reads the
/// ETSI types built in and the VNF's properties off its type's defaults, Tacker's wants
/// the ETSI types imported by each definition (upstream's samples' copies, under
/// `samples`), the VNF's properties on its template, each flavour's inputs declared and
/// each VDU described.
fn example_for_tacker(
    samples: &Path,
    example: &Example,
    vnfd_id: &str,
) -> tacker_testkit::csar::Csar {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples");
    let etsi = samples.join("tests/functional/sol_v2_common/common/Definitions");
    let csar = tacker_testkit::samples::package(&dir.join(example.name), Some(&etsi), &[]);
    let etsi_types = "imports:\n  - etsi_nfv_sol001_common_types.yaml\n  \
                      - etsi_nfv_sol001_vnfd_types.yaml\n";
    let p = example.prefix;
    let csar = csar.edit(&format!("Definitions/{p}_types.yaml"), |t| {
        t.replace(example.id, vnfd_id).replacen(
            "node_types:",
            &format!("{etsi_types}node_types:"),
            1,
        )
    });
    let selected = "flavour_id: { get_input: selected_flavour }";
    let properties = format!(
        "{selected}\n        flavour_description: ''\n        descriptor_id: {vnfd_id}\n        \
         descriptor_version: '1.0'\n        provider: Example Provider\n        \
         product_name: Example\n        software_version: '1.0'\n        \
         vnfm_info: [ Tacker ]"
    );
    let csar = csar.edit(&format!("Definitions/{p}_top.vnfd.yaml"), |t| {
        t.replacen("imports:\n", etsi_types, 1)
            .replacen(selected, &properties, 1)
    });
    let strings = [
        "descriptor_id",
        "descriptor_version",
        "provider",
        "product_name",
        "software_version",
        "flavour_id",
        "flavour_description",
    ];
    let inputs: String = strings
        .iter()
        .map(|k| format!("    {k}:\n      type: string\n"))
        .collect();
    let inputs = format!(
        "topology_template:\n  inputs:\n{inputs}    vnfm_info:\n      type: list\n      \
         entry_schema:\n        type: string\n"
    );
    let vdu = "type: tosca.nodes.nfv.Vdu.Compute\n      properties:\n";
    example.flavours.iter().fold(csar, |csar, f| {
        csar.edit(&format!("Definitions/{p}_df_{f}.yaml"), |t| {
            let t = t.replacen("imports:\n", etsi_types, 1).replacen(
                "topology_template:\n",
                &inputs,
                1,
            );
            // Each VDU node, described unless it is.
            t.split(vdu)
                .enumerate()
                .map(|(n, part)| {
                    let described = part
                        .lines()
                        .take_while(|l| l.starts_with("        "))
                        .any(|l| l.trim_start().starts_with("description:"));
                    if n == 0 || described {
                        part.to_owned()
                    } else {
                        format!("        description: a VDU\n{part}")
                    }
                })
                .collect::<Vec<_>>()
                .join(vdu)
        })
    })
}

/// [`sample`] before it is zipped.
fn sample_csar(base: &Path, name: &str, vnfd_id: &str, work: &Path) -> tacker_testkit::csar::Csar {
    let contents = work.join(format!("{name}-contents"));
    copy_tree(&base.join(name).join("contents"), &contents);
    for e in std::fs::read_dir(contents.join("Definitions")).unwrap() {
        let p = e.unwrap().path();
        let text = std::fs::read_to_string(&p).unwrap();
        std::fs::write(
            &p,
            text.replace("b1bb0ce7-ebca-4fa7-95ed-4840d7000000", vnfd_id),
        )
        .unwrap();
    }
    tacker_testkit::samples::package(
        &contents,
        Some(&base.join("common/Definitions")),
        &["Scripts/sample_script.py"],
    )
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p: PathBuf = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_tree(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

/// The operator guide's walkthrough `name` ("Coming from Tacker") with `c`'s
/// configuration and Tacker's `tacker.conf`: its standard output.
fn walkthrough(c: &Cluster, up: &Upstream, name: &str) -> String {
    let mut script = String::from("export PATH=\"$PWD/target/debug:$PATH\"\n");
    for (k, v) in c
        .env
        .vars
        .iter()
        .chain([&("TACKER_CONF".to_owned(), up.conf.clone())])
    {
        script.push_str(&format!("export {k}='{v}'\n"));
    }
    script.push_str(&walkthrough_in("docs/operator-guide.md", name));
    let dir = tempfile::tempdir().unwrap();
    run_script(&script, dir.path())
}

/// Polls Tacker's `url` (as `token`'s holder, v2 headers included) until its `field` is
/// `want`, for up to `secs` seconds; says what it last saw when that never comes.
async fn until(http: &reqwest::Client, url: &str, token: &str, field: &str, want: &str, secs: u64) {
    let deadline = std::time::Instant::now() + Duration::from_secs(secs);
    loop {
        let r = http
            .get(url)
            .header("X-Auth-Token", token)
            .header("Version", "2.0.0")
            .send()
            .await
            .unwrap();
        let v: Value = r.json().await.unwrap();
        if v[field] == want {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{url}: {field} never became {want} within {secs} s: {v}"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// The summary's counts of `kind`: imported, updated, unchanged, skipped.
fn counts(summary: &str, kind: &str) -> [usize; 4] {
    let line = summary
        .lines()
        .find(|l| l.split_whitespace().next() == Some(kind))
        .unwrap_or_else(|| panic!("no {kind} line in {summary}"));
    let n: Vec<usize> = line
        .split_whitespace()
        .skip(1)
        .map(|x| x.parse().unwrap())
        .collect();
    [n[0], n[1], n[2], n[3]]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_tacker_registered_and_onboarded_comes_over_once_and_stays_its_projects() {
    let Some((samples, os, up, p, work)) = start().await else {
        return;
    };
    let other = os.project(&[("member", &["member"])]).await;
    let token = os.token_of(&p, "member").await;
    let http = reqwest::Client::new();

    // In Tacker, with the openstack client finding it in a region's catalog.
    let t = InTacker::open(&os, &up, &p).await;
    let m = p.user("member");
    let made = Made::in_tacker(&os, &up, &p, &t, &samples, work.path()).await;
    let Made {
        vim_id,
        onboarded,
        created,
        vnfd_id,
        csar,
        v2,
        v1,
        occ,
        occ1,
        subscription,
        nfvo,
    } = &made;

    // Ours, with Keystone auth on the same Keystone: the project's token works on both.
    let c = Cluster::with_keystone(&os, &["c1"], &[]).await;
    let get = |path: String, token: String| {
        let (http, api) = (http.clone(), c.api.clone());
        async move {
            let r = http
                .get(format!("{api}{path}"))
                .header("X-Auth-Token", token)
                .header("Version", "2.0.0")
                .send()
                .await
                .unwrap();
            let status = r.status().as_u16();
            (status, r.bytes().await.unwrap())
        }
    };
    let json_of = |b: &[u8]| serde_json::from_slice::<Value>(b).unwrap();

    // A dry run says what it would do and writes nothing.
    let plan = walkthrough(&c, &up, "tacker-import-plan");
    assert!(plan.contains("dry run: nothing was written"), "{plan}");
    // Tacker's settings as ours: its Keystone, port and broker, no secret of it.
    for want in [
        format!("keystone_url = \"{}\"", os.keystone),
        format!("bind = \"{}\"", up.api.trim_start_matches("http://")),
        "url = \"amqp://guest:***@".to_owned(),
    ] {
        assert!(plan.contains(&want), "{want} not in {plan}");
    }
    assert!(!plan.contains(&os.tacker_password()), "{plan}");
    // What this test made in Tacker is all planned (earlier runs' objects too).
    for (kind, at_least) in [
        ("vim", 1),
        ("package", 2),
        ("instance", 2),
        ("operation", 2),
        ("subscription", 1),
    ] {
        assert!(counts(&plan, kind)[0] >= at_least, "{kind}: {plan}");
    }
    // Everything this test made in Tacker, none of it to be skipped.
    for id in made.ids() {
        assert!(!plan.contains(id), "{id} skipped in the plan: {plan}");
    }
    let (s, b) = get("/v1.0/vims".into(), token.clone()).await;
    assert_eq!((s, json_of(&b)["vims"].clone()), (200, json!([])));

    let first = walkthrough(&c, &up, "tacker-import");
    for id in made.ids() {
        assert!(!first.contains(id), "{id} skipped: {first}");
    }
    // The VIM: its id, project and default flag, its password sealed and masked.
    let (s, b) = get(format!("/v1.0/vims/{vim_id}"), token.clone()).await;
    let v = json_of(&b);
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["vim"]["name"], format!("vim-{}", p.name));
    assert_eq!(v["vim"]["tenant_id"], p.id);
    assert_eq!(v["vim"]["is_default"], true);
    assert_ne!(v["vim"]["auth_cred"]["password"], json!(m.password), "{v}");
    let db_url = db_url(&c);
    let stored = crate::support::psql(
        &db_url,
        &format!("SELECT auth_cred FROM vims WHERE id = '{vim_id}'"),
    );
    assert!(
        !stored.contains(&m.password) && stored.contains("enc:v1:"),
        "{stored}"
    );
    // The onboarded package, read again by our reader, and its bytes as uploaded.
    let (s, b) = get(
        format!("/vnfpkgm/v1/vnf_packages/{onboarded}"),
        token.clone(),
    )
    .await;
    let pkg = json_of(&b);
    assert_eq!(s, 200, "{pkg}");
    assert_eq!(pkg["onboardingState"], "ONBOARDED");
    assert_eq!(pkg["vnfdId"], *vnfd_id);
    assert_eq!(pkg["userDefinedData"]["owner"], p.name);
    let (s, content) = get(
        format!("/vnfpkgm/v1/vnf_packages/{onboarded}/package_content"),
        token.clone(),
    )
    .await;
    assert_eq!(s, 200);
    assert_eq!(content.as_ref(), csar.as_slice());
    let (s, b) = get(format!("/vnfpkgm/v1/vnf_packages/{created}"), token.clone()).await;
    assert_eq!(s, 200);
    assert_eq!(json_of(&b)["onboardingState"], "CREATED");
    assert_eq!(pkg["usageState"], "IN_USE", "{pkg}");
    // The instances, in our one store, answered by both APIs.
    for (id, path, name) in [
        (&v2, "/vnflcm/v2", "from-tacker-v2"),
        (&v1, "/vnflcm/v1", "from-tacker-v1"),
    ] {
        let (s, b) = get(format!("{path}/vnf_instances/{id}"), token.clone()).await;
        let i = json_of(&b);
        assert_eq!(s, 200, "{i}");
        assert_eq!(i["vnfInstanceName"], name);
        assert_eq!(i["vnfdId"], *vnfd_id);
        assert_eq!(i["instantiationState"], "NOT_INSTANTIATED");
    }
    // Tacker's v1 gave its instance the project's default VIM: the imported one here.
    let (_, b) = get(format!("/vnflcm/v2/vnf_instances/{v1}"), token.clone()).await;
    let vims = json_of(&b)["vimConnectionInfo"].clone();
    assert!(
        vims.as_object()
            .is_some_and(|m| m.values().any(|c| c["vimId"] == json!(vim_id))),
        "{vims}"
    );
    // The history: Tacker's occurrence, and what it changed.
    let (s, b) = get(format!("/vnflcm/v2/vnf_lcm_op_occs/{occ}"), token.clone()).await;
    let o = json_of(&b);
    assert_eq!(s, 200, "{o}");
    assert_eq!(
        (&o["operation"], &o["operationState"], &o["vnfInstanceId"]),
        (&json!("MODIFY_INFO"), &json!("COMPLETED"), &json!(v2))
    );
    let (_, b) = get(format!("/vnflcm/v2/vnf_instances/{v2}"), token.clone()).await;
    assert_eq!(json_of(&b)["vnfInstanceDescription"], "set in Tacker");
    // v1's history too, answered by v1 as Tacker's v1 answered it.
    let (s, b) = get(format!("/vnflcm/v1/vnf_lcm_op_occs/{occ1}"), token.clone()).await;
    let o = json_of(&b);
    assert_eq!(s, 200, "{o}");
    assert_eq!(
        (&o["operation"], &o["operationState"], &o["vnfInstanceId"]),
        (&json!("MODIFY_INFO"), &json!("COMPLETED"), &json!(v1))
    );
    assert_eq!(
        o["changedInfo"]["vnfInstanceDescription"], "set in Tacker's v1",
        "{o}"
    );
    let (_, b) = get(format!("/vnflcm/v1/vnf_instances/{v1}"), token.clone()).await;
    assert_eq!(json_of(&b)["vnfInstanceDescription"], "set in Tacker's v1");
    // The subscription: its credentials sealed here, and the NFVO hears of an operation
    // on the imported instance.
    let stored = crate::support::psql(
        &db_url,
        &format!("SELECT authentication FROM lccn_subscriptions WHERE id = '{subscription}'"),
    );
    assert!(
        stored.contains("nfvo") && !stored.contains("s3cret"),
        "{stored}"
    );
    let r = http
        .patch(format!("{}/vnflcm/v2/vnf_instances/{v2}", c.api))
        .header("X-Auth-Token", &token)
        .header("Version", "2.0.0")
        .header("Content-Type", "application/merge-patch+json")
        .body(r#"{"vnfInstanceDescription": "moved from Tacker"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202, "{}", r.text().await.unwrap());
    nfvo.wait("MODIFY_INFO COMPLETED of the imported instance", |got| {
        got.iter().any(|n| {
            n["vnfInstanceId"] == json!(v2)
                && n["operation"] == "MODIFY_INFO"
                && n["operationState"] == "COMPLETED"
        })
    })
    .await;
    // Another project sees none of it.
    let stranger = os.token_of(&other, "member").await;
    for path in [
        format!("/v1.0/vims/{vim_id}"),
        format!("/vnfpkgm/v1/vnf_packages/{onboarded}"),
        format!("/vnflcm/v2/vnf_instances/{v2}"),
        format!("/vnflcm/v2/vnf_lcm_op_occs/{occ}"),
        format!("/vnflcm/v1/vnf_lcm_op_occs/{occ1}"),
        format!("/vnflcm/v2/subscriptions/{subscription}"),
    ] {
        // The project sees each, another does not.
        assert_eq!(get(path.clone(), token.clone()).await.0, 200, "{path}");
        assert_eq!(get(path.clone(), stranger.clone()).await.0, 404, "{path}");
    }

    // Again: everything is there already.
    let again = walkthrough(&c, &up, "tacker-import");
    for kind in ["vim", "package", "instance", "operation", "subscription"] {
        let [imported, updated, _, _] = counts(&again, kind);
        assert_eq!((imported, updated), (0, 0), "{kind}: {again}");
    }
    let (_, b) = get("/v1.0/vims".into(), token.clone()).await;
    assert_eq!(json_of(&b)["vims"].as_array().unwrap().len(), 1);
    t.close(&os).await;
    os.remove_project(&p).await;
    os.remove_project(&other).await;
}

/// What `sql` selects from Tacker's database (through its MariaDB's socket), trimmed.
fn tacker_sql(sql: &str) -> String {
    let out = mariadb(sql);
    assert!(
        out.status.success(),
        "{sql}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// `sql` run as root on Tacker's MariaDB (through its socket), in database `tacker`.
fn mariadb(sql: &str) -> std::process::Output {
    std::process::Command::new("mariadb")
        .args(["--no-defaults", "-N", "-uroot", "-S"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.tacker-upstream/mysqld.sock"))
        .args(["tacker", "-e", sql])
        .output()
        .unwrap()
}

/// Our database's URL in `c`.
fn db_url(c: &Cluster) -> String {
    c.env
        .vars
        .iter()
        .find_map(|(k, v)| (k == "TACKER__DATABASE__URL").then_some(v.clone()))
        .unwrap()
}

/// How many rows `table` of our database holds.
fn count(c: &Cluster, table: &str) -> usize {
    crate::support::psql(&db_url(c), &format!("SELECT count(*) FROM {table}"))
        .parse()
        .unwrap()
}

/// The packages' CSARs in `dir` (our local storage).
fn stored_csars(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("vnf_packages"))
        .map(|d| {
            d.filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.path().join("package.zip").is_file())
            })
            .count()
        })
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_import_killed_halfway_is_finished_by_running_it_again() {
    use std::io::Read;
    let up = Upstream::up();
    let (packages, instances) = (200, 200);
    let src = format!(
        "tacker_t_{}",
        &uuid::Uuid::new_v4().simple().to_string()[..12]
    );
    let work = tempfile::tempdir().unwrap();
    let (csars, keys) = (work.path().join("csars"), work.path().join("keys"));
    std::fs::create_dir_all(&keys).unwrap();
    let fill = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/infra/tacker-fill.sh");
    let out = std::process::Command::new(fill)
        .args([&src, csars.to_str().unwrap()])
        .args([packages.to_string(), instances.to_string()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let src_url = format!("{}/{src}", up.db.rsplit_once('/').unwrap().0);
    let c = Cluster::start_with(1, &[], &[]).await;
    let store = c
        .env
        .vars
        .iter()
        .find_map(|(k, v)| (k == "TACKER__STORAGE__URL").then_some(v.clone()))
        .unwrap();
    let store = PathBuf::from(store.trim_start_matches("file://"));
    let import = || {
        let mut cmd = c.env.command(&[]);
        cmd.args(["import", "tacker", "--db", &src_url])
            .args(["--vim-keys", keys.to_str().unwrap()])
            .args(["--csar-dir", csars.to_str().unwrap()]);
        cmd
    };

    // Killed (SIGKILL) once it has done 40 of its 400 objects.
    let mut child = import()
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let (seen, progress) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        let mut buf = [0u8; 256];
        while let Ok(n) = stderr.read(&mut buf) {
            if n == 0 {
                break;
            }
            text.push_str(&String::from_utf8_lossy(&buf[..n]));
            let done = text
                .rsplit("importing: ")
                .next()
                .and_then(|l| l.split('/').next())
                .and_then(|n| n.parse::<usize>().ok());
            if done.is_some_and(|d| d >= 40) {
                let _ = seen.send(());
                break;
            }
        }
    });
    progress
        .recv_timeout(Duration::from_secs(120))
        .expect("the import never got to 40 objects");
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success(), "the import ended before it was killed");
    // The kill landed on work in flight: some of it is here, not all.
    let (p, i) = (count(&c, "vnf_packages"), count(&c, "vnf_instances"));
    assert!(
        p >= 40 && p + i < packages + instances,
        "{p} packages, {i} instances"
    );
    // What is here is whole: every package row has its CSAR stored.
    let ids = crate::support::psql(&db_url(&c), "SELECT id FROM vnf_packages");
    for id in ids.lines() {
        let csar = store.join("vnf_packages").join(id).join("package.zip");
        assert!(csar.is_file(), "package {id} has no CSAR");
    }

    // Run again: the rest comes over, nothing twice.
    let out = import().output().unwrap();
    let summary = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{summary}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let [pi, pu, pn, ps] = counts(&summary, "package");
    let [ii, iu, i_n, is] = counts(&summary, "instance");
    assert_eq!((pi + pn, pu, ps), (packages, 0, 0), "{summary}");
    assert_eq!((ii + i_n, iu, is), (instances, 0, 0), "{summary}");
    assert!(pi > 0 && pn >= p, "{summary}");
    assert_eq!(
        (count(&c, "vnf_packages"), count(&c, "vnf_instances")),
        (packages, instances)
    );
    assert_eq!(stored_csars(&store), packages);
    let _ = mariadb(&format!("DROP DATABASE IF EXISTS {src}"));
}
