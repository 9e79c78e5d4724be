//! Deterministic identities of the lab fabric: ONOS-style switch ids, host
//! MACs and IPs, and the topology document of `GET /v1/topology`.

use std::net::Ipv4Addr;

use serde_json::{Value, json};

use super::rules::Mac;
use crate::fabric::topology::{Peer, Topology};

/// Switch index i is `of:%016x` of i + 1.
pub fn switch_id(idx: usize) -> String {
    format!("of:{:016x}", idx + 1)
}

pub fn parse_switch_id(s: &str, switches: usize) -> Option<usize> {
    let hex = s.strip_prefix("of:")?;
    if hex.len() != 16 {
        return None;
    }
    let n = u64::from_str_radix(hex, 16).ok()?;
    if n >= 1 && n <= switches as u64 {
        Some(n as usize - 1)
    } else {
        None
    }
}

/// Host index i has MAC 00:00:00:00:hh:ll of i + 1.
pub fn host_mac(idx: usize) -> Mac {
    Mac(idx as u64 + 1)
}

/// Host index i has IP 10.0.hh.ll of i + 1.
pub fn host_ip(idx: usize) -> Ipv4Addr {
    let n = idx as u32 + 1;
    Ipv4Addr::new(
        10,
        ((n >> 16) & 0xff) as u8,
        ((n >> 8) & 0xff) as u8,
        (n & 0xff) as u8,
    )
}

pub fn host_by_mac(mac: Mac, hosts: usize) -> Option<usize> {
    if mac.0 >= 1 && mac.0 <= hosts as u64 {
        Some(mac.0 as usize - 1)
    } else {
        None
    }
}

/// `edge`/`aggregation`/`core` from the fat-tree builder's names; `switch` otherwise.
pub fn role(name: &str, single: bool) -> &'static str {
    if single {
        "switch"
    } else if name.starts_with("edge") {
        "edge"
    } else if name.starts_with("agg") {
        "aggregation"
    } else if name.starts_with("core") {
        "core"
    } else if name.starts_with("tor") {
        "edge"
    } else {
        "switch"
    }
}

pub fn topology_json(topo: &Topology, link_bps: u64) -> Value {
    let single = topo.switches.len() == 1;
    let switches: Vec<Value> = topo
        .switches
        .iter()
        .enumerate()
        .map(|(i, s)| {
            json!({"id": switch_id(i), "role": role(&s.name, single),
                   "ports": (1..=s.ports.len()).collect::<Vec<_>>()})
        })
        .collect();
    let mut links = Vec::new();
    for (i, s) in topo.switches.iter().enumerate() {
        for (p, port) in s.ports.iter().enumerate() {
            if let Peer::Switch { switch, port: dp } = port.peer {
                links.push(json!({"src": switch_id(i), "srcPort": p + 1,
                    "dst": switch_id(switch as usize), "dstPort": dp as usize + 1,
                    "capacityBps": (port.link.gbps * 1e9) as u64}));
            }
        }
    }
    let hosts: Vec<Value> = topo
        .endpoints
        .iter()
        .enumerate()
        .map(|(i, e)| {
            json!({"mac": host_mac(i).to_string(), "ip": host_ip(i).to_string(),
                   "switch": switch_id(e.switch as usize), "port": e.port as usize + 1})
        })
        .collect();
    json!({"version": 1, "linkBps": link_bps, "switches": switches, "links": links, "hosts": hosts})
}
