//! Where a webhook may point: the URL rules and the addresses a delivery may connect to.
//!
//! A webhook URL is `https://` with a host and no userinfo, and every address its host resolves
//! to must be public. The rule is checked when the webhook is created (the host is resolved then)
//! and again on every delivery, by the HTTP client's own resolver ([`PublicResolver`]), which
//! drops forbidden addresses: a host that later re-resolves to an internal address (DNS
//! rebinding) cannot be reached. With `allow_loopback` (tests, local development) loopback
//! addresses (127.0.0.0/8, ::1) are allowed too, and so is plain `http://` to them.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, ToSocketAddrs};

use reqwest::Url;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Why `ip` must not be connected to, or `None` when it may be.
pub fn forbidden_reason(ip: IpAddr, allow_loopback: bool) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => v4_reason(v4, allow_loopback),
        IpAddr::V6(v6) => v6_reason(v6, allow_loopback),
    }
}

fn v4_reason(ip: Ipv4Addr, allow_loopback: bool) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    let reason = match (a, b, c) {
        (127, _, _) if allow_loopback => return None,
        (127, _, _) => "loopback",
        (0, _, _) => "unspecified (0.0.0.0/8)",
        (10, _, _) => "private (10.0.0.0/8)",
        (172, 16..=31, _) => "private (172.16.0.0/12)",
        (192, 168, _) => "private (192.168.0.0/16)",
        (100, 64..=127, _) => "shared address space (100.64.0.0/10)",
        (169, 254, _) => "link-local (169.254.0.0/16)",
        (192, 0, 0) => "IETF protocol assignments (192.0.0.0/24)",
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => "documentation",
        (192, 88, 99) => "6to4 relay anycast (192.88.99.0/24)",
        (198, 18..=19, _) => "benchmarking (198.18.0.0/15)",
        (224..=239, _, _) => "multicast",
        (240..=255, _, _) => "reserved or broadcast",
        _ => return None,
    };
    Some(reason)
}

fn v6_reason(ip: Ipv6Addr, allow_loopback: bool) -> Option<&'static str> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return v4_reason(v4, allow_loopback);
    }
    let s = ip.segments();
    let reason = match s {
        _ if ip.is_loopback() && allow_loopback => return None,
        _ if ip.is_loopback() => "loopback",
        _ if ip.is_unspecified() => "unspecified",
        [0, 0, 0, 0, 0, 0, _, _] => "IPv4-compatible",
        [0, 0, 0, 0, 0xffff, 0, _, _] => "IPv4-translated (::ffff:0:0:0/96)",
        [0x64, 0xff9b, 1, ..] => "local-use NAT64 (64:ff9b:1::/48)",
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => {
            return v4_reason(Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo)), false);
        }
        [0x2002, hi, lo, ..] => return v4_reason(Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo)), false),
        [0x100, 0, 0, 0, ..] => "discard (100::/64)",
        [0x2001, 0, ..] => "Teredo (2001::/32)",
        [0x2001, 0xdb8, ..] => "documentation (2001:db8::/32)",
        [x, ..] if x & 0xfe00 == 0xfc00 => "unique local (fc00::/7)",
        [x, ..] if x & 0xffc0 == 0xfe80 => "link-local (fe80::/10)",
        [x, ..] if x & 0xffc0 == 0xfec0 => "site-local (fec0::/10)",
        [x, ..] if x & 0xff00 == 0xff00 => "multicast",
        _ => return None,
    };
    Some(reason)
}

/// Checks the shape of a webhook URL: it parses, is `https://` (or `http://` to a loopback
/// literal or `localhost` when `allow_loopback`), has a host and no userinfo, and a host given
/// as an IP literal is allowed. Returns the rule broken.
pub fn check_url(raw: &str, allow_loopback: bool) -> Result<Url, String> {
    let url = Url::parse(raw.trim()).map_err(|e| format!("must be an absolute URL ({e})"))?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err("must not carry a user name or password".into());
    }
    let Some(host) = url.host_str().filter(|h| !h.is_empty()) else {
        return Err("must have a host".into());
    };
    let literal = host.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>().ok();
    if let Some(ip) = literal
        && let Some(reason) = forbidden_reason(ip, allow_loopback)
    {
        return Err(format!("must not point to a {reason} address"));
    }
    match url.scheme() {
        "https" => {}
        "http" if allow_loopback && (literal.is_some_and(|ip| ip.is_loopback()) || host == "localhost") => {}
        "http" => return Err("must use https".into()),
        other => return Err(format!("must use https, not {other}")),
    }
    if url.fragment().is_some() {
        return Err("must not have a fragment".into());
    }
    Ok(url)
}

