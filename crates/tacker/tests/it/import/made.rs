//! What a project makes in upstream Tacker for an import test to carry over: a VIM,
//! packages, instances of both APIs, their history and an NFVO's subscription.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use tacker_testkit::keystone::{OpenStack, Project};
use tacker_testkit::peers::{Expect, Subscriber};

use super::session::InTacker;
use super::{Upstream, cnf_sample, tacker_sql, until};

/// The ids of what [`Made::in_tacker`] made, and the NFVO subscribed.
pub struct Made {
    pub vim_id: String,
    /// An onboarded package of `vnfd_id`, whose bytes are `csar`.
    pub onboarded: String,
    /// A package only created.
    pub created: String,
    pub vnfd_id: String,
    pub csar: Vec<u8>,
    /// Instances of `vnfd_id` created through v2 and v1, not instantiated.
    pub v2: String,
    pub v1: String,
    /// A MODIFY_INFO of `v2` through v2 and of `v1` through v1, both COMPLETED.
    pub occ: String,
    pub occ1: String,
    /// The NFVO's subscription to `v2`, with BASIC credentials `nfvo`/`s3cret`.
    pub subscription: String,
    pub nfvo: Subscriber,
}

impl Made {
    /// Every id made, none of which an import may skip.
    pub fn ids(&self) -> [&str; 8] {
        [
            &self.vim_id,
            &self.onboarded,
            &self.created,
            &self.v1,
            &self.v2,
            &self.occ,
            &self.occ1,
            &self.subscription,
        ]
    }

    /// Makes them in Tacker as `p`'s member (`t`), with the openstack client where it
    /// can and Tacker's REST API where the client cannot; files go in `work`.
    pub async fn in_tacker(
        os: &OpenStack,
        up: &Upstream,
        p: &Project,
        t: &InTacker,
        samples: &Path,
        work: &Path,
    ) -> Self {
        // A VIM on the tests' Keystone (Tacker checks the credentials and keeps the
        // password under a Fernet key of its own), an onboarded package and a created one.
        let m = p.user("member");
        let cfg = work.join("vim.yaml");
        std::fs::write(
            &cfg,
            format!(
                "auth_url: '{}'\nusername: '{}'\npassword: '{}'\nproject_name: '{}'\n\
                 project_domain_name: 'Default'\nuser_domain_name: 'Default'\ncert_verify: 'False'\n",
                os.keystone, m.login, m.password, p.name
            ),
        )
        .unwrap();
        let vim = t.osc.json(&[
            "vim",
            "register",
            "--config-file",
            cfg.to_str().unwrap(),
            "--is-default",
            &format!("vim-{}", p.name),
        ]);
        let vim_id = vim["id"]
            .as_str()
            .unwrap_or_else(|| panic!("{vim}"))
            .to_owned();
        let create = |data: &str| t.created(&["vnf", "package", "create", "--user-data", data]);
        let onboarded = create(&format!("owner={}", p.name));
        let created = create("stage=draft");
        let vnfd_id = uuid::Uuid::new_v4().to_string();
        let csar = cnf_sample(samples, &vnfd_id, work);
        t.onboard(&onboarded, &csar, work).await;

        // Instances of both APIs on it, not instantiated.
        let v2 = t.create_v2("from-tacker-v2", &vnfd_id);
        let v1 = t.created(&["vnflcm", "create", "--name", "from-tacker-v1", &vnfd_id]);

        // A modification of the v2 instance in Tacker: its occurrence is history to keep.
        let id_of = |url: String| url.rsplit('/').next().unwrap().to_owned();
        let modify = |path: String, description: &'static str| async move {
            let body = json!({ "vnfInstanceDescription": description });
            id_of(t.operation(reqwest::Method::PATCH, &path, &body).await)
        };
        let occ = modify(format!("/vnflcm/v2/vnf_instances/{v2}"), "set in Tacker").await;
        let url = format!("{}/vnflcm/v2/vnf_lcm_op_occs/{occ}", up.api);
        until(&t.http, &url, &t.token, "operationState", "COMPLETED", 60).await;
        // And of the v1 instance through v1 (Tacker keeps that request as a Python repr).
        let occ1 = modify(
            format!("/vnflcm/v1/vnf_instances/{v1}"),
            "set in Tacker's v1",
        )
        .await;
        // Tacker's own v1 API answers 500 for this occurrence (it cannot read the Python
        // repr it stored): its state is read from its database.
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            let state = tacker_sql(&format!(
                "SELECT operation_state FROM vnf_lcm_op_occs WHERE id = '{occ1}'"
            ));
            if state == "COMPLETED" {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "v1 occurrence {occ1}: {state}"
            );
            tokio::time::sleep(Duration::from_millis(300)).await;
        }

        // An NFVO's subscription to the v2 instance, with BASIC credentials.
        let nfvo = Subscriber::start(Expect::Basic("bmZ2bzpzM2NyZXQ="));
        let r = t
            .http
            .post(format!("{}/vnflcm/v2/subscriptions", up.api))
            .header("X-Auth-Token", &t.token)
            .header("Version", "2.0.0")
            .json(&json!({"callbackUri": nfvo.url,
                "filter": {"vnfInstanceSubscriptionFilter": {"vnfInstanceIds": [v2]}},
                "authentication": {"authType": ["BASIC"],
                    "paramsBasic": {"userName": "nfvo", "password": "s3cret"}}}))
            .send()
            .await
            .unwrap();
        let status = r.status();
        let subscription: Value = r.json().await.unwrap();
        assert_eq!(status, 201, "{subscription}");
        let subscription = subscription["id"].as_str().unwrap().to_owned();
        Self {
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
        }
    }
}
