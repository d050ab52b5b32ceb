//! An example out-of-process management driver:
//! `tacker-mgmt-example --listen 127.0.0.1:50051 [--record FILE]`.
//!
//! It answers every hook of `tacker.mgmt.v1.MgmtDriver`: it appends what it was asked
//! (hook, occurrence, instance, VNFCs and their addresses, inline files) as one JSON
//! line to the record file, and succeeds, unless the instantiate parameters say
//! `"example_fail": "<hook>"`, which it refuses with a ProblemDetails (422).

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Mutex;

use serde_json::{Value, json};
use tacker_mgmt::proto::mgmt_driver_server::{MgmtDriver, MgmtDriverServer};
use tacker_mgmt::proto::{HookReply, HookRequest, ProblemDetails, Success, hook_reply};
use tonic::{Request, Response, Status};

#[derive(Debug)]
struct Example {
    record: Option<Mutex<std::fs::File>>,
}

fn parsed(s: &str) -> Value {
    serde_json::from_str(s).unwrap_or(Value::Null)
}

impl Example {
    fn handle(&self, hook: &str, req: HookRequest) -> Result<Response<HookReply>, Status> {
        let instance = parsed(&req.vnf_instance_json);
        let params = parsed(&req.instantiate_params_json);
        let vnfcs: Vec<Value> = instance
            .pointer("/instantiatedVnfInfo/vnfcResourceInfo")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|r| {
                let addresses: Vec<Value> = r
                    .get("vnfcCpInfo")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .flat_map(|c| {
                        c.pointer("/cpProtocolInfo/0/ipOverEthernet/ipAddresses/0/addresses")
                            .and_then(Value::as_array)
                            .cloned()
                            .unwrap_or_default()
                    })
                    .collect();
                json!({"id": r.get("id"), "vduId": r.get("vduId"), "addresses": addresses})
            })
            .collect();
        let line = json!({
            "rpc": hook,
            "hook": req.hook,
            "operation": req.operation,
            "vnfLcmOpOccId": req.vnf_lcm_op_occ_id,
            "vnfInstanceId": instance.get("id"),
            "vnfcs": vnfcs,
            "resourceChanges": parsed(&req.resource_changes_json),
            "packageBaseUrl": req.package_base_url,
            "files": req.files.iter().map(|f| json!({"path": f.path, "size": f.content.len()})).collect::<Vec<_>>(),
        });
        if let Some(f) = &self.record
            && let Ok(mut f) = f.lock()
        {
            let _ = writeln!(f, "{line}");
        }
        let fail = params.get("example_fail").and_then(Value::as_str);
        let result = if hook != "check" && fail == Some(req.hook.as_str()) {
            hook_reply::Result::Problem(ProblemDetails {
                status: 422,
                title: "Example driver refused".into(),
                detail: format!("the example driver was told to fail {}", req.hook),
            })
        } else {
            hook_reply::Result::Ok(Success {
                message: format!("{} of {} done", req.hook, req.vnf_lcm_op_occ_id),
            })
        };
        Ok(Response::new(HookReply {
            result: Some(result),
        }))
    }
}

macro_rules! hooks {
    ($($rpc:ident => $name:literal),* $(,)?) => {
        #[tonic::async_trait]
        impl MgmtDriver for Example {
            $(
                async fn $rpc(&self, req: Request<HookRequest>) -> Result<Response<HookReply>, Status> {
                    self.handle($name, req.into_inner())
                }
            )*
        }
    };
}

hooks! {
    check => "check",
    instantiate_start => "instantiate_start",
    instantiate_end => "instantiate_end",
    terminate_start => "terminate_start",
    terminate_end => "terminate_end",
    scale_start => "scale_start",
    scale_end => "scale_end",
    heal_start => "heal_start",
    heal_end => "heal_end",
    change_external_connectivity_start => "change_external_connectivity_start",
    change_external_connectivity_end => "change_external_connectivity_end",
    modify_information_start => "modify_information_start",
    modify_information_end => "modify_information_end",
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("usage: tacker-mgmt-example --listen ADDR [--record FILE]");
        return Ok(());
    }
    let listen: SocketAddr = arg(&args, "--listen")
        .unwrap_or_else(|| "127.0.0.1:50051".into())
        .parse()?;
    let record = match arg(&args, "--record") {
        Some(p) => Some(Mutex::new(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(PathBuf::from(p))?,
        )),
        None => None,
    };
    let listener = tokio::net::TcpListener::bind(listen).await?;
    println!(
        "tacker-mgmt-example listening on {}",
        listener.local_addr()?
    );
    tonic::transport::Server::builder()
        .add_service(MgmtDriverServer::new(Example { record }))
        .serve_with_incoming(tokio_stream_incoming(listener))
        .await?;
    Ok(())
}

fn tokio_stream_incoming(
    l: tokio::net::TcpListener,
) -> impl futures::Stream<Item = std::io::Result<tokio::net::TcpStream>> {
    futures::stream::unfold(l, |l| async move {
        let r = l.accept().await.map(|(s, _)| s);
        Some((r, l))
    })
}
