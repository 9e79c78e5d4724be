//! Which endpoints are real hosts: their namespace, address and veth names,
//! and the checks a configuration must pass before anything is created or
//! opened.

use std::collections::HashSet;
use std::net::Ipv4Addr;

use serde::Deserialize;

use crate::config::{Config, Destination, Mode, Workload};
use crate::fabric::topology::Topology;
use crate::packet::EndpointId;

use super::capture::{CaptureKind, XdpModeSetting};

/// Packets per second the real path may be given by default: `cargo bench
/// -p planck-emu --bench realhost` measured 348-363 k frames per CPU-second
/// for the path alone (under load, docs/emulator.md "Real hosts"), less a
/// margin for the engine's hops. The host links of all real hosts together
/// must fit.
pub const DEFAULT_MAX_PPS: f64 = 300_000.0;

/// `[real_hosts]`: the path's limit and the hosts.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RealHostsConfig {
    /// Most MTU-sized packets per second the real path may be asked to carry:
    /// the sum over real hosts of their link rate in packets per second.
    #[serde(default = "default_max_pps")]
    pub max_pps: f64,
    /// How frames are read from the veths: "afpacket" (default) or "afxdp".
    #[serde(default)]
    pub capture: CaptureKind,
    /// With "afxdp": "native" (the veth driver's XDP, default) or "generic".
    #[serde(default)]
    pub xdp_mode: XdpModeSetting,
    /// How long a frame holds a link: "length" (default), its own length at
    /// the link's rate, as on a wire; "slot", one MTU's time whatever its size
    /// (every packet of the built-in endpoints is one MTU).
    #[serde(default)]
    pub frame_time: FrameTime,
    /// CPUs that do the hosts' kernel receive work, as `taskset -c` takes
    /// them ("1", "1-3", "0,2"): `hosts up` sets RPS on each host's veth to
    /// them and `hosts check` checks it. Without it, a frame the emulator writes
    /// to a host's veth is taken through the host's whole receive path (IP,
    /// TCP, waking the application) inside the emulator's own write, on the
    /// emulator's core: give the hosts' CPUs, not the emulator's.
    #[serde(default)]
    pub receive_cpus: Option<String>,
    #[serde(rename = "host")]
    pub hosts: Vec<RealHostConfig>,
}

/// `real_hosts.frame_time`.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum FrameTime {
    /// A frame holds a link for its length at the link's rate (and a slot
    /// may be made shorter than an MTU's time, `emulation.slot_gbps` above the
    /// links' rate, so that short frames pass in part of an MTU's time).
    #[default]
    Length,
    /// Every frame holds a link for one MTU's time.
    Slot,
}

fn default_max_pps() -> f64 {
    DEFAULT_MAX_PPS
}

/// `[[real_hosts.host]]`: one endpoint of the topology played by a network
/// namespace.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RealHostConfig {
    /// Endpoint name in the topology (`h0`.. in racks and fat trees).
    pub endpoint: String,
    pub namespace: String,
    /// The host's IPv4 address with prefix, e.g. "10.201.0.1/24".
    pub address: String,
    /// The emulator's end of the veth pair, in the emulator's namespace.
    pub veth: String,
    /// The host's end, inside the namespace.
    #[serde(default = "default_host_veth")]
    pub host_veth: String,
}

fn default_host_veth() -> String {
    "eth0".into()
}

