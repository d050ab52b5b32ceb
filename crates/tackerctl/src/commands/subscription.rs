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
            api,
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
            // A duplicate package subscription is answered 303: the existing one.
            let v = c.json(Method::POST, api.path(), Some(&b)).await?;
            out.result(&v, v["id"].as_str().unwrap_or_default())
        }
        SubscriptionCmd::List { api } => out.list(&c.list(api.path()).await?, &COLUMNS),
        SubscriptionCmd::Show { id, api } => out.show(
            &c.json(Method::GET, &format!("{}/{id}", api.path()), None)
                .await?,
        ),
        SubscriptionCmd::Delete { id, api } => {
            c.send(c.request(Method::DELETE, &format!("{}/{id}", api.path())))
                .await?;
            out.result(&Value::Null, &format!("subscription {id} deleted"))
        }
    }
}
