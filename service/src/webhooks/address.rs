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

/// One entry of IANA's IPv4 or IPv6 Special-Purpose Address Registry (RFC 6890 and its
/// updates; the registries as of 2026): the block, its name, and whether the registry marks it
/// globally reachable (`None` where it says N/A).
#[derive(Debug, Clone, Copy)]
pub struct SpecialBlock {
    /// The block in CIDR notation.
    pub cidr: &'static str,
    /// The registry's name for it.
    pub name: &'static str,
    /// The registry's "Globally Reachable" column.
    pub globally_reachable: Option<bool>,
}

const fn block(cidr: &'static str, name: &'static str, globally_reachable: Option<bool>) -> SpecialBlock {
    SpecialBlock { cidr, name, globally_reachable }
}

/// IANA IPv4 Special-Purpose Address Registry, every entry.
pub const IPV4_SPECIAL: &[SpecialBlock] = &[
    block("0.0.0.0/8", "\"this network\" (0.0.0.0/8)", Some(false)),
    block("0.0.0.0/32", "\"this host on this network\" (0.0.0.0/32)", Some(false)),
    block("10.0.0.0/8", "private (10.0.0.0/8)", Some(false)),
    block("100.64.0.0/10", "shared address space (100.64.0.0/10)", Some(false)),
    block("127.0.0.0/8", "loopback", Some(false)),
    block("169.254.0.0/16", "link-local (169.254.0.0/16)", Some(false)),
    block("172.16.0.0/12", "private (172.16.0.0/12)", Some(false)),
    block("192.0.0.0/24", "IETF protocol assignments (192.0.0.0/24)", Some(false)),
    block("192.0.0.0/29", "IPv4 service continuity prefix (192.0.0.0/29)", Some(false)),
    block("192.0.0.8/32", "IPv4 dummy address (192.0.0.8/32)", Some(false)),
    block("192.0.0.9/32", "port control protocol anycast (192.0.0.9/32)", Some(true)),
    block("192.0.0.10/32", "TURN anycast (192.0.0.10/32)", Some(true)),
    block("192.0.0.170/32", "NAT64/DNS64 discovery (192.0.0.170/32)", Some(false)),
    block("192.0.0.171/32", "NAT64/DNS64 discovery (192.0.0.171/32)", Some(false)),
    block("192.0.2.0/24", "documentation (192.0.2.0/24)", Some(false)),
    block("192.31.196.0/24", "AS112-v4 (192.31.196.0/24)", Some(true)),
    block("192.52.193.0/24", "AMT (192.52.193.0/24)", Some(true)),
    block("192.88.99.0/24", "6to4 relay anycast (192.88.99.0/24)", None),
    block("192.168.0.0/16", "private (192.168.0.0/16)", Some(false)),
    block("192.175.48.0/24", "direct delegation AS112 service (192.175.48.0/24)", Some(true)),
    block("198.18.0.0/15", "benchmarking (198.18.0.0/15)", Some(false)),
    block("198.51.100.0/24", "documentation (198.51.100.0/24)", Some(false)),
    block("203.0.113.0/24", "documentation (203.0.113.0/24)", Some(false)),
    block("240.0.0.0/4", "reserved (240.0.0.0/4)", Some(false)),
    block("255.255.255.255/32", "limited broadcast (255.255.255.255/32)", Some(false)),
];