/// A CPU list as `taskset -c` and sysfs write it ("1", "0-3", "0,2-3"):
/// the CPUs in increasing order, none twice. One-line errors.
pub fn parse_cpu_list(s: &str) -> Result<Vec<u32>, String> {
    const MAX_CPU: u32 = 4095;
    let bad = |why: &str| format!("CPU list {s:?}: {why} (e.g. \"1\", \"1-3\", \"0,2-3\")");
    let mut cpus = Vec::new();
    for part in s.split(',') {
        let part = part.trim();
        let num = |t: &str| -> Result<u32, String> {
            t.trim()
                .parse::<u32>()
                .ok()
                .filter(|c| *c <= MAX_CPU)
                .ok_or_else(|| bad(&format!("{t:?} is not a CPU number 0..={MAX_CPU}")))
        };
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (num(a)?, num(b)?),
            None => {
                let c = num(part)?;
                (c, c)
            }
        };
        if lo > hi {
            return Err(bad(&format!("range {part:?} runs backwards")));
        }
        cpus.extend(lo..=hi);
    }
    cpus.sort_unstable();
    let n = cpus.len();
    cpus.dedup();
    if cpus.len() != n {
        return Err(bad("a CPU is listed twice"));
    }
    Ok(cpus)
}

/// The CPUs as a sysfs CPU mask: hexadecimal words of 32 CPUs, most
/// significant first, separated by commas ("2", "00000001,00000000").
pub fn cpu_mask(cpus: &[u32]) -> String {
    let words = cpus.iter().max().map_or(1, |m| *m as usize / 32 + 1);
    let mut w = vec![0u32; words];
    for c in cpus {
        w[*c as usize / 32] |= 1 << (c % 32);
    }
    let mut out: Vec<String> = w.iter().rev().map(|x| format!("{x:08x}")).collect();
    out[0] = format!("{:x}", w[words - 1]);
    out.join(",")
}

/// A sysfs CPU mask read back ("3", "00000000,00000002", with a newline)
/// as the CPUs it holds.
pub fn parse_cpu_mask(s: &str) -> Result<Vec<u32>, String> {
    let mut cpus = Vec::new();
    let words: Vec<&str> = s.trim().split(',').collect();
    for (i, word) in words.iter().rev().enumerate() {
        let w = u32::from_str_radix(word, 16)
            .map_err(|_| format!("CPU mask {:?}: not hexadecimal words", s.trim()))?;
        cpus.extend((0..32).filter(|b| w & (1 << b) != 0).map(|b| i as u32 * 32 + b));
    }
    Ok(cpus)
}

/// A real host resolved against the topology.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedHost {
    pub endpoint: EndpointId,
    pub namespace: String,
    pub ip: Ipv4Addr,
    pub prefix: u8,
    pub veth: String,
    pub host_veth: String,
}

impl ResolvedHost {
    /// The MAC of the host's end: locally administered, from the endpoint id,
    /// so every host's neighbour table can be written ahead.
    pub fn mac(&self) -> [u8; 6] {
        let e = self.endpoint.to_be_bytes();
        [0x02, 0x70, 0x6b, 0x00, e[0], e[1]]
    }
    pub fn mac_string(&self) -> String {
        self.mac()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .join(":")
    }
}

/// Address "a.b.c.d/len".
pub fn parse_address(s: &str) -> Result<(Ipv4Addr, u8), String> {
    let (ip, len) = s
        .split_once('/')
        .ok_or_else(|| format!("address {s:?} needs a prefix length (a.b.c.d/len)"))?;
    let ip: Ipv4Addr = ip
        .parse()
        .map_err(|_| format!("address {s:?}: not an IPv4 address"))?;
    let len: u8 = len
        .parse()
        .ok()
        .filter(|l| (1..=30).contains(l))
        .ok_or_else(|| format!("address {s:?}: prefix length must be 1..=30"))?;
    if ip.is_unspecified() || ip.is_broadcast() || ip.is_multicast() || ip.is_loopback() {
        return Err(format!("address {s:?}: not a unicast host address"));
    }
    Ok((ip, len))
}

fn same_subnet(a: Ipv4Addr, b: Ipv4Addr, len: u8) -> bool {
    let mask = u32::MAX << (32 - len as u32);
    u32::from(a) & mask == u32::from(b) & mask
}

