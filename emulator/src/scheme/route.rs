//! Destination-based routing with per-flow ECMP over equal-cost next hops.

use super::Route;
use crate::packet::{Packet, PortId};

/// Per-switch forwarding table: destination endpoint -> equal-cost output ports.
#[derive(Clone, Debug, Default)]
pub struct TableRoute {
    /// Indexed by destination endpoint.
    entries: Vec<RouteEntry>,
    ports: Vec<PortId>,
}

/// The candidates towards one destination; the first is kept in the entry
/// so that a destination with one next hop costs one lookup.
#[derive(Clone, Copy, Debug, Default)]
struct RouteEntry {
    /// Offset of the candidates in `ports`.
    off: u32,
    /// Number of candidates.
    n: u16,
    first: PortId,
}

impl TableRoute {
    /// `next_hops[dst]` lists the candidate output ports towards endpoint `dst`.
    pub fn new(next_hops: &[Vec<PortId>]) -> Self {
        let mut entries = Vec::with_capacity(next_hops.len());
        let mut ports = Vec::new();
        for hops in next_hops {
            entries.push(RouteEntry {
                off: ports.len() as u32,
                n: hops.len() as u16,
                first: hops.first().copied().unwrap_or(0),
            });
            ports.extend_from_slice(hops);
        }
        TableRoute { entries, ports }
    }
    pub fn candidates(&self, dst: u16) -> &[PortId] {
        let e = self.entries[dst as usize];
        &self.ports[e.off as usize..e.off as usize + e.n as usize]
    }
}

/// Flow hash for ECMP: all packets of a flow take the same path (static hash placement).
#[inline]
pub fn flow_hash(flow: u32) -> u32 {
    flow.wrapping_mul(0x9E37_79B1).rotate_right(16)
}

impl Route for TableRoute {
    #[inline]
    fn route(&mut self, pkt: &Packet, _in_port: PortId) -> PortId {
        let e = self.entries[pkt.dst as usize];
        if e.n == 1 {
            return e.first;
        }
        self.ports[(e.off + flow_hash(pkt.flow) % e.n as u32) as usize]
    }
}