/// IANA IPv6 Special-Purpose Address Registry, every entry.
pub const IPV6_SPECIAL: &[SpecialBlock] = &[
    block("::1/128", "loopback", Some(false)),
    block("::/128", "unspecified", Some(false)),
    block("::ffff:0:0/96", "IPv4-mapped (::ffff:0:0/96)", Some(false)),
    block("64:ff9b::/96", "IPv4-IPv6 translation (64:ff9b::/96)", Some(true)),
    block("64:ff9b:1::/48", "local-use NAT64 (64:ff9b:1::/48)", Some(false)),
    block("100::/64", "discard (100::/64)", Some(false)),
    block("100:0:0:1::/64", "dummy IPv6 prefix (100:0:0:1::/64)", Some(false)),
    block("2001::/23", "IETF protocol assignments (2001::/23)", Some(false)),
    block("2001::/32", "Teredo (2001::/32)", None),
    block("2001:1::1/128", "port control protocol anycast (2001:1::1/128)", Some(true)),
    block("2001:1::2/128", "TURN anycast (2001:1::2/128)", Some(true)),
    block("2001:1::3/128", "DNS-SD service registration protocol anycast (2001:1::3/128)", Some(true)),
    block("2001:2::/48", "benchmarking (2001:2::/48)", Some(false)),
    block("2001:3::/32", "AMT (2001:3::/32)", Some(true)),
    block("2001:4:112::/48", "AS112-v6 (2001:4:112::/48)", Some(true)),
    block("2001:10::/28", "deprecated ORCHID (2001:10::/28)", Some(false)),
    block("2001:20::/28", "ORCHIDv2 (2001:20::/28)", Some(true)),
    block("2001:30::/28", "drone remote ID entity tags (2001:30::/28)", Some(true)),
    block("2001:db8::/32", "documentation (2001:db8::/32)", Some(false)),
    block("2002::/16", "6to4 (2002::/16)", None),
    block("2620:4f:8000::/48", "direct delegation AS112 service (2620:4f:8000::/48)", Some(true)),
    block("3fff::/20", "documentation (3fff::/20)", Some(false)),
    block("5f00::/16", "segment routing SIDs (5f00::/16)", Some(false)),
    block("fc00::/7", "unique local (fc00::/7)", Some(false)),
    block("fe80::/10", "link-local (fe80::/10)", Some(false)),
];

impl SpecialBlock {
    /// The block as (first address, prefix length) over 128 bits (IPv4 in the low 32).
    fn parse(&self) -> (u128, u32, bool) {
        let (addr, len) = self.cidr.split_once('/').expect("the registry tables are CIDR blocks");
        let len: u32 = len.parse().expect("a prefix length");
        match addr.parse::<IpAddr>().expect("an address") {
            IpAddr::V4(v4) => (u128::from(u32::from(v4)), len, true),
            IpAddr::V6(v6) => (u128::from(v6), len, false),
        }
    }

    /// Whether `ip` is in the block.
    pub fn contains(&self, ip: IpAddr) -> bool {
        let (first, len, v4) = self.parse();
        let (bits, width) = match ip {
            IpAddr::V4(a) if v4 => (u128::from(u32::from(a)), 32),
            IpAddr::V6(a) if !v4 => (u128::from(a), 128),
            _ => return false,
        };
        let shift = width - len;
        shift >= 128 || bits >> shift == first >> shift
    }

    /// Whether a webhook may reach addresses of this block: only where the registry says
    /// globally reachable. The N/A entries are refused too, except 6to4 (2002::/16), whose
    /// embedded IPv4 address is checked instead.
    fn refused(&self) -> bool {
        self.globally_reachable != Some(true) && self.cidr != "2002::/16"
    }
}

/// Why `ip` must not be connected to, or `None` when it may be. An address is refused when any
/// entry of the special-purpose registries that contains it is not globally reachable (so the
/// whole of 2001::/23 is refused, including its reachable anycast and ORCHIDv2 blocks, and
/// 192.0.0.9 and .10 with the rest of 192.0.0.0/24); multicast, IPv4-compatible and site-local
/// IPv6 are refused too, and the IPv4 address inside 6to4 and NAT64 (64:ff9b::/96) addresses
/// is checked like a plain one. With `allow_loopback`, loopback is allowed (tests, local
/// development).
pub fn forbidden_reason(ip: IpAddr, allow_loopback: bool) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => v4_reason(v4, allow_loopback),
        IpAddr::V6(v6) => v6_reason(v6, allow_loopback),
    }
}

fn registry_reason(table: &'static [SpecialBlock], ip: IpAddr) -> Option<&'static str> {
    table.iter().find(|b| b.refused() && b.contains(ip)).map(|b| b.name)
}

fn v4_reason(ip: Ipv4Addr, allow_loopback: bool) -> Option<&'static str> {
    if ip.is_loopback() {
        return (!allow_loopback).then_some("loopback");
    }
    if ip.is_multicast() {
        return Some("multicast (224.0.0.0/4)");
    }
    registry_reason(IPV4_SPECIAL, IpAddr::V4(ip))
}

