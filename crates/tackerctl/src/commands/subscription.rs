//! `subscription ...`

use reqwest::Method;
use serde_json::{Value, json};

use super::body_file;
use crate::cli::SubscriptionCmd;
use crate::client::Client;
use crate::error::{Error, Result};
use crate::output::Out;

const COLUMNS: [(&str, &str); 2] = [("ID", "/id"), ("CALLBACK", "/callbackUri")];

pub async fn run(c: &Client, cmd: SubscriptionCmd, out: &mut Out<'_>) -> Result<()> {
    match cmd {
        SubscriptionCmd::Create {
            callback,
            filter_file,
            basic,
        } => {
            let mut b = json!({"callbackUri": callback});
            if let Some(f) = filter_file {
                b["filter"] = body_file(&f)?;
            }
            if let Some(up) = basic {
                let (u, p) = up
                    .split_once(':')
                    .ok_or_else(|| Error::Local("--basic is user:password".into()))?;
                b["authentication"] =
                    json!({"authType": ["BASIC"], "paramsBasic": {"userName": u, "password": p}});
            }
            let v = c
                .json(Method::POST, "/vnflcm/v2/subscriptions", Some(&b))
                .await?;
            out.result(&v, v["id"].as_str().unwrap_or_default())
        }
        SubscriptionCmd::List => out.list(&c.list("/vnflcm/v2/subscriptions").await?, &COLUMNS),
        SubscriptionCmd::Show { id } => out.show(
            &c.json(Method::GET, &format!("/vnflcm/v2/subscriptions/{id}"), None)
                .await?,
        ),
        SubscriptionCmd::Delete { id } => {
            c.send(c.request(Method::DELETE, &format!("/vnflcm/v2/subscriptions/{id}")))
                .await?;
            out.result(&Value::Null, &format!("subscription {id} deleted"))
        }
    }
}