/// Linux interface names: 1..=15 bytes, no '/', ':' or whitespace.
fn check_ifname(what: &str, n: &str) -> Result<(), String> {
    if n.is_empty() || n.len() > 15 || n.chars().any(|c| c == '/' || c == ':' || c.is_whitespace())
    {
        return Err(format!(
            "{what} {n:?} is not an interface name (1-15 characters, no '/', ':' or spaces)"
        ));
    }
    Ok(())
}

fn check_nsname(n: &str) -> Result<(), String> {
    if n.is_empty()
        || n.len() > 64
        || n == "."
        || n == ".."
        || !n
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
    {
        return Err(format!(
            "namespace {n:?}: 1-64 characters of letters, digits, '-', '_', '.'"
        ));
    }
    Ok(())
}

impl RealHostsConfig {
    /// Resolve names against the topology and check everything that can be
    /// checked without touching the system.
    pub fn resolve(&self, topo: &Topology) -> Result<Vec<ResolvedHost>, String> {
        let mut out = Vec::new();
        let (mut ns, mut veths, mut eps, mut ips) = (
            HashSet::new(),
            HashSet::new(),
            HashSet::new(),
            HashSet::new(),
        );
        if self.hosts.is_empty() {
            return Err("real_hosts: no host listed".into());
        }
        for h in &self.hosts {
            let at = |m: String| format!("real host {:?}: {m}", h.endpoint);
            let endpoint = topo
                .endpoints
                .iter()
                .position(|e| e.name == h.endpoint)
                .ok_or_else(|| at("no endpoint of that name in the topology".into()))?
                as EndpointId;
            check_nsname(&h.namespace).map_err(at)?;
            check_ifname("veth", &h.veth).map_err(at)?;
            check_ifname("host_veth", &h.host_veth).map_err(at)?;
            let (ip, prefix) = parse_address(&h.address).map_err(at)?;
            if !eps.insert(endpoint) {
                return Err(at("listed twice".into()));
            }
            if !ns.insert(h.namespace.clone()) {
                return Err(at(format!("namespace {:?} used twice", h.namespace)));
            }
            if !veths.insert(h.veth.clone()) {
                return Err(at(format!("veth {:?} used twice", h.veth)));
            }
            if !ips.insert(ip) {
                return Err(at(format!("address {ip} used twice")));
            }
            out.push(ResolvedHost {
                endpoint,
                namespace: h.namespace.clone(),
                ip,
                prefix,
                veth: h.veth.clone(),
                host_veth: h.host_veth.clone(),
            });
        }
        for a in &out {
            for b in &out {
                if !same_subnet(a.ip, b.ip, a.prefix) {
                    return Err(format!(
                        "real hosts: {} and {} are not in one subnet (/{}); hosts reach each other without a router",
                        a.ip, b.ip, a.prefix
                    ));
                }
            }
        }
        Ok(out)
    }