fn v6_reason(ip: Ipv6Addr, allow_loopback: bool) -> Option<&'static str> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return v4_reason(v4, allow_loopback);
    }
    if ip.is_loopback() {
        return (!allow_loopback).then_some("loopback");
    }
    let s = ip.segments();
    let embedded = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    match s {
        [0, 0, 0, 0, 0, 0, _, _] if !ip.is_unspecified() => return Some("IPv4-compatible (::/96)"),
        [0, 0, 0, 0, 0xffff, 0, _, _] => return Some("IPv4-translated (::ffff:0:0:0/96)"),
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => return v4_reason(embedded(hi, lo), false),
        [0x2002, hi, lo, ..] => return v4_reason(embedded(hi, lo), false),
        [x, ..] if x & 0xffc0 == 0xfec0 => return Some("site-local (fec0::/10)"),
        [x, ..] if x & 0xff00 == 0xff00 => return Some("multicast (ff00::/8)"),
        _ => {}
    }
    registry_reason(IPV6_SPECIAL, IpAddr::V6(ip))
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

    /// Every entry of both registries: the first and last address of each block not globally
    /// reachable is refused, naming that block or one containing it; a reachable block is
    /// allowed unless it lies inside one that is not (2001::/23, 192.0.0.0/24).
    #[test]
    fn every_registry_entry_is_refused_unless_globally_reachable() {
        let last = |b: &SpecialBlock| -> IpAddr {
            let (first, len, v4) = b.parse();
            if v4 {
                let host = if len == 32 { 0 } else { u32::MAX >> len };
                IpAddr::V4(Ipv4Addr::from(first as u32 | host))
            } else {
                let host = if len == 128 { 0 } else { u128::MAX >> len };
                IpAddr::V6(Ipv6Addr::from(first | host))
            }
        };
        let first = |b: &SpecialBlock| -> IpAddr { b.cidr.split_once('/').unwrap().0.parse().unwrap() };
        let mut refused = 0;
        for table in [IPV4_SPECIAL, IPV6_SPECIAL] {
            for b in table {
                for ip in [first(b), last(b)] {
                    let inside_refused = table.iter().any(|o| o.refused() && o.contains(ip));
                    let reason = forbidden_reason(ip, false);
                    if b.cidr == "2002::/16" || b.cidr == "64:ff9b::/96" {
                        // The embedded IPv4 address decides (0.0.0.0 and 255.255.255.255 here).
                        assert!(reason.is_some(), "{ip} of {}", b.cidr);
                    } else if b.refused() || inside_refused {
                        assert!(reason.is_some(), "{ip} of {} must be refused", b.cidr);
                        refused += 1;
                    } else {
                        assert_eq!(reason, None, "{ip} of {} is globally reachable", b.cidr);
                    }
                }
            }
        }
        assert!(refused >= 2 * 35, "{refused}");
        // The ranges the second attack found accepted, each refused now.
        for ip in [
            "2001:2::1",
            "2001:2:0:ffff::1",
            "2001:1::3",
            "2001:4:112::1",
            "2001:10::1",
            "2001:20::1",
            "2001:30::1",
            "2001:1ff:ffff::1",
            "3fff::1",
            "3fff:fff:ffff::1",
            "5f00::1",
            "5f00:ffff::1",
            "100:0:0:1::1",
            "192.0.0.9",
            "192.0.0.171",
            "192.88.99.7",
        ] {
            assert!(reason(ip).is_some(), "{ip} must be forbidden");
        }
        assert_eq!(reason("2620:4f:8000::1"), None, "AS112 direct delegation is globally reachable");
        assert_eq!(reason("192.31.196.1"), None, "AS112-v4 is globally reachable");
        assert_eq!(reason("2001:200::1"), None, "outside 2001::/23");
    }

    #[test]
    fn each_translation_and_relay_range_is_named() {
        assert_eq!(reason("64:ff9b:1::808:808"), Some("local-use NAT64 (64:ff9b:1::/48)"));
        assert_eq!(reason("::ffff:0:808:808"), Some("IPv4-translated (::ffff:0:0:0/96)"));
        assert_eq!(reason("2001:db8::1"), Some("documentation (2001:db8::/32)"));
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
