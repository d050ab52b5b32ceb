//! `tacker import tacker-conf`: a `tacker.conf` of Tacker 16 read, and the settings of
//! ours it amounts to written as TOML. Secrets (passwords in URLs, Keystone's password)
//! are not copied: the TOML names where they are. Options with no equivalent are listed.

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A `tacker.conf`: section -> key -> value (`[DEFAULT]` as `DEFAULT`), the last value of a
/// key winning, as oslo.config reads it.
pub type Ini = BTreeMap<String, BTreeMap<String, String>>;

/// Reads an INI text: `[section]` lines, `key = value` lines, `#` and `;` comments.
pub fn parse(text: &str) -> Ini {
    let mut ini = Ini::new();
    let mut section = "DEFAULT".to_owned();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = name.trim().to_owned();
            continue;
        }
        if let Some((k, v)) = line.split_once('=') {
            ini.entry(section.clone())
                .or_default()
                .insert(k.trim().to_owned(), v.trim().to_owned());
        }
    }
    ini
}

/// `s` as a TOML string.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// oslo.messaging's `rabbit://u:p@h1:5672,u:p@h2:5672/vhost` as our bus URLs, passwords
/// left out (`***`).
fn bus_urls(transport: &str) -> Option<String> {
    let rest = transport.strip_prefix("rabbit://")?;
    let (hosts, vhost) = rest.rsplit_once('/').unwrap_or((rest, ""));
    let vhost = if vhost.is_empty() { "%2f" } else { vhost };
    let urls: Vec<String> = hosts
        .split(',')
        .map(|h| {
            let h = match h.rsplit_once('@') {
                Some((cred, host)) => {
                    let user = cred.split(':').next().unwrap_or(cred);
                    format!("{user}:***@{host}")
                }
                None => h.to_owned(),
            };
            format!("amqp://{h}/{vhost}")
        })
        .collect();
    Some(urls.join(","))
}

/// `url` with its password left out: whatever lies between `user:` and the last `@`
/// (SQLAlchemy takes passwords with `/`, `#` or `?` unencoded, which no URL parser reads).
fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    match rest.rsplit_once('@') {
        Some((cred, host)) => {
            let user = cred.split(':').next().unwrap_or(cred);
            format!("{scheme}://{user}:***@{host}")
        }
        None => url.to_owned(),
    }
}

/// The options the mapping reads (the rest are listed as not mapped).
const MAPPED: [(&str, &str); 15] = [
    ("DEFAULT", "bind_host"),
    ("DEFAULT", "bind_port"),
    ("DEFAULT", "transport_url"),
    ("DEFAULT", "auth_strategy"),
    ("keystone_authtoken", "auth_url"),
    ("keystone_authtoken", "www_authenticate_uri"),
    ("keystone_authtoken", "username"),
    ("keystone_authtoken", "password"),
    ("keystone_authtoken", "project_name"),
    ("keystone_authtoken", "user_domain_name"),
    ("keystone_authtoken", "project_domain_name"),
    ("vnf_package", "csar_file_size_cap"),
    ("database", "connection"),
    ("vim_keys", "openstack"),
    ("glance_store", "filesystem_store_datadir"),
];

