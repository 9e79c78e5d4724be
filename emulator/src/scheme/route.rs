//! Destination-based routing with per-flow ECMP over equal-cost next hops.

use super::Route;
use crate::packet::{Packet, PortId};

/// Per-switch forwarding table: destination endpoint -> equal-cost output ports.
#[derive(Clone, Debug, Default)]
pub struct TableRoute {
    /// (offset into `ports`, number of candidates), indexed by destination endpoint.
    entries: Vec<(u32, u16)>,
    ports: Vec<PortId>,
}

impl TableRoute {
    /// `next_hops[dst]` lists the candidate output ports towards endpoint `dst`.
    pub fn new(next_hops: &[Vec<PortId>]) -> Self {
        let mut entries = Vec::with_capacity(next_hops.len());
        let mut ports = Vec::new();
        for hops in next_hops {
            entries.push((ports.len() as u32, hops.len() as u16));
            ports.extend_from_slice(hops);
        }
        TableRoute { entries, ports }
    }
    pub fn candidates(&self, dst: u16) -> &[PortId] {
        let (off, n) = self.entries[dst as usize];
        &self.ports[off as usize..off as usize + n as usize]
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
        let (off, n) = self.entries[pkt.dst as usize];
        let i = if n == 1 {
            0
        } else {
            flow_hash(pkt.flow) % n as u32
        };
        self.ports[(off + i) as usize]
    }
}
