//! Settings written as text that are read into the types they are used as (addresses,
//! networks, URLs, `<name>=<value>` entries): a value that does not parse is refused as
//! the configuration is read, naming the key and the value.

use std::fmt::Display;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer, de::Error as _};

/// A value written as its `Display` text and read with `FromStr` (`SocketAddr`, …).
pub mod text {
    use super::{Deserialize, Deserializer, Display, FromStr, Serializer, parse};

    pub fn serialize<T: Display, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(v)
    }

    pub fn deserialize<'de, T, D>(d: D) -> Result<T, D::Error>
    where
        T: FromStr<Err: Display>,
        D: Deserializer<'de>,
    {
        parse(&String::deserialize(d)?)
    }
}

/// An optional value where the empty text means none (so `""` in `defaults.toml` and
/// `TACKER__…=` keep meaning "not set").
pub mod optional {
    use super::{Deserialize, Deserializer, Display, FromStr, Serializer, parse};

    pub fn serialize<T: Display, S: Serializer>(v: &Option<T>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(v) => s.collect_str(v),
            None => s.serialize_str(""),
        }
    }

    pub fn deserialize<'de, T, D>(d: D) -> Result<Option<T>, D::Error>
    where
        T: FromStr<Err: Display>,
        D: Deserializer<'de>,
    {
        let text = String::deserialize(d)?;
        if text.trim().is_empty() {
            Ok(None)
        } else {
            parse(&text).map(Some)
        }
    }
}

/// CIDR networks (a bare address is its own /32 or /128).
pub mod networks {
    use ipnet::IpNet;

    use super::{Deserialize, Deserializer, Serializer, de_error};

    pub fn serialize<S: Serializer>(v: &[IpNet], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(ToString::to_string))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<IpNet>, D::Error> {
        Vec::<String>::deserialize(d)?
            .iter()
            .map(|s| network(s).map_err(de_error::<D>))
            .collect()
    }

    /// One network: `10.0.0.0/8`, `::1`.
    pub fn network(s: &str) -> Result<IpNet, String> {
        let s = s.trim();
        s.parse::<IpNet>()
            .or_else(|_| s.parse::<std::net::IpAddr>().map(IpNet::from))
            .map_err(|_| format!("{s:?} is not a CIDR network"))
    }
}

/// An optional value written as JSON text (`lcm.default_vim`); empty means none.
pub mod json {
    use serde::de::DeserializeOwned;

    use super::{Deserialize, Deserializer, Serialize, Serializer, de_error};

    pub fn serialize<T: Serialize, S: Serializer>(v: &Option<T>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(v) => {
                s.serialize_str(&serde_json::to_string(v).map_err(serde::ser::Error::custom)?)
            }
            None => s.serialize_str(""),
        }
    }

    pub fn deserialize<'de, T, D>(d: D) -> Result<Option<T>, D::Error>
    where
        T: DeserializeOwned,
        D: Deserializer<'de>,
    {
        let text = String::deserialize(d)?;
        if text.trim().is_empty() {
            return Ok(None);
        }
        // Not echoed: it holds credentials.
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| de_error::<D>(format!("not the JSON expected here ({e})")))
    }
}

fn parse<T: FromStr<Err: Display>, E: serde::de::Error>(text: &str) -> Result<T, E> {
    text.trim()
        .parse()
        .map_err(|e| E::custom(format!("{text:?}: {e}")))
}

fn de_error<'de, D: Deserializer<'de>>(e: String) -> D::Error {
    D::Error::custom(e)
}

/// An `http(s)` URL without credentials (they belong in settings of their own, which
/// `config show` hides).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct HttpUrl(url::Url);

impl HttpUrl {
    /// The URL as written (normalised by the URL parser).
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The URL without a trailing `/`, for joining paths onto.
    pub fn base(&self) -> &str {
        self.0.as_str().trim_end_matches('/')
    }

    /// The parsed URL.
    pub fn url(&self) -> &url::Url {
        &self.0
    }
}

impl FromStr for HttpUrl {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let u = url::Url::parse(s.trim()).map_err(|e| format!("not a URL ({e})"))?;
        if !matches!(u.scheme(), "http" | "https") {
            return Err(format!("scheme {:?} is not http or https", u.scheme()));
        }
        if !u.username().is_empty() || u.password().is_some() {
            return Err("a URL here may not hold credentials".into());
        }
        Ok(Self(u))
    }
}

impl TryFrom<String> for HttpUrl {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        s.parse()
    }
}

impl From<HttpUrl> for String {
    fn from(u: HttpUrl) -> Self {
        u.0.into()
    }
}

impl Display for HttpUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.as_str())
    }
}

/// A `<name>=<value>` entry (`mgmt.docker_install`, `pm.prometheus_rule_labels`): both
/// sides non-empty, trimmed; the value is everything after the first `=`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Entry {
    /// Left of the first `=`.
    pub name: String,
    /// Right of it.
    pub value: String,
}

impl FromStr for Entry {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.split_once('=') {
            Some((n, v)) if !n.trim().is_empty() && !v.trim().is_empty() => Ok(Self {
                name: n.trim().to_owned(),
                value: v.trim().to_owned(),
            }),
            _ => Err(format!("{s:?} is not <name>=<value>")),
        }
    }
}

impl TryFrom<String> for Entry {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        s.parse()
    }
}

impl From<Entry> for String {
    fn from(e: Entry) -> Self {
        format!("{}={}", e.name, e.value)
    }
}

#[cfg(test)]
mod tests {
    use super::{Entry, HttpUrl, networks::network};

    #[test]
    fn entries_urls_and_networks_parse_or_say_why() {
        let e: Entry = "Scripts/x.py=grpc://h:1/?a=b".parse().unwrap();
        assert_eq!(
            (e.name.as_str(), e.value.as_str()),
            ("Scripts/x.py", "grpc://h:1/?a=b")
        );
        assert!("novalue=".parse::<Entry>().is_err());
        assert!("http://u:p@h/".parse::<HttpUrl>().is_err());
        assert!("ftp://h/".parse::<HttpUrl>().is_err());
        assert_eq!(
            "http://h:9/x/".parse::<HttpUrl>().unwrap().base(),
            "http://h:9/x"
        );
        assert_eq!(network("::1").unwrap().to_string(), "::1/128");
        assert!(network("not-a-net").unwrap_err().contains("not-a-net"));
    }
}