/// The TOML of our settings that `ini` amounts to, with comments naming the options each
/// comes from; `source` names the file in the header.
pub fn to_toml(ini: &Ini, source: &str) -> String {
    let get = |s: &str, k: &str| ini.get(s).and_then(|m| m.get(k)).map(String::as_str);
    let mut out = format!(
        "# Our settings equivalent to {source} (Tacker 16), by `tacker import tacker-conf`.\n\
         # Secrets are not copied: set them where the comments say (or by TACKER__* variables).\n"
    );
    let host = get("DEFAULT", "bind_host").unwrap_or("0.0.0.0");
    let port = get("DEFAULT", "bind_port").unwrap_or("9890");
    let _ = write!(
        out,
        "\n[server]\nbind = {}  # [DEFAULT] bind_host, bind_port\n",
        quoted(&format!("{host}:{port}"))
    );
    if let Some(urls) = get("DEFAULT", "transport_url").and_then(bus_urls) {
        let _ = write!(
            out,
            "\n[bus]\nurl = {}  # [DEFAULT] transport_url (put its password for ***)\n",
            quoted(&urls)
        );
    }
    if get("DEFAULT", "auth_strategy").unwrap_or("keystone") == "keystone" {
        let ks = |k: &str| get("keystone_authtoken", k);
        let url = ks("auth_url").or(ks("www_authenticate_uri")).unwrap_or("");
        let url = if url.is_empty() || url.trim_end_matches('/').ends_with("/v3") {
            url.trim_end_matches('/').to_owned()
        } else {
            format!("{}/v3", url.trim_end_matches('/'))
        };
        let _ = write!(
            out,
            "\n[auth]\nmode = \"keystone\"  # [DEFAULT] auth_strategy\n\
             keystone_url = {}  # [keystone_authtoken] auth_url\n\
             keystone_username = {}\n\
             keystone_password = \"\"  # [keystone_authtoken] password (not copied)\n\
             keystone_project = {}\n\
             keystone_user_domain = {}\n\
             keystone_project_domain = {}\n",
            quoted(&url),
            quoted(ks("username").unwrap_or("")),
            quoted(ks("project_name").unwrap_or("")),
            quoted(ks("user_domain_name").unwrap_or("Default")),
            quoted(ks("project_domain_name").unwrap_or("Default")),
        );
    }
    if let Some(gb) = get("vnf_package", "csar_file_size_cap").and_then(|v| v.parse::<u64>().ok()) {
        let _ = write!(
            out,
            "\n[onboarding]\nmax_package_size = {}  # [vnf_package] csar_file_size_cap = {gb} (GB)\n",
            gb.saturating_mul(1 << 30)
        );
    }
    out.push_str(
        "\n# Ours keeps its state in PostgreSQL: set [database] url to a database of its own.\n\
         # What `tacker import tacker` reads of Tacker's:\n",
    );
    for (flag, (s, k)) in [
        ("--db", ("database", "connection")),
        ("--vim-keys", ("vim_keys", "openstack")),
        ("--csar-dir", ("glance_store", "filesystem_store_datadir")),
    ] {
        let v = get(s, k).map(without_password).unwrap_or_default();
        let _ = writeln!(out, "#   {flag:<10} [{s}] {k} = {v}");
    }
    let unmapped: Vec<String> = ini
        .iter()
        .flat_map(|(s, m)| m.keys().map(move |k| (s, k)))
        .filter(|(s, k)| !MAPPED.contains(&(s.as_str(), k.as_str())))
        .map(|(s, k)| format!("[{s}] {k}"))
        .collect();
    if !unmapped.is_empty() {
        let _ = writeln!(
            out,
            "# Not mapped (no equivalent here, or a default that fits): {}",
            unmapped.join(", ")
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONF: &str = "[DEFAULT]\nauth_strategy = keystone\nbind_host = 10.0.0.1\nbind_port = 9890\n\
        transport_url = rabbit://tacker:rpw@mq1:5672,tacker:rpw@mq2:5672/tacker\ndebug = true\n\
        # a comment\n[database]\nconnection = mysql+pymysql://tacker:dbpw@db/tacker?charset=utf8\n\
        [keystone_authtoken]\nauth_url = http://ks:5000\nusername = tacker\npassword = kspw\n\
        project_name = service\n[vim_keys]\nopenstack = /etc/tacker/vim/fernet_keys\n\
        [glance_store]\nfilesystem_store_datadir = /var/lib/tacker/csar_files\n\
        [vnf_package]\ncsar_file_size_cap = 2\n";

    #[test]
    fn tacker_conf_becomes_our_settings_without_its_secrets() {
        let toml = to_toml(&parse(CONF), "tacker.conf");
        for want in [
            "bind = \"10.0.0.1:9890\"",
            "url = \"amqp://tacker:***@mq1:5672/tacker,amqp://tacker:***@mq2:5672/tacker\"",
            "mode = \"keystone\"",
            "keystone_url = \"http://ks:5000/v3\"",
            "keystone_username = \"tacker\"",
            "keystone_project = \"service\"",
            "max_package_size = 2147483648",
            "--vim-keys [vim_keys] openstack = /etc/tacker/vim/fernet_keys",
            "--csar-dir [glance_store] filesystem_store_datadir = /var/lib/tacker/csar_files",
            "Not mapped (no equivalent here, or a default that fits): [DEFAULT] debug",
        ] {
            assert!(toml.contains(want), "{want} not in:\n{toml}");
        }
        let odd = to_toml(
            &parse("[database]\nconnection = mysql://u:pa/ss#?w@db/t\n"),
            "t.conf",
        );
        assert!(
            odd.contains("mysql://u:***@db/t") && !odd.contains("pa/ss"),
            "{odd}"
        );
        for secret in ["rpw", "dbpw", "kspw"] {
            assert!(!toml.contains(secret), "{secret} in:\n{toml}");
        }
    }
}
