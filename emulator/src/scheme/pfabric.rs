//! pFabric (Alizadeh et al., SIGCOMM'13), written against the whole-router API
//! because its buffer is not a set of FIFOs: packets carry their flow's
//! remaining size as priority (lower = more urgent); a full port drops its
//! lowest-priority packet; the scheduler sends the earliest-buffered packet of
//! the flow that holds the highest-priority packet (no reordering within a flow).

use super::route::TableRoute;
use super::{PortSet, Route, Router, RouterPorts};
use crate::packet::{Packet, PortId, Slot};
use crate::scheme::PortCounters;

pub struct PFabricRouter {
    route: TableRoute,
    /// Per-port buffer in arrival order; small (a couple of BDPs), so linear scans.
    buffers: Vec<Vec<Packet>>,
    capacity: Vec<u32>,
    counters: Vec<PortCounters>,
    busy: PortSet,
}

impl PFabricRouter {
    pub fn new(ports: &RouterPorts, route: TableRoute) -> Self {
        PFabricRouter {
            route,
            buffers: ports
                .buffers
                .iter()
                .map(|&b| Vec::with_capacity(b as usize))
                .collect(),
            capacity: ports.buffers.clone(),
            counters: vec![PortCounters::default(); ports.buffers.len()],
            busy: PortSet::new(ports.buffers.len()),
        }
    }
}

impl Router for PFabricRouter {
    fn receive(&mut self, pkt: Packet, in_port: PortId, _now: Slot) {
        let port = self.route.route(&pkt, in_port) as usize;
        let buf = &mut self.buffers[port];
        let c = &mut self.counters[port];
        self.busy.insert(port as PortId);
        if (buf.len() as u32) < self.capacity[port] {
            buf.push(pkt);
            c.enqueued += 1;
            return;
        }
        // Full: the worst of (buffer + arrival) goes; ties drop the later arrival.
        let worst = buf
            .iter()
            .enumerate()
            .max_by_key(|&(i, p)| (p.prio, i))
            .map(|(i, p)| (i, p.prio));
        match worst {
            Some((i, prio)) if prio > pkt.prio => {
                buf.remove(i);
                buf.push(pkt);
                c.enqueued += 1;
                c.dropped += 1;
            }
            _ => c.dropped += 1,
        }
    }

    fn transmit(&mut self, port: PortId, _now: Slot) -> Option<Packet> {
        let buf = &mut self.buffers[port as usize];
        let best = buf.iter().min_by_key(|p| p.prio)?;
        let flow = best.flow;
        let first = buf.iter().position(|p| p.flow == flow)?;
        self.counters[port as usize].transmitted += 1;
        let p = buf.remove(first);
        if buf.is_empty() {
            self.busy.remove(port);
        }
        Some(p)
    }

    fn occupancy(&self, port: PortId) -> u32 {
        self.buffers[port as usize].len() as u32
    }
    fn port_count(&self) -> usize {
        self.buffers.len()
    }
    fn counters(&self) -> &[PortCounters] {
        &self.counters
    }
    fn backlog(&self) -> &[u64] {
        &self.busy.words
    }
}
