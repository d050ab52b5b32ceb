//! `conductor list`

use reqwest::Method;
use serde_json::Value;

use crate::cli::ConductorCmd;
use crate::client::Client;
use crate::error::Result;
use crate::output::Out;

const COLUMNS: [(&str, &str); 6] = [
    ("ID", "/id"),
    ("HOST", "/host"),
    ("STATE", "/state"),
    ("LIVE", "/live"),
    ("STARTED", "/startedAt"),
    ("LAST HEARTBEAT", "/lastHeartbeat"),
];

pub async fn run(c: &Client, cmd: ConductorCmd, out: &mut Out<'_>) -> Result<()> {
    match cmd {
        ConductorCmd::List => {
            let v = c.json(Method::GET, "/admin/v1/conductors", None).await?;
            let items = match v {
                Value::Array(a) => a,
                other => vec![other],
            };
            out.list(&items, &COLUMNS)
        }
    }
}
