//! The resource types the simulator knows, and what creating one means for each.

use serde_json::{Map, Value, json};

/// `OS::Nova::Server`: a test host.
pub const SERVER: &str = "OS::Nova::Server";
/// `OS::Neutron::Port`: an address on the simulated network.
pub const PORT: &str = "OS::Neutron::Port";
/// `OS::Neutron::FloatingIP`: a second address on the host behind a port.
pub const FLOATING_IP: &str = "OS::Neutron::FloatingIP";
/// `OS::Heat::AutoScalingGroup`: a nested stack of `desired_capacity` members.
pub const ASG: &str = "OS::Heat::AutoScalingGroup";

/// Types that are records only (any network maps to the simulated one).
const PLAIN: &[&str] = &[
    "OS::Neutron::Net",
    "OS::Neutron::Subnet",
    "OS::Neutron::Router",
    "OS::Neutron::RouterInterface",
    "OS::Neutron::SecurityGroup",
    "OS::Nova::ServerGroup",
    "OS::Nova::Flavor",
    "OS::Nova::KeyPair",
    "OS::Cinder::Volume",
    "OS::Cinder::VolumeType",
    "OS::Heat::ScalingPolicy",
    "OS::Heat::None",
    "OS::Heat::Value",
];

/// What a type is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A server.
    Server,
    /// A port.
    Port,
    /// A floating IP.
    FloatingIp,
    /// An autoscaling group.
    Group,
    /// A nested template (a file passed with the stack).
    Template,
    /// A record only.
    Plain,
}

/// The kind of `type`, given the files passed with the stack; `None`: unknown.
pub fn kind(kind: &str, files: &Map<String, Value>) -> Option<Kind> {
    Some(match kind {
        SERVER => Kind::Server,
        PORT => Kind::Port,
        FLOATING_IP => Kind::FloatingIp,
        ASG => Kind::Group,
        k if PLAIN.contains(&k) => Kind::Plain,
        k if files.contains_key(k) => Kind::Template,
        _ => return None,
    })
}

/// Attributes of a plain resource.
pub fn plain_attributes(kind: &str, props: &Value) -> Map<String, Value> {
    let mut a = Map::new();
    if let Some(n) = props.get("name") {
        a.insert("name".into(), n.clone());
    }
    if kind == "OS::Neutron::Subnet"
        && let Some(c) = props.get("cidr")
    {
        a.insert("cidr".into(), c.clone());
    }
    if kind == "OS::Heat::Value"
        && let Some(v) = props.get("value")
    {
        a.insert("value".into(), v.clone());
    }
    a
}

/// The address a port asks for (`fixed_ips[0].ip_address`).
pub fn wanted_address(props: &Value) -> Option<String> {
    props
        .get("fixed_ips")?
        .as_array()?
        .iter()
        .find_map(|f| f.get("ip_address").and_then(Value::as_str))
        .map(str::to_owned)
}

/// A port's attributes.
pub fn port_attributes(id: &str, props: &Value, ip: &str) -> Map<String, Value> {
    let network = props.get("network").cloned().unwrap_or(Value::Null);
    let subnet = props
        .get("fixed_ips")
        .and_then(Value::as_array)
        .and_then(|f| f.first())
        .and_then(|f| f.get("subnet"))
        .cloned()
        .unwrap_or_else(|| json!("sim-subnet"));
    let mac = format!("fa:16:3e:{}:{}:{}", &id[0..2], &id[2..4], &id[4..6]);
    Map::from_iter([
        (
            "fixed_ips".into(),
            json!([{"ip_address": ip, "subnet_id": subnet}]),
        ),
        ("network_id".into(), network),
        ("mac_address".into(), json!(mac)),
        ("status".into(), json!("ACTIVE")),
        (
            "name".into(),
            props.get("name").cloned().unwrap_or(json!("")),
        ),
    ])
}

/// A server's attributes once it runs at `ips` (the first is its fixed address).
pub fn server_attributes(
    props: &Value,
    name: &str,
    ips: &[String],
    floating: &[String],
) -> Map<String, Value> {
    let mut addrs: Vec<Value> = ips
        .iter()
        .map(|ip| json!({"addr": ip, "version": 4, "OS-EXT-IPS:type": "fixed"}))
        .collect();
    addrs.extend(
        floating
            .iter()
            .map(|ip| json!({"addr": ip, "version": 4, "OS-EXT-IPS:type": "floating"})),
    );
    Map::from_iter([
        ("name".into(), json!(name)),
        (
            "first_address".into(),
            json!(ips.first().cloned().unwrap_or_default()),
        ),
        ("addresses".into(), json!({"sim-net": addrs})),
        ("networks".into(), json!({"sim-net": ips})),
        (
            "flavor".into(),
            props.get("flavor").cloned().unwrap_or(Value::Null),
        ),
        (
            "image".into(),
            props.get("image").cloned().unwrap_or(Value::Null),
        ),
        ("status".into(), json!("ACTIVE")),
    ])
}

/// The port ids a server's `networks` name, and how many networks it joins without one.
pub fn server_ports(props: &Value) -> (Vec<String>, usize) {
    let mut ports = Vec::new();
    let mut bare = 0;
    for n in props
        .get("networks")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
    {
        match n.get("port").and_then(Value::as_str) {
            Some(p) => ports.push(p.to_owned()),
            None => bare += 1,
        }
    }
    (ports, bare)
}

/// Integer property `key` (a number, or a string holding one).
pub fn number(props: &Value, key: &str) -> Option<i64> {
    match props.get(key)? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A group's size: `desired_capacity` (else `min_size`) within min..max.
pub fn group_size(props: &Value) -> Result<usize, String> {
    let num = |k: &str| number(props, k);
    let min = num("min_size").unwrap_or(0).max(0);
    let max = num("max_size").unwrap_or(i64::MAX);
    let want = num("desired_capacity").unwrap_or(min);
    if want < min || want > max {
        return Err(format!(
            "desired_capacity {want} is outside min_size {min} and max_size {max}"
        ));
    }
    usize::try_from(want).map_err(|e| e.to_string())
}