/// Resolves the URL's host (a blocking lookup) and checks that every address is allowed.
pub fn check_resolves(url: &Url, allow_loopback: bool) -> Result<(), String> {
    let host = url.host_str().unwrap_or_default().trim_start_matches('[').trim_end_matches(']');
    let port = url.port_or_known_default().unwrap_or(443);
    let addrs: Vec<SocketAddr> =
        (host, port).to_socket_addrs().map_err(|e| format!("the host must resolve ({e})"))?.collect();
    if addrs.is_empty() {
        return Err("the host must resolve".into());
    }
    if url.scheme() == "http" && addrs.iter().any(|a| !a.ip().is_loopback()) {
        return Err("must use https unless the host is loopback".into());
    }
    for a in addrs {
        if let Some(reason) = forbidden_reason(a.ip(), allow_loopback) {
            return Err(format!("the host must not resolve to a {reason} address ({})", a.ip()));
        }
    }
    Ok(())
}

/// The delivery client's resolver: the system's lookup with forbidden addresses dropped, and an
/// error when none is left. With `loopback_only`, every address but loopback is dropped (the
/// client of `http://` URLs).
#[derive(Debug, Clone, Copy)]
pub struct PublicResolver {
    /// Whether loopback addresses are allowed.
    pub allow_loopback: bool,
    /// Whether only loopback addresses are allowed.
    pub loopback_only: bool,
}

impl Resolve for PublicResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let this = *self;
        let host = name.as_str().to_string();
        Box::pin(async move {
            let found = tokio::net::lookup_host((host.as_str(), 0)).await?;
            let allowed: Vec<SocketAddr> = found
                .filter(|a| {
                    forbidden_reason(a.ip(), this.allow_loopback).is_none()
                        && (!this.loopback_only || a.ip().is_loopback())
                })
                .collect();
            if allowed.is_empty() {
                return Err(format!("refused: {host} resolves to no allowed (public) address").into());
            }
            Ok(Box::new(allowed.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(s: &str) -> Option<&'static str> {
        forbidden_reason(s.parse().unwrap(), false)
    }

    #[test]
    fn internal_addresses_are_forbidden() {
        for ip in [
            "127.0.0.1",
            "127.255.0.9",
            "0.0.0.0",
            "10.0.0.1",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "100.64.0.1",
            "100.127.255.255",
            "169.254.169.254",
            "224.0.0.1",
            "255.255.255.255",
            "::1",
            "::",
            "fe80::1",
            "fc00::1",
            "fd12:3456::1",
            "ff02::1",
            "::ffff:10.0.0.1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::a00:1",
            "2002:c0a8:101::1",
            "2001:db8::1",
            "192.88.99.1",
            "192.88.99.255",
            "2002:c058:6301::1",
            "::ffff:0:808:808",
            "::ffff:0:a00:1",
            "64:ff9b:1::808:808",
            "64:ff9b:1:ffff::1",
        ] {
            assert!(reason(ip).is_some(), "{ip} must be forbidden");
        }
    }

    #[test]
    fn public_addresses_are_allowed() {
        for ip in [
            "8.8.8.8",
            "1.1.1.1",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
            "192.88.98.1",
            "192.88.100.1",
            "64:ff9b::808:808",
        ] {
            assert_eq!(reason(ip), None, "{ip} must be allowed");
        }
    }

    #[test]
    fn each_translation_and_relay_range_is_named() {
        assert_eq!(reason("64:ff9b:1::808:808"), Some("local-use NAT64 (64:ff9b:1::/48)"));
        assert_eq!(reason("::ffff:0:808:808"), Some("IPv4-translated (::ffff:0:0:0/96)"));
        assert_eq!(reason("192.88.99.1"), Some("6to4 relay anycast (192.88.99.0/24)"));
        assert_eq!(reason("2002:c058:6301::1"), Some("6to4 relay anycast (192.88.99.0/24)"), "6to4 of the relay");
    }

    #[test]
    fn loopback_is_allowed_only_when_configured() {
        for ip in ["127.0.0.1", "::1", "::ffff:127.0.0.1"] {
            assert_eq!(forbidden_reason(ip.parse().unwrap(), true), None);
        }
        assert!(forbidden_reason("10.0.0.1".parse().unwrap(), true).is_some());
    }

    #[test]
    fn url_rules() {
        assert!(check_url("https://hooks.example.com/x", false).is_ok());
        assert!(check_url("http://hooks.example.com/x", false).unwrap_err().contains("https"));
        assert!(check_url("https://user:pw@hooks.example.com/", false).unwrap_err().contains("user"));
        assert!(check_url("https://10.0.0.1/", false).unwrap_err().contains("private"));
        assert!(check_url("https://[::1]/", false).unwrap_err().contains("loopback"));
        assert!(check_url("http://127.0.0.1:9/", true).is_ok());
        assert!(check_url("http://10.0.0.1/", true).is_err());
        assert!(check_url("ftp://hooks.example.com/", false).is_err());
        assert!(check_url("not a url", false).is_err());
    }
}