    /// Checks against the rest of the configuration (one-line errors).
    pub fn validate(&self, cfg: &Config, topo: &Topology) -> Result<(), String> {
        let hosts = self.resolve(topo)?;
        let e = &cfg.emulation;
        if e.mode != Mode::Realtime {
            return Err("real hosts need emulation.mode = \"realtime\"".into());
        }
        if e.threads != 1 {
            return Err(format!(
                "real hosts run on one worker for now: emulation.threads must be 1, got {}",
                e.threads
            ));
        }
        if e.mtu_bytes > 9000 {
            return Err(format!(
                "real hosts: emulation.mtu_bytes must be <= 9000 (a veth's jumbo MTU), got {}",
                e.mtu_bytes
            ));
        }
        let max_frame = e.mtu_bytes as usize + super::frame::ETH_HEADER;
        if self.capture == CaptureKind::Afxdp && max_frame > super::xdp::MAX_FRAME {
            return Err(format!(
                "real_hosts.capture = \"afxdp\" takes frames up to {} bytes: emulation.mtu_bytes must be <= {}, got {}",
                super::xdp::MAX_FRAME,
                super::xdp::MAX_FRAME - super::frame::ETH_HEADER,
                e.mtu_bytes
            ));
        }
        if self.frame_time == FrameTime::Length && cfg.pint.active(&cfg.transport) {
            return Err(
                "real_hosts.frame_time = \"length\" keeps a frame's length where PINT and HPCC write their fields: set frame_time = \"slot\" with them".into(),
            );
        }
        if let Some(c) = &self.receive_cpus {
            parse_cpu_list(c).map_err(|e| format!("real_hosts.receive_cpus: {e}"))?;
        }
        if !(self.max_pps.is_finite() && self.max_pps > 0.0) {
            return Err(format!(
                "real_hosts.max_pps must be > 0, got {}",
                self.max_pps
            ));
        }
        let pps: f64 = hosts
            .iter()
            .map(|h| {
                topo.endpoints[h.endpoint as usize].link.gbps * 1e9 / (e.mtu_bytes as f64 * 8.0)
            })
            .sum();
        if pps > self.max_pps {
            return Err(format!(
                "real hosts' links add up to {:.0} packets/s, above what the real path carries (real_hosts.max_pps = {:.0}); slow their links or raise max_pps after measuring",
                pps, self.max_pps
            ));
        }
        let real: HashSet<EndpointId> = hosts.iter().map(|h| h.endpoint).collect();
        for w in &cfg.workload {
            let name = |id: u16| topo.endpoints[id as usize].name.clone();
            match w {
                Workload::Flows { flows } => {
                    if let Some(f) = flows
                        .iter()
                        .find(|f| real.contains(&f.src) || real.contains(&f.dst))
                    {
                        let id = if real.contains(&f.src) { f.src } else { f.dst };
                        return Err(format!(
                            "workload flows: endpoint {} is a real host; built-in flows run between built-in endpoints",
                            name(id)
                        ));
                    }
                }
                Workload::OpenLoop {
                    sources,
                    destination,
                    ..
                } => {
                    if let Some(s) = sources.iter().find(|s| real.contains(s)) {
                        return Err(format!(
                            "workload open_loop: source {} is a real host",
                            name(*s)
                        ));
                    }
                    match destination {
                        Destination::Endpoint(d) if real.contains(d) => {
                            return Err(format!(
                                "workload open_loop: destination {} is a real host",
                                name(*d)
                            ));
                        }
                        Destination::Random(_) => {
                            return Err("workload open_loop: a random destination may be a real host; name one built-in endpoint".into());
                        }
                        _ => {}
                    }
                }
                _ => {
                    return Err("with real hosts, built-in traffic is given as flows or open_loop between built-in endpoints (workloads over all endpoints would include the real hosts)".into());
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_read_as_taskset_writes_them() {
        assert_eq!(parse_cpu_list("1"), Ok(vec![1]));
        assert_eq!(parse_cpu_list("0,2-3"), Ok(vec![0, 2, 3]));
        assert_eq!(parse_cpu_list("3-4, 1"), Ok(vec![1, 3, 4]));
        for bad in ["", "a", "1-", "-1", "3-1", "1,1", "0-2,2", "5000"] {
            assert!(parse_cpu_list(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn cpu_masks_are_sysfs_words() {
        assert_eq!(cpu_mask(&[1]), "2");
        assert_eq!(cpu_mask(&[0, 1, 2, 3]), "f");
        assert_eq!(cpu_mask(&[1, 35]), "8,00000002");
        assert_eq!(cpu_mask(&[32]), "1,00000000");
        for cpus in [vec![1], vec![0, 5, 31], vec![1, 35, 64]] {
            assert_eq!(parse_cpu_mask(&format!("{}\n", cpu_mask(&cpus))), Ok(cpus));
        }
        // As sysfs shows an all-zero mask on a machine with 2 and with 40 CPUs.
        assert_eq!(parse_cpu_mask("0\n"), Ok(vec![]));
        assert_eq!(parse_cpu_mask("00,00000000\n"), Ok(vec![]));
        assert!(parse_cpu_mask("zz").is_err());
    }
}
